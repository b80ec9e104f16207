# The tray icon's menu (vults-ui's desktop.rs).

tray-show = Show
tray-pause-cards = Pause cards
tray-do-not-disturb = Do not disturb
tray-quit = Quit
