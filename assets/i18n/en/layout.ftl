# Settings → General: the layout the window runs in on this desktop, and why.

layout-floating = The island and each card float above your windows and never take the keyboard when they appear; click into a card to use its keys.
layout-embedded-chosen = One window (VULTS_LAYOUT=embedded): the island is a strip at its top and the cards float inside it.
layout-embedded-wayland = One window: this Wayland session has no XWayland, where windows cannot float above others. The island is a strip at the top of the window, the cards float inside it, and the window asks the desktop for attention when a card arrives.
