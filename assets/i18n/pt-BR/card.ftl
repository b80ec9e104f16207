# Um cartão: um pedido esperando a resposta de uma pessoa (vults-app/ui/src/card/). As palavras
# do próprio agente, comandos, caminhos e nomes de ferramentas são argumentos, nunca parte da
# mensagem.

## O cabeçalho.
card-arrived-just-now = chegou agora mesmo
card-waiting-for = esperando há { $time }
card-asks-you = pergunta a você
card-asks-to-approve-plan = pede que você aprove o plano
card-plan-hover = { $who } pede para sair do modo de plano ({ $tool }) e executar este plano
card-wants-to-use = quer usar
card-hidden = contém caracteres ocultos
card-hidden-hover = Caracteres que não aparecem, ou que reordenam o texto ao redor (controles bidi, espaços de largura zero, caracteres de controle), são escritos por extenso onde estão, como ‹U+202E›. Copiar continua copiando o texto exato.
card-destructive = DESTRUTIVO: { $why }
card-asked-by-policy = Pedido pela política { $name }
card-says = { $who } diz: { $said }
card-show-terminal-hover = Traz para a frente a janela, a aba e o painel do terminal do agente (nada é digitado nele). Atalho: T

## Uma resposta que veio antes de o cartão estar pronto (ele tinha acabado de aparecer).
card-too-soon-click = Acabou de chegar — clique de novo daqui a pouco
card-too-soon-key = Acabou de chegar — pressione de novo daqui a pouco

## Os blocos em que o alvo aparece.
card-copy = Copiar
card-copy-hover = Copia o texto exato, como o agente enviou
card-whole-text = Texto inteiro
card-whole-text-hover = O texto exato que o agente enviou, em vez do diff
card-more-lines = { $count ->
    [one] mais 1 linha ↓
   *[other] mais { $count } linhas ↓
}
card-more-hunks = { $count ->
    [one] +1 trecho
   *[other] +{ $count } trechos
}
card-more-files = { $count ->
    [one] +1 arquivo
   *[other] +{ $count } arquivos
}
card-more-hover = Rolar para baixo (seta para baixo, Page Down ou Espaço no cartão que recebe as teclas)
card-the-end = fim ↑
card-the-end-hover = Role para cima para ler de novo (roda do mouse ou barra de rolagem)

## O que é cada bloco.
card-block-command = comando
card-block-diff = diff · { $changes }
card-block-old = antes
card-block-new = depois
card-block-input = entrada
card-block-tool-input = entrada de { $tool }
card-block-diff-with-file = diff com o arquivo atual · { $changes }
card-lines = { $count ->
    [one] 1 linha
   *[other] { $count } linhas
}
card-block-new-file = arquivo novo · { $lines }
card-block-content = conteúdo · { $lines }
card-block-content-unread = conteúdo · { $lines } · não foi possível ler o arquivo atual
card-block-url = URL
card-block-patch = patch
card-block-patch-changes = patch · { $changes }
card-block-patch-files = { $count ->
    [one] patch · { $changes }
   *[other] patch · { $count } arquivos · { $changes }
}
card-block-mcp = MCP
card-block-questions = perguntas

## As respostas de uma permissão.
card-allow = Permitir
card-deny = Negar
card-shortcut-a = Atalho: A
card-shortcut-d = Atalho: D
card-always-allow = Sempre permitir
card-always-this-change = Sempre: esta mudança
card-always-this-content = Sempre: este conteúdo
card-always-this-file = Sempre: o arquivo
card-always-hover = Permite e, daqui em diante: { $rule }
card-always-hover-key = Atalho: Shift+A. Permite e, daqui em diante: { $rule }
card-always-allow-rule = Sempre permitir: { $rule }
card-always-this-change-rule = Sempre esta mudança: { $rule }
card-always-this-content-rule = Sempre este conteúdo: { $rule }
card-always-this-file-rule = Sempre o arquivo: { $rule }
card-no-always-destructive = Sem "Sempre permitir": uma chamada destrutiva sempre pergunta a você.
card-keys-allow-deny = Teclas: A permitir · D negar
card-keys-always = Shift+A sempre
card-keys-this-change = Shift+A esta mudança
card-keys-this-content = Shift+A este conteúdo
card-keys-terminal = T terminal

## Um cartão de plano.
card-plan = plano
card-plan-more = mais do plano ↓
card-feedback = Comentário
card-feedback-hint = O que deve mudar? (opcional, vai com Continuar planejando)
card-approve = Aprovar
card-approve-hover = O agente sai do modo de plano e executa o plano. Atalho: A
card-keep-planning = Continuar planejando
card-keep-planning-hover = O agente continua no modo de plano e recebe o seu comentário (ou o aviso de que o plano não foi aprovado). Atalho: D
card-plan-no-always = Plano não tem "Sempre": cada plano é você quem aprova.
card-plan-keys = Teclas: A aprovar · D continuar planejando · Enter envia o comentário

## Um cartão de pergunta.
card-more-below = mais abaixo ↓
card-more-questions = { $count ->
    [one] mais 1 pergunta ↓
   *[other] mais { $count } perguntas ↓
}
card-answer = Responder
card-answer-first = Responda todas as perguntas primeiro
card-deny-question-hover = Não enviar resposta: o agente segue sem uma
card-question-keys = Teclas: 1–{ $last } escolher · Enter responder · D negar
card-question-keys-no-digits = Teclas: Enter responder · D negar
card-choose-any = Escolha quantas quiser
card-other = Outra
card-other-hint = sua própria resposta
card-other-answer = Outra resposta { $number }

## O cabeçalho de um arquivo num diff.
card-diff-update = alterar { $path }
card-diff-add = criar { $path }
card-diff-delete = apagar { $path }

## Cartões sem lugar na tela, listados no bando.
stack-more-waiting = +{ $count } mais esperando — sem lugar na tela para os cartões; os mais antigos primeiro

# Por que um cartão pergunta a uma pessoa (o cartão da página do celular diz isso sob as respostas).
# $what: o que tornou a chamada destrutiva, como texto de comando; $name: o nome de uma política;
# $id: o id de uma regra.
card-reason-destructive = destrutivo: { $what }
card-reason-policy = política { $name }
card-reason-rule = regra { $id }
card-reason-no-rule = nenhuma regra
card-reason-question = uma pergunta para você
