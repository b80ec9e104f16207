//! The process table: which process runs under which, what it is, and its environment.
//!
//! [`Process`] is what the walk needs of one process; [`ancestors`] walks up from a pid to the
//! first process; [`Table`] is the table it walks, read from the system ([`SystemTable`]:
//! Linux `/proc`, macOS `libproc` + `sysctl`, Windows a Toolhelp32 snapshot) or made by a test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A process's environment, as far as it can be read.
pub(crate) type Env = BTreeMap<String, String>;

/// One process, as the walk sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Process {
    pub pid: u32,
    /// Its parent's pid; 0 when it has none.
    pub ppid: u32,
    /// The short name the system gives it (Linux `comm`, macOS `p_comm`, Windows the image's
    /// file name, `cmd.exe`).
    pub name: String,
    /// The executable's full path, when it can be read.
    pub exe: Option<PathBuf>,
    /// Its command line, when it can be read (never on Windows).
    pub args: Vec<String>,
    /// Its controlling terminal (`/dev/pts/3`, `/dev/ttys003`), when it has one.
    pub tty: Option<String>,
    /// When it started, in milliseconds since the Unix epoch, when known.
    pub started_ms: Option<u64>,
}

impl Process {
    /// The program's name to match on: the executable's file name when known (Linux's `comm`
    /// is cut at 15 bytes: `gnome-terminal-`), else the system's name; lower case, without
    /// `.exe`.
    pub fn program(&self) -> String {
        let name = self
            .exe
            .as_deref()
            .and_then(file_name)
            .unwrap_or(self.name.as_str());
        normalize(name)
    }
}

/// `C:\x\Code.exe` → `code`; `/usr/bin/tmux` → `tmux` (either separator, whatever the host).
pub(crate) fn file_name(path: &Path) -> Option<&str> {
    let s = path.to_str()?;
    s.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())
}

/// Lower case, without a trailing `.exe`.
pub(crate) fn normalize(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    lower
        .strip_suffix(".exe")
        .map(str::to_string)
        .unwrap_or(lower)
}

/// A process table to walk.
pub(crate) trait Table {
    fn process(&self, pid: u32) -> Option<Process>;
    /// Every process (for finding a multiplexer's client or an `ssh` by its arguments).
    fn processes(&self) -> Vec<Process>;
    /// The environment a process started with, when the system lets us read it (Linux and
    /// macOS, for the user's own processes).
    fn environ(&self, pid: u32) -> Option<Env>;
}

/// How far up a walk goes at most (a loop in a broken table ends it too).
const MAX_DEPTH: usize = 64;

/// `pid` and its parents, nearest first, up to the first process. A parent that started after
/// its child is not its parent (the real one ended and its pid was given to a new process), so
/// the walk stops there.
pub(crate) fn ancestors(table: &dyn Table, pid: u32) -> Vec<Process> {
    let mut out: Vec<Process> = Vec::new();
    let mut next = table.process(pid);
    while let Some(p) = next.take() {
        if out.len() >= MAX_DEPTH || out.iter().any(|q| q.pid == p.pid) {
            break;
        }
        let (ppid, started) = (p.ppid, p.started_ms);
        out.push(p);
        if ppid == 0 {
            break;
        }
        next = table
            .process(ppid)
            .filter(|parent| match (parent.started_ms, started) {
                (Some(parent_start), Some(child_start)) => parent_start <= child_start,
                _ => true,
            });
    }
    out
}

/// The system's own table.
pub(crate) struct SystemTable;

impl Table for SystemTable {
    fn process(&self, pid: u32) -> Option<Process> {
        sys::process(pid)
    }
    fn processes(&self) -> Vec<Process> {
        sys::processes()
    }
    fn environ(&self, pid: u32) -> Option<Env> {
        sys::environ(pid)
    }
}

/// `KEY=value` strings (NUL-separated in `/proc/<pid>/environ` and `KERN_PROCARGS2`) → a map.
#[cfg_attr(windows, allow(dead_code))]
pub(crate) fn parse_environ<'a>(items: impl IntoIterator<Item = &'a [u8]>) -> Env {
    items
        .into_iter()
        .filter_map(|item| {
            let s = std::str::from_utf8(item).ok()?;
            let (k, v) = s.split_once('=')?;
            (!k.is_empty()).then(|| (k.to_string(), v.to_string()))
        })
        .collect()
}

#[cfg(target_os = "linux")]
mod sys {
    //! Linux: `/proc/<pid>/{stat,exe,cmdline,environ,fd/0}`.
    use super::{Env, Process, parse_environ};
    use std::path::PathBuf;
    use std::sync::OnceLock;

    pub fn process(pid: u32) -> Option<Process> {
        let dir = PathBuf::from(format!("/proc/{pid}"));
        let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
        let parsed = parse_stat(&stat)?;
        let args = std::fs::read(dir.join("cmdline"))
            .map(|b| {
                b.split(|c| *c == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let tty = (parsed.tty_nr != 0).then(|| {
            std::fs::read_link(dir.join("fd/0"))
                .ok()
                .and_then(|p| p.to_str().map(str::to_string))
                .filter(|p| p.starts_with("/dev/pts/") || p.starts_with("/dev/tty"))
                .unwrap_or_else(|| {
                    let (major, minor) = (
                        (parsed.tty_nr >> 8) & 0xfff,
                        (parsed.tty_nr & 0xff) | ((parsed.tty_nr >> 12) & 0xfff00),
                    );
                    format!("tty {major}:{minor}")
                })
        });
        Some(Process {
            pid,
            ppid: parsed.ppid,
            name: parsed.comm,
            // An executable replaced since it started (an upgrade) reads "<path> (deleted)".
            exe: std::fs::read_link(dir.join("exe")).ok().map(|p| {
                match p.to_str().and_then(|s| s.strip_suffix(" (deleted)")) {
                    Some(s) => PathBuf::from(s),
                    None => p,
                }
            }),
            args,
            tty,
            started_ms: boot_ms().map(|boot| boot + parsed.start_ticks * 1000 / clock_ticks()),
        })
    }

    pub fn processes() -> Vec<Process> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(process)
            .collect()
    }

    pub fn environ(pid: u32) -> Option<Env> {
        let raw = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        Some(parse_environ(raw.split(|c| *c == 0)))
    }

    pub(super) struct Stat {
        pub comm: String,
        pub ppid: u32,
        pub tty_nr: u64,
        pub start_ticks: u64,
    }

    /// `pid (comm) state ppid pgrp session tty_nr … starttime …`: `comm` may hold spaces and
    /// parentheses, so the fields are counted from its last `)`.
    pub(super) fn parse_stat(stat: &str) -> Option<Stat> {
        let open = stat.find('(')?;
        let close = stat.rfind(')')?;
        let comm = stat.get(open + 1..close)?.to_string();
        let rest: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
        // rest[0] = state (field 3), so field n is rest[n - 3].
        Some(Stat {
            comm,
            ppid: rest.get(1)?.parse().ok()?,
            tty_nr: rest.get(4)?.parse().ok()?,
            start_ticks: rest.get(19)?.parse().ok()?,
        })
    }

    fn clock_ticks() -> u64 {
        // SAFETY: sysconf only reads a constant of the system.
        let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if t > 0 { t as u64 } else { 100 }
    }

    fn boot_ms() -> Option<u64> {
        static BOOT: OnceLock<Option<u64>> = OnceLock::new();
        *BOOT.get_or_init(|| {
            let stat = std::fs::read_to_string("/proc/stat").ok()?;
            let line = stat.lines().find(|l| l.starts_with("btime "))?;
            let secs: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(secs * 1000)
        })
    }
}

#[cfg(target_os = "macos")]
mod sys {
    //! macOS: `proc_listallpids`, `proc_pidinfo(PROC_PIDTBSDINFO)`, `proc_pidpath`, and the
    //! arguments and environment from `sysctl(KERN_PROCARGS2)` (the user's own processes).
    use super::{Env, Process, parse_environ};
    use std::ffi::CStr;
    use std::path::PathBuf;

    pub fn process(pid: u32) -> Option<Process> {
        let pid_c = i32::try_from(pid).ok()?;
        // SAFETY: proc_bsdinfo is plain data; proc_pidinfo writes at most its size.
        let info: libc::proc_bsdinfo = unsafe {
            let mut info: libc::proc_bsdinfo = std::mem::zeroed();
            let size = std::mem::size_of::<libc::proc_bsdinfo>() as i32;
            let n = libc::proc_pidinfo(
                pid_c,
                libc::PROC_PIDTBSDINFO,
                0,
                (&mut info as *mut libc::proc_bsdinfo).cast(),
                size,
            );
            if n != size {
                return None;
            }
            info
        };
        let name = c_chars(&info.pbi_name)
            .filter(|n| !n.is_empty())
            .or_else(|| c_chars(&info.pbi_comm))
            .unwrap_or_default();
        let mut path = vec![0u8; libc::PROC_PIDPATHINFO_MAXSIZE as usize];
        // SAFETY: the buffer is as long as we say.
        let n = unsafe { libc::proc_pidpath(pid_c, path.as_mut_ptr().cast(), path.len() as u32) };
        let exe = (n > 0).then(|| {
            path.truncate(n as usize);
            PathBuf::from(String::from_utf8_lossy(&path).into_owned())
        });
        let tty = (info.e_tdev != u32::MAX && info.e_tdev != 0)
            .then(|| {
                // SAFETY: devname returns a pointer to a static buffer or null.
                let p = unsafe { libc::devname(info.e_tdev as libc::dev_t, libc::S_IFCHR) };
                (!p.is_null()).then(|| {
                    // SAFETY: non-null, NUL-terminated.
                    let s = unsafe { CStr::from_ptr(p) };
                    format!("/dev/{}", s.to_string_lossy())
                })
            })
            .flatten();
        let args = procargs(pid_c).map(|(a, _)| a).unwrap_or_default();
        Some(Process {
            pid,
            ppid: info.pbi_ppid,
            name,
            exe,
            args,
            tty,
            started_ms: Some(info.pbi_start_tvsec * 1000 + info.pbi_start_tvusec / 1000),
        })
    }

    pub fn processes() -> Vec<Process> {
        // SAFETY: a null buffer asks for the count.
        let n = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
        if n <= 0 {
            return Vec::new();
        }
        let mut pids = vec![0i32; n as usize + 64];
        let bytes = (pids.len() * std::mem::size_of::<i32>()) as i32;
        // SAFETY: the buffer holds `bytes` bytes.
        let got = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
        if got <= 0 {
            return Vec::new();
        }
        pids.truncate(got as usize);
        pids.into_iter()
            .filter(|p| *p > 0)
            .filter_map(|p| process(p as u32))
            .collect()
    }

    pub fn environ(pid: u32) -> Option<Env> {
        procargs(i32::try_from(pid).ok()?).map(|(_, env)| env)
    }

    fn c_chars(chars: &[libc::c_char]) -> Option<String> {
        let bytes: Vec<u8> = chars
            .iter()
            .take_while(|c| **c != 0)
            .map(|c| *c as u8)
            .collect();
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `KERN_PROCARGS2`: argc (an int), the executable's path, NULs, argc arguments, then the
    /// environment, each NUL-terminated.
    fn procargs(pid: i32) -> Option<(Vec<String>, Env)> {
        let mut size: libc::size_t = 0;
        let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid];
        // SAFETY: a null buffer asks for the size.
        let r = unsafe {
            libc::sysctl(
                mib.as_mut_ptr(),
                3,
                std::ptr::null_mut(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        if r != 0 || size < 4 {
            return None;
        }
        let mut buf = vec![0u8; size];
        // SAFETY: the buffer holds `size` bytes and sysctl says how many it wrote.
        let r = unsafe {
            libc::sysctl(
                mib.as_mut_ptr(),
                3,
                buf.as_mut_ptr().cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        if r != 0 {
            return None;
        }
        buf.truncate(size);
        Some(split_procargs(&buf))
    }

    pub(super) fn split_procargs(buf: &[u8]) -> (Vec<String>, Env) {
        let argc = buf
            .get(..4)
            .map(|b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(0)
            .max(0) as usize;
        let mut fields = buf.get(4..).unwrap_or_default().split(|c| *c == 0);
        let _exec_path = fields.next();
        let mut rest = fields.skip_while(|f| f.is_empty());
        let args: Vec<String> = rest
            .by_ref()
            .take(argc)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let env = parse_environ(rest.take_while(|f| !f.is_empty()));
        (args, env)
    }
}

#[cfg(windows)]
mod sys {
    //! Windows: a Toolhelp32 snapshot (pid, parent, image name), and per process its image path
    //! and creation time (`QueryFullProcessImageNameW`, `GetProcessTimes`). Another process's
    //! command line and environment are not read.
    use super::{Env, Process};
    use std::path::PathBuf;
    use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW,
        TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::Threading::{
        GetProcessTimes, OpenProcess, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
        QueryFullProcessImageNameW,
    };

    pub fn process(pid: u32) -> Option<Process> {
        entries().into_iter().find(|e| e.0 == pid).map(with_details)
    }

    pub fn processes() -> Vec<Process> {
        entries().into_iter().map(with_details).collect()
    }

    pub fn environ(_pid: u32) -> Option<Env> {
        None
    }

    /// A process with its image path and start time (one `OpenProcess` each).
    fn with_details((pid, ppid, name): (u32, u32, String)) -> Process {
        let (exe, started_ms) = details(pid);
        Process {
            pid,
            ppid,
            name,
            exe,
            args: Vec::new(),
            tty: None,
            started_ms,
        }
    }

    /// Every process as (pid, parent, image name), from one snapshot.
    fn entries() -> Vec<(u32, u32, String)> {
        let mut out = Vec::new();
        // SAFETY: the handle is checked and closed; the entry is sized as the API asks.
        unsafe {
            let snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
            if snap.is_null() || snap == INVALID_HANDLE_VALUE {
                return out;
            }
            let mut entry: PROCESSENTRY32W = std::mem::zeroed();
            entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
            let mut ok = Process32FirstW(snap, &mut entry);
            while ok != 0 {
                let len = entry
                    .szExeFile
                    .iter()
                    .position(|c| *c == 0)
                    .unwrap_or(entry.szExeFile.len());
                let name = String::from_utf16_lossy(&entry.szExeFile[..len]);
                out.push((entry.th32ProcessID, entry.th32ParentProcessID, name));
                ok = Process32NextW(snap, &mut entry);
            }
            CloseHandle(snap);
        }
        out
    }

    /// The image path and creation time, when the process lets us open it.
    fn details(pid: u32) -> (Option<PathBuf>, Option<u64>) {
        if pid == 0 {
            return (None, None);
        }
        // SAFETY: the handle is checked and closed; buffers are sized as passed.
        unsafe {
            let h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
            if h.is_null() {
                return (None, None);
            }
            let mut buf = [0u16; 1024];
            let mut len = buf.len() as u32;
            let exe =
                (QueryFullProcessImageNameW(h, PROCESS_NAME_WIN32, buf.as_mut_ptr(), &mut len)
                    != 0)
                    .then(|| PathBuf::from(String::from_utf16_lossy(&buf[..len as usize])));
            let zero = FILETIME {
                dwLowDateTime: 0,
                dwHighDateTime: 0,
            };
            let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
            let started = (GetProcessTimes(h, &mut created, &mut exited, &mut kernel, &mut user)
                != 0)
                .then(|| filetime_ms(&created))
                .flatten();
            CloseHandle(h);
            (exe, started)
        }
    }

    /// 100-ns intervals since 1601 → milliseconds since 1970.
    fn filetime_ms(t: &FILETIME) -> Option<u64> {
        let ticks = (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
        ticks
            .checked_sub(116_444_736_000_000_000)
            .map(|t| t / 10_000)
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod sys {
    //! Other systems: no table (Show terminal says it found nothing).
    use super::{Env, Process};
    pub fn process(_pid: u32) -> Option<Process> {
        None
    }
    pub fn processes() -> Vec<Process> {
        Vec::new()
    }
    pub fn environ(_pid: u32) -> Option<Env> {
        None
    }
}

#[cfg(test)]
pub(crate) mod fake {
    //! A process table made by hand.
    use super::{Env, Process, Table};
    use std::collections::BTreeMap;

    #[derive(Default)]
    pub struct FakeTable {
        pub procs: BTreeMap<u32, Process>,
        pub envs: BTreeMap<u32, Env>,
    }

    impl FakeTable {
        /// Adds `pid` under `ppid`, named `name` (its exe `/usr/bin/<name>`), started at `pid`
        /// ms (children after parents unless a test says otherwise).
        pub fn add(&mut self, pid: u32, ppid: u32, name: &str) -> &mut Process {
            self.procs.insert(
                pid,
                Process {
                    pid,
                    ppid,
                    name: name.to_string(),
                    exe: None,
                    args: vec![name.to_string()],
                    tty: None,
                    started_ms: Some(u64::from(pid)),
                },
            );
            self.procs.get_mut(&pid).expect("just added")
        }
        pub fn env(&mut self, pid: u32, vars: &[(&str, &str)]) {
            self.envs.insert(
                pid,
                vars.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            );
        }
    }

    impl Table for FakeTable {
        fn process(&self, pid: u32) -> Option<Process> {
            self.procs.get(&pid).cloned()
        }
        fn processes(&self) -> Vec<Process> {
            self.procs.values().cloned().collect()
        }
        fn environ(&self, pid: u32) -> Option<Env> {
            self.envs.get(&pid).cloned()
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::fake::FakeTable;
    use super::*;

    /// The Windows tests that start processes and look for them run one at a time (Wine reuses
    /// pids quickly, and its console and window handling is slow under load).
    #[cfg(windows)]
    pub(crate) static SPAWNING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn pids(chain: &[Process]) -> Vec<u32> {
        chain.iter().map(|p| p.pid).collect()
    }

    #[test]
    fn the_walk_goes_from_the_agent_up_to_the_first_process() {
        let mut t = FakeTable::default();
        t.add(1, 0, "systemd");
        t.add(300, 1, "xterm");
        t.add(301, 300, "bash");
        t.add(450, 301, "node");
        assert_eq!(pids(&ancestors(&t, 450)), [450, 301, 300, 1]);
        assert_eq!(pids(&ancestors(&t, 300)), [300, 1]);
    }

    #[test]
    fn a_process_that_is_gone_has_no_chain() {
        let mut t = FakeTable::default();
        t.add(1, 0, "init");
        assert!(ancestors(&t, 999).is_empty());
    }

    #[test]
    fn a_missing_parent_ends_the_walk() {
        let mut t = FakeTable::default();
        t.add(450, 301, "node");
        assert_eq!(pids(&ancestors(&t, 450)), [450]);
    }

    #[test]
    fn a_parent_younger_than_its_child_is_a_reused_pid_and_ends_the_walk() {
        // The agent's terminal (pid 300) ended; pid 300 now belongs to a newer process.
        let mut t = FakeTable::default();
        t.add(1, 0, "init");
        t.add(300, 1, "xterm").started_ms = Some(9_000);
        t.add(450, 300, "node").started_ms = Some(5_000);
        assert_eq!(pids(&ancestors(&t, 450)), [450]);
        // Equal start times (one clock tick) are a parent.
        t.procs.get_mut(&300).expect("xterm").started_ms = Some(5_000);
        assert_eq!(pids(&ancestors(&t, 450)), [450, 300, 1]);
    }

    #[test]
    fn a_loop_in_the_table_ends_the_walk() {
        let mut t = FakeTable::default();
        t.add(10, 11, "a").started_ms = None;
        t.add(11, 10, "b").started_ms = None;
        assert_eq!(pids(&ancestors(&t, 10)), [10, 11]);
    }

    #[test]
    fn a_deep_chain_is_cut() {
        let mut t = FakeTable::default();
        for pid in 1..200 {
            t.add(pid, pid - 1, "sh");
        }
        assert_eq!(ancestors(&t, 199).len(), MAX_DEPTH);
    }

    #[test]
    fn program_names_come_from_the_executable_and_lose_exe_and_case() {
        let mut p = Process {
            name: "gnome-terminal-".into(),
            exe: Some("/usr/libexec/gnome-terminal-server".into()),
            ..Process::default()
        };
        assert_eq!(p.program(), "gnome-terminal-server");
        p.exe = Some(r"C:\Program Files\WindowsApps\WindowsTerminal.exe".into());
        assert_eq!(p.program(), "windowsterminal");
        p.exe = None;
        p.name = "Code.exe".into();
        assert_eq!(p.program(), "code");
    }

    #[test]
    fn environ_strings_become_a_map() {
        let raw = b"A=1\0TMUX=/tmp/tmux-1000/default,42,0\0=bad\0noequals\0B=x=y\0";
        let env = parse_environ(raw.split(|c| *c == 0));
        assert_eq!(env.get("A").map(String::as_str), Some("1"));
        assert_eq!(env.get("B").map(String::as_str), Some("x=y"));
        assert_eq!(
            env.get("TMUX").map(String::as_str),
            Some("/tmp/tmux-1000/default,42,0")
        );
        assert_eq!(env.len(), 3);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_stat_lines_with_odd_names_parse() {
        let line = "4242 (tmux: server) S 1 4242 4242 0 -1 4194368 1 0 0 0 0 0 0 0 20 0 1 0 \
                    123456 1000 100 18446744073709551615";
        let s = sys::parse_stat(line).expect("parses");
        assert_eq!(s.comm, "tmux: server");
        assert_eq!(s.ppid, 1);
        assert_eq!(s.tty_nr, 0);
        assert_eq!(s.start_ticks, 123456);
        let odd = "7 (a) b (c)) R 3 7 7 34816 7 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0";
        let s = sys::parse_stat(odd).expect("parses");
        assert_eq!((s.comm.as_str(), s.ppid, s.tty_nr), ("a) b (c)", 3, 34816));
        assert!(sys::parse_stat("garbage").is_none());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_live_linux_table_finds_this_test_and_its_parent() {
        let me = std::process::id();
        let chain = ancestors(&SystemTable, me);
        assert_eq!(chain.first().map(|p| p.pid), Some(me));
        assert_eq!(
            chain.get(1).map(|p| p.pid),
            Some(std::os::unix::process::parent_id())
        );
        let p = &chain[0];
        assert!(p.exe.is_some() && !p.args.is_empty() && p.started_ms.is_some());
        // Cargo runs tests with its own variables set.
        let env = SystemTable.environ(me).expect("own environ");
        assert!(env.contains_key("CARGO_PKG_NAME") || env.contains_key("PATH"));
    }

    #[cfg(target_os = "macos")]
    #[test]
    fn procargs_split_arguments_from_the_environment() {
        let mut buf = 2i32.to_ne_bytes().to_vec();
        buf.extend_from_slice(b"/bin/zsh\0\0\0zsh\0-l\0TERM_PROGRAM=Apple_Terminal\0A=b\0\0junk");
        let (args, env) = sys::split_procargs(&buf);
        assert_eq!(args, ["zsh", "-l"]);
        assert_eq!(env.len(), 2);
        assert_eq!(env["TERM_PROGRAM"], "Apple_Terminal");
    }

    /// Under Wine in CI (.ci/cross.sh): the snapshot walk from a grandchild process (this test
    /// executable started again through cmd.exe) finds cmd.exe and then this process.
    #[cfg(windows)]
    #[test]
    fn the_windows_snapshot_walk_finds_a_child_through_cmd() {
        use std::time::{Duration, Instant};
        if std::env::var_os("VULTS_TERMINAL_SLEEPER").is_some() {
            return;
        }
        let _one_at_a_time = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
        let me = std::process::id();
        let exe = std::env::current_exe().expect("own exe");
        // The sleeper lives while this file does.
        let flag = std::env::temp_dir().join(format!("vults-terminal-sleeper-{me}"));
        std::fs::write(&flag, b"").expect("flag file");
        let mut child = std::process::Command::new("cmd.exe")
            .arg("/c")
            .arg(&exe)
            .args(["--exact", "procs::tests::sleeper", "--include-ignored"])
            .env("VULTS_TERMINAL_SLEEPER", &flag)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("cmd.exe starts");
        let cmd_pid = child.id();
        let until = Instant::now() + Duration::from_secs(30);
        let sleeper = loop {
            let found = SystemTable
                .processes()
                .into_iter()
                // A process Wine is still starting is listed with no image name yet.
                .find(|p| p.ppid == cmd_pid && p.pid != cmd_pid && !p.program().is_empty());
            if let Some(p) = found {
                break p;
            }
            assert!(Instant::now() < until, "cmd.exe started no child");
            std::thread::sleep(Duration::from_millis(50));
        };
        let chain = ancestors(&SystemTable, sleeper.pid);
        let _ = std::fs::remove_file(&flag);
        let _ = child.wait();
        let names: Vec<String> = chain.iter().map(Process::program).collect();
        assert_eq!(
            pids(&chain[..3]),
            [sleeper.pid, cmd_pid, me],
            "chain: {names:?}"
        );
        assert_eq!(names[1], "cmd", "chain: {names:?}");
        assert_eq!(
            chain[0].program(),
            chain[2].program(),
            "the sleeper is this test executable: {names:?}"
        );
        assert!(chain[0].started_ms.is_some() && chain[0].exe.is_some());
    }

    /// The grandchild of the Windows walk test: waits while its flag file exists (30 s at most).
    #[cfg(windows)]
    #[test]
    #[ignore = "started by the_windows_snapshot_walk_finds_a_child_through_cmd"]
    fn sleeper() {
        if let Some(flag) = std::env::var_os("VULTS_TERMINAL_SLEEPER") {
            let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while std::path::Path::new(&flag).exists() && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
    }
}
