//! Agents on SSH hosts: the local terminal running `ssh` to that host, found by the `ssh`
//! client's command line. Nothing is run on the host.

use super::{Cmd, Walk};
use crate::outcome::{Failure, FailureKind};
use crate::place::Place;
use crate::procs::Process;
use vults_i18n::Message;

/// Where an `ssh` goes: `[user@]host[:port]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dest {
    pub user: Option<String>,
    pub host: String,
    pub port: Option<u16>,
}

impl Dest {
    /// A host as Vults names it: `[user@]host[:port]` (`[::1]:22` for an IPv6 address).
    pub fn parse(s: &str) -> Option<Dest> {
        let s = s.trim();
        let (user, rest) = match s.rsplit_once('@') {
            Some((u, r)) => (Some(u.to_string()).filter(|u| !u.is_empty()), r),
            None => (None, s),
        };
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let (h, after) = v6.split_once(']')?;
            (h, after.strip_prefix(':').and_then(|p| p.parse().ok()))
        } else {
            match rest.rsplit_once(':') {
                Some((h, p)) if !h.contains(':') => (h, Some(p.parse().ok()?)),
                _ => (rest, None),
            }
        };
        (!host.is_empty()).then(|| Dest {
            user,
            host: host.to_string(),
            port,
        })
    }

    /// The same host, as far as both say: the host (any case), and the user and port where
    /// both name one.
    pub fn matches(&self, other: &Dest) -> bool {
        self.host.eq_ignore_ascii_case(&other.host)
            && match (&self.user, &other.user) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
            && match (self.port, other.port) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// ssh's options that take a value (OpenSSH's `getopt` string).
const WITH_VALUE: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// Where an `ssh` command line goes: its destination, with `-l` and `-p` applied.
pub(crate) fn destination(args: &[String]) -> Option<Dest> {
    let (mut user, mut port) = (None::<String>, None::<u16>);
    let mut i = 1;
    let mut dest = None;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            dest = args.get(i + 1).cloned();
            break;
        }
        if let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (at, c) in flags.char_indices() {
                if WITH_VALUE.contains(c) {
                    let rest = &flags[at + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i).cloned()
                    } else {
                        Some(rest.to_string())
                    };
                    match c {
                        'l' => user = value,
                        'p' => port = value.and_then(|v| v.parse().ok()),
                        _ => {}
                    }
                    break;
                }
            }
            i += 1;
            continue;
        }
        dest = Some(a.clone());
        break;
    }
    let dest = dest?;
    let mut d = match dest.strip_prefix("ssh://") {
        Some(url) => Dest::parse(url.trim_end_matches('/'))?,
        None => {
            // No port in a plain destination: `host:22` is not ssh's syntax.
            let (u, h) = match dest.rsplit_once('@') {
                Some((u, h)) => (Some(u.to_string()), h.to_string()),
                None => (None, dest.clone()),
            };
            Dest {
                user: u,
                host: h,
                port: None,
            }
        }
    };
    if d.user.is_none() {
        d.user = user;
    }
    if port.is_some() {
        d.port = port;
    }
    Some(d)
}

/// `ssh -G`'s resolved `hostname`, `user` and `port` (aliases in `~/.ssh/config` resolved;
/// nothing is connected to).
pub(crate) fn parse_ssh_g(out: &str) -> Option<Dest> {
    let mut d = Dest {
        user: None,
        host: String::new(),
        port: None,
    };
    for line in out.lines() {
        match line.split_once(' ') {
            Some(("hostname", v)) => d.host = v.trim().to_string(),
            Some(("user", v)) => d.user = Some(v.trim().to_string()),
            Some(("port", v)) => d.port = v.trim().parse().ok(),
            _ => {}
        }
    }
    (!d.host.is_empty()).then_some(d)
}

fn is_ssh(p: &Process) -> bool {
    p.program() == "ssh"
}

/// The plan for an agent on `host`: the newest interactive `ssh` to it, and its terminal.
pub(crate) fn plan_host(walk: &mut Walk, host: &str, place: &Place) -> Result<(), Failure> {
    // The agent's folder is the host's: never opened here.
    walk.cwd = None;
    let elsewhere = || {
        Failure::new(
            FailureKind::Elsewhere,
            Message::new("terminal-failure-elsewhere").arg("host", host),
        )
    };
    let target = Dest::parse(host).ok_or_else(elsewhere)?;
    let windows = walk.sys.platform() == crate::kinds::Platform::Windows;
    let mut candidates: Vec<(Process, Dest)> = walk
        .sys
        .processes()
        .into_iter()
        // An interactive ssh has a terminal (Vults' own link has none).
        .filter(|p| is_ssh(p) && (windows || p.tty.is_some()))
        .filter_map(|p| destination(&p.args).map(|d| (p, d)))
        .collect();
    candidates.sort_by_key(|(p, _)| std::cmp::Reverse(p.started_ms));
    let mut found = candidates
        .iter()
        .find(|(_, d)| d.matches(&target))
        .map(|(p, _)| p.clone());
    if found.is_none() && !candidates.is_empty() {
        // Aliases: compare what ssh itself resolves each to.
        let ssh = walk.sys.find_program("ssh").unwrap_or_else(|| "ssh".into());
        let resolve = |d: &Dest| {
            let mut args = vec!["-G".to_string()];
            if let Some(p) = d.port {
                args.extend(["-p".to_string(), p.to_string()]);
            }
            if let Some(u) = &d.user {
                args.extend(["-l".to_string(), u.clone()]);
            }
            args.extend(["--".to_string(), d.host.clone()]);
            let cmd = Cmd {
                program: ssh.clone(),
                args,
                env: Vec::new(),
            };
            walk.sys.query(&cmd).ok().and_then(|o| parse_ssh_g(&o))
        };
        if let Some(want) = resolve(&target) {
            found = candidates
                .iter()
                .find(|(_, d)| resolve(d).is_some_and(|got| got == want))
                .map(|(p, _)| p.clone());
        }
    }
    let ssh = found.ok_or_else(elsewhere)?;
    walk.plan.layers.push(
        Message::new("terminal-found-ssh")
            .arg("host", host)
            .arg("pid", ssh.pid),
    );
    let there = if let Some(pane) = place.env.get("TMUX_PANE") {
        Some(Message::new("terminal-pane-tmux").arg("pane", pane))
    } else if let Some(pane) = place.env.get("ZELLIJ_PANE_ID") {
        Some(Message::new("terminal-pane-zellij").arg("pane", pane))
    } else {
        place.env.get("STY").map(|sty| super::screen_session(sty))
    };
    walk.plan.caveats.push(match there {
        Some(there) => Message::new("terminal-caveat-ssh-there")
            .arg("host", host)
            .arg("there", there),
        None => Message::new("terminal-caveat-ssh").arg("host", host),
    });
    let env = walk.sys.environ(ssh.pid).unwrap_or_default();
    walk.depth += 1;
    walk.locate(&ssh, &env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn vults_host_names_parse() {
        assert_eq!(
            Dest::parse("me@devbox:2222"),
            Some(Dest {
                user: Some("me".into()),
                host: "devbox".into(),
                port: Some(2222)
            })
        );
        assert_eq!(Dest::parse("devbox").map(|d| d.port), Some(None));
        assert_eq!(
            Dest::parse("[::1]:22").map(|d| (d.host, d.port)),
            Some(("::1".into(), Some(22)))
        );
        assert_eq!(Dest::parse("").map(|d| d.host), None);
        assert_eq!(Dest::parse("host:notaport"), None);
    }

    #[test]
    fn ssh_command_lines_give_their_destination() {
        let d = destination(&args("ssh -t -p 2222 -i /k/id me@devbox tmux attach")).expect("dest");
        assert_eq!(
            (d.user.as_deref(), d.host.as_str(), d.port),
            (Some("me"), "devbox", Some(2222))
        );
        let d = destination(&args("ssh -oBatchMode=yes -lme -vp22 devbox")).expect("dest");
        assert_eq!(
            (d.user.as_deref(), d.host.as_str(), d.port),
            (Some("me"), "devbox", Some(22))
        );
        let d = destination(&args("ssh ssh://bob@box.lan:2200")).expect("dest");
        assert_eq!(
            (d.user.as_deref(), d.host.as_str(), d.port),
            (Some("bob"), "box.lan", Some(2200))
        );
        let d = destination(&args("ssh -J jump -- devbox")).expect("dest");
        assert_eq!(d.host, "devbox");
        assert!(destination(&args("ssh -V")).is_none());
    }

    #[test]
    fn destinations_match_on_what_both_say() {
        let vults = Dest::parse("me@devbox").expect("dest");
        assert!(vults.matches(&Dest::parse("DevBox").expect("dest")));
        assert!(vults.matches(&Dest::parse("me@devbox:22").expect("dest")));
        assert!(!vults.matches(&Dest::parse("root@devbox").expect("dest")));
        assert!(!vults.matches(&Dest::parse("otherbox").expect("dest")));
        let port = Dest::parse("devbox:2222").expect("dest");
        assert!(!port.matches(&Dest::parse("devbox:22").expect("dest")));
    }

    #[test]
    fn ssh_g_output_parses() {
        let out = "host devbox\nhostname 10.0.0.5\nuser me\nport 2222\nidentityfile ~/.ssh/id\n";
        assert_eq!(
            parse_ssh_g(out),
            Some(Dest {
                user: Some("me".into()),
                host: "10.0.0.5".into(),
                port: Some(2222)
            })
        );
    }
}
