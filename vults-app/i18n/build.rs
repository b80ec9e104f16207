//! Compiles every language under `assets/i18n/` into the binary: each folder is one language
//! (its name is the language's tag, `en`, `pt-BR`), each `.ftl` file in it is part of that
//! language's bundle. Adding a language is adding a folder (docs/translating.md): this script
//! finds it, and nothing in the code names it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[allow(clippy::print_stdout)] // reason: a build script talks to cargo on stdout.
fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("../../assets/i18n");
    let (table, watched) = table(&root);
    for path in watched {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let dest =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it")).join("sources.rs");
    std::fs::write(dest, table).expect("writing the language table");
}

/// The Rust table of every language folder under `root` (`SOURCES`), and the paths whose
/// change must build it again.
pub(crate) fn table(root: &Path) -> (String, Vec<PathBuf>) {
    let mut watched = vec![root.to_path_buf()];
    let mut languages: Vec<(String, Vec<PathBuf>)> = Vec::new();
    for entry in std::fs::read_dir(root).unwrap_or_else(|e| panic!("{}: {e}", root.display())) {
        let path = entry.expect("a folder entry").path();
        if !path.is_dir() {
            continue;
        }
        watched.push(path.clone());
        let tag = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a language folder's name is its tag, in ASCII")
            .to_string();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
            .expect("a language folder")
            .map(|e| e.expect("a file entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "ftl"))
            .collect();
        files.sort();
        watched.extend(files.iter().cloned());
        languages.push((tag, files));
    }
    languages.sort();
    let mut out = String::from(
        "/// Every language folder under assets/i18n: its tag and its files' names and text.\n\
         pub(crate) static SOURCES: &[(&str, &[(&str, &str)])] = &[\n",
    );
    for (tag, files) in &languages {
        writeln!(out, "    ({tag:?}, &[").unwrap();
        for file in files {
            let name = file.file_name().unwrap().to_str().unwrap();
            writeln!(
                out,
                "        ({name:?}, include_str!({:?})),",
                absolute(file)
            )
            .unwrap();
        }
        out.push_str("    ]),\n");
    }
    out.push_str("];\n");
    (out, watched)
}

fn absolute(path: &Path) -> String {
    path.canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_str()
        .expect("a UTF-8 path")
        .to_string()
}
