# The Flock tab: every running session as a bird.

flock-empty = No agents running
flock-empty-hint = A session appears here when an agent calls vults-hook.
flock-show-terminal-hover = Bring this agent's terminal window, tab and pane forward
flock-show-terminal-of = Show terminal of { $who } in { $folder }
flock-showing-terminal-of = Showing terminal of { $who } in { $folder }
flock-asks-in-terminal = asks in its terminal: { $what }
flock-from-zeca-task = from Zeca · task { $task }
