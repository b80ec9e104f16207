# Os avisos do motor, na linha de baixo da janela.

engine-rule-dropped = Uma regra foi descartada ao carregar: { $why }
engine-rules-not-loaded = As regras Sempre não foram carregadas: { $why }. Regras novas valem até o Vults fechar, e o arquivo não será tocado
engine-private-tightened = { $path } podia ser lido por outros ({ $was }); agora é privado ({ $now })
engine-private-failed = Não foi possível tornar { $path } privado: { $error }
engine-no-such-rule = Não há regra Sempre { $rule } para remover
engine-card-gone = O cartão { $card } não está mais esperando (já foi respondido, ou o agente saiu)
engine-not-a-question = O cartão { $card } pede uma permissão, não respostas
engine-no-always = O cartão { $card } não tem Sempre (uma chamada destrutiva ou uma pergunta); responda só desta vez
engine-rules-kept-in-memory = O arquivo de regras não pôde ser lido no início, então não é sobrescrito; esta mudança vale até o Vults fechar
engine-rules-not-saved = Não foi possível salvar as regras Sempre em { $path }: { $error }
engine-refused-message = Uma mensagem "{ $kind }" foi recusada no socket do hook: de lá só pode vir um evento
engine-refused-user = Conexão recusada do uid { $uid } (este app roda como uid { $me })
engine-refused-user-pid = Conexão recusada do uid { $uid } (pid { $pid }) (este app roda como uid { $me })
engine-refused-unknown-user = Conexão recusada: não dá para saber o usuário
engine-refused-unreadable = Conexão recusada: não dá para ler as credenciais: { $error }
