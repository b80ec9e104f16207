//! One SSH host and the list of them ([`Host`], [`HostList`]), how `ssh` is run and quoted for
//! it, and which `vults-hook` suits its platform ([`hook_for`]).

use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use vults_core::atomic;
use vults_core::decision::is_host_name;
use vults_core::paths::Paths;

/// Vults' folder on a host, under its user's home: its `VULTS_HOME` there. The hook is
/// `data/bin/vults-hook`, the forwarded socket `run/vults.sock` (a 0700 folder), the install
/// record `config/install.json`.
pub const HOST_VULTS_HOME: &str = ".local/share/vults/host";

/// One SSH host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Host {
    /// What cards and rules call it (`devbox` in `devbox:/home/me/app`).
    pub name: String,
    /// What `ssh` is given: `[user@]host`.
    pub target: String,
    /// The SSH port; `None`: ssh's default (or the ssh config's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// Extra `ssh` arguments, before the target (`-i KEY`, `-o UserKnownHostsFile=…`, `-F …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ssh_options: Vec<String>,
    /// `uname -sm` of the host when it was added (`Linux x86_64`).
    #[serde(default)]
    pub system: String,
    /// The host user's home.
    #[serde(default)]
    pub home: String,
    /// SHA-256 of the hook placed on the host.
    #[serde(default)]
    pub hook_sha256: String,
}

impl Host {
    /// A host from `[user@]host[:port]`; its name is the host part.
    pub fn parse(spec: &str) -> Result<Host, Error> {
        let (target, port) = match spec.rsplit_once(':') {
            Some((t, p)) => (
                t,
                Some(
                    p.parse::<u16>()
                        .ok()
                        .filter(|p| *p > 0)
                        .ok_or_else(|| Error::BadPort(p.to_string()))?,
                ),
            ),
            None => (spec, None),
        };
        let name = target.rsplit_once('@').map_or(target, |(_, h)| h);
        if !is_host_name(name) {
            return Err(Error::BadHostName(name.to_string()));
        }
        if target.starts_with('-') || target.chars().any(char::is_whitespace) {
            return Err(Error::BadTarget(target.to_string()));
        }
        Ok(Host {
            name: name.to_string(),
            target: target.to_string(),
            port,
            ssh_options: Vec::new(),
            system: String::new(),
            home: String::new(),
            hook_sha256: String::new(),
        })
    }

    /// `ssh -o BatchMode=yes [-p PORT] [options…]` (the target and command follow). Batch mode:
    /// Vults never types a password or accepts a host key for you (`ssh_hint` says what to do).
    pub fn ssh(&self) -> Command {
        let mut c = Command::new(ssh_program());
        c.args(["-o", "BatchMode=yes", "-o", "ConnectTimeout=15"]);
        if let Some(p) = self.port {
            c.arg("-p").arg(p.to_string());
        }
        c.args(&self.ssh_options);
        c
    }

    /// Runs `script` with `sh` on the host (stdin: `input`); stdout on success.
    pub fn run(&self, script: &str, input: Option<&[u8]>) -> Result<Vec<u8>, Error> {
        let mut c = self.ssh();
        c.arg("--")
            .arg(&self.target)
            .arg(format!("sh -c {}", shell_quote(script)))
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().map_err(|source| Error::NoSsh {
            program: ssh_program(),
            source,
        })?;
        let feeder = match (input, child.stdin.take()) {
            (Some(bytes), Some(mut stdin)) => {
                let bytes = bytes.to_vec();
                Some(std::thread::spawn(move || {
                    use std::io::Write;
                    let _ = stdin.write_all(&bytes);
                }))
            }
            _ => None,
        };
        let out = child.wait_with_output().map_err(|source| Error::SshLost {
            target: self.target.clone(),
            source,
        })?;
        if let Some(f) = feeder {
            let _ = f.join();
        }
        if out.status.success() {
            Ok(out.stdout)
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            Err(Error::SshFailed {
                target: self.target.clone(),
                status: out.status,
                said: err.trim().to_string(),
                hint: ssh_hint(&err, &self.login_command()),
            })
        }
    }

    /// The `ssh` a person runs to log in to the host as Vults does (its port and options), to
    /// check and accept its key by hand: `ssh -p 2222 -i KEY me@devbox`.
    pub fn login_command(&self) -> String {
        let mut words = vec!["ssh".to_string()];
        if let Some(p) = self.port {
            words.push("-p".into());
            words.push(p.to_string());
        }
        let plain = |w: &str| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@,+%~".contains(c))
        };
        for o in &self.ssh_options {
            words.push(if plain(o) { o.clone() } else { shell_quote(o) });
        }
        words.push(self.target.clone());
        words.join(" ")
    }

    /// Vults' folder on the host (its `VULTS_HOME` there).
    pub fn vults_home(&self) -> String {
        format!("{}/{HOST_VULTS_HOME}", self.home.trim_end_matches('/'))
    }
    /// The hook on the host.
    pub fn hook_path(&self) -> String {
        format!("{}/data/bin/vults-hook", self.vults_home())
    }
    /// The socket the link makes on the host, in a 0700 folder.
    pub fn socket_path(&self) -> String {
        format!("{}/run/vults.sock", self.vults_home())
    }
    /// What the host's agents run: the hook, told where Vults' folder is, so it finds the
    /// forwarded socket whatever `XDG_RUNTIME_DIR` the agent's shell has.
    pub fn hook_word(&self) -> String {
        format!(
            "VULTS_HOME={} {}",
            shell_quote(&self.vults_home()),
            shell_quote(&self.hook_path())
        )
    }
}

/// The `ssh` client: `VULTS_SSH` when set, else `ssh` from `PATH`.
pub fn ssh_program() -> String {
    std::env::var("VULTS_SSH")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "ssh".into())
}

/// A POSIX shell word: `'…'` with each `'` as `'\''`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The ssh options typed in Settings → Hosts, split as a shell would: words on whitespace,
/// `'…'` and `"…"` keep spaces (and lose their quotes), `\` takes the next character as it is
/// (outside single quotes). `-i "/my keys/id"` is two words, not three with quotes in them.
pub fn split_options(text: &str) -> Result<Vec<String>, Error> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    let unclosed = || Error::Unclosed {
        quote: '"',
        text: text.to_string(),
    };
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => {
                            return Err(Error::Unclosed {
                                quote: '\'',
                                text: text.to_string(),
                            });
                        }
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => w.push(c),
                            None => return Err(unclosed()),
                        },
                        Some(c) => w.push(c),
                        None => return Err(unclosed()),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.next());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// The hosts (`hosts.json` in the data folder).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostList {
    /// Every host, in the order they were added.
    pub hosts: Vec<Host>,
}

impl HostList {
    /// Where the list is kept (`hosts.json` in the data folder).
    pub fn file(paths: &Paths) -> PathBuf {
        paths.hosts_file()
    }

    /// The hosts; none when the file is missing. A file that does not parse is an error (and
    /// is never written over).
    pub fn load(paths: &Paths) -> Result<HostList, Error> {
        let file = HostList::file(paths);
        match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| Error::HostsUnparsable {
                path: file.clone(),
                source,
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(HostList::default()),
            Err(source) => Err(Error::Read { path: file, source }),
        }
    }

    /// Writes the list atomically (0600, in the private data folder).
    pub fn save(&self, paths: &Paths) -> io::Result<()> {
        vults_core::paths::private_dir(&paths.data_dir)?;
        let mut bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        bytes.push(b'\n');
        atomic::write(&HostList::file(paths), &bytes, Some(0o600))
    }

    /// The host of this name.
    pub fn get(&self, name: &str) -> Option<&Host> {
        self.hosts.iter().find(|h| h.name == name)
    }

    /// Adds `host`, or replaces the one of the same name.
    pub fn put(&mut self, host: Host) {
        match self.hosts.iter_mut().find(|h| h.name == host.name) {
            Some(h) => *h = host,
            None => self.hosts.push(host),
        }
    }

    /// Takes the host of this name out of the list (the file is written by [`HostList::save`]).
    pub fn remove(&mut self, name: &str) -> Option<Host> {
        let i = self.hosts.iter().position(|h| h.name == name)?;
        Some(self.hosts.remove(i))
    }
}

/// The local folder where Vults keeps its per-host work (the staged copy of a host's files).
pub fn work_dir(paths: &Paths) -> PathBuf {
    paths.data_dir.join("hosts")
}

/// `uname -s` / `-m` words as Vults' folder names: `linux-x86_64`, `macos-aarch64`. What the
/// host says is a name here, never a path: only letters, digits and `_` (`../x` is no system).
pub fn platform_of(system: &str) -> Option<String> {
    let mut words = system.split_whitespace();
    let plain = |w: &str| {
        (!w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
            .then(|| w.to_ascii_lowercase())
    };
    let os = match words.next()? {
        "Linux" => "linux".to_string(),
        "Darwin" => "macos".to_string(),
        "FreeBSD" => "freebsd".to_string(),
        other => plain(other)?,
    };
    let arch = match words.next()? {
        "x86_64" | "amd64" => "x86_64".to_string(),
        "aarch64" | "arm64" => "aarch64".to_string(),
        other => plain(other)?,
    };
    Some(format!("{os}-{arch}"))
}

/// Whether the home a host reports can be used: an absolute path, no `:` (it goes into
/// `ssh -R <host socket>:<local socket>`, where a `:` would make the host name the local end
/// of its own link), no control characters, and short enough for the socket under it.
pub fn check_home(home: &str) -> Result<(), Error> {
    let ok = home.starts_with('/')
        && !home.contains(':')
        && !home.chars().any(char::is_control)
        && home.len() <= 60;
    if ok {
        Ok(())
    } else {
        Err(Error::BadHome(home.to_string()))
    }
}

/// This machine's platform, in [`platform_of`]'s words.
pub fn local_platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

/// Where prebuilt hooks for other platforms are looked for: `VULTS_HOST_HOOKS`, then
/// `hooks/` beside this program; each as `<folder>/<platform>/vults-hook`.
pub fn prebuilt_hook_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("VULTS_HOST_HOOKS").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d));
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(exe_dir.join("hooks"));
    }
    dirs
}

/// The `vults-hook` to place on a host of `system` (`uname -sm`): the local one when the host
/// is this machine's OS and architecture, else a prebuilt one from [`prebuilt_hook_dirs`].
/// The error says what is missing and where it was looked for.
pub fn hook_for(system: &str, local_hook: Option<&Path>) -> Result<PathBuf, Error> {
    let platform = platform_of(system).ok_or_else(|| Error::UnknownSystem(system.to_string()))?;
    if platform == local_platform()
        && let Some(hook) = local_hook.filter(|h| h.is_file())
    {
        return Ok(hook.to_path_buf());
    }
    let dirs = prebuilt_hook_dirs();
    for d in &dirs {
        let candidate = d.join(&platform).join("vults-hook");
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    let looked: Vec<String> = dirs
        .iter()
        .map(|d| d.join(&platform).join("vults-hook").display().to_string())
        .collect();
    Err(Error::NoHook {
        system: system.to_string(),
        platform,
        local: local_platform(),
        looked,
    })
}

/// What to do about the failures batch mode turns into errors: ssh cannot ask for a password,
/// a passphrase or a new host key on Vults' behalf.
fn ssh_hint(stderr: &str, login: &str) -> String {
    if stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") {
        // Not a key to accept: the one known for this host is another.
        " (the host's key is not the one your known_hosts has for it: find out why before you \
         trust it; once you know the new key is right, remove the old one as ssh says above and \
         add the host again)"
            .to_string()
    } else if stderr.contains("Host key verification failed") {
        format!(
            " (connect once with `{login}` to check and accept the host's key, then add it again)"
        )
    } else if stderr.contains("Permission denied") {
        " (Vults logs in without asking: use a key, loaded in your ssh-agent if it has a passphrase)"
            .to_string()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_spec_gives_name_target_and_port() {
        let h = Host::parse("me@devbox:2222").unwrap();
        assert_eq!(
            (h.name.as_str(), h.target.as_str(), h.port),
            ("devbox", "me@devbox", Some(2222))
        );
        let h = Host::parse("build.lan").unwrap();
        assert_eq!((h.name.as_str(), h.port), ("build.lan", None));
        assert!(Host::parse("-oProxyCommand=x").is_err());
        assert!(Host::parse("me@x").is_err(), "one letter reads as a drive");
        assert!(Host::parse("devbox:0").is_err());
        assert!(Host::parse("devbox:ssh").is_err());
        assert!(Host::parse("dev box").is_err());
    }

    #[test]
    fn the_hook_word_names_vults_home_and_the_hook_quoted() {
        let mut h = Host::parse("devbox").unwrap();
        h.home = "/home/o'neil/".into();
        assert_eq!(h.vults_home(), "/home/o'neil/.local/share/vults/host");
        assert_eq!(
            h.hook_word(),
            r"VULTS_HOME='/home/o'\''neil/.local/share/vults/host' '/home/o'\''neil/.local/share/vults/host/data/bin/vults-hook'"
        );
        assert_eq!(
            h.socket_path(),
            "/home/o'neil/.local/share/vults/host/run/vults.sock"
        );
    }

    #[test]
    fn platforms_and_a_clear_word_when_no_hook_fits() {
        assert_eq!(platform_of("Linux x86_64").as_deref(), Some("linux-x86_64"));
        assert_eq!(
            platform_of("Darwin arm64").as_deref(),
            Some("macos-aarch64")
        );
        assert_eq!(platform_of("").as_deref(), None);
        // The host's words never become a path.
        assert_eq!(platform_of("../../../tmp/evil x86_64"), None);
        assert_eq!(platform_of("Linux ../x"), None);
        assert!(check_home("/home/me").is_ok());
        for bad in [
            "home/me",
            "/x:/tmp/victim.sock:",
            "/a\nb",
            &format!("/{}", "h".repeat(70)),
        ] {
            assert!(check_home(bad).is_err(), "{bad:?}");
        }
        let err = hook_for("SunOS sparc64", None).unwrap_err().to_string();
        assert!(err.contains("no vults-hook for SunOS sparc64"), "{err}");
        assert!(err.contains("sunos-sparc64/vults-hook"), "{err}");
    }

    #[test]
    fn the_host_list_is_kept_and_an_unparsable_one_is_not_overwritten() {
        let dir = std::env::temp_dir().join(format!("vults-hosts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let d = dir.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| d.clone()));
        assert_eq!(HostList::load(&paths).unwrap(), HostList::default());
        let mut list = HostList::default();
        list.put(Host::parse("me@devbox").unwrap());
        list.save(&paths).unwrap();
        assert_eq!(HostList::load(&paths).unwrap(), list);
        std::fs::write(HostList::file(&paths), b"{not json").unwrap();
        let err = HostList::load(&paths).unwrap_err().to_string();
        assert!(err.contains("does not parse"), "{err}");
        assert_eq!(std::fs::read(HostList::file(&paths)).unwrap(), b"{not json");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn typed_ssh_options_split_as_a_shell_would() {
        assert_eq!(
            split_options(r#" -i "/my keys/id"  -o 'ProxyJump=me@jump' -o Port\ 22 "#).unwrap(),
            [
                "-i",
                "/my keys/id",
                "-o",
                "ProxyJump=me@jump",
                "-o",
                "Port 22"
            ]
        );
        assert_eq!(split_options("").unwrap(), Vec::<String>::new());
        assert_eq!(split_options(r#"-o "a\"b""#).unwrap(), ["-o", "a\"b"]);
        assert!(split_options(r#"-i "/my keys"#).is_err());
        assert!(split_options("-i '/k").is_err());
    }

    #[test]
    fn batch_mode_failures_say_what_to_do() {
        let mut host = Host::parse("me@devbox:2222").unwrap();
        host.ssh_options = ["-i", "/my keys/id", "-o", "UserKnownHostsFile=/k/known"]
            .map(String::from)
            .to_vec();
        let login = host.login_command();
        // The port and the options the host was added with: the same host, the same key files.
        assert_eq!(
            login,
            "ssh -p 2222 -i '/my keys/id' -o UserKnownHostsFile=/k/known me@devbox"
        );
        let unknown = ssh_hint("Host key verification failed.", &login);
        assert!(unknown.contains(&format!("`{login}`")), "{unknown}");
        // A changed key is not one to accept.
        let changed = ssh_hint(
            "@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @\nHost key verification failed.",
            &login,
        );
        assert!(!changed.contains("accept"), "{changed}");
        assert!(changed.contains("find out why"), "{changed}");
        assert!(
            ssh_hint("me@devbox: Permission denied (publickey).", &login).contains("ssh-agent")
        );
        assert_eq!(ssh_hint("Connection refused", &login), "");
    }
}
