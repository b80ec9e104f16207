# Settings → General.

settings-general = General
settings-language = Language
settings-language-system = System ({ $language })
settings-start-at-login = Start Vults when I log in
settings-start-at-login-windows = The Run key of your user (HKCU)
settings-start-at-login-macos = A LaunchAgent in ~/Library/LaunchAgents
settings-start-at-login-linux = An entry in ~/.config/autostart
settings-start-at-login-checking = Start at login: checking…
settings-show-welcome = Show the welcome again
settings-log-file = Log file
settings-open = Open
settings-log-more = VULTS_LOG=debug before starting Vults logs more (card contents too).
settings-no-log-file = No log file: Vults logs to stderr only.
settings-island-and-cards = Island and cards
settings-monitor-pointer = The monitor with the pointer
settings-monitor-primary = The primary monitor
settings-monitor-gone = { $name } (not connected: the primary one)
settings-show-them-on = Show them on
settings-over-fullscreen = Show cards over a fullscreen window
settings-over-fullscreen-hover = Off: while the monitor shows a fullscreen window (a video call, a presentation), cards wait; the island counts them and the notification tells.
# Why no tray icon shows (Settings → General). $why: what the D-Bus library said, as it came.
settings-tray-missing = No tray on this desktop (no StatusNotifierItem host runs): the island and the window still work. On GNOME, install the AppIndicator and KStatusNotifierItem Support extension (gnome-shell-extension-appindicator) to see the tray icon.
settings-tray-no-bus = No tray: no D-Bus session bus ({ $why }); the island and the window still work.
settings-show-terminal-here = Show terminal on this computer
settings-looking-for-terminals = Looking for terminals…
settings-no-terminal = No terminal found.
settings-reach-pane = tab / pane
settings-reach-window = window
settings-reach-nothing = nothing
