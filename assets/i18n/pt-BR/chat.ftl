# Zeca, o chat: as palavras fixas da janela em volta de uma conversa.

chat-new = Nova conversa
chat-conversation = Conversa
chat-start-new = Começar uma nova conversa
chat-engine = Motor
chat-folder = Pasta
chat-folder-hint = /caminho/do/projeto
chat-message = Mensagem
chat-message-hint = Mensagem para { $agent } (Ctrl+Enter envia)
chat-needs-folder = Para enviar, falta a pasta: digite a pasta do projeto em Pasta, acima
chat-send = Enviar
chat-type-folder = Digite acima a pasta em que o agente trabalha
chat-type-message = Digite uma mensagem primeiro
chat-stop = Parar
chat-stop-hover = Encerra a vez: { $agent } para; a próxima mensagem retoma
chat-more-above = mais acima ↑
chat-empty = Escolha uma pasta e diga o que fazer. O Claude Code (ou o Codex) roda lá com as suas próprias configurações; o que ele quiser fazer pergunta aqui.
chat-untitled = uma conversa
chat-ago-just-now = agora mesmo
chat-ago-minutes = há { $count } min
chat-ago-hours = há { $count } h
chat-ago-yesterday = ontem
chat-ago-days = { $count ->
    [one] há 1 dia
   *[other] há { $count } dias
}
chat-asks-you = pergunta a você
chat-working = trabalhando
chat-from-zeca = do Zeca · { $title }
chat-open = Abrir esta conversa

## Tarefas.
chat-start-task = Começar uma tarefa…
chat-start-task-hover = Uma sessão própria de um agente, no seu terminal ou sem janela
chat-task-folder = Pasta da tarefa
chat-task-prompt = Instrução da tarefa
chat-agent = Agente
chat-headless = Sem janela
chat-systems-terminal = o terminal do sistema
chat-start-task-headless = Começar tarefa (sem janela)
chat-start-task-in = Começar tarefa (em { $terminal })
chat-task = Tarefa { $id } · { $agent } em { $folder }
chat-task-terminal-hover = Traz para a frente a janela e o painel do terminal da tarefa
chat-task-show-terminal = Mostrar o terminal da tarefa { $id }
chat-task-showing-terminal = Mostrando o terminal da tarefa { $id }
chat-flock-waiting = no bando: esperando por você
chat-flock-done = no bando: terminou — esperando por você
chat-flock-asks-in-terminal = no bando: pergunta no terminal
chat-flock-working = no bando: trabalhando
chat-flock-idle = no bando: ocioso
chat-flock-ended = no bando: encerrado
chat-flock-left = saiu do bando
chat-flock-not = fora do bando
chat-flock-not-yet = ainda fora do bando

## Configurações do chat.
chat-settings = Configurações do chat…
chat-binary = Executável do { $agent }
chat-binary-hint = encontrado no PATH
chat-terminal-for-tasks = Terminal das tarefas
chat-terminal-hint = detectado (ex.: kitty -e)
chat-save-settings = Salvar configurações do chat

## A marca de uma linha de ferramenta.
chat-mark-stopped = parado
chat-mark-denied = negado { $by }
chat-mark-withdrawn = sem resposta (retirado)
chat-mark-failed = falhou
chat-mark-answered = respondido
chat-mark-ran-allowed = rodou · permitido { $by }
chat-mark-ran = rodou
chat-mark-no-result = sem resultado
chat-mark-asks = pergunta
chat-mark-allowed-running = permitido — rodando
chat-mark-allowed-by-running = permitido { $by } — rodando
chat-mark-running = rodando

## O título de uma conversa sem mensagem, e o estado de uma tarefa.
chat-title-task = tarefa: { $prompt }
chat-title-task-bare = tarefa
chat-task-running = rodando
chat-task-opened = aberta no terminal
chat-task-headless = rodando sem janela (log { $log })
chat-task-ended = encerrada ({ $status })
chat-task-could-not-start = não foi possível começar: { $why }
