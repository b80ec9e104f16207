# Os avisos da própria janela, na linha de baixo.

notice-chat-not-running = O chat não está rodando nesta janela
notice-cannot-repair = Não dá para reparar { $agent } daqui: rode `{ $command }`
notice-cannot-change = Não dá para alterar { $agent } daqui: o instalador não está rodando
notice-cannot-remove-old-hooks = Não dá para remover os hooks antigos de { $agent } daqui: rode `{ $command }`
notice-cannot-change-start-at-login = Não dá para alterar o início com o sistema daqui: rode `{ $command }`
notice-asks-in-terminal = { $who } pergunta no terminal: { $what }
