# As boas-vindas: o que a primeira execução encontrou e fez.

first-run-none = O Vults ainda não encontrou nenhum agente de código neste computador. Instale um (Claude Code, Codex CLI, Copilot CLI, Qwen Code, OpenCode …) e reinicie o Vults: ele coloca o hook sozinho.
first-run-found = O Vults encontrou: { $agents }.
first-run-installed = O hook está instalado em: { $agents }.
first-run-cards = Os pedidos de permissão de { $agents } agora aparecem como cartões.
first-run-sessions-only = { $agents } só mostram as sessões no bando; continuam pedindo permissão na própria janela.
first-run-status-line = A linha de status do Claude Code agora também alimenta o Vults; uma linha de status sua continua aparecendo.
first-run-todo = Ainda falta:
first-run-codex-trust = - Codex CLI: o Codex só roda hooks novos ou alterados depois que você confia neles: abra `/hooks` no Codex uma vez e confie nas entradas do Vults.
first-run-unparsable = - { $agent }: { $path } não pôde ser lido (linha { $line }, coluna { $column }: { $message }); ficou intocado. Corrija o arquivo e o Vults instala na próxima vez que iniciar.
first-run-failed = - { $agent }: { $why }
first-run-leftover = - { $agent }: ainda há hooks antigos do Vults nas configurações dele; eles não fazem mais nada. Remova-os em Configurações > Agentes.
