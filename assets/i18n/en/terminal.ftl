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
