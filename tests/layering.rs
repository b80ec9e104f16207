//! The workspace's shape, checked: crates depend downward only, and no crate's modules import
//! each other in a cycle (the direction is drawn in README.md, "How it fits together").
//!
//! - Crates: from `cargo metadata`, every edge between workspace crates (normal and dev
//!   dependencies) must point to a lower layer of [`LAYERS`]; `vults-tests` is the test support
//!   every crate may use (its library needs only `vults-core`), and its own end-to-end tests sit
//!   above everything. A new crate must be given its layer here (and in the README's drawing).
//! - Modules: in each crate's `src/` and in each of its folders, the modules a module's code
//!   (not its doc comments or `#[cfg(test)]` code) imports, in `use` of every form (grouped,
//!   nested, `self`, renamed, `pub use`) or in a path from `crate`, `super` or `self`, have no
//!   cycle.
//! - Front doors: no module imports an item its crate's `lib.rs` (or `main.rs`) defines; the
//!   front door re-exports and wires, and the kernel lives in named modules.
//!
//! `the_checks_bite` proves each check finds what it is for.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use vults_tests::code_of;

/// Each workspace crate's layer: an edge may only point to a lower one.
const LAYERS: &[(&str, u8)] = &[
    ("vults-core", 0),
    ("vults-tests", 1),
    ("vults-hook", 1),
    ("vults-i18n", 1),
    ("vults-engine", 2),
    ("vults-installer", 2),
    ("vults-terminal", 2),
    ("vults-zeca", 3),
    ("vults-notify", 3),
    ("vults-remote", 3),
    ("vults-phone", 4),
    ("vults-desktop", 4),
    ("vults-ui", 5),
    ("vults-app", 6),
];

/// The crate every test may use; its own dev-dependencies are the workspace's end-to-end tests.
const TEST_SUPPORT: &str = "vults-tests";

struct Member {
    name: String,
    dir: PathBuf,
    /// (dependency, is a dev-dependency)
    deps: Vec<(String, bool)>,
}

fn members() -> Vec<Member> {
    let meta: Value = vults_tests::workspace_metadata();
    let names: BTreeSet<String> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| Member {
            name: p["name"].as_str().unwrap().to_string(),
            dir: Path::new(p["manifest_path"].as_str().unwrap())
                .parent()
                .unwrap()
                .to_path_buf(),
            deps: p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| names.contains(d["name"].as_str().unwrap()))
                .filter(|d| d["kind"] != "build")
                .map(|d| (d["name"].as_str().unwrap().to_string(), d["kind"] == "dev"))
                .collect(),
        })
        .collect()
}

/// Every edge that breaks the layering, as "from -> to (why)".
fn arrows_back_up(members: &[(String, Vec<(String, bool)>)]) -> Vec<String> {
    let layer = |n: &str| LAYERS.iter().find(|(c, _)| *c == n).map(|(_, l)| *l);
    let mut bad = Vec::new();
    for (name, deps) in members {
        let Some(from) = layer(name) else {
            bad.push(format!(
                "{name} has no layer in tests/layering.rs (and README.md)"
            ));
            continue;
        };
        for (dep, dev) in deps {
            // A crate's tests may use its own test-support feature; the test support crate is
            // every crate's.
            if (*dep == TEST_SUPPORT || dep == name) && *dev {
                continue;
            }
            if name == TEST_SUPPORT && *dev {
                continue; // the end-to-end tests sit above everything
            }
            match layer(dep) {
                Some(to) if to < from => {}
                Some(to) => bad.push(format!(
                    "{name} (layer {from}) -> {dep} (layer {to}){}",
                    if *dev { " as a dev-dependency" } else { "" }
                )),
                None => bad.push(format!("{dep} has no layer in tests/layering.rs")),
            }
        }
    }
    bad
}

#[test]
fn crates_depend_downward_only() {
    let members = members();
    assert!(
        members.len() >= 8 && members.iter().any(|m| m.name == "vults-engine"),
        "the check reads the workspace"
    );
    let edges: Vec<(String, Vec<(String, bool)>)> = members
        .iter()
        .map(|m| (m.name.clone(), m.deps.clone()))
        .collect();
    assert_eq!(arrows_back_up(&edges), Vec::<String>::new());
}

/// Module → the modules it imports.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// A crate's source files: each one's module path from the crate root (`lib.rs` is `[]`,
/// `settings/mod.rs` is `["settings"]`, `settings/view.rs` is `["settings", "view"]`) and its
/// code (see [`code_of`]).
fn sources(src: &Path) -> Vec<(Vec<String>, String)> {
    fn walk(dir: &Path, module: &[String], out: &mut Vec<(Vec<String>, String)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let mut here = module.to_vec();
            if path.is_dir() {
                here.push(name);
                walk(&path, &here, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                if !(["lib", "main", "mod"].contains(&name.as_str())) {
                    here.push(name);
                }
                out.push((here, code_of(&std::fs::read_to_string(&path).unwrap())));
            }
        }
    }
    let mut out = Vec::new();
    walk(src, &[], &mut out);
    out
}

/// Module → the sibling modules its code (not its docs or tests) imports, for the modules of
/// one folder (`level`, its module path; `names`, the modules in it): every `crate::`,
/// `super::` and `self::` path, in code and in `use` of every form. A folder module
/// (`settings/`) counts as one module of its parent's folder, all its files together, and is a
/// folder of its own.
fn graph(sources: &[(Vec<String>, String)], level: &[String], names: &BTreeSet<String>) -> Graph {
    let mut g: Graph = BTreeMap::new();
    for (module, code) in sources {
        if module.len() <= level.len() || !module.starts_with(level) {
            continue; // another folder's, or this folder's front door (`lib.rs`, `mod.rs`)
        }
        let own = &module[level.len()];
        g.entry(own.clone())
            .or_default()
            .extend(edges(code, module, level, names));
    }
    g
}

/// The modules of `level` (see [`graph`]) that `code`, the code of `module`, imports.
fn edges(
    code: &str,
    module: &[String],
    level: &[String],
    names: &BTreeSet<String>,
) -> BTreeSet<String> {
    let own = module.get(level.len());
    paths_named(code)
        .into_iter()
        .filter_map(|path| resolve(&path, module))
        .filter(|target| target.len() > level.len() && target.starts_with(level))
        .map(|target| target[level.len()].clone())
        .filter(|m| names.contains(m) && Some(m) != own)
        .collect()
}

/// Every path `code` names from `crate`, `super` or `self`: the trees of its `use` items
/// (grouped, nested, renamed, `pub`) each path in full, and the paths written in code.
fn paths_named(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (i, _) in code.match_indices("use") {
        let before = code[..i].chars().next_back();
        let after = code[i + 3..].chars().next();
        if before.is_some_and(is_word) || !after.is_some_and(char::is_whitespace) {
            continue;
        }
        let body = &code[i + 3..];
        let body = &body[..body.find(';').unwrap_or(body.len())];
        let tokens = tokens(body);
        use_tree(&tokens, &mut 0, Vec::new(), &mut out);
    }
    for root in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(root) {
            if code[..i].chars().next_back().is_some_and(is_word) {
                continue;
            }
            let mut path = Vec::new();
            let mut rest = &code[i..];
            loop {
                let word: String = rest.chars().take_while(|c| is_word(*c)).collect();
                if word.is_empty() {
                    break;
                }
                rest = rest[word.len()..].trim_start();
                path.push(word);
                match rest.strip_prefix("::") {
                    Some(r) => rest = r.trim_start(),
                    None => break,
                }
            }
            out.push(path);
        }
    }
    out
}

/// A `use` item's words and punctuation: names, `::`, `{`, `}`, `,`, `*`.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '#' {
            let mut word = c.to_string();
            while let Some(&n) = chars
                .peek()
                .filter(|n| n.is_ascii_alphanumeric() || **n == '_')
            {
                word.push(n);
                chars.next();
            }
            out.push(word.trim_start_matches("r#").to_string());
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.push("::".into());
        } else if "{},*".contains(c) {
            out.push(c.to_string());
        }
    }
    out
}

/// Reads one use tree from `tokens[*at..]` under `prefix`, each path it names in full to `out`
/// (`a::{b, c::{self, D as E}}` is `a::b`, `a::c`, `a::c::D`).
fn use_tree(tokens: &[String], at: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    while let Some(t) = tokens.get(*at) {
        *at += 1;
        match t.as_str() {
            "::" => {}
            "{" => {
                while tokens.get(*at).is_some_and(|t| t != "}") {
                    use_tree(tokens, at, path.clone(), out);
                    if tokens.get(*at).is_some_and(|t| t == ",") {
                        *at += 1;
                    }
                }
                *at += 1;
                return;
            }
            "*" => break,
            "self" if !path.is_empty() => {
                if tokens.get(*at).is_some_and(|t| t == "as") {
                    *at += 2;
                }
                break;
            }
            word => {
                path.push(word.to_string());
                if tokens.get(*at).is_some_and(|t| t == "as") {
                    *at += 2;
                }
                if tokens.get(*at).is_none_or(|t| t != "::") {
                    break;
                }
            }
        }
    }
    out.push(path);
}

/// The module path, from the crate root, that `path` (named in `module`'s code) leads to; `None`
/// when it does not start at `crate`, `super` or `self` (another crate's, or a child's of a
/// front door).
fn resolve(path: &[String], module: &[String]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut at = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().saturating_sub(1)].to_vec(),
        _ => return None,
    };
    let mut rest = rest.iter().peekable();
    while rest.next_if(|s| *s == "super").is_some() {
        at.pop();
    }
    at.extend(rest.filter(|s| *s != "self").cloned());
    Some(at)
}

/// The items a front door (`lib.rs`, `main.rs`, a folder's `mod.rs`) defines itself, not those it
/// re-exports: its top-level `fn`, `struct`, `enum`, `const`, `static`, `type`, `trait` and
/// `macro_rules!`.
fn defined(code: &str) -> BTreeSet<String> {
    const KINDS: [&str; 8] = [
        "fn",
        "struct",
        "enum",
        "const",
        "static",
        "type",
        "trait",
        "macro_rules!",
    ];
    let mut out = BTreeSet::new();
    for line in code.lines().filter(|l| !l.starts_with(char::is_whitespace)) {
        let mut words: Vec<&str> = line
            .split_whitespace()
            .skip_while(|w| w.starts_with("pub") || ["async", "unsafe"].contains(w))
            .collect();
        if words.len() > 2 && words[0] == "const" && words[1] == "fn" {
            words.remove(0);
        }
        if let [kind, name, ..] = words[..]
            && KINDS.contains(&kind)
        {
            out.insert(
                name.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect(),
            );
        }
    }
    out
}

/// Each module that imports an item its crate's front door (`lib.rs`, `main.rs`) defines rather
/// than re-exports: an arrow back up, as "module -> Item".
fn back_up(sources: &[(Vec<String>, String)]) -> Vec<String> {
    let level: &[String] = &[];
    let modules: BTreeSet<&String> = sources.iter().filter_map(|(m, _)| m.first()).collect();
    let door: BTreeSet<String> = sources
        .iter()
        .filter(|(m, _)| m.is_empty())
        .flat_map(|(_, code)| defined(code))
        .filter(|name| !modules.contains(name))
        .collect();
    let mut out = BTreeSet::new();
    for (module, code) in sources {
        if module.len() <= level.len() || !module.starts_with(level) {
            continue;
        }
        for target in paths_named(code)
            .into_iter()
            .filter_map(|path| resolve(&path, module))
        {
            if target.len() == level.len() + 1
                && target.starts_with(level)
                && door.contains(&target[level.len()])
            {
                out.insert(format!("{} -> {}", module.join("::"), target[level.len()]));
            }
        }
    }
    out.into_iter().collect()
}

/// The first cycle found, as a path of modules that ends where it began.
fn cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// Every folder's module graph in a crate's `src/`: (the folder's module path, its graph).
fn graphs(src: &Path) -> Vec<(Vec<String>, Graph)> {
    let sources = sources(src);
    let levels: BTreeSet<Vec<String>> = sources
        .iter()
        .flat_map(|(module, _)| (0..module.len()).map(|n| module[..n].to_vec()))
        .collect();
    levels
        .into_iter()
        .map(|level| {
            let names: BTreeSet<String> = sources
                .iter()
                .filter(|(m, _)| m.len() > level.len() && m.starts_with(&level))
                .map(|(m, _)| m[level.len()].clone())
                .collect();
            let g = graph(&sources, &level, &names);
            (level, g)
        })
        .collect()
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let mut read = 0;
    for m in members() {
        let src = m.dir.join("src");
        if !src.is_dir() {
            continue;
        }
        for (level, g) in graphs(&src) {
            read += g.values().map(BTreeSet::len).sum::<usize>();
            assert_eq!(
                cycle(&g),
                None,
                "{} {}: {g:?}",
                m.name,
                if level.is_empty() {
                    "src/".to_string()
                } else {
                    format!("src/{}/", level.join("/"))
                }
            );
        }
    }
    assert!(read > 20, "the check reads edges ({read})");
}

#[test]
fn no_module_imports_back_up_from_its_crates_front_door() {
    let mut crates = 0;
    for m in members() {
        let src = m.dir.join("src");
        if !src.is_dir() {
            continue;
        }
        crates += 1;
        assert_eq!(
            back_up(&sources(&src)),
            Vec::<String>::new(),
            "{}: modules import what lib.rs (or main.rs) defines; move it to a module of its own \
             and let the front door re-export it",
            m.name
        );
    }
    assert!(
        crates >= 8,
        "the check reads the workspace ({crates} crates)"
    );
}

#[test]
fn the_checks_bite() {
    // Crates: an arrow up, a dev-dependency up, a crate with no layer.
    let crates = vec![
        (
            "vults-engine".to_string(),
            vec![("vults-ui".to_string(), false)],
        ),
        (
            "vults-core".to_string(),
            vec![("vults-hook".to_string(), true)],
        ),
        ("vults-new".to_string(), vec![]),
        (
            "vults-ui".to_string(),
            vec![
                ("vults-engine".to_string(), false),
                (TEST_SUPPORT.to_string(), true),
            ],
        ),
    ];
    assert_eq!(
        arrows_back_up(&crates).len(),
        3,
        "{:?}",
        arrows_back_up(&crates)
    );
    // Modules: every form of `use` is read, and each names its modules.
    let names: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
    let top = |code: &str, own: &str| edges(&code_of(code), &[own.to_string()], &[], &names);
    let set = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let cases: &[(&str, &[&str])] = &[
        ("use crate::b::X;", &["b"]),
        ("use super::b;", &["b"]),
        ("use super::{b, c};", &["b", "c"]),
        ("use super::{\n    b::X,\n    c,\n};", &["b", "c"]),
        ("use crate::{b::X, c::{d, e}};", &["b", "c"]),
        ("use crate::{x::Y, c::{self, D}};", &["c"]),
        ("use super::{self, b::{self as bee}};", &["b"]),
        ("use crate::b as bee;", &["b"]),
        ("use super::{b as bee, c::Z as Zed};", &["b", "c"]),
        ("pub use super::b::X;", &["b"]),
        ("pub(crate) use crate::{b, c};", &["b", "c"]),
        ("pub(super) use super::b::*;", &["b"]),
        ("use crate::{*, b::*};", &["b"]),
        ("use self::b::X;", &[]), // a child module of a's, not the sibling b
        ("use ::std::{b, c};", &[]),
        ("use vults_core::{b, c::D};", &[]),
        ("fn f() { super::b::g(); crate::c::h(); }", &["b", "c"]),
        ("fn f() { use super::{b, c}; }", &["b", "c"]),
        ("use crate::a::X;", &[]), // its own
        ("use crate::{b::X};\nuse crate::{c::Y};", &["b", "c"]),
        ("//! [`crate::b`]\n// use super::c;", &[]),
        ("fn f() {}\n#[cfg(test)]\nuse crate::b;", &[]),
        (
            "#[cfg(test)]\nmod tests;\nuse crate::b;\n#[cfg(test)]\nfn t() { crate::c::x() }\nfn f() { super::d::y() }",
            &["b", "d"],
        ),
        (
            "#[cfg(test)]\nmod tests {\n    use crate::b;\n}\nuse crate::c;",
            &["c"],
        ),
        ("let reuse = 1; fn abuse() {}", &[]),
    ];
    for (code, want) in cases {
        assert_eq!(top(code, "a"), set(want), "{code}");
    }
    // In a folder: `super` is the folder, `super::super` its parent; a folder's own graph.
    let in_folder = |code: &str, level: &[&str]| {
        let level: Vec<String> = level.iter().map(|s| s.to_string()).collect();
        edges(
            &code_of(code),
            &["d".to_string(), "x".to_string()],
            &level,
            &names,
        )
    };
    assert_eq!(in_folder("use super::b;", &[]), set(&[]), "d's own b");
    assert_eq!(in_folder("use super::super::b;", &[]), set(&["b"]));
    assert_eq!(in_folder("use crate::{b, d::c};", &[]), set(&["b"]));
    assert_eq!(in_folder("use super::{b, c::E};", &["d"]), set(&["b", "c"]));
    assert_eq!(in_folder("use crate::d::{b, x};", &["d"]), set(&["b"]));
    // A real cycle is found; grouped imports close it as well as single ones.
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), top("use crate::b::X;", "a"));
    g.insert("b".to_string(), top("fn f() { super::c::g() }", "b"));
    g.insert("c".to_string(), top("use super::{d, self};", "c"));
    assert_eq!(cycle(&g), None, "no cycle yet");
    g.insert("c".to_string(), top("use super::{d, a::X};", "c"));
    assert_eq!(
        cycle(&g),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
    // An item the front door defines, imported by a module, is an arrow back up; one it only
    // re-exports, or a module of the same name, is not.
    let crate_src = |files: &[(&[&str], &str)]| -> Vec<(Vec<String>, String)> {
        files
            .iter()
            .map(|(m, code)| (m.iter().map(|s| s.to_string()).collect(), code_of(code)))
            .collect()
    };
    let lib = "mod a;\nmod b;\npub use a::Re;\npub struct Door;\npub(crate) fn helper() {}\n\
               pub fn b() {}\nimpl Door {\n    fn inner() {}\n}";
    assert_eq!(
        back_up(&crate_src(&[
            (&[], lib),
            (&["a"], "use crate::{Door, b::X};\npub struct Re;"),
            (
                &["b"],
                "use super::Re;\nfn f() { super::helper(); crate::b::g(); }"
            ),
            (
                &["b", "c"],
                "use crate::Door as D;\nuse super::super::inner;"
            ),
        ])),
        ["a -> Door", "b -> helper", "b::c -> Door"]
    );
    // The workspace's sources are read folder by folder.
    let dir = std::env::temp_dir().join(format!("vults-layering-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("d")).unwrap();
    for (file, code) in [
        ("lib.rs", "mod a; mod b; mod d;"),
        ("a.rs", "use super::{b, d::x};"),
        ("b.rs", "use crate::d;"),
        ("d/mod.rs", "mod x; mod y; use super::b;"),
        ("d/x.rs", "use super::y::Z;"),
        ("d/y.rs", "pub use super::{x::W};"),
    ] {
        std::fs::write(dir.join(file), code).unwrap();
    }
    let found: Vec<_> = graphs(&dir)
        .into_iter()
        .map(|(level, g)| (level.join("::"), cycle(&g)))
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    let path = |p: &[&str]| Some(p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(
        found,
        [
            ("".to_string(), path(&["b", "d", "b"])),
            ("d".to_string(), path(&["x", "y", "x"])),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Event names (issue 40): an event's meaning is resolved from its name once, by its agent's row
// (`vults_core::agents::lifecycle`), and matched as a `Lifecycle` everywhere after.
// ---------------------------------------------------------------------------------------------

/// The only files that may compare an event's name as a string: the agent table (each row's
/// spellings) and the wire.
const EVENT_NAMES_LIVE_IN: &[&str] = &[
    "vults-core/src/agents/table.rs",
    "vults-core/src/protocol/wire.rs",
];

/// Literals compared where they are no event, though one is spelt alike: (file, literal).
const NOT_EVENT_NAMES: &[(&str, &str)] = &[
    // The audit's `by` word for a notification's button.
    ("vults-app/engine/src/messages.rs", "notification"),
];

fn fold(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Every event name a row installs or the table knows otherwise, folded.
fn event_names() -> BTreeSet<String> {
    let rows = vults_core::agents::AGENTS
        .iter()
        .filter_map(|a| a.install)
        .flat_map(|i| i.entries)
        .map(|e| e.event);
    let others = vults_core::agents::OTHER_EVENTS.iter().map(|(n, _)| *n);
    rows.chain(others).map(fold).collect()
}

/// The string literals of `code` (see [`code_of`]) compared as an event name: beside `==` or
/// `!=`, in a match arm (`"x" =>`, `"x" |`, `| "x"`), or in `eq_ignore_ascii_case`, that fold
/// (without case and separators) to one of `names`; a flag (`--statusline`) aside.
fn event_names_compared(code: &str, names: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // A char literal '"' is no string; a raw string ends at its own `"#…`.
        if i > 0 && bytes[i - 1] == b'\'' {
            i += 1;
            continue;
        }
        let hashes = code[..i].chars().rev().take_while(|c| *c == '#').count();
        let raw = code[..i - hashes].ends_with('r');
        let start = i + 1;
        let mut end = start;
        while end < bytes.len() {
            if raw {
                if code[end..].starts_with(&format!("\"{}", "#".repeat(hashes))) {
                    break;
                }
            } else if bytes[end] == b'\\' {
                end += 1;
            } else if bytes[end] == b'"' {
                break;
            }
            end += 1;
        }
        let literal = &code[start..end.min(code.len())];
        let before = code[..i - hashes - usize::from(raw)].trim_end();
        let after = code
            .get(end + 1 + hashes..)
            .unwrap_or_default()
            .trim_start();
        let bar = |s: &str, at_end: bool| {
            if at_end {
                s.ends_with('|') && !s.ends_with("||")
            } else {
                s.starts_with('|') && !s.starts_with("||")
            }
        };
        let compared = before.ends_with("==")
            || before.ends_with("!=")
            || before.ends_with("eq_ignore_ascii_case(")
            || bar(before, true)
            || after.starts_with("==")
            || after.starts_with("!=")
            || after.starts_with("=>")
            || bar(after, false);
        // A flag (`--statusline`) is no event name.
        if compared && !literal.starts_with('-') && names.contains(&fold(literal)) {
            out.push(literal.to_string());
        }
        i = end + 1 + hashes;
    }
    out
}

#[test]
fn no_event_name_is_compared_as_a_string_outside_the_table_and_the_wire() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let names = event_names();
    assert!(names.contains("permissionrequest") && names.contains("stop"));
    let mut dirs = vec![
        root.join("vults-core/src"),
        root.join("vults-hook/src"),
        root.join("vults-app/src"),
    ];
    for e in std::fs::read_dir(root.join("vults-app")).unwrap() {
        let src = e.unwrap().path().join("src");
        if src.is_dir() {
            dirs.push(src);
        }
    }
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut all = Vec::new();
    for d in &dirs {
        files(d, &mut all);
    }
    assert!(
        all.len() > 50,
        "read the workspace's sources: {}",
        all.len()
    );
    let mut found = Vec::new();
    for path in all {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if EVENT_NAMES_LIVE_IN.contains(&rel.as_str()) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&path).unwrap());
        for literal in event_names_compared(&code, &names) {
            if !NOT_EVENT_NAMES.contains(&(rel.as_str(), literal.as_str())) {
                found.push(format!("{rel}: \"{literal}\""));
            }
        }
    }
    assert!(
        found.is_empty(),
        "event names compared as strings (match vults_core::agents::Lifecycle instead, \
         resolved once from the agent's row): {found:#?}"
    );
}

#[test]
fn the_event_name_check_bites() {
    let names = event_names();
    let flagged = |code: &str| event_names_compared(&code_of(code), &names);
    assert_eq!(
        flagged(r#"if event.event == "PermissionRequest" { x() }"#),
        ["PermissionRequest"]
    );
    assert_eq!(flagged(r#"if "Stop" != name {}"#), ["Stop"]);
    assert_eq!(
        flagged(
            "match n.as_str() {\n    \"posttooluse\" => 1,\n    \"stop\" | \"agentstop\" => 2,\n    _ => 0,\n}"
        ),
        ["posttooluse", "stop", "agentstop"]
    );
    assert_eq!(
        flagged(r#"name.eq_ignore_ascii_case("sessionEnd")"#),
        ["sessionEnd"]
    );
    // A name made, not compared; a word that is no event; a test's; a comment's.
    assert!(
        flagged(r#"let e = Event { event: "PreToolUse".into() }; ui.button("Stop");"#).is_empty()
    );
    assert!(flagged(r#"if kind == "idle_prompt" || x == "ok" {}"#).is_empty());
    assert!(flagged(r#"match a { "--statusline" => 1, _ => 0 }"#).is_empty());
    assert!(
        flagged("#[cfg(test)]\nmod tests {\n    fn t() { assert!(e == \"Stop\"); }\n}").is_empty()
    );
    assert!(flagged("// if e == \"Stop\"\nlet s = r#\"a \"Stop\" b\"#;").is_empty());
}
