//! Errors cross crate boundaries typed: no public function of a library crate returns (or takes)
//! a `Result<_, String>`. Each library crate says what went wrong with its own error enum, whose
//! `Display` is the line a person reads (README.md, "Errors").
//!
//! - Library crates: every workspace package with a library target, but `vults-tests` (the test
//!   support); its binaries (`main.rs`, `bin/`) may use whatever reads best.
//! - Public functions: `pub fn` of every form (`const`, `async`, `unsafe`, `extern`), every method
//!   of a `pub trait`, and `pub type` aliases; `pub(crate)`, `pub(super)` and `pub(in …)` are
//!   inside the crate and may stay. The signature is read whole, over as many lines as it takes
//!   and with any spacing. A trait impl's `type Err = String` (`FromStr`) or `type Error =
//!   String` (`TryFrom`) is the same string error behind `parse()`, and fails too.
//! - Not read: comments, items marked `#[cfg(test)]` and the files of `#[cfg(test)] mod x;`.
//!
//! `the_check_bites` proves it finds what it is for.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use vults_tests::{code_of, is_ident};

/// Each library crate's name and the folder of its `lib.rs`.
fn library_crates() -> Vec<(String, PathBuf)> {
    let meta: Value = vults_tests::workspace_metadata();
    let mut crates = Vec::new();
    for package in meta["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        if name == "vults-tests" {
            continue;
        }
        for target in package["targets"].as_array().unwrap() {
            let kinds = target["kind"].as_array().unwrap();
            if kinds.iter().any(|k| k == "lib" || k == "rlib") {
                let lib = Path::new(target["src_path"].as_str().unwrap());
                crates.push((name.to_string(), lib.parent().unwrap().to_path_buf()));
            }
        }
    }
    crates
}

/// A crate's library source files (not its binaries, not its test-only modules), each with its
/// code as [`code_of`] gives it.
fn library_sources(src: &Path) -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, skip: &mut BTreeSet<PathBuf>, out: &mut Vec<(PathBuf, String)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        // Files first: their `#[cfg(test)] mod x;` name the files and folders to skip.
        entries.sort_by_key(|p| p.is_dir());
        for path in entries {
            if skip.contains(&path) {
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                if name != "bin" {
                    walk(&path, skip, out);
                }
            } else if name.ends_with(".rs") && name != "main.rs" {
                let text = std::fs::read_to_string(&path).unwrap();
                let stem = name.trim_end_matches(".rs");
                let children = if ["lib", "mod"].contains(&stem) {
                    dir.to_path_buf()
                } else {
                    dir.join(stem)
                };
                for (module, at) in test_modules(&text) {
                    match at {
                        Some(at) => {
                            skip.insert(dir.join(at));
                        }
                        None => {
                            skip.insert(children.join(format!("{module}.rs")));
                            skip.insert(children.join(&module));
                        }
                    }
                }
                out.push((path.clone(), code_of(&text)));
            }
        }
    }
    let mut out = Vec::new();
    walk(src, &mut BTreeSet::new(), &mut out);
    out
}

/// The modules a file declares test-only (`#[cfg(test)]`, then maybe `#[path = "…"]`, then
/// `mod name;`): each one's name and its `#[path]` if it has one.
fn test_modules(text: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        rest = &rest[at + "#[cfg(test)]".len()..];
        let mut item = rest.trim_start();
        let mut path = None;
        while item.starts_with("#[") {
            let end = item.find(']').map_or(item.len(), |e| e + 1);
            let attribute = &item[..end];
            if let Some(p) = attribute.strip_prefix("#[path") {
                path = p.split('"').nth(1).map(str::to_string);
            }
            item = item[end..].trim_start();
        }
        let item = item.strip_prefix("pub(crate) ").unwrap_or(item);
        if let Some(decl) = item.strip_prefix("mod ")
            && let Some(semi) = decl.find(';')
            && decl[..semi]
                .trim()
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_')
        {
            found.push((decl[..semi].trim().to_string(), path));
        }
    }
    found
}

/// Whether `word` stands at byte `at` of `code` as a whole word.
fn word_at(code: &str, at: usize, word: &str) -> bool {
    code[at..].starts_with(word)
        && !code[..at].chars().next_back().is_some_and(is_ident)
        && !code[at + word.len()..].chars().next().is_some_and(is_ident)
}

/// The signatures of a file's public functions: from each `fn` to its body's `{` or its `;`,
/// for every `pub fn` (of any form) and every method of a `pub trait`; and every `pub type`
/// alias to its `;`.
fn public_signatures(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let upto = |from: usize, ends: &[char]| -> String {
        let rest = &code[from..];
        let end = rest.find(|c| ends.contains(&c)).unwrap_or(rest.len());
        rest[..end].to_string()
    };
    let mut trait_ends: Vec<usize> = Vec::new();
    for (at, _) in code.char_indices() {
        if !word_at(code, at, "pub") || code[at + 3..].trim_start().starts_with('(') {
            continue;
        }
        // The words after `pub` up to the item's kind: `const`, `async`, `unsafe`, `extern "C"`.
        let mut rest = code[at + 3..].trim_start();
        loop {
            let next = ["const ", "async ", "unsafe ", "extern "]
                .iter()
                .find(|w| rest.starts_with(**w));
            match next {
                Some(w) => {
                    rest = rest[w.len()..].trim_start();
                    if rest.starts_with('"') {
                        let close = rest[1..].find('"').map_or(rest.len(), |e| e + 2);
                        rest = rest[close..].trim_start();
                    }
                }
                None => break,
            }
        }
        let from = code.len() - rest.len();
        if word_at(code, from, "fn") {
            found.push(upto(from, &['{', ';']));
        } else if word_at(code, from, "type") {
            found.push(upto(from, &[';']));
        } else if word_at(code, from, "trait") {
            // The trait's body: every `fn` in it is public.
            let Some(open) = code[from..].find('{').map(|o| from + o) else {
                continue;
            };
            let mut depth = 0;
            let mut end = code.len();
            for (i, c) in code[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            trait_ends.push(end);
            let body = &code[open + 1..end];
            let mut depth = 0;
            for (i, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ if depth == 0 && word_at(body, i, "fn") => {
                        let rest = &body[i..];
                        let end = rest.find(['{', ';']).unwrap_or(rest.len());
                        found.push(rest[..end].to_string());
                    }
                    _ => {}
                }
            }
        }
    }
    found
}

/// The `Result<_, String>` in a signature (any spacing): each `Result<…>` with two arguments
/// whose second is `String`, as written.
fn string_errors(signature: &str) -> Vec<String> {
    let flat: String = signature.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut found = Vec::new();
    for (at, _) in flat.match_indices("Result") {
        if flat[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = flat[at + "Result".len()..].trim_start();
        let Some(args) = rest.strip_prefix('<') else {
            continue;
        };
        let mut depth = 0;
        let mut parts = vec![String::new()];
        let mut previous = ' ';
        for c in args.chars() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' if previous == '-' => {}
                '>' | ')' | ']' if depth == 0 => break,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(String::new());
                    previous = c;
                    continue;
                }
                _ => {}
            }
            parts.last_mut().unwrap().push(c);
            previous = c;
        }
        if parts.len() > 1 && parts.last().is_some_and(|p| p.trim().is_empty()) {
            parts.pop(); // a trailing comma
        }
        let error = parts.get(1).map(|e| e.trim()).unwrap_or("");
        if parts.len() == 2
            && ["String", "std::string::String", "alloc::string::String"].contains(&error)
        {
            let written: String = parts.join(",");
            found.push(format!("Result<{written}>"));
        }
    }
    found
}

/// A trait impl's error type said as a String (`type Err = String;` of `FromStr`, `type Error =
/// String;` of `TryFrom`): the same string error, behind `parse()` or `try_from()`.
fn string_error_types(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("type") {
        if !word_at(code, at, "type") {
            continue;
        }
        let rest = &code[at..];
        let item = &rest[..rest.find(';').unwrap_or(rest.len())];
        let flat: String = item.split_whitespace().collect::<Vec<_>>().join("");
        let error = ["typeErr=", "typeError="]
            .iter()
            .find_map(|head| flat.strip_prefix(head));
        if error.is_some_and(|e| ["String", "std::string::String"].contains(&e)) {
            found.push(format!("{item};"));
        }
    }
    found
}

/// Every public signature of a file's code that has a `Result<_, String>`, and every trait
/// impl's error type said as a String.
fn offenders(code: &str) -> Vec<String> {
    public_signatures(code)
        .into_iter()
        .filter(|s| !string_errors(s).is_empty())
        .chain(string_error_types(code))
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn no_public_function_of_a_library_crate_returns_a_string_error() {
    let root = vults_tests::workspace_root();
    let crates = library_crates();
    assert!(
        crates.iter().any(|(n, _)| n == "vults-core") && crates.len() >= 9,
        "the library crates are found: {crates:?}"
    );
    let mut bad = Vec::new();
    for (name, src) in &crates {
        for (path, code) in library_sources(src) {
            for signature in offenders(&code) {
                let file = path.strip_prefix(&root).unwrap_or(&path).display();
                bad.push(format!("{name}: {file}: {signature}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "a library crate's public function says its error as a String; give the crate (or the \
         module) an error enum (thiserror) whose Display is the line a person reads:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_bites() {
    let caught = [
        "pub fn f() -> Result<(), String> { Ok(()) }",
        "pub fn f() -> Result<(),String> {}",
        "pub fn f() -> Result < Vec<u8> , String > {}",
        "pub fn f(\n    a: u8,\n    b: &str,\n) -> Result<\n    BTreeMap<String, Vec<u8>>,\n    String,\n> {}",
        "pub async fn f() -> Result<(), String> {}",
        "pub const fn f() -> Result<u8, std::string::String> {}",
        "pub unsafe extern \"C\" fn f() -> Result<u8, String> {}",
        "pub fn f<T: Fn() -> u8>() -> Result<Box<dyn Fn(u8) -> u8>, String> {}",
        "pub fn f() -> Option<Result<u8, String>> {}",
        "pub fn f(done: impl FnOnce(Result<u8, String>)) {}",
        "pub fn f()\n    -> Result<u8, String>\nwhere T: Clone {}",
        "pub trait T {\n    fn run(&self) -> Result<String, String>;\n}",
        "pub trait T: Send {\n    fn a(&self) {}\n    fn run(\n        &self,\n    ) -> Result<(), String> { Ok(()) }\n}",
        "pub type Said = Result<u8, String>;",
        "impl X {\n    pub fn f(&self) -> Result<(), String> {}\n}",
        "impl std::str::FromStr for X {\n    type Err = String;\n    fn from_str(s: &str) -> Result<X, String> {}\n}",
        "impl TryFrom<u8> for X {\n    type Error =\n        String;\n}",
    ];
    for code in caught {
        assert_eq!(offenders(&code_of(code)).len(), 1, "not caught: {code}");
    }
    let passed = [
        "pub(crate) fn f() -> Result<(), String> {}",
        "pub(super) fn f() -> Result<(), String> {}",
        "pub(in crate::a) fn f() -> Result<(), String> {}",
        "fn f() -> Result<(), String> {}",
        "trait T { fn run(&self) -> Result<String, String>; }",
        "pub fn f() -> io::Result<String> {}",
        "pub fn f() -> Result<String, Error> {}",
        "pub fn f() -> Result<(String, u8), Error> {}",
        "pub fn f() -> Result<Vec<String>, StringError> {}",
        "pub fn f() -> zbus::Result<Vec<String>> {}",
        "pub fn f() -> MyResult<u8, String> {}",
        "pub fn f() -> u8 { let r: Result<u8, String> = Ok(1); 1 }",
        "/// pub fn f() -> Result<(), String>\npub fn g() {}",
        "#[cfg(test)]\nmod tests {\n    pub fn f() -> Result<(), String> {}\n}",
        "#[cfg(test)]\npub fn f() -> Result<(), String> {}",
        "pub struct S { pub f: fn() -> u8 }",
        "impl std::str::FromStr for X {\n    type Err = XError;\n}",
        "type Errors = String;",
    ];
    // What follows a test module is read, whatever braces its strings and characters hold.
    for tests in [
        "#[cfg(test)]\nmod tests {\n    fn t() { let _ = \"{not json\"; }\n}\n",
        "#[cfg(test)]\nmod tests {\n    fn t() { let _ = b\"{\"; let _ = '{'; }\n}\n",
        "#[cfg(test)]\nmod tests {\n    fn t<'a>(x: &'a str) { let _ = r#\"}}\"#; }\n}\n",
        "#[cfg(test)]\nmod tests {\n    fn t() { let _ = \"\\\"{\"; } /* { */\n}\n",
        "#[cfg(test)]\nmod tests {\n    fn t() { let _ = ['\\'', '\\u{7b}', '{']; }\n}\n",
    ] {
        let code = format!("{tests}pub fn f() -> Result<(), String> {{ Ok(()) }}");
        assert_eq!(offenders(&code_of(&code)).len(), 1, "{code}");
    }
    for code in passed {
        assert_eq!(offenders(&code_of(code)), Vec::<String>::new(), "{code}");
    }
    // Test-only modules' files are skipped, with or without `#[path]`.
    assert_eq!(
        test_modules(
            "#[cfg(test)]\nmod plan_tests;\nmod b;\n#[cfg(test)]\n#[path = \"x/t.rs\"]\nmod t;\n#[cfg(test)]\nmod inline {}"
        ),
        vec![
            ("plan_tests".to_string(), None),
            ("t".to_string(), Some("x/t.rs".to_string()))
        ]
    );
}
