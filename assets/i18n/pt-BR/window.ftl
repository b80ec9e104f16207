# A janela principal: as abas e a linha de baixo.

tab-flock = Bando
tab-chat = Chat
tab-agents = Agentes
tab-rules = Regras
tab-policies = Políticas
tab-history = Histórico
tab-hosts = Hosts
tab-phone = Celular
tab-notifications = Notificações
tab-general = Geral
pause-cards = Pausar cartões
pause-cards-hover = Em pausa, nenhum cartão aparece: os agentes perguntam no próprio terminal, e cada pedido diz isso no seu pássaro e no Histórico
cards-paused-line = Cartões em pausa: os agentes perguntam no terminal
