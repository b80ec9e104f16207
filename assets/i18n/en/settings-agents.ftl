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
# The installer's notes on an agent (Settings → Agents, and the line a Repair shows). $path is a
# file's path, $error the system's words, $name an agent's name: all as they are.
agents-note-hook-replaced = The hook copy at { $path } did not match its recorded SHA-256 (tampered); it was replaced.
agents-note-hook-not-placed = The hook copy could not be placed: { $error }
agents-note-not-saved = Vults could not save what it installed: { $error }
agents-note-no-hook-beside = vults-hook was not found beside the app, so nothing was installed; reinstall Vults.
agents-note-other-version = The installed vults-hook is another version than this app's; starting the app (or Repair) updates it.
agents-note-codex-trust = Codex runs new or changed hooks only after you trust them: open /hooks in Codex once and trust the Vults entries.
agents-note-old-hooks-removed = Vults' old { $name } hooks were removed from its settings (they did nothing any more); the rest of the file is as it was.
agents-note-backup-kept = Your file as it was before Vults changed it is kept in { $path } (the file has changed since).
# Where an agent's settings file does not parse: the parser's $message, as it came.
agents-detail-unparsable = { $path } does not parse (line { $line }, column { $column }: { $message }); left untouched
# $why: what went wrong, as the installer or the system said it.
agents-detail-failed = failed: { $why }
# What a Repair, a switch or start at login did, in the bottom row. $entry is the login entry (a file or a registry key).
agents-news-login-on = Vults starts when you log in ({ $entry }).
agents-news-login-off = Vults no longer starts at login (removed { $entry }).
agents-news-login-failed = Could not change start at login: { $error }
agents-news-watch-not-saved = Could not save the hooks' settings: { $error }
agents-news-on-not-saved = Could not save that { $name } is turned on: { $error }
agents-news-off-not-saved = Could not save that { $name } is turned off: { $error }
agents-news-old-hooks-removed = Removed Vults' old { $name } hooks.
# What the hooks' watcher saw, under an agent's state. $time: "10:42", local time.
agents-watch-removed = removed by another program at { $time }
agents-watch-removed-put-back = removed by another program at { $time }, put back
agents-watch-changed = changed by another program at { $time }
agents-watch-changed-put-back = changed by another program at { $time }, put back
agents-watch-keeps-removing = another program keeps removing it (last at { $time }); not restored
agents-watch-restore-failed = removed; could not be put back
