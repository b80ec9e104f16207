# "Mostrar terminal": a linha que cada tentativa diz, e o menu da ilha.

terminal-showed = Mostrado: { $what }
terminal-showed-caveat = Mostrado: { $what }; { $caveat }
terminal-cannot-show = Não foi possível mostrar o terminal de { $who }: { $reason }
terminal-no-terminal = { $who } não tem terminal: { $reason }
terminal-left-the-flock = Não foi possível mostrar o terminal: essa sessão saiu do bando
terminal-not-said = os eventos dela ainda não disseram onde ela roda
terminal-not-running = O Mostrar terminal não está rodando
terminal-menu-title = Mostrar terminal
terminal-menu-hover = Traz para a frente a janela, a aba e o painel do terminal dele
terminal-menu-showing = mostrando…
