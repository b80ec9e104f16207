# The island: the small always-on-top pill that says what waits.

island-birds = { $count ->
    [one] 1 bird
   *[other] { $count } birds
}
island-waiting = { $count } waiting
island-more = +{ $count } more
island-paused = paused
island-cards-paused = cards paused
island-quiet = quiet
island-hover = Show the flock (right click: show an agent's terminal)
# An agent's hook was removed or changed by another program (Settings → Agents says more).
island-hook-out = { $agent } hook out
island-hooks-out = { $count } hooks out
# The plan's usage window closest to its limit; $used is a whole percentage.
island-limit = { $window ->
    [five-hour] 5 h
   *[seven-day] 7 d
} limit { $used } %
