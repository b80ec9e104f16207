//! Running the real binaries with a temp `VULTS_HOME`, under an `Xvfb` of the test's own
//! (`vults_tests::desktop`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The app this package built; `VULTS_APP_BIN` runs another build instead (the same tests
/// against another commit's app).
pub fn app_bin() -> PathBuf {
    std::env::var_os("VULTS_APP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_vults-app")))
}

/// Runs a binary to its end with a clean environment (`PATH` only, plus `env`).
pub fn run(bin: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", bin.display()))
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub use vults_tests::desktop::Xvfb;

/// The window app running under an `Xvfb`, killed on drop.
pub struct RunningApp {
    pub child: std::process::Child,
}

impl RunningApp {
    pub fn start(home: &Path, display: &str) -> RunningApp {
        let child = Command::new(app_bin())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("VULTS_HOME", home)
            .env("HOME", home.join("home"))
            .env("DISPLAY", display)
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("vults-app starts");
        RunningApp { child }
    }

    /// The app on a desktop of `vults_tests::compositors`: `env` is the desktop's (its
    /// `DISPLAY`, `WAYLAND_DISPLAY`, runtime folder and bus); stderr goes to `app.stderr` in
    /// `home`, where a panic would show. Linux's only (the desktops run there).
    #[cfg(target_os = "linux")]
    pub fn start_env(home: &Path, env: &[(String, String)]) -> RunningApp {
        let stderr = std::fs::File::create(home.join("app.stderr")).expect("app.stderr");
        let child = Command::new(app_bin())
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("VULTS_HOME", home)
            .env("HOME", home.join("home"))
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            // "card drawn N frame(s) after its event arrived" in the log: the card was drawn.
            .env("VULTS_UI_STATS", "1")
            .stdout(std::process::Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("vults-app starts");
        RunningApp { child }
    }
}

impl Drop for RunningApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The app's log under a `VULTS_HOME`.
pub fn log_text(home: &Path) -> String {
    std::fs::read_to_string(home.join("log").join("vults.log")).unwrap_or_default()
}

/// Waits until `f` holds, for up to `secs`; the last value of `what` explains a failure.
pub fn wait_until(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    f()
}

pub use vults_tests::desktop::tools as desktop_tools;

/// An X client's output on `display`, trimmed.
pub fn x(display: &str, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .env("DISPLAY", display)
        .stderr(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The window app under `display` with `settings` as its settings.json (the welcome already
/// seen, or it would open the main window over the cards), up once its hook socket is.
pub fn app_with(home: &Path, display: &str, settings: serde_json::Value) -> RunningApp {
    let config = home.join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("settings.json"), settings.to_string()).unwrap();
    std::fs::create_dir_all(home.join("project")).unwrap();
    let app = RunningApp::start(home, display);
    let socket = home.join("run").join("vults.sock");
    assert!(
        wait_until(60, || socket.exists()),
        "the app did not come up:\n{}",
        log_text(home)
    );
    app
}

/// The real hook asking for Claude Code's Bash `command` in `home`'s project, waiting for its
/// answer (read it with [`reply_within`]).
pub fn claude_bash(home: &Path, session: &str, command: &str) -> std::process::Child {
    use std::io::Write;
    use std::process::Stdio;
    let project = home.join("project");
    let mut child = Command::new(vults_tests::built_hook_bin())
        .args(["--agent", "claude", "PermissionRequest"])
        .env("VULTS_HOME", home)
        .env("HOME", home.join("home"))
        .current_dir(&project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the hook starts");
    let payload = serde_json::json!({
        "session_id": session,
        "cwd": project.display().to_string(),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command}
    });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.to_string().as_bytes()).unwrap();
    drop(stdin);
    child
}

/// What the hook printed, once it exits within `secs`; `None` while it still waits.
pub fn reply_within(hook: &mut std::process::Child, secs: u64) -> Option<String> {
    if !wait_until(secs, || hook.try_wait().unwrap().is_some()) {
        return None;
    }
    let mut out = String::new();
    std::io::Read::read_to_string(hook.stdout.as_mut().unwrap(), &mut out).unwrap();
    Some(out.trim().to_string())
}
