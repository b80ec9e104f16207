# Settings → Notifications: desktop notifications per kind and their sounds, quiet hours, global
# keys. $server, $why and $from are what the desktop itself says.

notifications-title = Notifications
notifications-desktop = This desktop: { $server }. Buttons: { $buttons }; sound: { $sound }.
notifications-yes = yes
notifications-no = no
notifications-none-here = No desktop notifications here: { $why }. Cards still show.
notifications-enabled = Desktop notifications
notifications-enabled-hover = One per session, replaced when it changes, withdrawn when answered
notifications-when = When
notifications-notify = Notify
notifications-sound = Sound
notifications-kind-card = A card (a permission)
notifications-kind-question = A question
notifications-kind-turn-done = A finished turn
notifications-kind-asks-in-terminal = Asks in its terminal
notifications-kind-warning = A hook removed, a limit near
# What a screen reader calls a kind's checkbox.
notifications-notify-of = Notify: { $kind }
notifications-sound-of = Sound: { $kind }
notifications-buttons-when = Allow and Deny are on a notification only when it shows the whole command and the call is not destructive; anything else is answered on its card.
notifications-support = { $what }: { $from }
notifications-support-none = { $what }: not available — { $why }

quiet-title = Quiet hours
quiet-dnd = Do not disturb
quiet-dnd-hover = Until you switch it off (the tray has it too)
quiet-from = Quiet hours from
quiet-to = to
quiet-on-days = on
quiet-day-mon = Mon
quiet-day-tue = Tue
quiet-day-wed = Wed
quiet-day-thu = Thu
quiet-day-fri = Fri
quiet-day-sat = Sat
quiet-day-sun = Sun
quiet-follow-desktop = Also while the desktop's own do not disturb is on
quiet-desktop-dnd = The desktop's do not disturb
quiet-explained = While quiet: no notification, no sound, the island stays still. Cards still come, your phone still gets them, rules and policies still answer. Quiet never allows anything.

keys-title = Global keys
keys-here = Here
keys-enabled = Keys that work from any window
keys-enabled-hover = Off by default
keys-show-newest = Bring up the newest card
keys-allow = Allow it (press again once it is up)
keys-deny = Deny it (press again once it is up)
keys-keys = Keys
keys-explained = The first press brings the newest card up; only a second press answers it. The Allow key never answers a destructive card or a question.
notifications-not-saved = These settings are not saved: { $why }. Fix or remove it; Vults never writes over a file it cannot read.
quiet-now-not = Not quiet now
quiet-now-switch = Quiet now: do not disturb is on
# $until: "07:00".
quiet-now-schedule = Quiet now: quiet hours until { $until }
quiet-now-desktop = Quiet now: the desktop's do not disturb is on
# Why notifications or the global keys are not available, in Vults' own words (what the desktop
# said stays as it came).
notifications-why-not-started = not started
notifications-why-not-known = not known
notifications-why-keys-off = global keys are off in Settings
notifications-why-binding = binding the keys…
notifications-why-worker-stopped = the desktop's worker has stopped
# The global keys once bound: "X11 key grabs: bring up Ctrl+Alt+V, allow Ctrl+Alt+A".
notifications-keys-by-x11 = X11 key grabs
notifications-keys-by-portal = the desktop's GlobalShortcuts portal
notifications-keys-by-windows = Windows hot keys
notifications-keys-by-macos = macOS hot keys
notifications-key-bring-up = bring up
notifications-key-allow = allow
notifications-key-deny = deny
notifications-why-starting = starting
notifications-why-dnd-not-read = not read (turned off)
# Where global keys can be had on this machine, before they are switched on.
notifications-keys-here-windows = Windows hot keys (RegisterHotKey)
notifications-keys-here-macos = macOS hot keys (Carbon RegisterEventHotKey)
notifications-keys-here-not-on-platform = not on this platform
notifications-keys-here-wayland = Wayland: through the desktop's GlobalShortcuts portal, if it has one (KDE Plasma 5.27+, GNOME 48+); the desktop may ask you and choose the keys
notifications-keys-here-none = no X11 display and no Wayland session
