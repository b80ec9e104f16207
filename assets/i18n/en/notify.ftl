# Desktop notifications (vults-attention) and the phone's push, which says what the desktop
# notification says. $agent is the agent's name, $tool the tool's, $folder a path: arguments,
# never translated.

# The title of a permission card's notification: "Claude Code asks: Bash".
notify-asks = { $agent } asks: { $tool }
# Where the agent works, the body's last line.
notify-in = in { $folder }
# A destructive call: $why is what made it so (`rm -r`).
notify-destructive = Destructive ({ $why }): answer it on its card.
notify-answer-where-diff = Answer it on its card, where its diff is.
notify-plan = { $agent } asks you to approve its plan
notify-question = { $agent } asks you a question
notify-turn-done = { $agent } is done — waiting for you
notify-asks-in-terminal = { $agent } asks in its terminal

# A file change, as its card says it: "3 files · +4 −1", "notes.txt · 2 lines".
notify-files = { $count ->
    [one] 1 file
   *[other] { $count } files
}
notify-new-file = new file
notify-lines = { $count ->
    [one] 1 line
   *[other] { $count } lines
}
notify-a-patch = a patch

# A notification's buttons.
notify-action-show = Show
notify-action-allow = Allow
notify-action-deny = Deny
notify-action-terminal = Show terminal

# Vults' own warning: a plan's usage limit near. $window is `five-hour` or `seven-day`.
notify-limit-title = { $agent }: { $used } % of the { $window ->
    [five-hour] 5-hour
   *[seven-day] 7-day
} limit used
notify-limit-resets-at = Resets at { $time }.
# $day is the date as 2026-12-07.
notify-limit-resets-on = Resets on { $day } at { $time }.
notify-limit-resets-at-end = It resets when the window ends.
