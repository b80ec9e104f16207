//! No import cycles between sibling modules (issue 10 item 13): in vults-core's `src/` (edges are
//! `crate::<module>`) and in the app's `phone/` folder (edges are `super::<module>`). Doc
//! comments and `#[cfg(test)]` code do not count; `the_cycle_check_bites` proves the check finds
//! a cycle when there is one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module → the sibling modules its code (not its docs or tests) names with `prefix`.
fn graph(dir: &Path, prefix: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            files.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .map(|(name, text)| (name.clone(), edges(text, prefix, &names, name)))
        .collect()
}

fn edges(text: &str, prefix: &str, names: &BTreeSet<String>, own: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        for (i, _) in line.match_indices(prefix) {
            let rest = &line[i + prefix.len()..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if names.contains(&word) && word != own && word != "mod" && word != "lib" {
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
fn vults_core_modules_have_no_import_cycle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&dir, "crate::");
    assert!(
        g["protocol"].contains("agents"),
        "the check reads edges: {g:?}"
    );
    assert_eq!(cycle(&g), None, "{g:?}");
}

#[test]
fn the_phone_modules_have_no_import_cycle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vults-app/phone/src");
    let g = graph(&dir, "super::");
    assert!(g["http"].contains("gate"), "the check reads edges: {g:?}");
    assert_eq!(cycle(&g), None, "{g:?}");
}

#[test]
fn the_cycle_check_bites() {
    let names: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let mut g = BTreeMap::new();
    g.insert(
        "a".into(),
        edges("use crate::b::X;", "crate::", &names, "a"),
    );
    g.insert(
        "b".into(),
        edges(
            "//! [`crate::a`]\nfn f() { crate::c::g() }",
            "crate::",
            &names,
            "b",
        ),
    );
    g.insert(
        "c".into(),
        edges("#[cfg(test)]\nuse crate::a;", "crate::", &names, "c"),
    );
    assert_eq!(cycle(&g), None, "doc links and test code are not edges");
    g.get_mut("c").unwrap().insert("a".into());
    assert_eq!(
        cycle(&g),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
}
