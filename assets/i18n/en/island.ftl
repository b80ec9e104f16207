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
