//! docs/translating.md's "Adding a language", followed on a copy of the language folders: the
//! English folder copied to a new tag and translated is compiled in by the build script's table
//! with nothing else changed, and the bundles check takes it when it is complete and names what
//! is missing when it is not.

use crate::{build_script, check};
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

#[test]
fn a_new_folder_is_a_new_language_and_nothing_else_changes() {
    let page = std::fs::read_to_string(check::root().join("../../docs/translating.md")).unwrap();
    assert!(
        page.contains("cp -r assets/i18n/en assets/i18n/de"),
        "the page's first step is the copy this test makes"
    );
    let root = std::env::temp_dir().join(format!("vults-i18n-new-language-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    copy_dir(&check::root(), &root);
    // Step 1: the copy.
    copy_dir(&root.join("en"), &root.join("de"));
    // Step 2: translated (the name, and one message as an example).
    let common = root.join("de/common.ftl");
    let text = std::fs::read_to_string(&common)
        .unwrap()
        .replace("language-name = English", "language-name = Deutsch")
        .replace(
            "waited-just-now = just now",
            "waited-just-now = gerade eben",
        );
    std::fs::write(&common, text).unwrap();

    // The build script compiles it in: its table names the folder and every file in it.
    let (table, watched) = build_script::table(&root);
    assert!(table.contains("(\"de\", &["), "{table}");
    let files = std::fs::read_dir(root.join("en")).unwrap().count();
    assert_eq!(
        table
            .matches(&format!("{}", root.join("de").display()))
            .count(),
        files,
        "every file of the new folder is included"
    );
    assert!(
        watched.contains(&root.join("de")),
        "a change to it rebuilds"
    );

    // Step 3: the bundles check takes the complete folder…
    assert_eq!(check::parity(&root), Vec::<String>::new());
    assert_eq!(
        check::languages(&root).len(),
        check::languages(&check::root()).len() + 1
    );
    // …and names a message the translator forgot.
    let flock = root.join("de/flock.ftl");
    let text = std::fs::read_to_string(&flock).unwrap();
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("flock-empty-hint"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&flock, without).unwrap();
    assert_eq!(check::parity(&root), ["de: flock-empty-hint is missing"]);
    let _ = std::fs::remove_dir_all(&root);
}
