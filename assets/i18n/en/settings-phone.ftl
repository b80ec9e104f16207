# Settings → Phone: the phone link, its broker, the paired devices and their push. What the phone
# crate itself says (a key's storage, a broker's state, an error) is an argument.

phone-title = Phone
phone-intro = A paired phone sees the waiting cards and answers them with signed, sealed requests. The link listens on your network only while it is on.
phone-port = Port
phone-listening = On — listening on port { $port }
phone-turn-off = Turn off
phone-turn-on = Turn on
phone-off = Off
phone-scan = Scan with the phone's camera, then tap Pair on the page:
phone-code-carries-login = This code carries the phone's broker login: show it only to the phone.
phone-fingerprint = The phone will warn once about this computer's own certificate. Its SHA-256 fingerprint is { $fingerprint }
phone-one-use-broker = One use; expires in 5 minutes. Through the broker, the phone can be anywhere.
phone-one-use-lan = One use; expires in 5 minutes. The phone must be on this network.
phone-code-expired = The pairing code was used or has expired.
phone-new-code = New pairing code
phone-paired = Paired devices
phone-none-yet = None yet.
phone-revoked = revoked
phone-revoke = Revoke
phone-revoke-hover = Refuse every request from this device from now on
phone-refused-paired = Refused requests from paired phones
phone-refused-unauthenticated = Refused requests that could not be authenticated
phone-refused = refused

## The broker.
phone-broker-title = Through a broker
phone-broker-intro = To answer from anywhere: an MQTT broker you pick (Mosquitto, EMQX, a hosted one) carries the same sealed messages. It sees random topic names, sizes and timing, never a card or an answer.
phone-broker-url = Broker URL
phone-broker-url-hint = wss://broker.example:8884/ or mqtts://…
phone-username = Username
phone-optional = optional
phone-unchanged = unchanged (in the keyring)
phone-password = Password
phone-phone-username = Phone's username
phone-phone-username-hint = optional: the phone's own broker account
phone-phone-password = Phone's password
phone-ca = CA certificate
phone-ca-hint = PEM file, for a self-hosted broker
phone-phone-broker-url = Phone's broker URL
phone-phone-broker-url-hint = wss://…, if not the one above
phone-page-url = Page URL
phone-page-url-hint = https://… (default: the broker's own web server)
phone-save-reconnect = Save and reconnect
phone-connect = Connect
phone-forget-password = Forget password
phone-forget-phone-password = Forget phone's password
# $state: what the phone link says of the connection.
phone-broker-state = Broker: { $state }
phone-broker-off = Broker: off
phone-disconnect = Disconnect
phone-qr-login = The QR code then carries the phone's login: keep it private (anyone who sees it can use that broker account, though not answer a card without pairing). Give the phone its own account whose ACL reaches only { $write } (write) and { $read } (read).

## A device's push.
phone-push-last = last delivered { $time } UTC
phone-push-nothing = nothing delivered yet
phone-push-on = Push: on — { $last }
phone-push-test = Send a test
phone-push-test-hover = Push a test notification to this phone now
phone-push-off = Push: off — turn it on in the phone's page. It needs the page on a trusted HTTPS address (the broker's web server, or any HTTPS host; not the LAN page with Vults' own certificate): { $doc }, "Push".
phone-push-error = Push: { $error }
phone-broker-connecting = Connecting…
phone-broker-connected = Connected
# $error: the last try's failure, as the broker link said it.
phone-broker-reconnecting = Reconnecting in { $seconds } s — { $error }
