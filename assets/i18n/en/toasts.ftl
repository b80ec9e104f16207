# The window's own notices, in the bottom row: what it could not do from here. $agent is an
# agent's --agent name, $command a command to run, as typed.

notice-chat-not-running = The chat is not running in this window
notice-cannot-repair = Cannot repair { $agent } from here: run `{ $command }`
notice-cannot-change = Cannot change { $agent } from here: the installer is not running
notice-cannot-remove-old-hooks = Cannot remove { $agent }'s old hooks from here: run `{ $command }`
notice-cannot-change-start-at-login = Cannot change start at login from here: run `{ $command }`
# A call too large for a card: the agent asks in its own terminal. $what is what the engine says
# of the call ("Write of 2.7 KB is too large to show").
notice-asks-in-terminal = { $who } asks in its terminal: { $what }
