# Desktop notifications (vults-notify) and the phone's push, which says what the desktop
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

# Vults' own warning: its hook in an agent's settings (the watcher). $agent is the agent's
# name, $file its settings file, $time the hour (14:05), $why the reason in English (doctor's).
notify-hook-removed-title = Vults' hook was removed from { $agent }'s settings
notify-hook-changed-title = Vults' hook was changed in { $agent }'s settings
# $what is `changed` or `removed`; $restored is `yes` or `no`.
notify-hook-removed-body = { $agent }: Vults' hook was { $what ->
    [changed] changed
   *[removed] removed
} by another program at { $time } in { $file }. { $restored ->
    [yes] Vults put it back; nothing else in the file was touched.
   *[no] Keeping it in place is off, so it was left so: the agent asks in its terminal until you Repair it (Settings > Agents).
}
notify-hook-keeps-removing-title = Another program keeps removing Vults' hook from { $agent }
notify-hook-keeps-removing-body = { $agent }: another program keeps removing Vults' hook from { $file } (again at { $time }, within a minute of Vults putting it back). Vults stopped restoring it; find the program that rewrites the file, then Repair (Settings > Agents).
notify-hook-unparsable-title = { $agent }'s settings do not parse
notify-hook-unparsable-body = { $agent }: { $why }. Vults does not write a file it cannot read.
notify-hook-restore-failed-title = Vults could not put its hook back into { $agent }
notify-hook-restore-failed-body = { $agent }: Vults' hook was removed and could not be put back: { $why }
notify-hook-new-installed-title = { $agent } found: Vults' hook is installed
notify-hook-new-installed-body = { $agent } appeared on this machine; Vults' hook is installed in it.
notify-hook-new-offered-title = { $agent } found: install Vults' hook?
notify-hook-new-offered-body = { $agent } appeared on this machine. Install Vults' hook in it from Settings > Agents (or turn on "install in new agents").
