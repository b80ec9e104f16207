//! Where Vults keeps everything. Every other module asks here; nothing builds a path by itself.
//!
//! | what | default (Linux) | with `VULTS_HOME=H` |
//! |---|---|---|
//! | config (rules, policies, settings, devices) | `$XDG_CONFIG_HOME/vults` | `H/config` |
//! | data (audit log, installed hook copy) | `$XDG_DATA_HOME/vults` | `H/data` |
//! | log (`vults.log`, rotated) | `$XDG_STATE_HOME/vults` (`~/.local/state/vults`) | `H/log` |
//! | runtime (the socket's 0700 folder) | `$XDG_RUNTIME_DIR/vults`, else `/tmp/vults-<uid>` | `H/run` |
//! | socket | `<runtime>/vults.sock` (Windows: `\\.\pipe\vults-<user>`) | `H/run/vults.sock` |
//! | agents' own config homes (`~/.claude`, …) | `$HOME` | `H/home` |
//!
//! Everything Vults writes in its own folders is private to the user, whatever the umask: the
//! folders are `0700` and the files `0600` (Unix) when made, and [`Paths::make_private`]
//! tightens looser ones it finds (with a notice). The agents' own settings files keep their mode.
//!
//! The platform's folders come from the operating system through the `directories` crate
//! ([`Paths::from_env`]): Known Folders on Windows, the Standard Directories on macOS, the XDG
//! rules on Linux (`HOME` and `XDG_*` set for a process are followed). [`Paths::resolve`] applies
//! the same rules to an environment handed in (tests).
//!
//! `VULTS_SOCKET` overrides the socket alone; `VULTS_AGENT_HOME` overrides where the agents'
//! configs are looked for. macOS uses `~/Library/Application Support/Vults` for config and data
//! and `$TMPDIR/vults-<uid>` for the socket (Unix socket paths must stay under 104 bytes);
//! Windows uses `%APPDATA%\Vults` and `%LOCALAPPDATA%\Vults`. The log goes to
//! `~/Library/Logs/Vults` on macOS and `%LOCALAPPDATA%\Vults\logs` on Windows.

use std::io;
use std::path::{Path, PathBuf};

/// The mode of a folder Vults makes (Unix).
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// The mode of a file Vults makes in its own folders (Unix).
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Every location Vults uses, resolved once from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// Rules, policies, settings and paired devices.
    pub config_dir: PathBuf,
    /// The audit log, the install record and the hook copy.
    pub data_dir: PathBuf,
    /// Where the hook socket lives (when not moved by `VULTS_SOCKET`).
    pub runtime_dir: PathBuf,
    /// Where the app's log file lives (the platform's state/log folder).
    pub log_dir: PathBuf,
    /// The hook socket (a named pipe on Windows).
    pub socket: PathBuf,
    /// The folder that holds the agents' config homes (`.claude`, `.codex`, `.config/opencode` …).
    pub agent_home: PathBuf,
}

impl Paths {
    /// Resolves from the process environment, with the platform's folders from the operating
    /// system ([`directories`]: Known Folders on Windows, the Standard Directories on macOS, the
    /// XDG rules on Linux — which read `HOME` and `XDG_*` themselves, so a process started with
    /// them set follows them). `VULTS_HOME`, `VULTS_AGENT_HOME` and `VULTS_SOCKET` still move
    /// everything as in [`Paths::resolve`].
    pub fn from_env() -> Paths {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Paths::build(&env, || {
            Base::from_os().unwrap_or_else(|| Base::from_vars(&env))
        })
    }

    /// Resolves from any environment lookup (tests pass a map): the platform's folders follow
    /// the same rules as [`Paths::from_env`], applied to the variables given (`HOME`, `XDG_*`;
    /// `USERPROFILE`, `APPDATA`, `LOCALAPPDATA` on Windows; `TMPDIR` on macOS).
    pub fn resolve(env: impl Fn(&str) -> Option<PathBuf>) -> Paths {
        Paths::build(&env, || Base::from_vars(&env))
    }

    /// `base` is asked only when `VULTS_HOME` does not move everything.
    fn build(env: &impl Fn(&str) -> Option<PathBuf>, base: impl FnOnce() -> Base) -> Paths {
        let (config_dir, data_dir, runtime_dir, agent_home, log_dir) = match env("VULTS_HOME") {
            Some(home) => (
                home.join("config"),
                home.join("data"),
                home.join("run"),
                home.join("home"),
                home.join("log"),
            ),
            None => base().vults_folders(),
        };
        let agent_home = env("VULTS_AGENT_HOME").unwrap_or(agent_home);
        let socket = env("VULTS_SOCKET").unwrap_or_else(|| default_socket(&runtime_dir));
        // Windows has no socket files: every socket path becomes a named pipe of its own.
        #[cfg(windows)]
        let socket = {
            let default = env("VULTS_HOME").is_none() && env("VULTS_SOCKET").is_none();
            pipe_name(env, socket, default)
        };
        Paths {
            config_dir,
            data_dir,
            runtime_dir,
            log_dir,
            socket,
            agent_home,
        }
    }

    /// The app's log file (older ones beside it as `vults.log.1`, `.2`, …).
    pub fn log_file(&self) -> PathBuf {
        self.log_dir.join("vults.log")
    }
    /// The one-instance channel: the running window listens here for a second start's `show`.
    /// Its own socket (named pipe on Windows) beside the hook's, never the hook socket itself.
    pub fn instance_socket(&self) -> PathBuf {
        let stem = self
            .socket
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "vults".into());
        self.socket.with_file_name(format!("{stem}.instance.sock"))
    }

    /// The Always rules (`rules.json`).
    pub fn rules_file(&self) -> PathBuf {
        self.config_dir.join("rules.json")
    }
    /// The policies (`policies.toml`, docs/policies.md).
    pub fn policies_file(&self) -> PathBuf {
        self.config_dir.join("policies.toml")
    }
    /// The app's settings (`settings.json`).
    pub fn settings_file(&self) -> PathBuf {
        self.config_dir.join("settings.json")
    }
    /// The paired phones (`devices.json`, docs/phone.md).
    pub fn devices_file(&self) -> PathBuf {
        self.config_dir.join("devices.json")
    }
    /// The audit log (`audit.jsonl`): one line per answered request.
    pub fn audit_log(&self) -> PathBuf {
        self.data_dir.join("audit.jsonl")
    }
    /// The folder holding the Vults-owned copy of `vults-hook` that agents' configs point at.
    pub fn hook_dir(&self) -> PathBuf {
        self.data_dir.join("bin")
    }
    /// The installed hook binary's absolute path.
    pub fn installed_hook(&self) -> PathBuf {
        self.hook_dir().join(if cfg!(windows) {
            "vults-hook.exe"
        } else {
            "vults-hook"
        })
    }
    /// The SSH hosts whose agents this app answers (`hosts.json`, docs/hosts.md).
    pub fn hosts_file(&self) -> PathBuf {
        self.data_dir.join("hosts.json")
    }
    /// The local socket an SSH host's link forwards to: `<runtime>/hosts/<host>.sock`, one per
    /// host, so the app knows a call's host by where it arrived.
    pub fn host_socket(&self, host: &str) -> PathBuf {
        self.runtime_dir.join("hosts").join(format!("{host}.sock"))
    }
    /// Where the installer saves what it needs to undo its changes (the user's status line …).
    pub fn install_state_file(&self) -> PathBuf {
        self.config_dir.join("install.json")
    }

    /// Makes Vults' own folders (config, data, the installed hook's folder) private, creating
    /// the config and data folders when missing, and tightens every file directly in them that
    /// others could read or write (the audit log, rules, policies, settings, devices, install
    /// state, keys). Symlinks are left alone: they point at files Vults did not make. Returns
    /// one notice per thing tightened, and per thing that could not be.
    pub fn make_private(&self) -> Vec<PrivateNote> {
        let mut notices = Vec::new();
        let mut note = |r: io::Result<Option<PrivateNote>>, what: &Path| match r {
            Ok(Some(n)) => notices.push(n),
            Ok(None) => {}
            Err(e) => notices.push(PrivateNote::Failed {
                path: what.to_path_buf(),
                error: e.to_string(),
            }),
        };
        for dir in [&self.config_dir, &self.data_dir] {
            note(private_dir(dir), dir);
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_file() => note(tighten(&path), &path),
                    Ok(t) if t.is_dir() && path == self.hook_dir() => note(tighten(&path), &path),
                    _ => {}
                }
            }
        }
        notices
    }
}

/// What making a file or folder of Vults' own private did: a typed note the window words in
/// the person's language (vults-core has no words of its own); its `Display` is the English
/// the log prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrivateNote {
    /// Others could read, write or enter it; its mode was changed.
    Tightened {
        /// The file or folder.
        path: PathBuf,
        /// Its mode before (`0o644`).
        was: u32,
        /// Its mode now (`0o600`).
        now: u32,
    },
    /// It could not be made private.
    Failed {
        /// The file or folder.
        path: PathBuf,
        /// The system's words.
        error: String,
    },
}

impl std::fmt::Display for PrivateNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PrivateNote::Tightened { path, was, now } => write!(
                f,
                "{} was readable by others ({was:o}); made it private ({now:o})",
                path.display()
            ),
            PrivateNote::Failed { path, error } => {
                write!(f, "cannot make {} private: {error}", path.display())
            }
        }
    }
}

/// Makes `dir` (and any missing parent) as a private folder (`0700`); an existing `dir` that
/// others can reach is tightened. `Some(notice)` when it was tightened.
pub fn private_dir(dir: &Path) -> io::Result<Option<PrivateNote>> {
    if !dir.exists() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, PRIVATE_DIR_MODE);
        builder.create(dir)?;
        // A parent that existed keeps its mode; the folder itself is exactly 0700 (the umask
        // can only take bits away, and a stricter one would lock the user out).
        #[cfg(unix)]
        set_mode(dir, PRIVATE_DIR_MODE)?;
        return Ok(None);
    }
    tighten(dir)
}

/// Tightens an existing file (to `0600`) or folder (to `0700`) that others can read, write or
/// enter. `Some(notice)` when it was changed; `None` when it was private already or is missing.
/// No-op off Unix (Windows keeps the per-user ACLs of the profile folders).
pub fn tighten(path: &Path) -> io::Result<Option<PrivateNote>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o077 == 0 {
            return Ok(None);
        }
        let want = if meta.is_dir() {
            PRIVATE_DIR_MODE
        } else {
            // An executable of Vults' own stays runnable by its owner.
            (mode & 0o700) | PRIVATE_FILE_MODE
        };
        set_mode(path, want)?;
        Ok(Some(PrivateNote::Tightened {
            path: path.to_path_buf(),
            was: mode,
            now: want,
        }))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(None)
    }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// The platform's own folders, which Vults' folders are built from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Base {
    /// The user's home (the agents' config homes are in it).
    home: PathBuf,
    /// Linux: `$XDG_CONFIG_HOME`; macOS: `~/Library/Application Support`; Windows: the roaming
    /// AppData folder.
    config: PathBuf,
    /// Linux: `$XDG_DATA_HOME`; macOS: `~/Library/Application Support`; Windows: the local
    /// AppData folder.
    data: PathBuf,
    /// Linux: `$XDG_STATE_HOME`; not used elsewhere.
    state: Option<PathBuf>,
    /// Linux: `$XDG_RUNTIME_DIR`; macOS: the temporary folder; not used on Windows.
    runtime: Option<PathBuf>,
}

impl Base {
    /// From the operating system; `None` when it reports no home folder.
    fn from_os() -> Option<Base> {
        let dirs = directories::BaseDirs::new()?;
        Some(Base {
            home: dirs.home_dir().to_path_buf(),
            config: dirs.config_dir().to_path_buf(),
            data: dirs.data_local_dir().to_path_buf(),
            state: dirs.state_dir().map(Path::to_path_buf),
            runtime: if cfg!(target_os = "macos") {
                Some(std::env::temp_dir())
            } else {
                dirs.runtime_dir().map(Path::to_path_buf)
            },
        })
    }

    /// The same rules, applied to the variables `env` gives (tests hand in their own).
    fn from_vars(env: &impl Fn(&str) -> Option<PathBuf>) -> Base {
        let home = env("HOME")
            .or_else(|| env("USERPROFILE"))
            .unwrap_or_else(|| PathBuf::from("."));
        if cfg!(windows) {
            Base {
                config: env("APPDATA").unwrap_or_else(|| home.join("AppData").join("Roaming")),
                data: env("LOCALAPPDATA").unwrap_or_else(|| home.join("AppData").join("Local")),
                state: None,
                runtime: None,
                home,
            }
        } else if cfg!(target_os = "macos") {
            let support = home.join("Library/Application Support");
            Base {
                config: support.clone(),
                data: support,
                state: None,
                runtime: Some(env("TMPDIR").unwrap_or_else(|| PathBuf::from("/tmp"))),
                home,
            }
        } else {
            Base {
                config: env("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")),
                data: env("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local/share")),
                state: Some(env("XDG_STATE_HOME").unwrap_or_else(|| home.join(".local/state"))),
                runtime: env("XDG_RUNTIME_DIR"),
                home,
            }
        }
    }

    /// Vults' config, data, runtime and log folders, and the agents' home.
    #[cfg(all(unix, not(target_os = "macos")))]
    fn vults_folders(self) -> (PathBuf, PathBuf, PathBuf, PathBuf, PathBuf) {
        let runtime = match self.runtime {
            Some(dir) => dir.join("vults"),
            None => std::env::temp_dir().join(format!("vults-{}", current_uid())),
        };
        let state = self.state.unwrap_or_else(|| self.home.join(".local/state"));
        (
            self.config.join("vults"),
            self.data.join("vults"),
            runtime,
            self.home,
            state.join("vults"),
        )
    }

    /// Vults' config, data, runtime and log folders, and the agents' home.
    #[cfg(target_os = "macos")]
    fn vults_folders(self) -> (PathBuf, PathBuf, PathBuf, PathBuf, PathBuf) {
        let runtime = self
            .runtime
            .unwrap_or_else(std::env::temp_dir)
            .join(format!("vults-{}", current_uid()));
        let log = self.home.join("Library/Logs/Vults");
        (
            self.config.join("Vults"),
            self.data.join("Vults"),
            runtime,
            self.home,
            log,
        )
    }

    /// Vults' config, data, runtime and log folders, and the agents' home.
    #[cfg(windows)]
    fn vults_folders(self) -> (PathBuf, PathBuf, PathBuf, PathBuf, PathBuf) {
        let local = self.data.join("Vults");
        (
            self.config.join("Vults"),
            local.clone(),
            local.join("run"),
            self.home,
            local.join("logs"),
        )
    }
}

fn default_socket(runtime_dir: &std::path::Path) -> PathBuf {
    runtime_dir.join("vults.sock")
}

/// The named pipe for a socket path (Windows). A path already under `\\.\pipe\` is kept. The
/// default one is `\\.\pipe\vults-<USERNAME>`; any other path (under `VULTS_HOME`, or a plain
/// `VULTS_SOCKET`) gets `\\.\pipe\vults-<hash of the path>`, so each home has its
/// own pipe, as each has its own socket file on Unix, and a test never meets the user's app.
#[cfg(windows)]
fn pipe_name(env: &impl Fn(&str) -> Option<PathBuf>, socket: PathBuf, default: bool) -> PathBuf {
    let text = socket.to_string_lossy();
    let lower = text.to_lowercase();
    if lower.starts_with(r"\\.\pipe\") || lower.starts_with(r"\\?\pipe\") {
        return socket;
    }
    if default {
        let user: String = env("USERNAME")
            .map(|u| u.to_string_lossy().into_owned())
            .unwrap_or_else(|| "user".into())
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        return PathBuf::from(format!(r"\\.\pipe\vults-{user}"));
    }
    // FNV-1a over the lowercased path: Windows paths ignore case; stable across processes.
    let hash = lower.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    PathBuf::from(format!(r"\\.\pipe\vults-{hash:016x}"))
}

/// The effective user id of this process (Unix).
#[cfg(unix)]
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<PathBuf> {
        let map: HashMap<String, PathBuf> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn vults_home_moves_everything() {
        let p = Paths::resolve(env(&[("VULTS_HOME", "/t/v"), ("HOME", "/home/me")]));
        assert_eq!(p.config_dir, PathBuf::from("/t/v/config"));
        assert_eq!(p.data_dir, PathBuf::from("/t/v/data"));
        assert_eq!(p.agent_home, PathBuf::from("/t/v/home"));
        #[cfg(unix)]
        assert_eq!(p.socket, PathBuf::from("/t/v/run/vults.sock"));
        assert!(p.audit_log().starts_with("/t/v"));
        assert!(p.installed_hook().starts_with("/t/v/data/bin"));
        assert_eq!(p.log_file(), PathBuf::from("/t/v/log/vults.log"));
        #[cfg(unix)]
        assert_eq!(
            p.instance_socket(),
            PathBuf::from("/t/v/run/vults.instance.sock")
        );
    }

    #[test]
    fn vults_socket_and_agent_home_override_alone() {
        let p = Paths::resolve(env(&[
            ("VULTS_HOME", "/t/v"),
            ("VULTS_SOCKET", "/t/s.sock"),
            ("VULTS_AGENT_HOME", "/t/fakehome"),
        ]));
        #[cfg(unix)]
        assert_eq!(p.socket, PathBuf::from("/t/s.sock"));
        assert_eq!(p.agent_home, PathBuf::from("/t/fakehome"));
        assert_eq!(p.config_dir, PathBuf::from("/t/v/config"));
    }

    #[cfg(windows)]
    #[test]
    fn each_home_and_socket_path_gets_its_own_named_pipe() {
        let default = Paths::resolve(env(&[("USERNAME", "Zoë Q"), ("APPDATA", r"C:\a")]));
        assert_eq!(default.socket, PathBuf::from(r"\\.\pipe\vults-ZoQ"));
        let a = Paths::resolve(env(&[("USERNAME", "me"), ("VULTS_HOME", r"C:\t\a")]));
        let b = Paths::resolve(env(&[("USERNAME", "me"), ("VULTS_HOME", r"C:\t\b")]));
        let a_again = Paths::resolve(env(&[("USERNAME", "me"), ("VULTS_HOME", r"c:\T\A")]));
        let pipe = |p: &Paths| p.socket.to_string_lossy().into_owned();
        assert!(pipe(&a).starts_with(r"\\.\pipe\vults-"), "{}", pipe(&a));
        assert_ne!(a.socket, b.socket, "two homes, two pipes");
        assert_eq!(
            a.socket, a_again.socket,
            "the same folder, whatever its case"
        );
        assert_ne!(
            pipe(&a),
            r"\\.\pipe\vults-me",
            "a home never meets the user's app"
        );
        let plain = Paths::resolve(env(&[("USERNAME", "me"), ("VULTS_SOCKET", r"C:\s.sock")]));
        assert!(pipe(&plain).starts_with(r"\\.\pipe\vults-"));
        assert_ne!(plain.socket, a.socket);
        let named = Paths::resolve(env(&[("VULTS_SOCKET", r"\\.\pipe\mine")]));
        assert_eq!(named.socket, PathBuf::from(r"\\.\pipe\mine"));
        // The one-instance channel is a pipe of its own beside the hook's, never the same one.
        assert_eq!(
            default.instance_socket(),
            PathBuf::from(r"\\.\pipe\vults-ZoQ.instance.sock")
        );
        assert_eq!(
            named.instance_socket(),
            PathBuf::from(r"\\.\pipe\mine.instance.sock")
        );
        assert_ne!(a.instance_socket(), b.instance_socket());
    }

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn xdg_defaults() {
        let p = Paths::resolve(env(&[
            ("HOME", "/home/me"),
            ("XDG_RUNTIME_DIR", "/run/user/7"),
        ]));
        assert_eq!(p.config_dir, PathBuf::from("/home/me/.config/vults"));
        assert_eq!(p.data_dir, PathBuf::from("/home/me/.local/share/vults"));
        assert_eq!(p.socket, PathBuf::from("/run/user/7/vults/vults.sock"));
        assert_eq!(p.agent_home, PathBuf::from("/home/me"));
        assert_eq!(p.log_dir, PathBuf::from("/home/me/.local/state/vults"));
        let p = Paths::resolve(env(&[("HOME", "/home/me"), ("XDG_STATE_HOME", "/st")]));
        assert_eq!(p.log_file(), PathBuf::from("/st/vults/vults.log"));
    }

    /// What the operating system reports (the `directories` crate) and the same rules over this
    /// process's variables agree, so `from_env` and `resolve` put Vults in the same place.
    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn the_os_folders_follow_the_variables_of_this_process() {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        if env("HOME").is_none() {
            return;
        }
        let os = Base::from_os().expect("a home");
        let vars = Base::from_vars(&env);
        assert_eq!(os, vars);
        assert_eq!(os.vults_folders(), vars.vults_folders());
    }
}
