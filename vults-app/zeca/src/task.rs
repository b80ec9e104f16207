//! Tasks started from the chat: an agent session in a folder, launched with
//! `VULTS_TASK=<task id>` — in the user's terminal emulator, or headless. The hook copies
//! `VULTS_TASK` into `terminal.env`, so the session's bird in the flock carries the task id
//! (it took off from Zeca), and its cards are ordinary cards.

use super::conversation::ChatId;
use super::note::{Note, Sink};
use crate::error::TaskError;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What to launch.
pub struct Launch {
    /// The agent's binary.
    pub program: PathBuf,
    /// `claude` or `codex`.
    pub agent: String,
    /// What the agent is asked to do.
    pub prompt: String,
    /// The folder it starts in.
    pub folder: String,
    /// The task's id, set as `VULTS_TASK`.
    pub task: String,
    /// Environment added to the app's.
    pub env: Vec<(String, String)>,
    /// Variables taken out of the environment.
    pub remove: Vec<String>,
}

impl Launch {
    /// The agent's arguments: interactive in a terminal, or its headless mode. The prompt comes
    /// after `--`, so one that starts with `-` (`--dangerously-skip-permissions …`) is the
    /// prompt, never an option of claude or codex.
    fn args(&self, headless: bool) -> Vec<String> {
        let mut args = Vec::new();
        if headless {
            let engine = super::conversation::chat_agent(&self.agent).map(|(_, e)| e);
            args.push(
                engine
                    .unwrap_or(vults_core::agents::ChatEngine::StreamJson)
                    .headless_arg()
                    .to_string(),
            );
        }
        if !self.prompt.trim().is_empty() {
            args.push("--".into());
            args.push(self.prompt.clone());
        }
        args
    }

    /// What is started to open the task in a terminal: the program and its arguments. On
    /// Windows the agent itself, in a new console of its own ([`in_terminal`]): the prompt goes
    /// through no `cmd /k`, `cmd /c start` or `wt`, whose own parsing Rust's argument quoting
    /// does not protect against (`x" & calc & "y`, `;`). Elsewhere the terminal's prefix, then
    /// `env VULTS_TASK=… sh -c 'cd "$1" && shift && exec "$@"' sh <folder> <agent> <args>`: the
    /// folder, the agent and the prompt are the script's arguments, never its text.
    fn terminal_argv(&self, prefix: &[String], windows: bool) -> Vec<String> {
        let mut argv: Vec<String> = Vec::new();
        if !windows {
            argv.extend(prefix.iter().cloned());
            argv.extend([
                "env".to_string(),
                format!("VULTS_TASK={}", self.task),
                "sh".into(),
                "-c".into(),
                "cd \"$1\" && shift && exec \"$@\"".into(),
                "sh".into(),
                self.folder.clone(),
            ]);
        }
        argv.push(self.program.display().to_string());
        argv.extend(self.args(false));
        argv
    }
}

/// `name` on PATH (with Windows' executable extensions), as a shell would find it.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let exts: &[&str] = if cfg!(windows) {
        &["exe", "cmd", "bat"]
    } else {
        &[""]
    };
    std::env::split_paths(&path).find_map(|dir| {
        exts.iter().find_map(|ext| {
            let p = if ext.is_empty() {
                dir.join(name)
            } else {
                dir.join(format!("{name}.{ext}"))
            };
            is_executable(&p).then_some(p)
        })
    })
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Runs the task headless; its output goes to `log`, its end to the chat ([`Note::TaskExited`]).
pub fn headless(
    launch: &Launch,
    log: &Path,
    chat: ChatId,
    sink: Sink,
) -> Result<String, TaskError> {
    if !Path::new(&launch.folder).is_dir() {
        return Err(TaskError::NoFolder(launch.folder.clone()));
    }
    if let Some(dir) = log.parent() {
        vults_core::paths::private_dir(dir)?;
    }
    let out = open_log(log).map_err(|source| TaskError::Log {
        path: log.to_path_buf(),
        source,
    })?;
    let err = out.try_clone()?;
    let mut cmd = Command::new(&launch.program);
    for k in &launch.remove {
        cmd.env_remove(k);
    }
    cmd.args(launch.args(true))
        .current_dir(&launch.folder)
        .env_remove("VULTS_ZECA")
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .env("VULTS_TASK", &launch.task)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let mut child = cmd.spawn().map_err(|source| TaskError::Spawn {
        program: launch.program.clone(),
        source,
    })?;
    let task = launch.task.clone();
    let said = format!("running headless (log {})", log.display());
    let log = log.to_path_buf();
    std::thread::Builder::new()
        .name("zeca-task".into())
        .spawn(move || {
            let status = match child.wait() {
                // A task that failed says why: the last line it wrote (its log has the rest).
                Ok(s) if !s.success() => match last_line(&log) {
                    Some(line) => format!("{s}: {line}"),
                    None => s.to_string(),
                },
                Ok(s) => s.to_string(),
                Err(e) => e.to_string(),
            };
            sink(Note::TaskExited { chat, task, status });
        })?;
    Ok(said)
}

/// A task's log, emptied, private to the user (0600, whatever the umask; an older, looser one
/// is tightened): it holds the agent's whole output, prompts and file contents included.
fn open_log(log: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, vults_core::paths::PRIVATE_FILE_MODE);
    let file = options.open(log)?;
    vults_core::paths::tighten(log)?;
    Ok(file)
}

/// The terminal emulator as a command prefix: the setting, else the platform's way.
/// Linux and other Unix: `$TERMINAL`, then `x-terminal-emulator`, then the common ones found on
/// PATH. macOS: Terminal.app through `open`. Windows: none — a task opens in a new console of
/// its own (Windows Terminal where it is the default terminal), see [`in_terminal`].
pub fn detect_terminal(setting: Option<&str>) -> Option<Vec<String>> {
    if let Some(s) = setting.map(str::trim).filter(|s| !s.is_empty()) {
        return Some(s.split_whitespace().map(str::to_string).collect());
    }
    if cfg!(windows) {
        return Some(Vec::new());
    }
    if cfg!(target_os = "macos") {
        return None; // Terminal.app takes a script, not a command line: see in_terminal.
    }
    if let Ok(t) = std::env::var("TERMINAL")
        && !t.trim().is_empty()
        && find_on_path(t.split_whitespace().next().unwrap_or_default()).is_some()
    {
        return Some(vec![t.trim().to_string(), "-e".into()]);
    }
    let known: &[(&str, &[&str])] = &[
        ("x-terminal-emulator", &["-e"]),
        ("gnome-terminal", &["--"]),
        ("konsole", &["-e"]),
        ("xfce4-terminal", &["-x"]),
        ("kitty", &[]),
        ("alacritty", &["-e"]),
        ("wezterm", &["start", "--"]),
        ("foot", &[]),
        ("xterm", &["-e"]),
    ];
    known.iter().find_map(|(name, args)| {
        find_on_path(name).map(|_| {
            std::iter::once(name.to_string())
                .chain(args.iter().map(|a| a.to_string()))
                .collect()
        })
    })
}

/// Opens the task in the user's terminal emulator (on Windows, a new console of its own).
pub fn in_terminal(launch: &Launch, setting: Option<&str>) -> Result<String, TaskError> {
    if !Path::new(&launch.folder).is_dir() {
        return Err(TaskError::NoFolder(launch.folder.clone()));
    }
    let mut cmd = if cfg!(target_os = "macos") && setting.is_none_or(|s| s.trim().is_empty()) {
        // `open -a Terminal` runs a script file; it sets the variable itself.
        let mut argv: Vec<String> = vec![launch.program.display().to_string()];
        argv.extend(launch.args(false));
        let script = std::env::temp_dir().join(format!("vults-{}.command", launch.task));
        let quoted: Vec<String> = argv.iter().map(|a| sh_quote(a)).collect();
        let text = format!(
            "#!/bin/sh\ncd {} || exit 1\nexport VULTS_TASK={}\nexec {}\n",
            sh_quote(&launch.folder),
            sh_quote(&launch.task),
            quoted.join(" ")
        );
        vults_core::atomic::write(&script, text.as_bytes(), Some(0o700))?;
        let mut c = Command::new("open");
        c.args(["-a", "Terminal"]).arg(&script);
        c
    } else {
        // On Windows the setting is not used: a prefix there would be a program that parses
        // the prompt again (cmd, wt).
        let prefix = if cfg!(windows) {
            Vec::new()
        } else {
            detect_terminal(setting).ok_or(TaskError::NoTerminal)?
        };
        let argv = launch.terminal_argv(&prefix, cfg!(windows));
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]);
        new_console(&mut c);
        c
    };
    for k in &launch.remove {
        cmd.env_remove(k);
    }
    cmd.current_dir(&launch.folder)
        .env_remove("VULTS_ZECA")
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .env("VULTS_TASK", &launch.task)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if cfg!(windows) {
        // The new console's own handles, not the app's (it has none to give).
        cmd.stdin(Stdio::inherit())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit());
    }
    let mut child = cmd.spawn().map_err(TaskError::Terminal)?;
    // The emulator (or its launcher) is reaped when it ends; it lives on its own.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok("opened in the terminal".into())
}

/// Windows: the agent gets a console window of its own (`CREATE_NEW_CONSOLE`), as `start` gave
/// it, without `cmd`.
#[cfg(windows)]
fn new_console(cmd: &mut Command) {
    use std::os::windows::process::CommandExt;
    const CREATE_NEW_CONSOLE: u32 = 0x0000_0010;
    cmd.creation_flags(CREATE_NEW_CONSOLE);
}

#[cfg(not(windows))]
fn new_console(_cmd: &mut Command) {}

/// The last line with something on it of a task's log (at most 300 characters of it).
fn last_line(log: &Path) -> Option<String> {
    let text = std::fs::read(log).ok()?;
    let tail = &text[text.len().saturating_sub(4096)..];
    String::from_utf8_lossy(tail)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(300).collect())
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_runs_the_agent_headless_or_interactive() {
        let l = Launch {
            program: "claude".into(),
            agent: "claude".into(),
            prompt: "fix it".into(),
            folder: "/p".into(),
            task: "t1".into(),
            env: Vec::new(),
            remove: Vec::new(),
        };
        assert_eq!(l.args(true), ["-p", "--", "fix it"]);
        assert_eq!(l.args(false), ["--", "fix it"]);
        let c = Launch {
            agent: "codex".into(),
            ..l
        };
        assert_eq!(c.args(true), ["exec", "--", "fix it"]);
    }

    /// A prompt is data: after `--` it cannot become an option of the agent, and on Windows it
    /// reaches the agent with no shell (or `wt`) between them to read it again.
    #[test]
    fn a_prompt_is_never_an_option_nor_a_shells_to_read() {
        let l = Launch {
            program: "claude".into(),
            agent: "claude".into(),
            prompt: "--dangerously-skip-permissions".into(),
            folder: "/p".into(),
            task: "t1".into(),
            env: Vec::new(),
            remove: Vec::new(),
        };
        assert_eq!(l.args(true), ["-p", "--", "--dangerously-skip-permissions"]);
        let hostile = Launch {
            prompt: r#"x" & calc & "y; new-tab calc"#.into(),
            ..l
        };
        let argv = hostile.terminal_argv(&[], true);
        assert_eq!(argv, ["claude", "--", r#"x" & calc & "y; new-tab calc"#]);
        let prefix = ["xterm".to_string(), "-e".to_string()];
        let argv = hostile.terminal_argv(&prefix, false);
        assert_eq!(
            argv,
            [
                "xterm",
                "-e",
                "env",
                "VULTS_TASK=t1",
                "sh",
                "-c",
                "cd \"$1\" && shift && exec \"$@\"",
                "sh",
                "/p",
                "claude",
                "--",
                r#"x" & calc & "y; new-tab calc"#
            ]
        );
        if cfg!(windows) {
            assert_eq!(detect_terminal(None), Some(Vec::new()), "no cmd, no wt");
        }
    }

    /// A headless task's log holds everything the agent wrote: it is the user's only.
    #[cfg(unix)]
    #[test]
    fn a_headless_tasks_log_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("vults-task-log-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("p")).unwrap();
        let log = dir.join("tasks").join("t1.log");
        let launch = Launch {
            program: "true".into(),
            agent: "claude".into(),
            prompt: "hi".into(),
            folder: dir.join("p").display().to_string(),
            task: "t1".into(),
            env: Vec::new(),
            remove: Vec::new(),
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let sink: Sink = std::sync::Arc::new(move |n| {
            let _ = tx.send(n);
        });
        headless(&launch, &log, "c1".into(), sink).expect("the task starts");
        assert!(rx.recv_timeout(std::time::Duration::from_secs(20)).is_ok());
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&log), 0o600);
        // A log left readable by an older version is tightened when the task runs again.
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
        open_log(&log).unwrap();
        assert_eq!(mode(&log), 0o600);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_terminal_setting_wins_and_is_split_into_words() {
        assert_eq!(
            detect_terminal(Some(" kitty  -e ")),
            Some(vec!["kitty".to_string(), "-e".to_string()])
        );
        assert_eq!(sh_quote("it's"), "'it'\\''s'");
    }
}
