//! The workspace's shape, checked: crates depend downward only, and no crate's modules import
//! each other in a cycle (the direction is drawn in README.md, "How it fits together").
//!
//! - Crates: from `cargo metadata`, every edge between workspace crates (normal and dev
//!   dependencies) must point to a lower layer of [`LAYERS`]; `vults-tests` is the test support
//!   every crate may use (its library needs only `vults-core`), and its own end-to-end tests sit
//!   above everything. A new crate must be given its layer here (and in the README's drawing).
//! - Modules: in each crate's `src/`, a module's code (not its doc comments or `#[cfg(test)]`
//!   code) names siblings with `crate::<module>` or `super::<module>`; those edges have no cycle.
//!
//! `the_checks_bite` proves each check finds what it is for.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each workspace crate's layer: an edge may only point to a lower one.
const LAYERS: &[(&str, u8)] = &[
    ("vults-core", 0),
    ("vults-tests", 1),
    ("vults-hook", 1),
    ("vults-engine", 1),
    ("vults-installer", 1),
    ("vults-terminal", 1),
    ("vults-attention", 1),
    ("vults-zeca", 2),
    ("vults-phone", 2),
    ("vults-remote", 2),
    ("vults-ui", 3),
    ("vults-app", 4),
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
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(vults_tests::workspace_root())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
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

/// Module → the sibling modules its code (not its docs or tests) names with `crate::` or
/// `super::`. A folder module (`settings/`) counts as one module, all its files together.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let (name, text) = if path.is_dir() {
            let mut text = String::new();
            for f in std::fs::read_dir(&path).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "rs") {
                    text.push_str(&code_of(&std::fs::read_to_string(&f).unwrap()));
                }
            }
            (
                path.file_name().unwrap().to_string_lossy().to_string(),
                text,
            )
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = code_of(&std::fs::read_to_string(&path).unwrap());
            (
                path.file_stem().unwrap().to_string_lossy().to_string(),
                text,
            )
        } else {
            continue;
        };
        files.insert(name, text);
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .filter(|(name, _)| !["lib", "main", "mod"].contains(&name.as_str()))
        .map(|(name, text)| (name.clone(), edges(text, &names, name)))
        .collect()
}

/// A file's code without its `#[cfg(test)]` part and its comment lines.
fn code_of(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn edges(code: &str, names: &BTreeSet<String>, own: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for prefix in ["crate::", "super::"] {
        for (i, _) in code.match_indices(prefix) {
            let word: String = code[i + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if names.contains(&word)
                && word != own
                && !["lib", "main", "mod"].contains(&word.as_str())
            {
                out.insert(word);
            }
        }
    }
    out
}

/// The first cycle found, as a path of modules that ends where it began.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
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

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let mut read = 0;
    for m in members() {
        let src = m.dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let g = graph(&src);
        read += g.values().map(BTreeSet::len).sum::<usize>();
        assert_eq!(cycle(&g), None, "{}: {g:?}", m.name);
    }
    assert!(read > 20, "the check reads edges ({read})");
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
    // Modules: doc comments and test code are not edges; a real cycle is found.
    let names: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let mut g = BTreeMap::new();
    g.insert("a".into(), edges("use crate::b::X;", &names, "a"));
    g.insert(
        "b".into(),
        edges(
            &code_of("//! [`crate::a`]\nfn f() { super::c::g() }"),
            &names,
            "b",
        ),
    );
    g.insert(
        "c".into(),
        edges(&code_of("#[cfg(test)]\nuse crate::a;"), &names, "c"),
    );
    assert_eq!(cycle(&g), None, "doc links and test code are not edges");
    g.get_mut("c").unwrap().insert("a".into());
    assert_eq!(
        cycle(&g),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
}
