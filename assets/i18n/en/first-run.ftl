# The welcome: what the first run found and did ($agents is a list of agents' names, "Claude
# Code, Codex CLI"; $agent one of them). The installer's own reason for a failure stays its words.

first-run-none = Vults found no coding agent on this machine yet. Install one (Claude Code, Codex CLI, Copilot CLI, Qwen Code, OpenCode …) and restart Vults: it puts its hook in by itself.
first-run-found = Vults found: { $agents }.
first-run-installed = Its hook is installed for: { $agents }.
first-run-cards = Permission requests of { $agents } now show up as cards.
first-run-sessions-only = { $agents } only show their sessions in the flock; they keep asking for permission in their own window.
first-run-status-line = Claude Code's status line now also feeds Vults; a status line of your own still shows.
first-run-todo = Still to do:
first-run-codex-trust = - Codex CLI: Codex runs new or changed hooks only after you trust them: open `/hooks` in Codex once and trust the Vults entries.
first-run-unparsable = - { $agent }: { $path } does not parse (line { $line }, column { $column }: { $message }); left untouched. Fix the file and Vults installs on its next start.
first-run-failed = - { $agent }: { $why }
first-run-leftover = - { $agent }: old Vults hooks are still in its settings; they do nothing now. Remove them from Settings > Agents.
