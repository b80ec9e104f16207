# Notificações da área de trabalho (vults-notify) e o push do celular, que diz o mesmo.
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

notify-hook-removed-title = O hook do Vults foi removido das configurações do { $agent }
notify-hook-changed-title = O hook do Vults foi alterado nas configurações do { $agent }
notify-hook-removed-body = { $agent }: o hook do Vults foi { $what ->
    [changed] alterado
   *[removed] removido
} por outro programa às { $time } em { $file }. { $restored ->
    [yes] O Vults o colocou de volta; nada mais no arquivo foi tocado.
   *[no] Mantê-lo no lugar está desligado, então ficou assim: o agente pergunta no terminal até você usar Reparar (Configurações > Agentes).
}
notify-hook-keeps-removing-title = Outro programa continua removendo o hook do Vults do { $agent }
notify-hook-keeps-removing-body = { $agent }: outro programa continua removendo o hook do Vults de { $file } (de novo às { $time }, menos de um minuto depois de o Vults recolocá-lo). O Vults parou de restaurá-lo; encontre o programa que reescreve o arquivo e use Reparar (Configurações > Agentes).
notify-hook-unparsable-title = As configurações do { $agent } não podem ser lidas
notify-hook-unparsable-body = { $agent }: { $why }. O Vults não escreve num arquivo que não consegue ler.
notify-hook-restore-failed-title = O Vults não conseguiu recolocar seu hook no { $agent }
notify-hook-restore-failed-body = { $agent }: o hook do Vults foi removido e não pôde ser recolocado: { $why }
notify-hook-new-installed-title = { $agent } encontrado: o hook do Vults está instalado
notify-hook-new-installed-body = { $agent } apareceu nesta máquina; o hook do Vults está instalado nele.
notify-hook-new-offered-title = { $agent } encontrado: instalar o hook do Vults?
notify-hook-new-offered-body = { $agent } apareceu nesta máquina. Instale o hook do Vults nele em Configurações > Agentes (ou ligue "instalar em novos agentes").
