//! What the chat's tests share: an engine and the chat on a private home, a stand-in CLI
//! written as a script, and waiting for a conversation to show something.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_core::paths::Paths;
use vults_engine::{Engine, EngineHandle};
use vults_zeca::{ChatCommand, ChatEvent, Conversation, ZecaHandle, ZecaOptions};

use vults_tests::{PATIENCE, TempHome};

/// A fresh folder for one test (`name`, [`TempHome`]): `project/` inside, `vults/` the
/// `VULTS_HOME` ([`paths`]). Removed when the returned home is dropped.
pub fn test_dir(name: &str) -> TempHome {
    TempHome::new(&format!("zeca-{name}"))
}

/// The paths of a `VULTS_HOME` inside `dir`.
pub fn paths(dir: &Path) -> Paths {
    let home = dir.join("vults");
    Paths::resolve(move |k| (k == "VULTS_HOME").then(|| home.clone()))
}

/// Writes `script` as the executable `dir/<name>`: a stand-in for a CLI.
pub fn fake_cli(dir: &Path, name: &str, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The engine and the chat, as the window runs them: the chat asks through the engine.
pub struct Running {
    pub engine: EngineHandle,
    pub zeca: ZecaHandle,
}

impl Running {
    pub fn start(paths: Paths, options: ZecaOptions) -> Running {
        let engine = Engine::start(paths.clone(), Arc::new(|| {})).expect("engine starts");
        let zeca = ZecaHandle::start(&paths, options, engine.commander(), Arc::new(|| {}))
            .expect("the chat starts");
        Running { engine, zeca }
    }

    pub fn chat(&self, command: ChatCommand) {
        assert!(self.zeca.send(command), "the chat is running");
    }

    /// Conversation updates until one matches `pred` (returned).
    pub fn updated_until(&self, what: &str, pred: impl Fn(&Conversation) -> bool) -> Conversation {
        let start = Instant::now();
        let mut last = None;
        while start.elapsed() < PATIENCE {
            if let Ok(ChatEvent::Updated(c)) =
                self.zeca.events.recv_timeout(Duration::from_millis(100))
            {
                if pred(&c) {
                    return c;
                }
                last = Some(c);
            }
        }
        panic!("gave up waiting for {what}; the last update: {last:#?}");
    }

    /// Stops the chat (its CLIs end), then the engine.
    pub fn stop(&mut self) {
        self.zeca.stop();
        self.engine.stop();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}
