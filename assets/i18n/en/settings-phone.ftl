# Settings → Phone: the phone link, its broker, the paired devices and their push. What the phone
# crate itself says (a key's storage, a broker's state, an error) is an argument.

settings-phone-title = Phone
settings-phone-intro = A paired phone sees the waiting cards and answers them with signed, sealed requests. The link listens on your network only while it is on.
settings-phone-port = Port
settings-phone-listening = On — listening on port { $port }
settings-phone-turn-off = Turn off
settings-phone-turn-on = Turn on
settings-phone-off = Off
settings-phone-scan = Scan with the phone's camera, then tap Pair on the page:
settings-phone-code-carries-login = This code carries the phone's broker login: show it only to the phone.
settings-phone-fingerprint = The phone will warn once about this computer's own certificate. Its SHA-256 fingerprint is { $fingerprint }
settings-phone-one-use-broker = One use; expires in 5 minutes. Through the broker, the phone can be anywhere.
settings-phone-one-use-lan = One use; expires in 5 minutes. The phone must be on this network.
settings-phone-code-expired = The pairing code was used or has expired.
settings-phone-new-code = New pairing code
settings-phone-paired = Paired devices
settings-phone-none-yet = None yet.
settings-phone-revoked = revoked
settings-phone-revoke = Revoke
settings-phone-revoke-hover = Refuse every request from this device from now on
settings-phone-refused-paired = Refused requests from paired phones
settings-phone-refused-unauthenticated = Refused requests that could not be authenticated
settings-phone-refused = refused

## The broker.
settings-phone-broker-title = Through a broker
settings-phone-broker-intro = To answer from anywhere: an MQTT broker you pick (Mosquitto, EMQX, a hosted one) carries the same sealed messages. It sees random topic names, sizes and timing, never a card or an answer.
settings-phone-broker-url = Broker URL
settings-phone-broker-url-hint = wss://broker.example:8884/ or mqtts://…
settings-phone-username = Username
settings-phone-optional = optional
settings-phone-unchanged = unchanged (in the keyring)
settings-phone-password = Password
settings-phone-phone-username = Phone's username
settings-phone-phone-username-hint = optional: the phone's own broker account
settings-phone-phone-password = Phone's password
settings-phone-ca = CA certificate
settings-phone-ca-hint = PEM file, for a self-hosted broker
settings-phone-phone-broker-url = Phone's broker URL
settings-phone-phone-broker-url-hint = wss://…, if not the one above
settings-phone-page-url = Page URL
settings-phone-page-url-hint = https://… (default: the broker's own web server)
settings-phone-save-reconnect = Save and reconnect
settings-phone-connect = Connect
settings-phone-forget-password = Forget password
settings-phone-forget-phone-password = Forget phone's password
# $state: what the phone link says of the connection.
settings-phone-broker-state = Broker: { $state }
settings-phone-broker-off = Broker: off
settings-phone-disconnect = Disconnect
settings-phone-qr-login = The QR code then carries the phone's login: keep it private (anyone who sees it can use that broker account, though not answer a card without pairing). Give the phone its own account whose ACL reaches only { $write } (write) and { $read } (read).

## A device's push.
settings-phone-push-last = last delivered { $time } UTC
settings-phone-push-nothing = nothing delivered yet
settings-phone-push-on = Push: on — { $last }
settings-phone-push-test = Send a test
settings-phone-push-test-hover = Push a test notification to this phone now
settings-phone-push-off = Push: off — turn it on in the phone's page. It needs the page on a trusted HTTPS address (the broker's web server, or any HTTPS host; not the LAN page with Vults' own certificate): { $doc }, "Push".
settings-phone-push-error = Push: { $error }
# Why a device's last push did not get through. $service: the push service's address; $error:
# what the network library said, as it came; $status: the HTTP status.
settings-phone-push-failure-timeout = the push service did not answer in time
settings-phone-push-failure-not-https = the endpoint is not an https:// URL
settings-phone-push-failure-not-url = the endpoint is not a URL
settings-phone-push-failure-no-host = the endpoint has no host
settings-phone-push-failure-bad-host = { $host } is not a host name
settings-phone-push-failure-unreachable = cannot reach { $service }: { $error }
settings-phone-push-failure-tls = TLS with { $service } failed: { $error }
settings-phone-push-failure-http = HTTP with { $service } failed: { $error }
settings-phone-push-failure-request = the request could not be made
settings-phone-push-failure-no-answer = { $service } did not answer: { $error }
settings-phone-push-failure-busy = { $service } answered { $status }
settings-phone-push-failure-redirect = { $service } answered with a redirect ({ $status }), which is not followed
settings-phone-push-failure-refused = { $service } refused the push ({ $status })
settings-phone-push-failure-gone = the push service says this phone's subscription is gone ({ $status }): push is off until the page subscribes again
settings-phone-push-failure-encrypt = the push could not be encrypted: { $error }
# $last: the last try's failure, worded by one of the messages above.
settings-phone-push-failure-gave-up = { $last } (gave up after { $tries } tries)
settings-phone-broker-connecting = Connecting…
settings-phone-broker-connected = Connected
# $error: the last try's failure, as the broker link said it.
settings-phone-broker-reconnecting = Reconnecting in { $seconds } s — { $error }

## Where a secret is kept (the keyring, or a private file and why). $path is the file, $why one of
## the settings-phone-no-keyring-… reasons.
settings-phone-keys-in-keyring = The phone link keys are in the system keyring.
settings-phone-push-key-in-keyring = The push key is in the system keyring.
settings-phone-broker-password-in-keyring = The broker password is in the system keyring.
settings-phone-phone-password-in-keyring = The phone's broker password is in the system keyring.
settings-phone-keys-in-file = No system keyring: { $why }. The phone link keys are in { $path } instead (readable only by you).
settings-phone-push-key-in-file = No system keyring: { $why }. The push key is in { $path } instead (readable only by you).
settings-phone-broker-password-in-file = No system keyring: { $why }. The broker password is in { $path } instead (readable only by you).
settings-phone-phone-password-in-file = No system keyring: { $why }. The phone's broker password is in { $path } instead (readable only by you).
settings-phone-no-keyring-service = no keyring service (GNOME Keyring, KWallet) is running
settings-phone-no-keyring-bus = no desktop session bus (D-Bus) was found, so no keyring service can be reached
settings-phone-no-keyring-locked = the keyring is locked
settings-phone-no-keyring-unsupported = this system has no keyring Vults can use
settings-phone-no-keyring-no-answer = the system keyring did not answer (the log says why)
# The push key could not be had; $error is what the link said.
settings-phone-push-key-off = Push is off: { $error }
# In the pairing URL shown under the code, in place of the phone's broker password.
settings-phone-url-hidden = hidden
