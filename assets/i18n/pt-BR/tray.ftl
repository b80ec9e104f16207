# O menu do ícone na bandeja.

tray-show = Mostrar
tray-pause-cards = Pausar cartões
tray-do-not-disturb = Não perturbe
tray-quit = Sair
