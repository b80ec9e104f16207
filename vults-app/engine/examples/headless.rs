//! The engine alone, as `vults-app --headless` runs it but without its SSH hosts' links and log
//! file: what bench/soak measures when the app's whole release build is not needed (an engine
//! or vults-core change compiles in minutes, not the window's half hour on a busy machine).
//!
//! ```text
//! cargo build --release -p vults-engine --example headless
//! VULTS_APP=target/release/examples/headless NO_BUILD=1 bench/soak/run.sh headless
//! ```
//!
//! Takes (and ignores) `--headless`; stops on SIGINT or SIGTERM.

use std::sync::Arc;
use vults_core::paths::Paths;
use vults_engine::{Engine, EngineOptions};

fn main() {
    let options = EngineOptions {
        interactive: false,
        stop_on_signal: true,
        ..EngineOptions::default()
    };
    let engine = match Engine::start_with(Paths::from_env(), Arc::new(|| {}), options) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("headless: cannot start: {e}");
            std::process::exit(1);
        }
    };
    // The window's side of the channel: read and dropped, until the engine stops.
    for _ in engine.events.iter() {}
}
