# Configurações → Geral.

settings-general = Geral
settings-language = Idioma
settings-language-system = Sistema ({ $language })
settings-start-at-login = Iniciar o Vults quando eu entrar
settings-start-at-login-windows = A chave Run do seu usuário (HKCU)
settings-start-at-login-macos = Um LaunchAgent em ~/Library/LaunchAgents
settings-start-at-login-linux = Uma entrada em ~/.config/autostart
settings-start-at-login-checking = Iniciar ao entrar: verificando…
settings-show-welcome = Mostrar as boas-vindas de novo
settings-log-file = Arquivo de log
settings-open = Abrir
settings-log-more = VULTS_LOG=debug antes de iniciar o Vults registra mais (inclusive o conteúdo dos cartões).
settings-no-log-file = Sem arquivo de log: o Vults registra só na saída de erro.
settings-island-and-cards = Ilha e cartões
settings-monitor-pointer = O monitor com o ponteiro
settings-monitor-primary = O monitor principal
settings-monitor-gone = { $name } (desconectado: o principal)
settings-show-them-on = Mostrar em
settings-over-fullscreen = Mostrar cartões sobre uma janela em tela cheia
settings-over-fullscreen-hover = Desligado: enquanto o monitor mostra uma janela em tela cheia (uma chamada de vídeo, uma apresentação), os cartões esperam; a ilha os conta e a notificação avisa.
# Por que o ícone da bandeja não aparece (Configurações > Geral). $why: o que a biblioteca D-Bus disse, como veio.
settings-tray-missing = Sem bandeja nesta área de trabalho (nenhum host de StatusNotifierItem está rodando): a ilha e a janela continuam funcionando. No GNOME, instale a extensão AppIndicator and KStatusNotifierItem Support (gnome-shell-extension-appindicator) para ver o ícone na bandeja.
settings-tray-no-bus = Sem bandeja: não há barramento de sessão D-Bus ({ $why }); a ilha e a janela continuam funcionando.
settings-show-terminal-here = Mostrar terminal neste computador
settings-looking-for-terminals = Procurando terminais…
settings-no-terminal = Nenhum terminal encontrado.
settings-reach-pane = aba / painel
settings-reach-window = janela
settings-reach-nothing = nada
