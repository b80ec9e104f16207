# Settings → History: the audit log, newest first. The audit file's own words (its `decision`
# and `by` fields) stay as they are in the file; History shows them in these words.

history-title = History
history-filter-agent = Agent:
history-filter-decision = Decision:
history-filter-by = Answered by:
history-filter-all = all
history-nothing = Nothing answered yet.
history-older-lines = Older lines…
history-older = Older
history-newer = Newer
history-newest = Newest

## A row's decision (the audit's `decision`).
history-decision-allow = allow
history-decision-deny = deny
history-decision-answer = answer
history-decision-answered = answered
history-decision-withdrawn = withdrawn
history-decision-undelivered = undelivered
history-decision-refused = refused
history-decision-too-large = too-large
history-decision-paused = paused

## The "Answered by" filter's choices (the audit's `by`).
history-by-click = click
history-by-notification = notification
history-by-key = key
history-by-phone = phone
history-by-rule = rule
history-by-policy = policy
history-by-terminal = terminal
history-by-withdrawn = withdrawn
history-by-timeout = timeout

## Who answered, on a row (also in Zeca's chat).
answered-by-you = by you
answered-by-key = by you, with a key on its card
answered-by-global-key = by you, with a global key
answered-by-notification = by you, from its notification
answered-by-phone = on your phone ({ $device })
answered-by-unknown-phone = by an unknown phone
answered-by-rule = by an Always rule
answered-by-policy = by policy { $name }
answered-by-nobody = by nobody (the agent stopped waiting)
answered-in-terminal = in the agent's terminal
answered-by-other = by { $who }
# The audit's own text, on hover.
history-by-hover = by: { $by }

history-made-rule = made an Always rule
history-rule-hover = Rule { $id } (Settings → Rules)
history-in-folder = in { $folder }
history-rule-removed = the rule has been removed since
history-from-now-on = from now on: { $rule }
