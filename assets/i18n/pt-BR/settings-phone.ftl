# Configurações → Celular.

settings-phone-title = Celular
settings-phone-intro = Um celular pareado vê os cartões esperando e os responde com pedidos assinados e lacrados. A conexão só escuta na sua rede enquanto está ligada.
settings-phone-port = Porta
settings-phone-listening = Ligado — escutando na porta { $port }
settings-phone-turn-off = Desligar
settings-phone-turn-on = Ligar
settings-phone-off = Desligado
settings-phone-scan = Escaneie com a câmera do celular e toque em Parear na página:
settings-phone-code-carries-login = Este código leva o login do celular no broker: mostre-o só para o celular.
settings-phone-fingerprint = O celular vai avisar uma vez sobre o certificado próprio deste computador. A impressão digital SHA-256 dele é { $fingerprint }
settings-phone-one-use-broker = Uso único; expira em 5 minutos. Pelo broker, o celular pode estar em qualquer lugar.
settings-phone-one-use-lan = Uso único; expira em 5 minutos. O celular precisa estar nesta rede.
settings-phone-code-expired = O código de pareamento já foi usado ou expirou.
settings-phone-new-code = Novo código de pareamento
settings-phone-paired = Dispositivos pareados
settings-phone-none-yet = Nenhum ainda.
settings-phone-revoked = revogado
settings-phone-revoke = Revogar
settings-phone-revoke-hover = Recusar, daqui em diante, todo pedido deste dispositivo
settings-phone-refused-paired = Pedidos recusados de celulares pareados
settings-phone-refused-unauthenticated = Pedidos recusados que não puderam ser autenticados
settings-phone-refused = recusado

## O broker.
settings-phone-broker-title = Por um broker
settings-phone-broker-intro = Para responder de qualquer lugar: um broker MQTT que você escolhe (Mosquitto, EMQX, um hospedado) leva as mesmas mensagens lacradas. Ele vê nomes de tópicos aleatórios, tamanhos e horários, nunca um cartão ou uma resposta.
settings-phone-broker-url = URL do broker
settings-phone-broker-url-hint = wss://broker.example:8884/ ou mqtts://…
settings-phone-username = Usuário
settings-phone-optional = opcional
settings-phone-unchanged = inalterada (no chaveiro)
settings-phone-password = Senha
settings-phone-phone-username = Usuário do celular
settings-phone-phone-username-hint = opcional: a conta própria do celular no broker
settings-phone-phone-password = Senha do celular
settings-phone-ca = Certificado da CA
settings-phone-ca-hint = Arquivo PEM, para um broker próprio
settings-phone-phone-broker-url = URL do broker para o celular
settings-phone-phone-broker-url-hint = wss://…, se não for a de cima
settings-phone-page-url = URL da página
settings-phone-page-url-hint = https://… (padrão: o servidor web do próprio broker)
settings-phone-save-reconnect = Salvar e reconectar
settings-phone-connect = Conectar
settings-phone-forget-password = Esquecer a senha
settings-phone-forget-phone-password = Esquecer a senha do celular
settings-phone-broker-state = Broker: { $state }
settings-phone-broker-off = Broker: desligado
settings-phone-disconnect = Desconectar
settings-phone-qr-login = O código QR passa a levar o login do celular: mantenha-o em sigilo (quem o vê pode usar essa conta do broker, mas não responder a um cartão sem parear). Dê ao celular uma conta própria cuja ACL alcance só { $write } (escrita) e { $read } (leitura).

## O push de um dispositivo.
settings-phone-push-last = última entrega em { $time } UTC
settings-phone-push-nothing = nada entregue ainda
settings-phone-push-on = Push: ligado — { $last }
settings-phone-push-test = Enviar um teste
settings-phone-push-test-hover = Envia agora uma notificação de teste para este celular
settings-phone-push-off = Push: desligado — ligue-o na página do celular. Ele precisa da página num endereço HTTPS confiável (o servidor web do broker, ou qualquer host HTTPS; não a página da rede local com o certificado próprio do Vults): { $doc }, "Push".
settings-phone-push-error = Push: { $error }
# Por que o último push de um dispositivo não chegou. $service: o endereço do serviço de push;
# $error: o que a biblioteca de rede disse, como veio; $status: o status HTTP.
settings-phone-push-failure-timeout = o serviço de push não respondeu a tempo
settings-phone-push-failure-not-https = o endpoint não é uma URL https://
settings-phone-push-failure-not-url = o endpoint não é uma URL
settings-phone-push-failure-no-host = o endpoint não tem host
settings-phone-push-failure-bad-host = { $host } não é um nome de host
settings-phone-push-failure-unreachable = não foi possível alcançar { $service }: { $error }
settings-phone-push-failure-tls = o TLS com { $service } falhou: { $error }
settings-phone-push-failure-http = o HTTP com { $service } falhou: { $error }
settings-phone-push-failure-request = não foi possível montar a requisição
settings-phone-push-failure-no-answer = { $service } não respondeu: { $error }
settings-phone-push-failure-busy = { $service } respondeu { $status }
settings-phone-push-failure-redirect = { $service } respondeu com um redirecionamento ({ $status }), que não é seguido
settings-phone-push-failure-refused = { $service } recusou o push ({ $status })
settings-phone-push-failure-gone = o serviço de push diz que a inscrição deste celular não existe mais ({ $status }): o push fica desligado até a página se inscrever de novo
settings-phone-push-failure-encrypt = não foi possível criptografar o push: { $error }
# $last: a falha da última tentativa, dita por uma das mensagens acima.
settings-phone-push-failure-gave-up = { $last } (desistiu depois de { $tries } tentativas)
settings-phone-broker-connecting = Conectando…
settings-phone-broker-connected = Conectado
settings-phone-broker-reconnecting = Reconectando em { $seconds } s — { $error }

## Onde um segredo fica guardado.
settings-phone-keys-in-keyring = As chaves do link do celular estão no chaveiro do sistema.
settings-phone-push-key-in-keyring = A chave de push está no chaveiro do sistema.
settings-phone-broker-password-in-keyring = A senha do broker está no chaveiro do sistema.
settings-phone-phone-password-in-keyring = A senha do broker para o celular está no chaveiro do sistema.
settings-phone-keys-in-file = Sem chaveiro do sistema: { $why }. As chaves do link do celular estão em { $path } (só você pode ler).
settings-phone-push-key-in-file = Sem chaveiro do sistema: { $why }. A chave de push está em { $path } (só você pode ler).
settings-phone-broker-password-in-file = Sem chaveiro do sistema: { $why }. A senha do broker está em { $path } (só você pode ler).
settings-phone-phone-password-in-file = Sem chaveiro do sistema: { $why }. A senha do broker para o celular está em { $path } (só você pode ler).
settings-phone-no-keyring-service = nenhum serviço de chaveiro (GNOME Keyring, KWallet) está rodando
settings-phone-no-keyring-bus = não foi encontrado o barramento da sessão (D-Bus), então nenhum serviço de chaveiro pode ser alcançado
settings-phone-no-keyring-locked = o chaveiro está bloqueado
settings-phone-no-keyring-unsupported = este sistema não tem um chaveiro que o Vults possa usar
settings-phone-no-keyring-no-answer = o chaveiro do sistema não respondeu (o log diz por quê)
settings-phone-push-key-off = O push está desligado: { $error }
settings-phone-url-hidden = oculta
