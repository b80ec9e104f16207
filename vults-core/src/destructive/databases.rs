//! Databases: SQL that drops, truncates, or deletes or updates every row (`DROP TABLE`,
//! `DELETE FROM t` without `WHERE`), handed to a SQL client or an interpreter on its command
//! line or stdin; Redis' `FLUSHALL` / `FLUSHDB`.

use super::cx::Cx;
use super::interpreters::is_interpreter;
use crate::shell::Word;
use std::sync::LazyLock;

pub(super) const SQL_CLIENTS: [&str; 11] = [
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlite",
    "sqlcmd",
    "duckdb",
    "clickhouse-client",
    "clickhouse",
    "cockroach",
    "pgcli",
];

pub(super) fn check(
    prog: &str,
    args: &[Word],
    stdin: &[Word],
    _depth: usize,
    _cx: Cx,
) -> Option<String> {
    if matches!(prog, "redis-cli" | "valkey-cli" | "keydb-cli") {
        return args
            .iter()
            .find(|a| {
                a.text.eq_ignore_ascii_case("flushall") || a.text.eq_ignore_ascii_case("flushdb")
            })
            .map(|a| format!("redis {}", a.text.to_ascii_uppercase()));
    }
    if SQL_CLIENTS.contains(&prog) || is_interpreter(prog) {
        return args
            .iter()
            .chain(stdin)
            .find_map(|a| destructive_sql(&a.text));
    }
    None
}

static SQL: LazyLock<Option<regex_lite::Regex>> = LazyLock::new(|| {
    regex_lite::Regex::new(r"(?i)\b(drop\s+(?:table|database|schema)|truncate)\b").ok()
});

static SQL_DELETE: LazyLock<Option<regex_lite::Regex>> =
    LazyLock::new(|| regex_lite::Regex::new(r"(?i)\bdelete\s+from\s").ok());
static SQL_UPDATE: LazyLock<Option<regex_lite::Regex>> = LazyLock::new(|| {
    regex_lite::Regex::new(r"(?i)\bupdate\s+(?:only\s+)?[^\s;]+(?:\s+(?:as\s+)?[^\s;]+)?\s+set\s")
        .ok()
});
static SQL_WHERE: LazyLock<Option<regex_lite::Regex>> =
    LazyLock::new(|| regex_lite::Regex::new(r"(?i)\bwhere\b").ok());
/// A `WHERE` that holds for every row.
static SQL_WHERE_ALL: LazyLock<Option<regex_lite::Regex>> = LazyLock::new(|| {
    regex_lite::Regex::new(r"(?i)^where\s+(?:1\s*=\s*1|true|1|'1'\s*=\s*'1')[\s)'\x22]*$").ok()
});

/// `DROP TABLE`, `DROP DATABASE`, `DROP SCHEMA`, `TRUNCATE`, and `DELETE FROM` / `UPDATE … SET`
/// with no `WHERE` (or `WHERE 1=1`, `WHERE true`) before the statement's `;`, in SQL text.
pub(super) fn destructive_sql(text: &str) -> Option<String> {
    if let Some(found) = SQL.as_ref()?.find(text) {
        let words: Vec<String> = found
            .as_str()
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        return Some(words.join(" "));
    }
    for statement in text.split(';') {
        for (re, label) in [
            (&SQL_DELETE, "DELETE without WHERE"),
            (&SQL_UPDATE, "UPDATE without WHERE"),
        ] {
            let Some(found) = re.as_ref().and_then(|r| r.find(statement)) else {
                continue;
            };
            let rest = &statement[found.end()..];
            let all_rows = match SQL_WHERE.as_ref()?.find(rest) {
                None => true,
                Some(w) => SQL_WHERE_ALL
                    .as_ref()?
                    .is_match(rest[w.start()..].trim_end()),
            };
            if all_rows {
                return Some(label.to_string());
            }
        }
    }
    None
}
