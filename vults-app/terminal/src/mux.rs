//! Multiplexers: the agent's pane in tmux, GNU screen or Zellij, and the client that shows it
//! (whose own terminal is then found the same way as the agent's).

use crate::outcome::{Failure, FailureKind};
use crate::plan::{Choose, Cmd, Walk, is_digits, screen_session};
use crate::procs::{Env, Process};
use vults_i18n::Message;

/// One pane of `tmux list-panes -a`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TmuxPane {
    pub id: String,
    pub pid: u32,
    pub window: String,
    pub session: String,
}

/// One client of `tmux list-clients`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TmuxClient {
    pub pid: u32,
    pub activity: u64,
    pub tty: String,
    pub session: String,
}

pub(crate) const TMUX_PANES: &str = "#{pane_id}\t#{pane_pid}\t#{window_id}\t#{session_name}";
pub(crate) const TMUX_CLIENTS: &str =
    "#{client_pid}\t#{client_activity}\t#{client_tty}\t#{client_session}";

pub(crate) fn parse_tmux_panes(out: &str) -> Vec<TmuxPane> {
    out.lines()
        .filter_map(|l| {
            let mut f = l.splitn(4, '\t');
            let (id, pid, window, session) = (f.next()?, f.next()?, f.next()?, f.next()?);
            valid_tmux_pane(id).then_some(())?;
            Some(TmuxPane {
                id: id.to_string(),
                pid: pid.parse().ok()?,
                window: window.to_string(),
                session: session.to_string(),
            })
        })
        .collect()
}

pub(crate) fn parse_tmux_clients(out: &str) -> Vec<TmuxClient> {
    out.lines()
        .filter_map(|l| {
            let mut f = l.splitn(4, '\t');
            let (pid, activity, tty, session) = (f.next()?, f.next()?, f.next()?, f.next()?);
            tty.starts_with("/dev/").then_some(())?;
            Some(TmuxClient {
                pid: pid.parse().ok()?,
                activity: activity.parse().unwrap_or(0),
                tty: tty.to_string(),
                session: session.to_string(),
            })
        })
        .collect()
}

/// `%12`.
pub(crate) fn valid_tmux_pane(s: &str) -> bool {
    s.strip_prefix('%').is_some_and(is_digits)
}

/// The server's socket: `TMUX` is `<socket>,<server pid>,<session>` (when its pid is this
/// server's), else `-S <socket>` on the server's command line.
/// The command that attaches a terminal to tmux session `session` on `socket`: plain
/// `tmux attach -t work` for the default server (`…/tmux-<uid>/default`), else with `-S` and the
/// socket, or the command would reach another server.
pub(crate) fn tmux_attach(socket: &str, session: &str) -> String {
    let path = std::path::Path::new(socket);
    let default = path.file_name().is_some_and(|n| n == "default")
        && path
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str())
            .is_some_and(|d| d.starts_with("tmux-"));
    let server = if default {
        String::new()
    } else {
        format!("-S {} ", shell_word(socket))
    };
    format!("tmux {server}attach -t {}", shell_word(session))
}

/// `word` as one shell word: as it is when it is plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

pub(crate) fn tmux_socket(env: &Env, server: &Process) -> Option<String> {
    if let Some(tmux) = env.get("TMUX") {
        let mut parts = tmux.rsplitn(3, ',');
        let (_session, pid, path) = (parts.next(), parts.next(), parts.next());
        if let (Some(pid), Some(path)) = (pid, path)
            && pid.parse::<u32>().ok() == Some(server.pid)
            && path.starts_with('/')
        {
            return Some(path.to_string());
        }
    }
    let mut args = server.args.iter();
    while let Some(a) = args.next() {
        if a == "-S" {
            return args.next().filter(|p| p.starts_with('/')).cloned();
        }
        if let Some(p) = a.strip_prefix("-S").filter(|p| p.starts_with('/')) {
            return Some(p.to_string());
        }
    }
    None
}

impl Walk<'_> {
    /// tmux: the pane (`TMUX_PANE`, checked against the process tmux started for it), a
    /// client to show it (one on its session, the most recently used, else the most recently
    /// used client switched to it), then that client's terminal.
    pub(crate) fn tmux(
        &mut self,
        server: &Process,
        below: &[Process],
        env: &Env,
    ) -> Result<(), Failure> {
        let socket = tmux_socket(env, server).ok_or_else(|| {
            Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-tmux-socket").arg("pid", server.pid),
            )
        })?;
        let tmux = self.own_or_path(server, "tmux");
        let query = |args: &[&str]| {
            let mut all = vec!["-S", socket.as_str()];
            all.extend_from_slice(args);
            self.sys
                .query(&Cmd::new(&tmux, &all))
                .map_err(|e| Failure::tool(FailureKind::Failed, "tmux", e))
        };
        let panes = parse_tmux_panes(&query(&["list-panes", "-a", "-F", TMUX_PANES])?);
        let pane_pid = below.last().map(|p| p.pid);
        let said = env.get("TMUX_PANE").filter(|p| valid_tmux_pane(p));
        let pane = said
            .and_then(|id| {
                panes
                    .iter()
                    .find(|p| &p.id == id && pane_pid.is_none_or(|pid| p.pid == pid))
            })
            .or_else(|| pane_pid.and_then(|pid| panes.iter().find(|p| p.pid == pid)))
            .cloned()
            .ok_or_else(|| {
                Failure::new(
                    FailureKind::Ended,
                    match said {
                        Some(pane) => {
                            Message::new("terminal-failure-tmux-pane-gone").arg("pane", pane)
                        }
                        None => Message::new("terminal-failure-tmux-pane-gone-unnamed"),
                    },
                )
            })?;
        // A window linked into several sessions is in each of them.
        let sessions: Vec<&str> = panes
            .iter()
            .filter(|p| p.id == pane.id)
            .map(|p| p.session.as_str())
            .collect();
        let mut clients = parse_tmux_clients(&query(&["list-clients", "-F", TMUX_CLIENTS])?);
        clients.sort_by_key(|c| std::cmp::Reverse(c.activity));
        let on_session = clients
            .iter()
            .find(|c| sessions.contains(&c.session.as_str()));
        let (client, switch) = match on_session.or(clients.first()) {
            Some(c) => (c.clone(), on_session.is_none()),
            None => {
                // The remedy first, so a toast cut short still shows it.
                return Err(Failure::new(
                    FailureKind::Detached,
                    Message::new("terminal-failure-tmux-detached")
                        .arg("command", tmux_attach(&socket, &pane.session))
                        .arg("session", &pane.session),
                ));
            }
        };
        let mut args: Vec<String> = vec!["-S".into(), socket.clone()];
        if switch {
            args.extend(
                ["switch-client", "-c", &client.tty, "-t", &pane.id, ";"].map(String::from),
            );
        }
        args.extend(
            [
                "select-window",
                "-t",
                &pane.id,
                ";",
                "select-pane",
                "-t",
                &pane.id,
            ]
            .map(String::from),
        );
        self.plan.choose.push(Choose {
            cmd: Cmd {
                program: tmux.clone(),
                args,
                env: Vec::new(),
            },
            what: Message::new("terminal-pane-tmux").arg("pane", &pane.id),
            fatal: true,
            hint: None,
        });
        self.plan.layers.push(
            Message::new("terminal-found-tmux-pane")
                .arg("pane", &pane.id)
                .arg("window", &pane.window)
                .arg("session", &pane.session),
        );
        let proc = self.sys.process(client.pid).ok_or_else(|| {
            Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-tmux-client-unseen")
                    .arg("tty", &client.tty)
                    .arg("pid", client.pid),
            )
        })?;
        self.follow_client(&proc)
    }

    /// GNU screen: `screen -S <STY> -X select <WINDOW>`, then the client attached to it.
    pub(crate) fn screen(&mut self, server: &Process, env: &Env) -> Result<(), Failure> {
        let own = format!("{}.", server.pid);
        let sty = env
            .get("STY")
            .filter(|s| s.starts_with(&own) && valid_session_name(s))
            .cloned()
            .unwrap_or_else(|| server.pid.to_string());
        let window = env.get("WINDOW").filter(|w| is_digits(w));
        let screen = self.own_or_path(server, "screen");
        match window {
            Some(w) => {
                let mut cmd = Cmd::new(&screen, &["-S", &sty, "-X", "select", w]);
                // A session whose sockets are in the agent's own SCREENDIR is found only there.
                if let Some(dir) = env.get("SCREENDIR").filter(|d| d.starts_with('/')) {
                    cmd.env.push(("SCREENDIR".into(), dir.clone()));
                }
                self.plan.choose.push(Choose {
                    cmd,
                    what: Message::new("terminal-pane-screen").arg("window", w),
                    fatal: false,
                    hint: None,
                });
                self.plan.layers.push(
                    Message::new("terminal-found-screen-window")
                        .arg("window", w)
                        .arg("session", &sty),
                );
            }
            None => {
                self.plan
                    .caveats
                    .push(Message::new("terminal-caveat-screen-no-window"));
                self.plan.layers.push(screen_session(&sty));
            }
        }
        let name = sty.split_once('.').map(|(_, n)| n).unwrap_or("");
        let names_session = |p: &Process| {
            p.args.iter().skip(1).any(|a| {
                a == &sty || (!name.is_empty() && a == name) || a == &server.pid.to_string()
            })
        };
        let is_client = |p: &Process| {
            p.pid != server.pid
                && p.program() == "screen"
                && p.args.first().is_none_or(|a| a != "SCREEN")
                && p.tty.is_some()
                && !p
                    .args
                    .iter()
                    .any(|a| matches!(a.as_str(), "-ls" | "-list" | "-X" | "-Q" | "-wipe"))
        };
        let client = self.pick_client(screen_session(&sty), server, is_client, names_session)?;
        self.follow_client(&client)
    }

    /// Zellij: `zellij --session <name> action focus-pane-id terminal_<id>` (Zellij 0.44 and
    /// later), then the client attached to the session.
    pub(crate) fn zellij(&mut self, server: &Process, env: &Env) -> Result<(), Failure> {
        let from_args = server
            .args
            .iter()
            .skip_while(|a| *a != "--server")
            .nth(1)
            .and_then(|s| s.rsplit('/').next())
            .map(str::to_string);
        let session = env
            .get("ZELLIJ_SESSION_NAME")
            .cloned()
            .or(from_args)
            .filter(|s| valid_session_name(s));
        let pane = env.get("ZELLIJ_PANE_ID").filter(|p| is_digits(p));
        let zellij = self.own_or_path(server, "zellij");
        let label = session.clone().unwrap_or_else(|| "?".into());
        match (&session, pane) {
            (Some(s), Some(p)) => {
                let mut cmd = Cmd::new(
                    &zellij,
                    &[
                        "--session",
                        s,
                        "action",
                        "focus-pane-id",
                        &format!("terminal_{p}"),
                    ],
                );
                // Sessions in the agent's own socket folder are found only there.
                if let Some(dir) = env.get("ZELLIJ_SOCKET_DIR").filter(|d| d.starts_with('/')) {
                    cmd.env.push(("ZELLIJ_SOCKET_DIR".into(), dir.clone()));
                }
                self.plan.choose.push(Choose {
                    cmd,
                    what: Message::new("terminal-pane-zellij").arg("pane", p),
                    fatal: false,
                    hint: Some(Message::new("terminal-hint-zellij-version").arg("version", "0.44")),
                });
                self.plan.layers.push(
                    Message::new("terminal-found-zellij-pane")
                        .arg("pane", p)
                        .arg("session", s),
                );
            }
            _ => {
                self.plan
                    .caveats
                    .push(Message::new("terminal-caveat-zellij-no-pane"));
                self.plan.layers.push(zellij_session(&label));
            }
        }
        let names_session = |p: &Process| {
            session
                .as_deref()
                .is_some_and(|s| p.args.iter().skip(1).any(|a| a == s))
        };
        let is_client = |p: &Process| {
            p.pid != server.pid
                && p.program() == "zellij"
                && p.tty.is_some()
                && !p.args.iter().any(|a| {
                    matches!(
                        a.as_str(),
                        "--server"
                            | "action"
                            | "ac"
                            | "list-sessions"
                            | "ls"
                            | "kill-session"
                            | "k"
                            | "delete-session"
                            | "d"
                            | "setup"
                            | "run"
                            | "edit"
                            | "pipe"
                            | "plugin"
                    )
                })
        };
        let client = self.pick_client(zellij_session(&label), server, is_client, names_session)?;
        self.follow_client(&client)
    }

    /// The client showing a screen or Zellij session: the one that started the server (its
    /// parent), else one that names the session on its command line, else the only client.
    fn pick_client(
        &self,
        what: Message,
        server: &Process,
        is_client: impl Fn(&Process) -> bool,
        names_session: impl Fn(&Process) -> bool,
    ) -> Result<Process, Failure> {
        let clients: Vec<Process> = self
            .sys
            .processes()
            .into_iter()
            .filter(|p| is_client(p))
            .collect();
        if let Some(parent) = clients.iter().find(|c| c.pid == server.ppid) {
            return Ok(parent.clone());
        }
        let naming: Vec<&Process> = clients.iter().filter(|c| names_session(c)).collect();
        match (naming.as_slice(), clients.as_slice()) {
            ([one], _) => Ok((*one).clone()),
            ([], [one]) => Ok(one.clone()),
            ([], []) => Err(Failure::new(
                FailureKind::Detached,
                Message::new("terminal-failure-detached").arg("what", what),
            )),
            (many, all) => Err(Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-which-client")
                    .arg("count", many.len().max(all.len()))
                    .arg("what", what),
            )),
        }
    }

    /// Goes on from a multiplexer's client to its own terminal.
    fn follow_client(&mut self, client: &Process) -> Result<(), Failure> {
        let env = self.sys.environ(client.pid).unwrap_or_default();
        self.depth += 1;
        self.locate(client, &env)
    }
}

/// A screen or Zellij session name: printable, no path or shell characters.
fn valid_session_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// "Zellij session work".
fn zellij_session(name: &str) -> Message {
    Message::new("terminal-found-zellij-session").arg("session", name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmux_lists_parse_and_drop_what_is_not_theirs() {
        let panes = parse_tmux_panes("%0\t100\t@0\twork\n%12\t130\t@3\tmy session\nbad line\n");
        assert_eq!(panes.len(), 2);
        assert_eq!(
            panes[1],
            TmuxPane {
                id: "%12".into(),
                pid: 130,
                window: "@3".into(),
                session: "my session".into()
            }
        );
        let clients = parse_tmux_clients("200\t1700000000\t/dev/pts/4\twork\n201\tx\tnotatty\tw\n");
        assert_eq!(clients.len(), 1);
        assert_eq!(clients[0].tty, "/dev/pts/4");
    }

    #[test]
    fn the_tmux_socket_comes_from_tmux_when_it_is_this_servers() {
        let server = Process {
            pid: 42,
            args: vec!["tmux".into(), "-S".into(), "/tmp/other.sock".into()],
            ..Process::default()
        };
        let env: Env = [("TMUX".to_string(), "/tmp/a,b/sock,42,0".to_string())].into();
        assert_eq!(tmux_socket(&env, &server).as_deref(), Some("/tmp/a,b/sock"));
        // Another server's TMUX (a stale variable): the command line's socket.
        let env: Env = [("TMUX".to_string(), "/tmp/x,7,0".to_string())].into();
        assert_eq!(
            tmux_socket(&env, &server).as_deref(),
            Some("/tmp/other.sock")
        );
        let bare = Process {
            pid: 42,
            args: vec!["tmux: server".into()],
            ..Process::default()
        };
        assert_eq!(tmux_socket(&Env::new(), &bare), None);
        assert!(valid_tmux_pane("%3") && !valid_tmux_pane("3") && !valid_tmux_pane("%3;x"));
    }
}
