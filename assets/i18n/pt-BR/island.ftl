# A ilha: a pequena pílula sempre visível que diz o que espera.

island-birds = { $count ->
    [one] 1 pássaro
   *[other] { $count } pássaros
}
island-waiting = { $count } esperando
island-more = +{ $count } mais
island-paused = pausado
island-cards-paused = cartões pausados
island-quiet = silêncio
island-hover = Mostrar o bando (clique direito: mostrar o terminal de um agente)
# O hook de um agente foi removido ou alterado por outro programa (Configurações > Agentes diz mais).
island-hook-out = { $agent } sem hook
island-hooks-out = { $count } agentes sem hook
# A janela de uso do plano mais perto do limite; $used é uma porcentagem inteira.
island-limit = limite de { $window ->
    [five-hour] 5 h
   *[seven-day] 7 d
}: { $used } %
