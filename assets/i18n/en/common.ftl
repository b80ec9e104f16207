# What Vults says in more than one place. Each folder under assets/i18n is one language
# (docs/translating.md); every message here must stand in every language, with the same
# arguments (vults-app/i18n/tests/bundles.rs).

# The language's name for itself, as Settings → General lists it.
language-name = English

# The island and the notice: how many cards wait.
cards-waiting = { $count ->
    [one] 1 card waits
   *[other] { $count } cards wait
}

# How long ago, in the cards' "waited" line.
waited-just-now = just now
waited-seconds = { $seconds } s

# A usage window of Claude Code's plan: "5 h 42 % used, resets in 2 h 13 min".
rate-used = { $window } { $percent } % used
rate-resets-in = resets in { $time }
rate-resetting = resetting
rate-window-five-hours = 5 h
rate-window-seven-days = 7 d

# A session's state, on its bird.
state-working = working
state-waiting-for-you = waiting for you
state-done = done — waiting for you
state-asks-in-terminal = asks in its terminal
state-idle = idle
state-ended = ended

# The "Show terminal" button on a bird, a card, the island's menu.
show-terminal = Show terminal
show-terminal-showing = Showing…
