# Settings → Agents: each agent's install state, and the named tools that have asked. $name is
# an agent's name (Claude Code), never translated.

agents-title = Agents
agents-intro = Vults places its hook in each agent's own settings when the app starts.
agents-state-unknown = unknown
# An agent's install state, as the installer reports it.
agents-state-installed = installed
agents-state-outdated = outdated
agents-state-tampered = tampered
agents-state-missing = missing
agents-state-not-found = not found on this machine
agents-state-turned-off = turned off
agents-state-cannot-parse = cannot parse its settings
agents-state-old-hooks = old hooks left
agents-state-failed = failed
agents-install-in = Install in { $name }
agents-repair = Repair { $name }
agents-remove-old-hooks = Remove old { $name } hooks
agents-turn-on = Turn on { $name }
agents-turn-on-hover = Put Vults' hook back into this agent's settings
agents-turn-off = Turn off { $name }
agents-turn-off-hover = Take Vults' entries out of this agent's settings, and keep them out
agents-keep-in-place = Keep Vults' hook in place
agents-keep-in-place-hover = When another program removes or changes Vults' entry in an agent's settings, put it back (never twice within a minute: then Vults says which file and stops)
agents-install-new = Install in new agents
agents-install-new-hover = An agent installed while Vults runs gets Vults' hook at once, without asking
agents-named-tools = Named tools
agents-named-none = None yet. A tool that calls { $command } shows here.
# $time: "2026-11-29 13:05:09".
agents-last-asked = last asked { $time } UTC
agents-remove = Remove
agents-remove-hover = Remove rule { $id }
agents-in-folder = in { $folder }
agents-no-rules = No Always rules
