# "Show terminal": the one line a show says (a toast, on the bird, on the card) and the island's
# menu. $what and $reason are what the terminal side found, in its own words; $who is the agent.

terminal-showed = Showed { $what }
terminal-showed-caveat = Showed { $what }; { $caveat }
terminal-cannot-show = Cannot show { $who }'s terminal: { $reason }
terminal-no-terminal = { $who } has no terminal: { $reason }
terminal-left-the-flock = Cannot show the terminal: that session has left the flock
terminal-not-said = its events have not said where it runs
terminal-not-running = Show terminal is not running
terminal-menu-title = Show terminal
terminal-menu-hover = Bring its terminal window, tab and pane forward
terminal-menu-showing = showing…

# What the terminal side found, in its own words (vults-terminal hands these to the window as
# messages, worded when drawn). Program names, versions, pids, pane ids, hosts, commands and a
# program's own error text are arguments, said as they are.

# A program's own line, as it came.
terminal-said = { $text }
# A program's own error, after its name: "tmux: no server running".
terminal-tool-said = { $tool }: { $error }
# Two lines said as one: a caveat after another, a hint after a reason.
terminal-and = { $first }; { $then }

# Where the agent was found, innermost first: "tmux pane %3 (window @1, session work) in xterm (pid 300)".
terminal-found-in = { $inner } in { $outer }
terminal-found-program = { $program } (pid { $pid })
terminal-found-console = console window
terminal-found-kitty-window = kitty window { $window } (pid { $pid })
terminal-found-tmux-pane = tmux pane { $pane } (window { $window }, session { $session })
terminal-found-screen-window = screen window { $window } (session { $session })
terminal-found-screen-session = screen session { $session }
terminal-found-zellij-pane = Zellij pane { $pane } (session { $session })
terminal-found-zellij-session = Zellij session { $session }
terminal-found-ssh = ssh to { $host } (pid { $pid })

# What a chooser chooses.
terminal-pane-tmux = tmux pane { $pane }
terminal-pane-screen = screen window { $window }
terminal-pane-zellij = Zellij pane { $pane }
terminal-pane-kitty = kitty window { $window }
terminal-pane-wezterm = WezTerm pane { $pane }
terminal-pane-konsole = Konsole session { $session }
terminal-pane-its = its pane

# What could not be done, while the window still came forward.
terminal-caveat-not-chosen = { $what } was not chosen: { $error }
terminal-caveat-not-chosen-hint = { $what } was not chosen ({ $error }); { $hint }
terminal-caveat-gnome-terminal = GNOME Terminal offers no way to choose its tab from outside
terminal-caveat-windows-terminal = Windows Terminal offers no way to choose a tab by its session from outside
terminal-caveat-no-tty = the agent has no terminal device, so Terminal's tab is not chosen
terminal-caveat-konsole-no-tab = Konsole did not say which of its tabs the agent is in
terminal-caveat-konsole-no-dbus-send = Konsole's tab is not chosen: { $program } is not installed
terminal-caveat-editor = { $editor }'s window comes forward; its terminal panel is not chosen
terminal-caveat-kitty-remote-off = kitty's remote control is off, so its tab is not chosen: add `{ $allow }` and `{ $listen }` to { $file } (or start kitty with `{ $command }`)
terminal-caveat-screen-no-window = screen did not say which of its windows the agent is in
terminal-caveat-zellij-no-pane = Zellij did not say which of its panes the agent is in
terminal-hint-zellij-version = Zellij { $version } or later can choose a pane from outside
terminal-caveat-ssh = the agent runs on { $host }: this is the terminal running ssh to it; nothing on { $host } is chosen
terminal-caveat-ssh-there = the agent runs on { $host }: this is the terminal running ssh to it; nothing on { $host } is chosen ({ $there } there)
terminal-caveat-x11-guess = it has { $count } windows: the most recently used came forward

# Why nothing came forward.
terminal-failure-not-chosen = { $what } could not be chosen: { $error }
terminal-failure-no-way = found no way to bring { $found } forward
terminal-failure-chosen = { $failure } ({ $chosen } was chosen)
terminal-failure-not-here = that way of raising a window is not available on this system
terminal-failure-no-pid = the agent's events name no process, so its terminal cannot be found
terminal-failure-ended = the agent's process (pid { $pid }) has ended
terminal-failure-too-deep = multiplexers nested too deep to follow
terminal-failure-headless = the agent runs headless, started by Vults itself: it has no terminal window
terminal-failure-ssh-login = the agent runs in an SSH login into this computer: its terminal is on the computer that connected
terminal-failure-ssh-login-from = the agent runs in an SSH login into this computer from { $address }: its terminal is on the computer that connected
terminal-failure-no-terminal-above = found no terminal window above the agent's process (pid { $pid }: { $chain })
terminal-failure-no-bundle = found no app bundle for { $program } (pid { $pid })
terminal-failure-no-display = no display: Vults runs without DISPLAY or WAYLAND_DISPLAY, so no window can be raised
terminal-failure-gnome-wayland = cannot raise windows on this desktop: GNOME on Wayland does not let an app bring another app's window forward
terminal-failure-compositor = cannot raise windows on this desktop: { $compositor } offers apps no way to bring another app's window forward
terminal-unnamed-compositor = this Wayland compositor
terminal-failure-elsewhere = the agent runs on { $host }, and no terminal on this computer runs ssh to it
terminal-failure-tmux-socket = the agent runs in tmux (pid { $pid }), but its socket is unknown (TMUX is not set)
terminal-failure-tmux-pane-gone = the agent's tmux pane { $pane } is gone
terminal-failure-tmux-pane-gone-unnamed = the agent's tmux pane is gone
terminal-failure-tmux-detached = run `{ $command }` in a terminal: tmux session '{ $session }' has no client attached, so no window shows it
terminal-failure-tmux-client-unseen = the tmux client on { $tty } (pid { $pid }) cannot be seen
terminal-failure-detached = { $what } has no client attached, so no window shows it
terminal-failure-which-client = cannot tell which of { $count } terminals shows { $what }
terminal-failure-x11-unreachable = cannot reach the X display { $display }: { $error }
terminal-failure-x11-no-screen = the X display has no screen
terminal-failure-x11-no-list = cannot raise windows on this desktop: its window manager keeps no window list (_NET_CLIENT_LIST)
terminal-failure-x11-no-window = found no window of process { $pid } on the X display { $display }
terminal-failure-x11-none-named = process { $pid } has { $count } windows and none is named "{ $title }"
terminal-failure-x11-several-named = process { $pid } has { $count } windows and several are named "{ $title }"
terminal-failure-x11-refused = the window manager did not bring the window forward (it refused the focus request)
terminal-failure-sway-no-window = sway has no window of process { $pid } ({ $error })
terminal-failure-hyprland-no-socket = Hyprland's command socket was not found
terminal-failure-hyprland-no-focus = Hyprland did not focus process { $pid }: { $reply }
terminal-failure-kwin-no-dbus-send = cannot raise windows on KDE's Wayland without dbus-send (install the dbus package)
terminal-failure-kwin-script = KWin script: { $error }
terminal-failure-kwin-no-runtime-dir = KWin script: XDG_RUNTIME_DIR is not set
terminal-failure-kwin-not-loaded = KWin did not load the script
terminal-failure-windows-own-console = Vults has a console of its own, so it cannot look at another
terminal-failure-windows-no-console = process { $pid } has no console window
terminal-failure-windows-console-no-window = the console of process { $pid } has no window
terminal-failure-windows-console-hidden = the console of process { $pid } has no visible window
terminal-failure-windows-no-window = found no window of process { $pid }
terminal-failure-windows-refused = Windows did not let Vults bring the window forward
terminal-failure-windows-not-forward = Windows did not bring the window forward
terminal-failure-mac-automation = macOS did not let Vults control { $app }: allow it in System Settings > Privacy & Security > Automation
terminal-failure-mac-only = { $app } is shown only on a Mac
terminal-failure-mac-no-tab = { $app } has no tab for { $what } any more
terminal-failure-mac-no-tab-for-it = { $app } has no tab for it any more
terminal-failure-mac-open-only = apps are opened with `{ $command }` only on a Mac

# Settings → General: what Show terminal reaches in each terminal found here. The first
# column is the row's name, the third how far it reaches and why.
terminal-survey-desktop = Desktop: { $desktop }
terminal-survey-desktop-none = Desktop: none
terminal-survey-desktop-x11 = Desktop: X11 ({ $manager })
terminal-survey-desktop-x11-some-manager = Desktop: X11 (a window manager)
terminal-survey-desktop-x11-no-manager = Desktop: X11 (no window manager)
terminal-survey-desktop-wayland = Desktop: Wayland ({ $compositor })
terminal-survey-console-windows = Console windows ({ $program })
terminal-survey-tool = { $tool } { $version }
terminal-survey-macos = Terminal's and iTerm2's tabs are chosen by AppleScript (macOS asks once for the Automation permission); other apps come forward with `{ $command }`
terminal-survey-windows = console and Windows Terminal windows come forward with SetForegroundWindow
terminal-survey-console = the agent's console window comes forward
terminal-survey-x11 = windows are raised with _NET_ACTIVE_WINDOW
terminal-survey-x11-no-active = cannot raise windows on this desktop: its window manager does not take _NET_ACTIVE_WINDOW requests
terminal-survey-no-display = no display: Vults runs without DISPLAY or WAYLAND_DISPLAY
terminal-survey-sway = windows are raised through sway's IPC
terminal-survey-hyprland = windows are raised through Hyprland's socket
terminal-survey-kwin = windows are raised by a KWin script over D-Bus
terminal-survey-xwayland-only = { $compositor } does not let apps raise other apps' windows: only terminals running under XWayland (xterm, urxvt) come forward
terminal-survey-cannot-raise = cannot raise windows on this desktop: { $compositor } does not let apps raise other apps' windows
terminal-survey-tmux = the agent's window and pane are chosen (the client on its session, else the most recent client is switched to it), then that client's terminal comes forward
terminal-survey-screen = the agent's window is chosen (`{ $command }`), then the attached client's terminal comes forward
terminal-survey-zellij = the agent's pane is chosen (`{ $command }`), then the client's terminal comes forward
terminal-survey-zellij-old = the client's terminal comes forward; Zellij { $version } or later can also choose the pane
terminal-survey-kitty = the agent's tab and window are chosen (`{ $command }`, remote control is on), and its window comes forward
terminal-survey-kitty-off = its window comes forward, but { $hint }
terminal-survey-wezterm = the agent's pane is chosen (`{ $command }`), and its window comes forward
terminal-survey-konsole = the agent's tab is chosen over D-Bus (setCurrentSession), and its window comes forward
terminal-survey-applescript = the agent's tab is chosen by AppleScript and { $app } comes forward
terminal-survey-windows-terminal = the window holding the agent's console comes forward; its tab is not chosen (Windows Terminal has no way to choose one by session)
terminal-survey-gnome-terminal = its window comes forward; its tab is not chosen (GNOME Terminal has no way to)
terminal-survey-editor = the window with the agent's folder comes forward ({ $editor }'s command line); its terminal panel is not chosen
terminal-survey-mac-app = { $app } comes forward (`{ $command }`); its tab is not chosen
terminal-survey-window = its window comes forward

# Running a terminal's or multiplexer's command: what went wrong, when the program said nothing.
terminal-run-cannot = cannot run { $program }: { $error }
terminal-run-timeout = { $program } did not answer within { $seconds } s
terminal-run-failed = { $program } failed ({ $status })
