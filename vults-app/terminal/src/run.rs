//! Running a terminal's or multiplexer's own command: no shell, stdin closed, a few seconds at
//! most, and one line saying why when it fails.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use vults_i18n::Message;

/// A program to run, without a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cmd {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Variables set for it on top of Vults' own.
    pub env: Vec<(String, String)>,
}

impl Cmd {
    pub fn new(program: impl Into<PathBuf>, args: &[&str]) -> Cmd {
        Cmd {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
        }
    }
}

/// How long one command may take (kitty's `@` starts a Python interpreter: about a second).
const TIMEOUT: Duration = Duration::from_secs(8);

/// Runs `cmd`; its stdout when it exits 0, else one line: its stderr's first line, or how it
/// ended.
pub(crate) fn output(cmd: &Cmd) -> Result<String, Message> {
    let mut command = Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .envs(cmd.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        // No console window flashing up for a console program (code.cmd).
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        command.creation_flags(CREATE_NO_WINDOW);
    }
    let name = crate::procs::file_name(&cmd.program)
        .unwrap_or("?")
        .to_string();
    let mut child = command.spawn().map_err(|e| {
        Message::new("terminal-run-cannot")
            .arg("program", &name)
            .arg("error", e.to_string())
    })?;
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let out_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut s);
        }
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut s);
        }
        s
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Message::new("terminal-run-timeout")
                    .arg("program", &name)
                    .arg("seconds", TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(crate::outcome::tool_said(&name, e.to_string())),
        }
    };
    let stdout = String::from_utf8_lossy(&out_t.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_t.join().unwrap_or_default()).into_owned();
    if status.success() {
        Ok(stdout)
    } else {
        let said = crate::outcome::one_line(&stderr);
        let said = if said.is_empty() {
            crate::outcome::one_line(&stdout)
        } else {
            said
        };
        Err(if said.is_empty() {
            Message::new("terminal-run-failed")
                .arg("program", &name)
                .arg("status", status.to_string())
        } else {
            crate::outcome::said(said)
        })
    }
}

/// `name` on `PATH` (with `PATHEXT`'s extensions on Windows when it has none).
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    let exts: Vec<String> = if cfg!(windows) && Path::new(name).extension().is_none() {
        std::env::var("PATHEXT")
            .unwrap_or_else(|_| ".EXE;.CMD;.BAT".into())
            .split(';')
            .map(str::to_string)
            .collect()
    } else {
        vec![String::new()]
    };
    std::env::split_paths(&paths).find_map(|dir| {
        exts.iter()
            .map(|e| dir.join(format!("{name}{e}")))
            .find(|p| is_executable(p))
    })
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_command_gives_its_output_or_one_line_why_not() {
        let ok = output(&Cmd::new("/bin/sh", &["-c", "echo hi"]));
        assert_eq!(ok.as_deref(), Ok("hi\n"));
        let err = output(&Cmd::new(
            "/bin/sh",
            &["-c", "echo 'no server' >&2; echo more >&2; exit 1"],
        ));
        assert_eq!(err.map_err(|e| e.to_string()), Err("no server".to_string()));
        let silent = output(&Cmd::new("/bin/sh", &["-c", "exit 3"])).expect_err("fails");
        assert!(silent.to_string().starts_with("sh failed"), "{silent}");
        let missing = output(&Cmd::new("/nonexistent/tmux", &[])).expect_err("fails");
        assert!(
            missing.to_string().starts_with("cannot run tmux"),
            "{missing}"
        );
        let mut with_env = Cmd::new("/bin/sh", &["-c", "printf %s \"$X\""]);
        with_env.env.push(("X".into(), "y z".into()));
        assert_eq!(output(&with_env).as_deref(), Ok("y z"));
        assert!(find_program("sh").is_some());
        assert!(find_program("surely-not-a-program-vults").is_none());
    }
}
