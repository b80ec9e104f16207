# Notificações da área de trabalho (vults-attention) e o push do celular, que diz o mesmo.
# $agent, $tool e $folder são argumentos, nunca traduzidos.

notify-asks = { $agent } pede: { $tool }
notify-in = em { $folder }
notify-destructive = Destrutivo ({ $why }): responda no cartão.
notify-answer-where-diff = Responda no cartão, onde está a diferença.
notify-plan = { $agent } pede que você aprove o plano
notify-question = { $agent } faz uma pergunta
notify-turn-done = { $agent } terminou — esperando por você
notify-asks-in-terminal = { $agent } pergunta no terminal

notify-files = { $count ->
    [one] 1 arquivo
   *[other] { $count } arquivos
}
notify-new-file = arquivo novo
notify-lines = { $count ->
    [one] 1 linha
   *[other] { $count } linhas
}
notify-a-patch = um patch

notify-action-show = Mostrar
notify-action-allow = Permitir
notify-action-deny = Negar
notify-action-terminal = Mostrar terminal

notify-limit-title = { $agent }: { $used } % do limite de { $window ->
    [five-hour] 5 horas
   *[seven-day] 7 dias
} usado
notify-limit-resets-at = Renova às { $time }.
notify-limit-resets-on = Renova em { $day } às { $time }.
notify-limit-resets-at-end = Renova quando a janela terminar.
