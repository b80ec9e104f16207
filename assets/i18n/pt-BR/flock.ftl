# A aba Bando: cada sessão em execução é um pássaro.

flock-empty = Nenhum agente em execução
flock-empty-hint = Uma sessão aparece aqui quando um agente chama o vults-hook.
flock-show-terminal-hover = Trazer para a frente a janela, a aba e o painel do terminal deste agente
flock-show-terminal-of = Mostrar o terminal de { $who } em { $folder }
flock-showing-terminal-of = Mostrando o terminal de { $who } em { $folder }
flock-asks-in-terminal = pergunta no terminal: { $what }
flock-from-zeca-task = do Zeca · tarefa { $task }
