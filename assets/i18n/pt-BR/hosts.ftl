# Configurações → Hosts: agentes em hosts SSH (docs/hosts.md).

hosts-title = Hosts
hosts-intro = Agentes em hosts SSH também perguntam aqui: os cartões e pássaros deles mostram host:pasta, e uma regra "Sempre" feita para a pasta de um host responde só àquele host. O Vults usa o seu próprio ssh (~/.ssh/config, agentes e chaves funcionam como sempre). Enquanto um link está fora, os agentes do host perguntam no próprio terminal.
hosts-none = Nenhum host ainda.
hosts-remove = Remover
hosts-remove-hover = Tirar o Vults dos agentes deste host e esquecê-lo
hosts-forget = Esquecer
hosts-forget-hover = Esquecer este host sem mexer em nada nele (os agentes dele mantêm o hook, que fica em silêncio sem link)
hosts-add = Adicionar
hosts-host = Host
hosts-ssh-options = opções do ssh
hosts-ssh-options-hint = opções do ssh (opcional)
hosts-add-host = Adicionar host
hosts-failed = Falhou: { $what }
