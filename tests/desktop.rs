//! An X desktop of a test's own, for the live desktop tests (global keys, cards, Show
//! terminal): the tools check, an `Xvfb` on a display number of its own, openbox, the processes
//! started on it, and what the X server says (`xprop`, `xdotool`), never the code under test.
//!
//! A missing tool skips the test (saying so), except with `VULTS_DESKTOP_TESTS=1` (CI), where
//! it fails it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// A desktop's environment for the programs a test starts on it (`DISPLAY` among them).
pub type Env = [(String, String)];

/// Whether `name` is a file in one of `PATH`'s folders.
pub fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// Whether every tool in `needed` is installed: a failure when `VULTS_DESKTOP_TESTS=1`,
/// otherwise `false` after saying why `test` skips.
pub fn tools(test: &str, needed: &[&str]) -> bool {
    let missing: Vec<&str> = needed.iter().copied().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("VULTS_DESKTOP_TESTS").as_deref() != Ok("1"),
        "{test}: VULTS_DESKTOP_TESTS=1 but {missing:?} is not installed"
    );
    eprintln!("{test}: skipped, needs {missing:?}");
    false
}

/// An `Xvfb` of the test's own on a free display number, killed on drop with its lock file and
/// socket removed (Xvfb killed outright leaves them, and the number would stay taken).
pub struct Xvfb {
    child: Child,
    /// The display number.
    pub number: u32,
    /// `:<number>`, for `DISPLAY`.
    pub display: String,
}

impl Xvfb {
    /// A 1280×800 screen; `None` when `test` skips for want of `Xvfb` (see [`tools`]).
    pub fn start(test: &str) -> Option<Xvfb> {
        Xvfb::start_sized(test, "1280x800x24")
    }

    /// An `Xvfb` whose one screen is `screen` (`WIDTHxHEIGHTxDEPTH`).
    pub fn start_sized(test: &str, screen: &str) -> Option<Xvfb> {
        if !tools(test, &["Xvfb"]) {
            return None;
        }
        // 32 numbers per process from 200 up: several test processes (and several tests in
        // one) start theirs at once.
        static NEXT: AtomicU32 = AtomicU32::new(0);
        for _ in 0..32 {
            let n =
                200 + (std::process::id() % 1000) * 32 + NEXT.fetch_add(1, Ordering::Relaxed) % 32;
            let (lock, socket) = display_files(n);
            if Path::new(&lock).exists() || Path::new(&socket).exists() {
                continue;
            }
            // -noreset: an X server resets when its last client leaves, and a client that
            // connects in that moment is refused. Without it, an `xprop` that polled before
            // openbox had connected made openbox fail at start ("Failed to open the display")
            // about one time in fifteen, and the test waited for a window manager that was gone.
            let mut child = Command::new("Xvfb")
                .args([
                    &format!(":{n}"),
                    "-screen",
                    "0",
                    screen,
                    "-nolisten",
                    "tcp",
                    "-noreset",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{test}: Xvfb starts: {e}"));
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(5) {
                if Path::new(&socket).exists() {
                    return Some(Xvfb {
                        child,
                        number: n,
                        display: format!(":{n}"),
                    });
                }
                if let Ok(Some(_)) = child.try_wait() {
                    break; // another process took the number first
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("{test}: Xvfb did not start");
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (lock, socket) = display_files(self.number);
        let _ = std::fs::remove_file(lock);
        let _ = std::fs::remove_file(socket);
    }
}

fn display_files(n: u32) -> (String, String) {
    (format!("/tmp/.X{n}-lock"), format!("/tmp/.X11-unix/X{n}"))
}

/// Processes of the test's own, killed (and reaped) when the test ends however it ends, the
/// last started first.
#[derive(Default)]
pub struct Kids(Vec<Child>);

impl Kids {
    /// Starts `cmd` with no stdin and its output thrown away; its pid.
    pub fn spawn(&mut self, cmd: &mut Command) -> u32 {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{cmd:?} starts: {e}"));
        let pid = child.id();
        self.0.push(child);
        pid
    }

    /// Starts `cmd` with no stdin, its stdout and stderr appended to `log`; its pid.
    pub fn spawn_logged(&mut self, cmd: &mut Command, log: &Path) -> u32 {
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        let err = out.try_clone().expect("the log file");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("{cmd:?} starts: {e}"));
        let pid = child.id();
        self.0.push(child);
        pid
    }

    /// How the one started as `pid` ended, once it has; `None` while it runs.
    pub fn ended(&mut self, pid: u32) -> Option<std::process::ExitStatus> {
        let c = self.0.iter_mut().find(|c| c.id() == pid)?;
        c.try_wait().ok().flatten()
    }

    /// Kills the one started as `pid`, now.
    pub fn kill(&mut self, pid: u32) {
        if let Some(i) = self.0.iter().position(|c| c.id() == pid) {
            let mut c = self.0.remove(i);
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Kids {
    fn drop(&mut self) {
        for c in self.0.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Polls `f` every 100 ms until it gives `Some`, for up to `secs`; panics naming `what`.
pub fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs a program to its end with `env` only; its stdout, or what it said on stderr.
pub fn run(env: &Env, program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The least environment for programs on `display`: `DISPLAY`, and this process's `PATH`.
pub fn display_env(display: &str) -> Vec<(String, String)> {
    vec![
        ("DISPLAY".to_string(), display.to_string()),
        (
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        ),
    ]
}

/// `program`, to run with `env` only.
pub fn command(env: &Env, program: &str) -> Command {
    let mut c = Command::new(program);
    c.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
    c
}

/// Starts openbox on `env`'s display and waits until it manages the screen (its check window
/// is on the root); its pid. An openbox that ends before that fails the test at once, saying
/// how it ended.
pub fn openbox(kids: &mut Kids, env: &Env) -> u32 {
    let pid = kids.spawn(command(env, "openbox").arg("--sm-disable"));
    wait_for(60, "openbox", || {
        if let Some(status) = kids.ended(pid) {
            panic!("openbox ended before it managed the screen ({status})");
        }
        run(env, "xprop", &["-root", "_NET_SUPPORTING_WM_CHECK"])
            .ok()
            .filter(|o| o.contains("window id"))
    });
    pid
}

/// The X server's active window (`_NET_ACTIVE_WINDOW`, by `xprop`).
pub fn active_window(env: &Env) -> Option<u32> {
    let out = run(env, "xprop", &["-root", "_NET_ACTIVE_WINDOW"]).ok()?;
    let hex = out.rsplit("# ").next()?.trim().split(',').next()?.trim();
    u32::from_str_radix(hex.strip_prefix("0x")?, 16)
        .ok()
        .filter(|w| *w != 0)
}

/// The windows named exactly `title`, by `xdotool`.
pub fn windows_named(env: &Env, title: &str) -> Vec<u32> {
    run(env, "xdotool", &["search", "--name", &format!("^{title}$")])
        .map(|o| o.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// Makes `window` the active one (so that a show has something to change), and waits for it.
pub fn activate(env: &Env, window: u32) {
    let w = window.to_string();
    let _ = run(env, "xdotool", &["windowactivate", "--sync", &w]);
    wait_for(10, "the other window to be active", || {
        (active_window(env) == Some(window)).then_some(())
    });
}

/// Opens an xterm titled `title` running `program` with `args` on `env`'s display, and waits
/// for its window; the window.
pub fn xterm(kids: &mut Kids, env: &Env, title: &str, program: &str, args: &[&str]) -> u32 {
    kids.spawn(
        command(env, "xterm")
            .args(["-T", title, "-e", program])
            .args(args),
    );
    wait_for(20, &format!("the xterm {title}"), || {
        windows_named(env, title).first().copied()
    })
}

/// A tmux server of the test's own on `socket`, killed when the test ends however it ends.
pub struct TmuxServer {
    /// The server's socket (`tmux -S`).
    pub socket: String,
    /// The environment its clients run with.
    pub env: Vec<(String, String)>,
}

impl TmuxServer {
    /// Runs `tmux args` against this server (no config file); its stdout. Panics when tmux
    /// fails, saying what it said.
    pub fn run(&self, args: &[&str]) -> String {
        let mut all = vec!["-f", "/dev/null", "-S", self.socket.as_str()];
        all.extend_from_slice(args);
        run(&self.env, "tmux", &all).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = run(&self.env, "tmux", &["-S", &self.socket, "kill-server"]);
    }
}
