# O push para um celular pareado: o de um cartão diz o que a notificação da área de trabalho
# diz (notify.ftl); estas são as palavras do próprio push.

push-open-to-read = Abra para ler tudo.
push-summary-body = Abra o Vults para respondê-los.
push-test-body = Um push de teste do Vults: este celular vai vibrar quando um cartão esperar.
