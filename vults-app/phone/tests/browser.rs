//! The phone page in a real browser (Debian's chromium driven by playwright-core): pairs, sees
//! the card a real `vults-hook` call made, taps Allow, then Deny, then answers a question card;
//! the hook prints each.
//!
//! Runs when `VULTS_PHONE_BROWSER=1` (CI sets it after `npm ci` in `tests/phone-browser`);
//! otherwise it says why it did nothing. Needs `/usr/bin/chromium` (`apt-get install chromium`)
//! and Node.js. The script itself is `tests/phone-browser/e2e.mjs`.

use std::process::Command;

#[test]
fn the_phone_page_pairs_and_answers_a_real_hook_in_chromium() {
    if !browser_on() {
        return;
    }
    run_script("e2e.mjs", "12 passed, 0 failed");
}

/// Push in the real browser (`tests/phone-browser/push.mjs`): the page on http://127.0.0.1
/// registers its service worker, takes a subscription the stand-in push service made, the app
/// pushes a real hook's card there, the plaintext the stand-in decrypted is delivered through
/// the DevTools protocol and shows the desktop notification's title, body and Allow/Deny; a push
/// sealed with another key shows nothing; Allow from the notification's handler makes the hook
/// print allow; the app's withdraw push closes it.
#[test]
fn the_phone_buzzes_and_is_answered_from_the_notification_in_chromium() {
    if !browser_on() {
        return;
    }
    run_script("push.mjs", "13 passed, 0 failed");
}

/// The page in Brazilian Portuguese (`tests/phone-browser/lang.mjs`): the app's language, named
/// in the list reply, over the browser's; the browser's before pairing; a real hook's card that
/// hides U+1D173 shows its escape, the mark and the answers in Portuguese, and Negar denies it.
#[test]
fn the_phone_page_speaks_the_apps_language_in_chromium() {
    if !browser_on() {
        return;
    }
    run_script("lang.mjs", "10 passed, 0 failed");
}

/// Whether the browser tests run (`VULTS_PHONE_BROWSER=1`); says why not when they do not.
fn browser_on() -> bool {
    let on = std::env::var("VULTS_PHONE_BROWSER").as_deref() == Ok("1");
    if !on {
        eprintln!(
            "skipped: set VULTS_PHONE_BROWSER=1 (needs chromium, node, and npm ci in tests/phone-browser)"
        );
    }
    on
}

/// Runs `script` of `tests/phone-browser` with Node against the `phone_e2e` example and the
/// hook (built in this target directory: a no-op when `cargo test` already built them), and
/// checks it passed and said `passed`.
fn run_script(script: &str, passed: &str) {
    let root = vults_tests::workspace_root();
    let (app, hook) = vults_tests::built_example("vults-phone", "phone_e2e");
    let output = Command::new("node")
        .current_dir(root.join("tests/phone-browser"))
        .arg(script)
        .arg(&app)
        .arg(&hook)
        .output()
        .expect("run node (is Node.js installed?)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} failed:\n{stdout}\n--- stderr ---\n{stderr}"
    );
    assert!(stdout.contains(passed), "{stdout}");
}
