//! The engine and the phone link over a broker, without a window and with the LAN link off,
//! for the broker test (`vults-app/phone/tests/broker.rs`): connects to the broker, waits
//! until it is connected, writes the pairing URL to stderr as `vults-phone-e2e: pair <url>`,
//! and feeds every engine event to the link — the same wiring the window does; each card
//! added is printed as `vults-phone-e2e: card <id>`. Lines on stdin:
//! - `code`: a new pairing URL, printed the same way, then `code ready`;
//! - `state`: `vults-phone-e2e: broker <state>`;
//! - `lan`: turns the LAN link on (loopback, plain HTTP): `vults-phone-e2e: lan <address>`;
//! - `broker-off`: disconnects from the broker as Settings → Phone does: `broker off done`;
//! - `click <card> allow|deny|always`: answers a card as a click on the desktop would.
//!
//! Stops on SIGINT/SIGTERM or when stdin closes.
//!
//! `cargo run -p vults-phone --example phone_broker_e2e -- <broker url> [--ca <pem file>]
//! [--phone <wss url for the page>] [--page <page url>] [--user <app's username>
//! --password <its password>] [--phone-user <phone's username> --phone-password <its password>]`.
//! With a login, the settings go through Settings → Phone's path (`PhoneAction::Broker`: the
//! passwords kept as the app keeps them, the settings saved in `phone-broker.json`). `VULTS_HOME` / `VULTS_SOCKET` move its files as for the app.

use std::io::BufRead;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vults_core::paths::Paths;
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent};
use vults_engine::{Engine, EngineOptions};
use vults_phone::{BrokerConfig, BrokerSettings, BrokerState, LinkConfig, PhoneAction, PhoneLink};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let Some(url) = args.first().cloned() else {
        eprintln!("usage: phone_broker_e2e <broker url> [--ca <pem>] [--page <url>]");
        return std::process::ExitCode::FAILURE;
    };
    let paths = Paths::from_env();
    // The app's log, as the app writes it (the login test reads it for passwords).
    let _ = vults_engine::log::init(&paths, false);
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
    let clicks = engine.commander();
    let phone = match PhoneLink::new(
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
    let config = BrokerConfig {
        url,
        ca_file: value("--ca").map(Into::into),
        phone_url: value("--phone"),
        page_url: value("--page"),
        username: value("--user"),
        phone_username: value("--phone-user"),
        enabled: true,
    };
    let phone = Arc::new(Mutex::new(phone));
    let lock = || phone.lock().unwrap_or_else(|e| e.into_inner());
    // A signal stops the engine: the link stops first, so its last summary of dropped refusals
    // is audited (as the app's Quit stops the phone before the engine).
    let at_stop = phone.clone();
    engine.before_stop(move || {
        at_stop
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stop_broker()
    });
    if config.username.is_some() || config.phone_username.is_some() {
        let mut link = lock();
        link.apply(PhoneAction::Broker(BrokerSettings {
            config,
            password: value("--password"),
            phone_password: value("--phone-password"),
        }));
        if let Some(e) = link.status().broker.error {
            eprintln!("vults-phone-e2e: bad broker settings: {e}");
            return std::process::ExitCode::FAILURE;
        }
    } else if let Err(e) = lock().start_broker(config, None) {
        eprintln!("vults-phone-e2e: bad broker settings: {e}");
        return std::process::ExitCode::FAILURE;
    }
    let started = Instant::now();
    loop {
        let state = lock().broker_state();
        if state == Some(BrokerState::Connected) {
            break;
        }
        if started.elapsed() > Duration::from_secs(30) {
            eprintln!("vults-phone-e2e: the broker did not connect: {state:?}");
            return std::process::ExitCode::FAILURE;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Let the first subscriptions reach the broker before a phone uses the code.
    std::thread::sleep(Duration::from_millis(500));
    let print_code = |link: &PhoneLink| match link.offer() {
        Some(offer) => eprintln!("vults-phone-e2e: pair {}", offer.url),
        None => eprintln!("vults-phone-e2e: no pairing code"),
    };
    print_code(&lock());
    let for_stdin = phone.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let words: Vec<&str> = line.split_whitespace().collect();
            let mut link = for_stdin.lock().unwrap_or_else(|e| e.into_inner());
            match words.as_slice() {
                ["code"] => {
                    print_code(&link);
                    // The new code's topic is subscribed within the link's sync interval.
                    std::thread::sleep(Duration::from_millis(600));
                    eprintln!("vults-phone-e2e: code ready");
                }
                ["state"] => match link.broker_state() {
                    Some(state) => eprintln!("vults-phone-e2e: broker {}", state.describe()),
                    None => eprintln!("vults-phone-e2e: broker off"),
                },
                ["broker-off"] => {
                    link.apply(PhoneAction::BrokerOff);
                    eprintln!("vults-phone-e2e: broker off done");
                }
                ["lan"] => match link.start(LinkConfig::loopback(0)) {
                    Ok(addr) => eprintln!("vults-phone-e2e: lan {addr}"),
                    Err(e) => eprintln!("vults-phone-e2e: lan failed: {e}"),
                },
                ["click", card, answer] => {
                    let answer = match *answer {
                        "allow" => CardAnswer::Allow,
                        "always" => CardAnswer::AlwaysAllow,
                        _ => CardAnswer::Deny,
                    };
                    if let Ok(card) = card.parse() {
                        clicks.send(EngineCommand::Answer {
                            card,
                            answer,
                            by: AnsweredBy::Click,
                        });
                    }
                }
                _ => eprintln!("vults-phone-e2e: unknown command {line:?}"),
            }
        }
        // stdin closed: the test is gone.
        std::process::exit(0);
    });
    for event in engine.events.iter() {
        lock().on_engine_event(&event);
        if let EngineEvent::CardAdded(card) = &event {
            eprintln!("vults-phone-e2e: card {}", card.id);
        }
        if let EngineEvent::Audited(lines) = &event {
            for l in lines {
                eprintln!("vults-phone-e2e: audit {} by {}", l.decision, l.by);
            }
        }
    }
    lock().stop_broker();
    engine.join();
    std::process::ExitCode::SUCCESS
}
