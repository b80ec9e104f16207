//! `vults-app phone pair|list|revoke|test`: the paired phone of the running headless app,
//! through its control channel (`crate::control`), or of a link this command starts itself when
//! no app runs (docs/server.md).
//!
//! What the app sends back is printed only through [`clean`]: a phone chose its own name, and a
//! push service words its own refusals, so neither may move the cursor or hide text.

use crate::control::{self, PhonePort, Request};
use clap::ArgMatches;
use serde_json::Value;
use std::io::IsTerminal as _;
use vults_core::paths::Paths;

/// `vults-app phone …`; the exit code.
pub fn run(paths: Paths, m: &ArgMatches) -> i32 {
    if let Some(("broker-password", m)) = m.subcommand() {
        return broker_password(&paths, m.get_flag("phone"), m.get_flag("clear"));
    }
    let request = match m.subcommand() {
        Some(("pair", m)) => Request::Pair {
            broker: m.get_flag("broker"),
            port: m.get_one::<u16>("port").copied(),
            loopback: m.get_flag("loopback"),
        },
        Some(("list", _)) => Request::List,
        Some(("revoke", m)) => {
            Request::Revoke(m.get_one::<String>("device").cloned().unwrap_or_default())
        }
        Some(("test", m)) => Request::Test(m.get_one::<String>("device").cloned()),
        _ => unreachable!("phone's subcommands are in the command table"),
    };
    let mut shown = Shown::default();
    match ask_running_app(&paths, &request, &mut |v| shown.show(&v)) {
        Ok(true) => {}
        Ok(false) => {
            if let Some(why) = app_without_channel(&paths) {
                eprintln!("vults-app: {why}");
                return 1;
            }
            if matches!(request, Request::Pair { .. }) {
                eprintln!(
                    "vults-app: no headless Vults runs here; this command runs the phone link \
                     until the phone pairs or the code expires"
                );
            }
            // The link alone: no engine takes its answers, and its refusals go to the log. Its
            // keys come from where the app keeps them (the keyring where one runs, else the
            // 0600 file), so a phone paired here is one the app knows.
            if let Err(e) = vults_phone::secrets::use_platform_store() {
                tracing::info!("no keyring ({e}): the phone link's keys are in a private file");
            }
            let port = PhonePort::start(
                paths,
                std::sync::Arc::new(|command| {
                    tracing::warn!("no app runs to take {command:?}");
                }),
            );
            control::handle(&port, &request, &mut |v| shown.show(&v), &|| false);
            if matches!(request, Request::Pair { .. }) && shown.code == 0 {
                // The device is saved before its receipt is written: this link, the only one
                // there is, keeps serving a moment so the phone gets the receipt.
                std::thread::sleep(std::time::Duration::from_secs(2));
            }
            port.stop();
        }
        Err(e) => {
            eprintln!("vults-app: the running app's phone channel: {e}");
            return 1;
        }
    }
    shown.code
}

/// `vults-app phone broker-password [--phone] [--clear]`: a server with no window sets the
/// broker's passwords here, where Settings → Phone sets them on a desktop, into the same store
/// (the keyring where one runs, else the 0600 file beside phone-broker.json). The password is
/// one line of standard input, never an argument (which `ps` and the shell's history would
/// show); typed at a terminal, it is not echoed.
fn broker_password(paths: &Paths, phone: bool, clear: bool) -> i32 {
    use vults_phone::secrets;
    let whose = if phone { "the phone's" } else { "the app's" };
    let password = if clear {
        None
    } else {
        let read = if std::io::stdin().is_terminal() {
            rpassword::prompt_password(format!("{whose} broker password (not shown): "))
        } else {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|_| line)
        };
        match read {
            Ok(line) => {
                let line = line.trim_end_matches(['\n', '\r']).to_string();
                if line.is_empty() {
                    eprintln!(
                        "vults-app: no password on standard input (to forget it: --clear); \
                         nothing changed"
                    );
                    return 1;
                }
                Some(line)
            }
            Err(e) => {
                eprintln!("vults-app: cannot read the password: {e}; nothing changed");
                return 1;
            }
        }
    };
    if let Err(e) = secrets::use_platform_store() {
        tracing::info!("no keyring ({e}): the broker password goes to a private file");
    }
    let stored = if phone {
        secrets::set_phone_broker_password(paths, password.as_deref())
    } else {
        secrets::set_broker_password(paths, password.as_deref())
    };
    match stored {
        Ok(storage) => {
            let what = format!(
                "{} broker password is",
                if phone { "phone's" } else { "app's" }
            );
            match password {
                Some(_) => say(&format!("{}\n", storage.describe_as(&what))),
                None => say(&format!(
                    "{whose} broker password is forgotten: the login is anonymous.\n"
                )),
            }
            if ask_running_app(paths, &Request::List, &mut |_| false).unwrap_or(false) {
                say(
                    "A headless Vults runs here: restart it (`systemctl --user restart vults`) to \
                     log in with it.\n",
                );
            }
            0
        }
        Err(e) => {
            eprintln!("vults-app: cannot keep {whose} broker password: {e}");
            1
        }
    }
}

/// Sends `request` to the running app and shows each reply line; `Ok(false)` when no app
/// serves a channel.
fn ask_running_app(
    paths: &Paths,
    request: &Request,
    show: &mut dyn FnMut(Value) -> bool,
) -> std::io::Result<bool> {
    use std::io::{BufRead, BufReader, Write};
    let Some(stream) = control::connect(paths)? else {
        return Ok(false);
    };
    writeln!(&stream, "{}", request.to_json())?;
    (&stream).flush()?;
    // Replies are small lines; a pairing's second one comes when the code is used or ends.
    for line in BufReader::new(std::io::Read::take(&stream, 1 << 20)).lines() {
        let line = line?;
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            return Err(std::io::Error::other(
                "the app answered something that is not JSON",
            ));
        };
        if !show(value) {
            break;
        }
    }
    Ok(true)
}

/// Why this command must not start a link of its own: an app runs with no channel (the window,
/// which pairs in Settings → Phone), whose link it would fight over the port and devices.json.
fn app_without_channel(paths: &Paths) -> Option<String> {
    #[cfg(unix)]
    if std::os::unix::net::UnixStream::connect(&paths.socket).is_ok() {
        return Some(
            "a Vults app with a window runs here: pair, list and revoke phones in its \
             Settings → Phone (the phone commands speak to `vults-app --headless`)"
                .into(),
        );
    }
    #[cfg(windows)]
    {
        use interprocess::local_socket::traits::Stream as _;
        use interprocess::local_socket::{GenericFilePath, Stream, ToFsName as _};
        if let Ok(name) = paths.socket.as_path().to_fs_name::<GenericFilePath>()
            && Stream::connect(name).is_ok()
        {
            return Some(
                "a Vults app with a window runs here: pair, list and revoke phones in its \
                 Settings → Phone (the phone commands speak to `vults-app --headless`)"
                    .into(),
            );
        }
    }
    None
}

/// What has been shown, and the exit code it comes to.
#[derive(Default)]
struct Shown {
    code: i32,
}

impl Shown {
    /// Shows one reply line; `false` once it is the last.
    fn show(&mut self, v: &Value) -> bool {
        let text = |k: &str| v[k].as_str().map(clean).unwrap_or_default();
        if let Some(e) = v["error"].as_str() {
            eprintln!("vults-app: {}", clean(e));
            self.code = 1;
            return false;
        }
        if let Some(offer) = v.get("offer") {
            show_offer(offer);
            return true;
        }
        if let Some(p) = v.get("paired") {
            say(&format!(
                "Paired: {} ({}). It answers cards from now on; `vults-app phone revoke {}` takes that back.\n",
                clean(p["name"].as_str().unwrap_or_default()),
                clean(p["id"].as_str().unwrap_or_default()),
                clean(p["id"].as_str().unwrap_or_default()),
            ));
            return false;
        }
        if v.get("ended").is_some() {
            eprintln!(
                "vults-app: {}",
                match text("ended").as_str() {
                    "replaced" => "a newer pairing code replaced this one; no phone paired with it",
                    _ => "the pairing code expired; no phone paired",
                }
            );
            self.code = 1;
            return false;
        }
        if let Some(devices) = v["devices"].as_array() {
            show_list(v, devices);
            return false;
        }
        if let Some(r) = v.get("revoked") {
            say(&format!(
                "{} ({}) {}: its requests are refused and nothing is pushed to it.\n",
                clean(r["name"].as_str().unwrap_or_default()),
                clean(r["id"].as_str().unwrap_or_default()),
                if r["already"] == Value::Bool(true) {
                    "was already revoked"
                } else {
                    "revoked"
                }
            ));
            return false;
        }
        if let Some(results) = v["tested"].as_array() {
            for r in results {
                let who = format!(
                    "{} ({})",
                    clean(r["name"].as_str().unwrap_or_default()),
                    clean(r["id"].as_str().unwrap_or_default())
                );
                match r["error"].as_str() {
                    None => say(&format!("{who}: the push service took the test push.\n")),
                    Some(e) => {
                        say(&format!("{who}: not delivered: {}\n", clean(e)));
                        self.code = 1;
                    }
                }
            }
            return false;
        }
        eprintln!("vults-app: the app answered something this version does not know");
        self.code = 1;
        false
    }
}

fn show_offer(offer: &Value) {
    let url = offer["url"].as_str().unwrap_or_default();
    let modules = vults_phone::qr_modules(&vults_phone::PairingOffer {
        url: url.to_string(),
        token: String::new(),
        expires_at: 0,
        app_sign_key: String::new(),
        app_box_key: String::new(),
        broker: None,
        phone_login: None,
    });
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    say(&qr_text(&modules, colour));
    // The link on a line of its own, as it is (it is the app's own URL: no phone chose it).
    say(&format!("{}\n", clean(url)));
    let until = offer["expires_at"]
        .as_u64()
        .map(|ms| ms.saturating_sub(vults_engine::clock::now_ms()) / 1000)
        .unwrap_or(0);
    let mut how = String::new();
    if offer["broker"] == Value::Bool(true) {
        how.push_str("The phone pairs through the broker. ");
    } else if let Some(addr) = offer["address"].as_str() {
        how.push_str(&format!("The page listens on {}. ", clean(addr)));
    }
    if let Some(fp) = offer["tls_fingerprint"].as_str() {
        how.push_str(&format!(
            "Its certificate's SHA-256 is {} (the phone's browser asks you to accept it once). ",
            clean(fp)
        ));
    }
    eprintln!(
        "Scan the code with the phone's camera, or open the link on it. {how}\
         The code is good once, for {} min {} s; waiting for the phone…",
        until / 60,
        until % 60
    );
}

fn show_list(v: &Value, devices: &[Value]) {
    if devices.is_empty() {
        say("No paired phones. Pair one with: vults-app phone pair [--broker]\n");
    }
    for d in devices {
        let when = |k: &str| d[k].as_u64().map(ago).unwrap_or_else(|| "never".into());
        let state = if d["revoked_at"].is_u64() {
            format!("revoked {}", when("revoked_at"))
        } else {
            format!("paired {}", when("paired_at"))
        };
        let push = if d["push"] == Value::Bool(true) {
            "on"
        } else {
            "off"
        };
        say(&format!(
            "{}  {}  {state}  push {push}  last delivery {}  last failure {}\n",
            clean(d["id"].as_str().unwrap_or_default()),
            clean(d["name"].as_str().unwrap_or_default()),
            when("last_delivered"),
            d["last_error"]
                .as_str()
                .map(clean)
                .unwrap_or_else(|| "none".into()),
        ));
    }
    let mut about = Vec::new();
    if let Some(a) = v["address"].as_str() {
        about.push(format!("the page listens on {}", clean(a)));
    }
    if let Some(b) = v["broker"].as_str() {
        about.push(format!("broker: {}", clean(b)));
    }
    for k in ["key_storage", "push_storage"] {
        if let Some(s) = v[k].as_str().filter(|s| !s.is_empty()) {
            about.push(clean(s));
        }
    }
    if !about.is_empty() {
        eprintln!("{}", about.join("; "));
    }
}

/// How long ago a Unix-ms time was, in words.
fn ago(ms: u64) -> String {
    let s = vults_engine::clock::now_ms().saturating_sub(ms) / 1000;
    match s {
        0..=59 => format!("{s} s ago"),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86_399 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

/// `text` safe for a terminal: control characters, bidirectional overrides and invisible
/// format characters read as `‹U+XXXX›`.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let hidden = c.is_control()
            || matches!(c,
                '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E0FFF}');
        if hidden {
            out.push_str(&format!("‹U+{:04X}›", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The QR code in Unicode half blocks (two modules a character), with a quiet zone of four
/// modules. `colour`: black on white whatever the terminal's colours (ANSI); without, the
/// light modules are drawn (a dark terminal's text colour) and the dark ones left blank, as
/// `qrencode -t UTF8` does.
pub fn qr_text(modules: &[Vec<bool>], colour: bool) -> String {
    const QUIET: usize = 4;
    let size = modules.len();
    let dark = |row: isize, col: isize| -> bool {
        if row < 0 || col < 0 {
            return false;
        }
        modules
            .get(row as usize)
            .and_then(|r| r.get(col as usize))
            .copied()
            .unwrap_or(false)
    };
    let from = -(QUIET as isize);
    let to = (size + QUIET) as isize;
    let mut out = String::new();
    let mut row = from;
    while row < to {
        if colour {
            out.push_str("\x1b[30;107m");
        }
        for col in from..to {
            let (top, bottom) = (dark(row, col), row + 1 < to && dark(row + 1, col));
            // Ink is the dark modules in colour, the light ones without.
            let (top, bottom) = if colour {
                (top, bottom)
            } else {
                (!top, row + 1 < to && !bottom)
            };
            out.push(match (top, bottom) {
                (true, true) => '█',
                (true, false) => '▀',
                (false, true) => '▄',
                (false, false) => ' ',
            });
        }
        if colour {
            out.push_str("\x1b[0m");
        }
        out.push('\n');
        row += 2;
    }
    out
}

fn say(text: &str) {
    super::print(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the half blocks back into modules (without colour: ink is light).
    fn read_back(text: &str) -> Vec<Vec<bool>> {
        let mut rows = Vec::new();
        for line in text.lines() {
            let (mut top, mut bottom) = (Vec::new(), Vec::new());
            for c in line.chars() {
                let (t, b) = match c {
                    '█' => (true, true),
                    '▀' => (true, false),
                    '▄' => (false, true),
                    _ => (false, false),
                };
                // Ink is a light module: dark is its absence.
                top.push(!t);
                bottom.push(!b);
            }
            rows.push(top);
            rows.push(bottom);
        }
        rows
    }

    #[test]
    fn the_half_blocks_hold_the_codes_modules_and_a_quiet_zone() {
        let offer = vults_phone::PairingOffer {
            url: "https://192.0.2.7:47610/#v=1&t=token&k=key&x=box".into(),
            token: String::new(),
            expires_at: 0,
            app_sign_key: String::new(),
            app_box_key: String::new(),
            broker: None,
            phone_login: None,
        };
        let modules = vults_phone::qr_modules(&offer);
        assert!(modules.len() > 20);
        let text = qr_text(&modules, false);
        let back = read_back(&text);
        let n = modules.len();
        for (r, row) in modules.iter().enumerate() {
            assert_eq!(&back[r + 4][4..4 + n], row.as_slice(), "row {r}");
            assert!(
                !back[r + 4][..4].iter().any(|d| *d),
                "quiet zone left of row {r}"
            );
        }
        assert!(
            back[..4].iter().all(|row| row.iter().all(|d| !d)),
            "quiet zone on top"
        );
        // In colour, the ink is the dark modules, on white.
        let coloured = qr_text(&modules, true);
        assert!(coloured.starts_with("\x1b[30;107m"));
        assert_eq!(coloured.lines().count(), text.lines().count());
    }

    #[test]
    fn what_the_phone_named_cannot_drive_the_terminal() {
        assert_eq!(clean("Pixel\u{1b}[2J"), "Pixel‹U+001B›[2J");
        assert_eq!(clean("a\u{202E}b\nc"), "a‹U+202E›b‹U+000A›c");
        assert_eq!(clean("Anna's phone"), "Anna's phone");
    }

    #[test]
    fn the_control_requests_read_back_and_anything_else_is_refused() {
        for request in [
            Request::Pair {
                broker: true,
                port: None,
                loopback: false,
            },
            Request::Pair {
                broker: false,
                port: Some(0),
                loopback: true,
            },
            Request::List,
            Request::Revoke("abc".into()),
            Request::Test(None),
            Request::Test(Some("Anna".into())),
        ] {
            assert_eq!(Request::parse(&request.to_json().to_string()), Ok(request));
        }
        for bad in [
            "",
            "[]",
            "{}",
            r#"{"op":"shutdown"}"#,
            r#"{"op":"list","extra":1}"#,
            r#"{"op":"pair","port":70000}"#,
            r#"{"op":"pair","broker":"yes"}"#,
            r#"{"op":"revoke"}"#,
            r#"{"op":"revoke","device":""}"#,
            r#"{"op":"test","device":7}"#,
        ] {
            assert!(Request::parse(bad).is_err(), "{bad} is refused");
        }
        let long = "x".repeat(201);
        assert!(Request::parse(&format!(r#"{{"op":"revoke","device":"{long}"}}"#)).is_err());
    }
}
