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
