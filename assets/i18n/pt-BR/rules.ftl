# O que uma regra "Sempre" responde (docs/safety.md). $who é o agente, $tool a ferramenta,
# $file um caminho relativo à pasta da regra (`rule-this-file` quando a entrada exata não nomeia nenhum).

rule-exact-change = { $who } pode fazer exatamente esta alteração em { $file } com { $tool }, nesta pasta.
rule-exact-content = { $who } pode gravar exatamente este conteúdo em { $file } com { $tool }, nesta pasta.
rule-this-file = este arquivo
rule-exact-input = { $who } pode usar { $tool } com exatamente esta entrada, nesta pasta.
rule-exact-command = { $who } pode executar exatamente este comando com { $tool }, nesta pasta.
rule-any-change = { $who } pode editar { $file } com { $tool } — qualquer alteração, nesta pasta.
rule-any-content = { $who } pode gravar { $file } com { $tool } — qualquer conteúdo, nesta pasta.
rule-read = { $who } pode ler { $file } com { $tool }, nesta pasta.
rule-use-on = { $who } pode usar { $tool } em { $file }, nesta pasta.
rule-exact-query = { $who } pode buscar exatamente esta consulta com { $tool }, nesta pasta.
rule-exact-url = { $who } pode baixar exatamente esta URL com { $tool }, nesta pasta.
rule-exact-patch = { $who } pode aplicar exatamente este patch com { $tool }, nesta pasta.
rule-exact-target = { $who } pode usar { $tool } exatamente neste alvo, nesta pasta.

rules-title = Regras "Sempre"
rules-intro = Cada uma permite, sem perguntar, o que a sua frase diz: um agente, em uma pasta, uma ferramenta — um comando, URL ou entrada inteiros, exatamente; para um arquivo, exatamente esta alteração, ou qualquer alteração nele.
rules-none = Nenhuma regra ainda. "Sempre permitir" em um cartão cria uma.
rules-remove = Remover
rules-remove-hover = Remover a regra { $id }
rules-hidden = contém caracteres ocultos

policies-title = Políticas
policies-intro = Políticas negam ou perguntam por classes inteiras de chamadas; o arquivo é lido de novo quando muda.
policies-file = Arquivo:
policies-cannot-read = Não foi possível ler as políticas: { $error }
policies-last-good = As últimas políticas válidas continuam valendo.
policies-in-force = { $count ->
    [one] 1 política em vigor
   *[other] { $count } políticas em vigor
}
policies-warning = Aviso: { $warning }
policies-open = Abrir o arquivo de políticas
policies-reload = Recarregar
