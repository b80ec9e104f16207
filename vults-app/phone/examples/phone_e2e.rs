//! The engine and the phone link without a window, for the real-browser test
//! (`tests/phone-browser/run.sh`): serves the socket and the phone page on loopback, writes the
//! pairing URL to stderr as `vults-phone-e2e: pair <url>`, and feeds every engine event to the
//! link — the same wiring the window does. Stops on SIGINT/SIGTERM.
//!
//! `cargo run -p vults-phone --example phone_e2e -- [port] [--tls] [--push]` (0 or no port: any
//! free one). `--push` (`tests/phone-browser/push.mjs`): pushes go to a stand-in push service on
//! 127.0.0.1 (its own CA, trusted by this link only); a subscription it made is written as
//! `vults-phone-e2e: subscription <JSON>`, and each push it takes as
//! `vults-phone-e2e: push <status> <its decrypted content, base64url>`.
//! `--lang <tag>` (`tests/phone-browser/lang.mjs`): the app's language, as Settings → General
//! chooses it (`vults_i18n::choose`); the list reply names it and the page speaks it.
//! `VULTS_HOME` / `VULTS_SOCKET` move its files as for the app.

use std::sync::Arc;
use vults_core::paths::Paths;
use vults_engine::{Engine, EngineOptions};
use vults_phone::{LinkConfig, PhoneLink};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port: u16 = args.first().and_then(|a| a.parse().ok()).unwrap_or(0);
    // `--tls`: HTTPS with the link's self-signed certificate, as on the LAN.
    let tls = args.iter().any(|a| a == "--tls");
    let push = args.iter().any(|a| a == "--push");
    if let Some(tag) = args
        .iter()
        .position(|a| a == "--lang")
        .and_then(|i| args.get(i + 1))
    {
        let spoken = vults_i18n::choose(&vults_i18n::Choice::Language(tag.clone()));
        eprintln!("vults-phone-e2e: language {spoken}");
    }
    let paths = Paths::from_env();
    let options = EngineOptions {
        interactive: true,
        stop_on_signal: true,
        ..EngineOptions::default()
    };
    let mut engine = match Engine::start_with(paths.clone(), Arc::new(|| {}), options) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vults-phone-e2e: cannot start the engine: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let commander = engine.commander();
    let mut phone = match PhoneLink::new(
        &paths,
        Arc::new(move |c| {
            commander.send(c);
        }),
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("vults-phone-e2e: cannot start the phone link: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    eprintln!("vults-phone-e2e: {}", phone.key_storage().describe());
    // Kept until the end: dropping it stops the stand-in.
    let _service = if push {
        let service = match vults_phone::push::standin::StandIn::start() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("vults-phone-e2e: cannot start the stand-in push service: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        if let Err(e) = phone.set_push_roots(service.roots()) {
            eprintln!("vults-phone-e2e: cannot start pushing: {e}");
            return std::process::ExitCode::FAILURE;
        }
        let sub = service.subscribe("e2e");
        let json = serde_json::json!({"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}});
        eprintln!("vults-phone-e2e: subscription {json}");
        let feed = service.feed();
        std::thread::spawn(move || {
            for got in feed {
                let plain = got
                    .plaintext
                    .map(|p| vults_phone::crypto::b64(&p))
                    .unwrap_or_else(|| "-".into());
                eprintln!("vults-phone-e2e: push {} {plain}", got.status);
            }
        });
        Some(service)
    } else {
        None
    };
    let config = LinkConfig {
        tls,
        ..LinkConfig::loopback(port)
    };
    if let Err(e) = phone.start(config) {
        eprintln!("vults-phone-e2e: cannot listen on port {port}: {e}");
        return std::process::ExitCode::FAILURE;
    }
    match phone.offer() {
        Some(offer) => eprintln!("vults-phone-e2e: pair {}", offer.url),
        None => return std::process::ExitCode::FAILURE,
    }
    for event in engine.events.iter() {
        phone.on_engine_event(&event);
        if let vults_engine::messages::EngineEvent::Audited(lines) = &event {
            for l in lines {
                eprintln!("vults-phone-e2e: audit {} by {}", l.decision, l.by);
            }
        }
    }
    phone.stop();
    engine.join();
    std::process::ExitCode::SUCCESS
}
