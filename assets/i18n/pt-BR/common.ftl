# O que o Vults diz em mais de um lugar (ver docs/translating.md).

language-name = Português (Brasil)

cards-waiting = { $count ->
    [one] 1 cartão espera
   *[other] { $count } cartões esperam
}

waited-just-now = agora mesmo
waited-seconds = { $seconds } s

rate-used = { $window } { $percent } % usado
rate-resets-in = renova em { $time }
rate-resetting = renovando
rate-window-five-hours = 5 h
rate-window-seven-days = 7 d

state-working = trabalhando
state-waiting-for-you = esperando por você
state-done = pronto — esperando por você
state-asks-in-terminal = pergunta no terminal
state-idle = ocioso
state-ended = encerrado

show-terminal = Mostrar terminal
show-terminal-showing = Mostrando…
