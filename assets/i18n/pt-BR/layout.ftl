# Configurações → Geral: o layout da janela neste desktop, e por quê.

layout-floating = A ilha e cada cartão flutuam sobre as suas janelas e nunca pegam o teclado quando aparecem; clique num cartão para usar as teclas dele.
layout-embedded-chosen = Uma só janela (VULTS_LAYOUT=embedded): a ilha é uma faixa no topo e os cartões flutuam dentro dela.
layout-embedded-wayland = Uma só janela: esta sessão Wayland não tem XWayland, onde as janelas não conseguem flutuar sobre as outras. A ilha é uma faixa no topo da janela, os cartões flutuam dentro dela, e a janela pede a atenção do desktop quando chega um cartão.
