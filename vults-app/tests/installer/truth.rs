//! What the installer reports is what it did.

use crate::common::*;
use std::fs;

#[test]
fn uninstall_says_it_removed_gemini_leftovers_not_that_gemini_is_missing() {
    let home = TempHome::new("gemini-uninstall");
    let file = home.home().join(".gemini/settings.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(
        &file,
        r#"{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"type":"command","command":"/old/vults-hook --agent gemini BeforeTool"}]}]}}"#,
    )
    .unwrap();
    let out = home.cli(&["--uninstall"]);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let gemini: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Gemini CLI"))
        .take(2)
        .collect();
    assert!(!gemini.is_empty(), "Gemini CLI is reported:\n{text}");
    assert!(
        !gemini[0].contains("not found"),
        "its hooks were there a moment ago:\n{text}"
    );
    assert!(
        gemini[0].contains("old Vults hooks (removed now)"),
        "{text}"
    );
    assert!(
        gemini[1].contains("old Gemini CLI hooks were removed"),
        "{text}"
    );
    assert!(!fs::read_to_string(&file).unwrap().contains("vults-hook"));

    // Nothing of Vults left: Gemini CLI is not mentioned at all.
    let out = home.cli(&["--uninstall"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Gemini"));
}
