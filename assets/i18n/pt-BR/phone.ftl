# A página do celular (assets/phone/index.html e phone.js), compilada em assets/phone/words.js.

phone-loading = Carregando…
phone-pair-intro = Pareie este celular com o app Vults que mostrou o código QR. As chaves são criadas aqui e nunca saem deste navegador.
phone-name-label = Nome deste celular
phone-default-name = Celular
phone-pair = Parear
phone-pair-again = Parear de novo
phone-push-turn-on = Ativar notificações
phone-forget = Esquecer este pareamento

phone-reconnecting = Reconectando ao broker em { $seconds } s ({ $why })…
phone-broker-no-reply = Sem resposta do Vults pelo broker: o app está aberto e conectado a ele?
phone-broker-not-connected = Sem conexão com o broker.
phone-revoked = Este celular foi revogado no Vults. Leia um novo código QR para parear de novo.
phone-unknown = Este Vults não conhece (mais) este celular. Leia um novo código QR para parear de novo.
phone-answered = Respondido.
phone-refused = Recusado: { $why }
phone-connected = Conectado · { $time }
phone-not-secure = Este navegador não permite criptografia nesta página (contexto não seguro). Abra a página por HTTPS ou neste computador.
phone-not-paired = Não pareado. No Vults, abra Configurações → Celular e leia o código QR.
phone-ready = Pronto para parear.
phone-paired = Pareado.

phone-whole-text = Texto inteiro
phone-edit-replace = substituir
phone-edit-with = por
phone-other = Outra:
phone-destructive = Destrutivo: { $why }
phone-hidden = Contém caracteres ocultos: cada um aparece escrito como ‹U+…› onde está.
phone-too-large = Grande demais para mostrar no celular ({ $kib } KiB): responda na área de trabalho, ou negue aqui.
phone-plan-asks = pede que você aprove o plano
phone-feedback = Comentário
phone-feedback-placeholder = O que deve mudar? (opcional)
phone-approve = Aprovar
phone-keep-planning = Continuar planejando
phone-send-answers = Enviar respostas
phone-allow = Permitir
phone-always = Sempre permitir
phone-deny = Negar
phone-always-words = Sempre permitir: { $words }
phone-says = { $agent } diz: { $said }
phone-nothing-waits = Nada espera por você.

phone-subscription-refused = O Vults recusou a inscrição: { $why }
phone-notifications-blocked = As notificações estão bloqueadas nesta página: permita-as nas configurações do site no navegador.
phone-no-worker = Este navegador não consegue rodar o service worker da página aqui.
phone-push-untrusted = As notificações precisam desta página num endereço HTTPS confiável (o servidor web do broker, ou qualquer host HTTPS): um service worker não roda na página da rede local com o certificado próprio do Vults. Veja Push no guia do celular do Vults.
phone-push-on = As notificações estão ativas: este celular vibra quando um cartão espera, e você pode responder pela notificação.
phone-push-off = Receba uma notificação quando um cartão esperar, e responda por ela.
