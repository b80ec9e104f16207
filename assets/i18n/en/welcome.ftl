# The first run's welcome.

welcome-title = Welcome to Vults
welcome-intro = Vults shows your coding agents' permission requests as cards: the whole command, file or URL, answered with a click (or from your phone). The island at the top of the screen shows each agent's session as a bird.
welcome-found = What Vults found and did
welcome-files = Files Vults changed
# An agent and the settings file Vults wrote its hook into (`…` is drawn as code).
welcome-file = { $agent }: `{ $path }`
welcome-backup = your original is kept in `{ $path }`
welcome-no-backup = (a new file; there was nothing to back up)
welcome-every-entry = Every entry runs `{ $path }`
welcome-codex = One step for Codex CLI
welcome-codex-trust = Codex runs a new hook only after you trust it: in Codex, type `/hooks` and trust Vults' hook once.
welcome-undo = To undo
welcome-undo-how = Turn an agent off in Settings > Agents, or run `vults-app --uninstall` to remove exactly what Vults added.
welcome-pair-phone = Pair a phone…
welcome-got-it = Got it
welcome-again = Settings > General shows this again.
