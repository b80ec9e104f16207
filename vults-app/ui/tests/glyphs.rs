//! Every character the window itself writes has a glyph in the fonts it ships: no
//! missing-glyph box between a plan table's cells (`│`), in an arrow or a symbol. The characters
//! are read from the sources of what the window draws: the window's own code, and the words the
//! engine, the rules, the terminal's Show and the chat hand it, and the message bundles of every
//! language (`assets/i18n`: its accented letters too).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The sources whose strings the window draws.
fn sources() -> Vec<PathBuf> {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["ui/src", "engine/src", "terminal/src", "zeca/src"] {
        walk(&app.join(dir), &mut files);
    }
    walk(&app.join("../assets/i18n"), &mut files);
    let core = app.join("../vults-core/src");
    for file in ["rules.rs", "text.rs", "decision.rs", "policy.rs"] {
        files.push(core.join(file));
    }
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "ftl") {
            out.push(path);
        }
    }
}

/// Every character outside ASCII on the code lines of `sources()` (a comment line, or a test, is
/// no text the window draws), and where it was first seen.
fn emitted() -> Vec<(char, String)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        let bundle = file.extension().is_some_and(|e| e == "ftl");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            // A file's tests (at its end) are not what it draws.
            if code == "#[cfg(test)]" {
                break;
            }
            // A bundle's comments are for translators, not drawn.
            if code.starts_with("//") || (bundle && code.starts_with('#')) {
                continue;
            }
            for c in code.chars().filter(|c| !c.is_ascii() && !c.is_control()) {
                if seen.insert(c) {
                    out.push((c, format!("{}:{}", file.display(), n + 1)));
                }
            }
        }
    }
    out
}

/// A context with the window's fonts, laid out once.
fn context(with_ours: bool) -> egui::Context {
    let ctx = egui::Context::default();
    if with_ours {
        vults_ui::theme::install_fonts(&ctx);
    }
    ctx.run_ui(egui::RawInput::default(), |_| {})
        .textures_delta
        .clear();
    ctx
}

fn missing(ctx: &egui::Context, chars: &[(char, String)]) -> Vec<String> {
    let fonts = [
        egui::FontId::proportional(14.0),
        egui::FontId::monospace(13.0),
    ];
    let mut out = Vec::new();
    for (c, at) in chars {
        for font in &fonts {
            if !ctx.fonts_mut(|f| f.has_glyph(font, *c)) {
                out.push(format!(
                    "{c:?} (U+{:04X}) in {:?}, from {at}",
                    *c as u32, font.family
                ));
            }
        }
    }
    out
}

#[test]
fn every_character_the_window_writes_has_a_glyph() {
    let chars = emitted();
    // The reading works: the symbols a card and a plan draw are among them.
    for c in ['↓', '↑', '…', '·', '—', '−', '‹', '›'] {
        assert!(
            chars.iter().any(|(e, _)| *e == c),
            "{c:?} not found in the sources"
        );
    }
    let mut chars = chars;
    // What a plan's markdown table is drawn with (`markdown.rs` draws what the agent wrote).
    for c in ['│', '─', '┼', '├', '┤', '┌', '┐', '└', '┘'] {
        chars.push((c, "a plan's table".into()));
    }
    // egui's own fonts alone lack some of them (the box the issue saw between cells)…
    let without = missing(&context(false), &chars);
    assert!(
        without.iter().any(|m| m.starts_with("'│'")),
        "egui's fonts have │ after all: {without:#?}"
    );
    // …the window's fonts have every one.
    let with = missing(&context(true), &chars);
    assert!(with.is_empty(), "no glyph for:\n{}", with.join("\n"));
}
