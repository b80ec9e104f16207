# The phone page (assets/phone/index.html and phone.js). The page formats these itself: they
# are compiled into assets/phone/words.js (vults-app/phone/tests/page.rs checks it and writes it
# again with VULTS_BLESS=1). Arguments only as { $name }, choices only on a number or a word.

# The page's own static words.
phone-loading = Loading…
phone-pair-intro = Pair this phone with the Vults app that showed the QR code. Its keys are made here and never leave this browser.
phone-name-label = Name of this phone
# The name a phone gets when none is typed.
phone-default-name = Phone
phone-pair = Pair
phone-pair-again = Pair again
phone-push-turn-on = Turn on notifications
phone-forget = Forget this pairing

# The status line.
phone-reconnecting = Reconnecting to the broker in { $seconds } s ({ $why })…
phone-broker-no-reply = No reply from Vults through the broker: is the app running and connected to it?
phone-broker-not-connected = Not connected to the broker.
phone-revoked = This phone was revoked in Vults. Scan a new QR code to pair again.
phone-unknown = This Vults does not know this phone (any more). Scan a new QR code to pair again.
phone-answered = Answered.
# $why is the app's reason, in English (the log's words).
phone-refused = Refused: { $why }
# $time is the phone's clock.
phone-connected = Connected · { $time }
phone-not-secure = This browser does not allow cryptography on this page (not a secure context). Open the page over HTTPS or from this computer.
phone-not-paired = Not paired. In Vults, open Settings → Phone and scan the QR code.
phone-ready = Ready to pair.
phone-paired = Paired.

# A card.
phone-whole-text = Whole text
# An edit's parts: the text it replaces, and the text it puts there.
phone-edit-replace = replace
phone-edit-with = with
phone-other = Other:
# $why is what made the call destructive (`rm -r`).
phone-destructive = Destructive: { $why }
phone-hidden = Contains hidden characters: each is written out as ‹U+…› where it stands.
phone-too-large = Too large to show on the phone ({ $kib } KiB): answer it on the desktop, or deny it here.
phone-plan-asks = asks you to approve its plan
phone-feedback = Feedback
phone-feedback-placeholder = What should change? (optional)
phone-approve = Approve
phone-keep-planning = Keep planning
phone-send-answers = Send answers
phone-allow = Allow
phone-always = Always allow
phone-deny = Deny
# $words is the rule's sentence.
phone-always-words = Always allow: { $words }
# The agent's own words about the call.
phone-says = { $agent } says: { $said }
phone-nothing-waits = Nothing is waiting for you.

# Push on the phone.
phone-subscription-refused = Vults refused the subscription: { $why }
phone-notifications-blocked = Notifications are blocked for this page: allow them in the browser's site settings.
phone-no-worker = This browser cannot run the page's service worker here.
phone-push-untrusted = Notifications need this page on a trusted HTTPS address (the broker's web server, or any HTTPS host): a service worker cannot run on the LAN page with Vults' own certificate. See Push in Vults' phone guide.
phone-push-on = Notifications are on: this phone buzzes when a card waits, and you can answer from the notification.
phone-push-off = Get a notification when a card waits, and answer it from there.
