# The push to a paired phone (vults-phone's push): a card's push says what the desktop
# notification says (notify.ftl); these are the push's own words.

# Under a card whose target does not fit the notification whole.
push-open-to-read = Open to read it.
# Under "N cards wait" (cards-waiting), past three cards shown one by one.
push-summary-body = Open Vults to answer them.
# Settings → Phone's "Send a test".
push-test-body = A test push from Vults: this phone will buzz when a card waits.
