//! One runtime: the app owns one tokio runtime, built by the composition root
//! (`vults-app/src/compose/`, through `vults_engine::rt::build`), and every subsystem runs on it
//! as tasks from `vults_engine::rt::handle()`. This reads every crate's sources (not tests,
//! examples or benches, and not a file's `#[cfg(test)] mod tests`) and fails on a runtime built
//! anywhere else, the way `layering.rs` fails on a cycle.
//!
//! [`ALLOWED`] lists the places that still build one, each with its reason and its count: a new
//! one, or one more in a listed file, fails. `the_check_bites` proves the scanner finds them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What builds a tokio runtime.
const BUILDERS: &[&str] = &[
    "runtime::Builder",
    "Runtime::new(",
    "tokio::main",
    "new_current_thread()",
    "new_multi_thread()",
];

/// Who may call `vults_engine::rt::build`: the composition root.
const COMPOSITION_ROOT: &str = "vults-app/src/compose/";

/// Where a runtime may still be built (path from the workspace root, how many, why).
const ALLOWED: &[(&str, usize, &str)] = &[
    (
        "vults-app/engine/src/rt.rs",
        1,
        "the one runtime's shape (rt::build, called by the composition root), which a program \
         with no composition root (a crate's tests and examples) also gets, built once",
    ),
    (
        "vults-app/phone/src/push/standin.rs",
        1,
        "the push service's stand-in for tests: a server of its own, not part of the app",
    ),
    (
        "vults-app/notify/src/test_support.rs",
        2,
        "test support: the D-Bus notification server's and tray host's stand-ins",
    ),
];

/// A source's code without its test module (`#[cfg(test)]` or `#[cfg(all(test, …))]` over
/// `mod tests`, at its end by the house's habit).
fn production(source: &str) -> &str {
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let cfg = line.trim_end();
        if cfg.starts_with("#[cfg(")
            && (cfg.contains("(test") || cfg.contains(" test"))
            && source[at + line.len()..].starts_with("mod tests")
        {
            return &source[..at];
        }
        at += line.len();
    }
    source
}

/// How many runtimes `source` builds, and whether it calls `rt::build`.
fn scan(source: &str) -> (usize, bool) {
    let code = production(source);
    let mut builds = 0;
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        // `runtime::Builder::new_multi_thread()` is one runtime, however it is spelled.
        if BUILDERS.iter().any(|b| line.contains(b)) {
            builds += 1;
        }
    }
    let calls_build = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .any(|l| l.contains("rt::build()"));
    (builds, calls_build)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Every crate's `src/` folder (the crates live at the root and in `vults-app/`).
fn source_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for parent in [root.to_path_buf(), root.join("vults-app")] {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().join("Cargo.toml").exists() && e.path().join("src").is_dir() {
                dirs.push(e.path().join("src"));
            }
        }
    }
    dirs
}

/// Every runtime built where it may not be, as "file: why".
fn runtimes_outside_the_root(files: &[(String, String)]) -> Vec<String> {
    let mut bad = Vec::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (path, source) in files {
        let (builds, calls_build) = scan(source);
        if calls_build && !path.starts_with(COMPOSITION_ROOT) && !path.ends_with("engine/src/rt.rs")
        {
            bad.push(format!(
                "{path}: calls rt::build; only the composition root ({COMPOSITION_ROOT}) builds \
                 the app's runtime — take vults_engine::rt::handle()"
            ));
        }
        if builds > 0 {
            *counts.entry(path.as_str()).or_default() += builds;
        }
    }
    for (path, n) in counts {
        match ALLOWED.iter().find(|(p, _, _)| *p == path) {
            Some((_, allowed, _)) if n <= *allowed => {}
            Some((_, allowed, _)) => bad.push(format!(
                "{path}: builds {n} tokio runtimes, {allowed} allowed — spawn on \
                 vults_engine::rt::handle() instead"
            )),
            None => bad.push(format!(
                "{path}: builds a tokio runtime of its own — spawn on vults_engine::rt::handle() \
                 (the app's one runtime) instead"
            )),
        }
    }
    bad
}

#[test]
fn only_the_composition_root_builds_a_runtime() {
    let root = vults_tests::workspace_root();
    let mut files = Vec::new();
    for dir in source_dirs(&root) {
        sources(&dir, &mut files);
    }
    assert!(
        files.iter().any(|f| f.ends_with("engine/src/rt.rs")),
        "the check reads the workspace"
    );
    let files: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(f).unwrap())
        })
        .collect();
    assert!(
        files
            .iter()
            .any(|(p, s)| p.starts_with(COMPOSITION_ROOT) && scan(s).1),
        "the composition root builds the app's runtime"
    );
    assert_eq!(runtimes_outside_the_root(&files), Vec::<String>::new());
}

#[test]
fn the_check_bites() {
    let file = |path: &str, source: &str| (path.to_string(), source.to_string());
    let built = "fn f() {\n    let rt = tokio::runtime::Builder::new_current_thread()\n        .build();\n}\n";
    assert_eq!(scan(built), (1, false));
    // A new file that builds one.
    assert_eq!(
        runtimes_outside_the_root(&[file("vults-app/remote/src/x.rs", built)]).len(),
        1
    );
    // One more in a listed file.
    let two = format!(
        "{built}{}",
        "fn g() { let r = tokio::runtime::Runtime::new(); }\n"
    );
    assert_eq!(
        runtimes_outside_the_root(&[file("vults-app/engine/src/rt.rs", &two)]).len(),
        1
    );
    // The app's runtime built outside the root.
    assert_eq!(
        runtimes_outside_the_root(&[file(
            "vults-app/ui/src/x.rs",
            "let r = vults_engine::rt::build();"
        )])
        .len(),
        1
    );
    // Tests and comments do not count.
    let tested = format!("fn f() {{}}\n#[cfg(test)]\nmod tests {{\n{built}}}\n");
    assert_eq!(scan(&tested), (0, false));
    let tested = format!("fn f() {{}}\n#[cfg(all(test, unix))]\nmod tests {{\n{built}}}\n");
    assert_eq!(scan(&tested), (0, false));
    // A test-only attribute over something else is still read past.
    let not_tests = format!("#[cfg(test)]\nfn helper() {{}}\n{built}");
    assert_eq!(scan(&not_tests), (1, false));
    assert_eq!(
        scan("// tokio::runtime::Builder::new_multi_thread()\n"),
        (0, false)
    );
    assert!(
        runtimes_outside_the_root(&[file(COMPOSITION_ROOT, "vults_engine::rt::build()")])
            .is_empty()
    );
}
