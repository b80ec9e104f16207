# What an Always rule answers: the one sentence a card says under its Always button and
# Settings → Rules shows (docs/safety.md). $who is the agent, $tool the tool, $file a path
# relative to the rule's folder (`rule-this-file` where an exact input names none).

rule-exact-change = { $who } may make this exact change to { $file } with { $tool }, in this folder.
rule-exact-content = { $who } may write this exact content to { $file } with { $tool }, in this folder.
# An exact input that names no file.
rule-this-file = this file
rule-exact-input = { $who } may use { $tool } with this exact input, in this folder.
rule-exact-command = { $who } may run this exact command with { $tool }, in this folder.
rule-any-change = { $who } may edit { $file } with { $tool } — any change, in this folder.
rule-any-content = { $who } may write { $file } with { $tool } — any content, in this folder.
rule-read = { $who } may read { $file } with { $tool }, in this folder.
rule-use-on = { $who } may use { $tool } on { $file }, in this folder.
rule-exact-query = { $who } may search for this exact query with { $tool }, in this folder.
rule-exact-url = { $who } may fetch this exact URL with { $tool }, in this folder.
rule-exact-patch = { $who } may apply this exact patch with { $tool }, in this folder.
rule-exact-target = { $who } may use { $tool } on this exact target, in this folder.

# Settings → Rules.
rules-title = Always rules
rules-intro = Each allows, without asking, what its sentence says: one agent, in one folder, one tool — a whole command, URL or input exactly; for a file, this exact change, or any change to it.
rules-none = No rules yet. "Always allow" on a card makes one.
rules-remove = Remove
rules-remove-hover = Remove rule { $id }
rules-hidden = contains hidden characters

# Settings → Policies.
policies-title = Policies
policies-intro = Policies deny or ask for whole classes of calls; the file is read again when it changes.
policies-file = File:
policies-cannot-read = Cannot read the policies: { $error }
policies-last-good = The last good policies stay in force.
policies-in-force = { $count ->
    [one] 1 policy in force
   *[other] { $count } policies in force
}
policies-warning = Warning: { $warning }
policies-open = Open policy file
policies-reload = Reload
