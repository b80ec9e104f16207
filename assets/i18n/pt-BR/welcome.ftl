# As boas-vindas da primeira execução.

welcome-title = Boas-vindas ao Vults
welcome-intro = O Vults mostra os pedidos de permissão dos seus agentes de código como cartões: o comando, o arquivo ou a URL inteiros, respondidos com um clique (ou pelo seu celular). A ilha no alto da tela mostra a sessão de cada agente como um pássaro.
welcome-found = O que o Vults encontrou e fez
welcome-files = Arquivos que o Vults alterou
welcome-file = { $agent }: `{ $path }`
welcome-backup = o seu original está guardado em `{ $path }`
welcome-no-backup = (um arquivo novo; não havia nada para guardar)
welcome-every-entry = Cada entrada executa `{ $path }`
welcome-codex = Um passo para o Codex CLI
welcome-codex-trust = O Codex só executa um hook novo depois que você confia nele: no Codex, digite `/hooks` e confie no hook do Vults uma vez.
welcome-undo = Para desfazer
welcome-undo-how = Desligue um agente em Configurações > Agentes, ou execute `vults-app --uninstall` para remover exatamente o que o Vults adicionou.
welcome-pair-phone = Parear um celular…
welcome-got-it = Entendi
welcome-again = Configurações > Geral mostra isto de novo.
