# Configurações → Celular.

phone-title = Celular
phone-intro = Um celular pareado vê os cartões esperando e os responde com pedidos assinados e lacrados. A conexão só escuta na sua rede enquanto está ligada.
phone-port = Porta
phone-listening = Ligado — escutando na porta { $port }
phone-turn-off = Desligar
phone-turn-on = Ligar
phone-off = Desligado
phone-scan = Escaneie com a câmera do celular e toque em Parear na página:
phone-code-carries-login = Este código leva o login do celular no broker: mostre-o só para o celular.
phone-fingerprint = O celular vai avisar uma vez sobre o certificado próprio deste computador. A impressão digital SHA-256 dele é { $fingerprint }
phone-one-use-broker = Uso único; expira em 5 minutos. Pelo broker, o celular pode estar em qualquer lugar.
phone-one-use-lan = Uso único; expira em 5 minutos. O celular precisa estar nesta rede.
phone-code-expired = O código de pareamento já foi usado ou expirou.
phone-new-code = Novo código de pareamento
phone-paired = Dispositivos pareados
phone-none-yet = Nenhum ainda.
phone-revoked = revogado
phone-revoke = Revogar
phone-revoke-hover = Recusar, daqui em diante, todo pedido deste dispositivo
phone-refused-paired = Pedidos recusados de celulares pareados
phone-refused-unauthenticated = Pedidos recusados que não puderam ser autenticados
phone-refused = recusado

## O broker.
phone-broker-title = Por um broker
phone-broker-intro = Para responder de qualquer lugar: um broker MQTT que você escolhe (Mosquitto, EMQX, um hospedado) leva as mesmas mensagens lacradas. Ele vê nomes de tópicos aleatórios, tamanhos e horários, nunca um cartão ou uma resposta.
phone-broker-url = URL do broker
phone-broker-url-hint = wss://broker.example:8884/ ou mqtts://…
phone-username = Usuário
phone-optional = opcional
phone-unchanged = inalterada (no chaveiro)
phone-password = Senha
phone-phone-username = Usuário do celular
phone-phone-username-hint = opcional: a conta própria do celular no broker
phone-phone-password = Senha do celular
phone-ca = Certificado da CA
phone-ca-hint = Arquivo PEM, para um broker próprio
phone-phone-broker-url = URL do broker para o celular
phone-phone-broker-url-hint = wss://…, se não for a de cima
phone-page-url = URL da página
phone-page-url-hint = https://… (padrão: o servidor web do próprio broker)
phone-save-reconnect = Salvar e reconectar
phone-connect = Conectar
phone-forget-password = Esquecer a senha
phone-forget-phone-password = Esquecer a senha do celular
phone-broker-state = Broker: { $state }
phone-broker-off = Broker: desligado
phone-disconnect = Desconectar
phone-qr-login = O código QR passa a levar o login do celular: mantenha-o em sigilo (quem o vê pode usar essa conta do broker, mas não responder a um cartão sem parear). Dê ao celular uma conta própria cuja ACL alcance só { $write } (escrita) e { $read } (leitura).

## O push de um dispositivo.
phone-push-last = última entrega em { $time } UTC
phone-push-nothing = nada entregue ainda
phone-push-on = Push: ligado — { $last }
phone-push-test = Enviar um teste
phone-push-test-hover = Envia agora uma notificação de teste para este celular
phone-push-off = Push: desligado — ligue-o na página do celular. Ele precisa da página num endereço HTTPS confiável (o servidor web do broker, ou qualquer host HTTPS; não a página da rede local com o certificado próprio do Vults): { $doc }, "Push".
phone-push-error = Push: { $error }
phone-broker-connecting = Conectando…
phone-broker-connected = Conectado
phone-broker-reconnecting = Reconectando em { $seconds } s — { $error }
