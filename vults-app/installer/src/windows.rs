//! The hook command each agent runs on Windows, in the form that agent's own runner needs.
//!
//! Read from each agent's code (see docs/platforms.md for the sources):
//! - **Claude Code** runs a `command` through Git Bash when it finds one, else PowerShell; with
//!   `args` it runs `command` directly, no shell. Vults writes that exec form: no quoting at all.
//! - **Codex** runs `%COMSPEC% /C <command>` (Rust's `Command`, which wraps the string in `"…"`
//!   and escapes inner quotes as `\"`, which cmd does not understand), so the command holds no
//!   quote: the hook's folder is given by its short (8.3) name when it holds a space or a cmd
//!   special character.
//! - **Qwen Code** runs `%ComSpec% /d /s /c <command>` (cmd; `bash -c` only when started from
//!   Git Bash): the same quote-free command as Codex.
//! - **Copilot CLI** runs the entry's `powershell` string with PowerShell: `& '<path>' <args>`
//!   (a quoted path alone would be a string, not a command).
//!
//! The functions are plain string work, so they are unit-tested on every platform; only
//! [`short_dir`] asks Windows.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

use vults_core::agents::WindowsRunner;

/// Vults' handler for an agent that runs hooks with `runner` on Windows, or `None` where the
/// agent's default form is used.
pub fn handler(runner: WindowsRunner, hook: &Path, args: &[String], timeout: u64) -> Option<Value> {
    match runner {
        WindowsRunner::Exec => Some(json!({
            "type": "command",
            "command": hook.to_string_lossy(),
            "args": args,
            "timeout": timeout,
        })),
        WindowsRunner::Cmd => Some(json!({
            "type": "command",
            "command": cmd_command(hook, args),
            "timeout": timeout,
        })),
        WindowsRunner::PowerShell => Some(json!({
            "type": "command",
            "powershell": powershell_command(hook, args),
            "timeoutSec": timeout,
        })),
        WindowsRunner::Posix => None,
    }
}

/// Characters that make cmd split or reinterpret an unquoted word.
fn cmd_plain(s: &str) -> bool {
    !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_whitespace() || "\"&|<>^()%!,;=@`'".contains(c))
}

/// `<hook> <args>` for `cmd /C`, with no quote anywhere.
pub fn cmd_command(hook: &Path, args: &[String]) -> String {
    let full = hook.to_string_lossy().into_owned();
    let word = if cmd_plain(&full) {
        full
    } else {
        // Keep the file name (it says `vults-hook`, which is how entries are recognised); give
        // the folder by its short name.
        let dir = hook.parent().map(short_dir).unwrap_or_default();
        let name = hook
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        dir.join(name).to_string_lossy().into_owned()
    };
    std::iter::once(word)
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `& '<hook>' <args>` for PowerShell (a `'` inside is doubled).
pub fn powershell_command(hook: &Path, args: &[String]) -> String {
    let path = hook.to_string_lossy().replace('\'', "''");
    std::iter::once(format!("& '{path}'"))
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The folder's short (8.3) form, which has no spaces; the long one when Windows has none for
/// it (8.3 names turned off on that volume), or the folder does not exist yet (its nearest
/// existing ancestor is shortened then).
#[cfg(windows)]
pub fn short_dir(dir: &Path) -> PathBuf {
    use std::os::windows::ffi::{OsStrExt, OsStringExt};
    use windows_sys::Win32::Storage::FileSystem::GetShortPathNameW;
    let mut existing = dir.to_path_buf();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return dir.to_path_buf(),
        }
    }
    let wide: Vec<u16> = existing.as_os_str().encode_wide().chain([0]).collect();
    let mut buf = vec![0u16; 1024];
    // SAFETY: a NUL-terminated input and an output buffer of the length given.
    let n = unsafe { GetShortPathNameW(wide.as_ptr(), buf.as_mut_ptr(), buf.len() as u32) };
    if n == 0 || n as usize >= buf.len() {
        return dir.to_path_buf();
    }
    let mut short = PathBuf::from(std::ffi::OsString::from_wide(&buf[..n as usize]));
    for name in rest.into_iter().rev() {
        short.push(name);
    }
    short
}

/// The folder as it is (short names are Windows' only).
#[cfg(not(windows))]
pub fn short_dir(dir: &Path) -> PathBuf {
    dir.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> Vec<String> {
        ["--agent", "codex", "PermissionRequest"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn a_plain_path_goes_to_cmd_as_it_is() {
        let hook = Path::new(r"C:\Users\me\AppData\Local\Vults\bin\vults-hook.exe");
        assert_eq!(
            cmd_command(hook, &args()),
            r"C:\Users\me\AppData\Local\Vults\bin\vults-hook.exe --agent codex PermissionRequest"
        );
    }

    #[test]
    fn cmd_never_gets_a_quote() {
        for odd in [
            r"C:\Users\Zoë Ü\AppData",
            r"C:\Users\a&b",
            r"C:\Users\o'neil",
        ] {
            let hook = Path::new(odd).join("vults-hook.exe");
            let line = cmd_command(&hook, &args());
            assert!(!line.contains('"'), "{line}");
            assert!(line.contains("vults-hook.exe --agent codex"), "{line}");
        }
    }

    #[test]
    fn powershell_calls_the_quoted_path() {
        let hook = Path::new(r"C:\Users\Zoë O'Neil\AppData\Local\Vults\bin\vults-hook.exe");
        assert_eq!(
            powershell_command(hook, &args()),
            r"& 'C:\Users\Zoë O''Neil\AppData\Local\Vults\bin\vults-hook.exe' --agent codex PermissionRequest"
        );
    }

    #[test]
    fn claude_gets_the_exec_form() {
        let hook = Path::new(r"C:\Users\Zoë Ü\vults-hook.exe");
        let h = handler(WindowsRunner::Exec, hook, &args(), 600).unwrap();
        assert_eq!(h["command"], r"C:\Users\Zoë Ü\vults-hook.exe");
        assert_eq!(h["args"], json!(["--agent", "codex", "PermissionRequest"]));
        assert!(handler(WindowsRunner::Posix, hook, &args(), 10).is_none());
    }
}
