# Configurações → Histórico: o registro de auditoria, do mais novo ao mais antigo.

history-title = Histórico
history-filter-agent = Agente:
history-filter-decision = Decisão:
history-filter-by = Respondido por:
history-filter-all = todos
history-nothing = Nada foi respondido ainda.
history-older-lines = Linhas mais antigas…
history-older = Mais antigas
history-newer = Mais novas
history-newest = As mais novas

## A decisão de uma linha.
history-decision-allow = permitido
history-decision-deny = negado
history-decision-answer = respondida
history-decision-answered = respondido no terminal
history-decision-withdrawn = retirado
history-decision-undelivered = não entregue
history-decision-refused = recusado
history-decision-too-large = grande demais
history-decision-paused = em pausa

## As opções do filtro "Respondido por".
history-by-click = clique
history-by-notification = notificação
history-by-key = tecla
history-by-phone = celular
history-by-rule = regra
history-by-policy = política
history-by-terminal = terminal
history-by-withdrawn = retirado
history-by-timeout = tempo esgotado

## Quem respondeu, numa linha (também no chat do Zeca).
answered-by-you = por você
answered-by-key = por você, com uma tecla no cartão
answered-by-global-key = por você, com um atalho global
answered-by-notification = por você, pela notificação
answered-by-phone = no seu celular ({ $device })
answered-by-unknown-phone = por um celular desconhecido
answered-by-rule = por uma regra "Sempre"
answered-by-policy = pela política { $name }
answered-by-nobody = por ninguém (o agente parou de esperar)
answered-in-terminal = no terminal do agente
answered-by-other = por { $who }
history-by-hover = by: { $by }

history-made-rule = criou uma regra "Sempre"
history-rule-hover = Regra { $id } (Configurações → Regras)
history-in-folder = em { $folder }
history-rule-removed = a regra foi removida depois
history-from-now-on = daqui em diante: { $rule }
