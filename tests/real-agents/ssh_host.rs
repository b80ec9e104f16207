//! Claude Code on an SSH host, answered from the local app (docs/hosts.md).
//!
//! Debian's `openssh-server` runs as `/usr/sbin/sshd -D -f <own config>` on 127.0.0.1 on a
//! free port, with its own host key and an `authorized_keys` the test writes, logging into a
//! second local user, `vults-host` (made with `useradd` when missing), whose HOME is this
//! test's fake home. The local side reaches it as `devbox`, an alias in an ssh config file
//! passed with `-F` (as a user's `~/.ssh/config` would). Needs root (the second user); skipped
//! otherwise, and a failure with `VULTS_REAL_AGENTS=1`.
//!
//! 0. the host user's Vults folder is attacked first (0777, `data/` owned by another host user,
//!    a symlink at the hook's place to `~/.bashrc`): `remote add` refuses; with only the user's
//!    own link and a 0777 folder left, it tightens every folder and replaces the link (the
//!    target unchanged), and the other user can neither replace the hook nor make the socket;
//! 1. `vults-app remote add devbox -- -F <config>` installs the hook on the host;
//! 2. the engine runs in-process with the host's link (`remote::link::Links`); Claude Code runs
//!    as `vults-host` over ssh against the mock model: its card names `devbox:<project>`, and
//!    Always (an allow) runs the command;
//! 3. the next run is answered by that rule without a card; the same folder on this machine
//!    (the real hook on the local socket) gets a card, not the rule;
//! 4. the link's ssh is killed: the host's next hook call returns silently within 2 s; the link
//!    comes back by itself, and (the rule removed) the next run gets a card again;
//! 5. `vults-app remote remove devbox` puts the host's settings back byte for byte.

use crate::harness::*;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent, PendingCard};
use vults_engine::{Engine, EngineHandle, EngineOptions};
use vults_remote::link::{LinkState, Links};

const HOST_USER: &str = "vults-host";
const ALIAS: &str = "devbox";

/// `sshd` on its own config, killed on drop.
struct Sshd {
    child: Child,
    log: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sh(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The host account, with `home` as its HOME (made or moved there), unlocked for key login.
fn host_account(home: &Path) {
    let exists = Command::new("id")
        .arg(HOST_USER)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !exists {
        sh(Command::new("useradd")
            .args(["-M", "-s", "/bin/sh", "-d"])
            .arg(home)
            .arg(HOST_USER));
    } else {
        sh(Command::new("usermod").arg("-d").arg(home).arg(HOST_USER));
    }
    // A locked account ("!") may not log in even with a key; "*" has no password.
    sh(Command::new("usermod").args(["-p", "*", HOST_USER]));
}

fn chown_to_host(path: &Path) {
    sh(Command::new("chown")
        .arg("-R")
        .arg(format!("{HOST_USER}:"))
        .arg(path));
}

/// Keys, `sshd_config`, `known_hosts` and the client's config with the alias; starts sshd.
fn start_sshd(dir: &Path) -> (Sshd, PathBuf) {
    std::fs::create_dir_all(dir).expect("ssh dir");
    std::fs::create_dir_all("/run/sshd").expect("/run/sshd (sshd's privilege separation)");
    for key in ["host_key", "user_key"] {
        sh(Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(dir.join(key)));
    }
    std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys")).expect("authorized_keys");
    let port = free_port();
    let config = format!(
        "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
         PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n\
         PidFile {d}/sshd.pid\nAllowUsers {HOST_USER}\n",
        d = dir.display()
    );
    std::fs::write(dir.join("sshd_config"), config).expect("sshd_config");
    let host_pub = std::fs::read_to_string(dir.join("host_key.pub")).expect("host key");
    let host_pub: Vec<&str> = host_pub.split_whitespace().take(2).collect();
    std::fs::write(
        dir.join("known_hosts"),
        format!("[127.0.0.1]:{port} {}\n", host_pub.join(" ")),
    )
    .expect("known_hosts");
    std::fs::write(
        dir.join("ssh_config"),
        format!(
            "Host {ALIAS}\n  HostName 127.0.0.1\n  Port {port}\n  User {HOST_USER}\n  IdentityFile {d}/user_key\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {d}/known_hosts\n  StrictHostKeyChecking yes\n",
            d = dir.display()
        ),
    )
    .expect("ssh_config");
    let log = dir.join("sshd.log");
    let child = Command::new("/usr/sbin/sshd")
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("sshd log"))
        .spawn()
        .expect("/usr/sbin/sshd (apt-get install openssh-server)");
    let sshd = Sshd { child, log };
    // Ready when a login works.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let ok = ssh(dir, "true")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "sshd did not let {HOST_USER} in within 15 s:\n{}",
            std::fs::read_to_string(&sshd.log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    (sshd, dir.join("ssh_config"))
}

/// `ssh -F <config> devbox -- <command>` as the host account.
fn ssh(dir: &Path, command: &str) -> Command {
    let mut c = Command::new("ssh");
    c.arg("-F")
        .arg(dir.join("ssh_config"))
        .args(["-o", "BatchMode=yes", ALIAS, "--", command]);
    c
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

struct Run {
    marker: bool,
    cards: Vec<PendingCard>,
    events: Vec<EngineEvent>,
    out: String,
}

/// One `claude -p` run on the host (agent.sh, as the host account, over ssh), answering each
/// card with `answer`.
fn run_on_host(ctx: &Ctx, dir: &Path, engine: &EngineHandle, answer: Option<CardAnswer>) -> Run {
    let _ = std::fs::remove_file(&ctx.marker);
    let command = format!(
        "REAL_AGENT_TIMEOUT=90 bash {} run claude {} {} {}",
        quote(&here().join("agent.sh").to_string_lossy()),
        quote(&ctx.home.to_string_lossy()),
        quote(&ctx.project.to_string_lossy()),
        ctx.mock.port
    );
    let out_file = ctx.work.dir.join("host-run.out");
    let child = ssh(dir, &command)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).expect("out"))
        .stderr(Stdio::piped())
        .spawn()
        .expect("ssh devbox agent.sh run");
    let mut child = child;
    let mut run = Run {
        marker: false,
        cards: Vec::new(),
        events: Vec::new(),
        out: String::new(),
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        while let Ok(ev) = engine.events.recv_timeout(Duration::from_millis(100)) {
            if let EngineEvent::CardAdded(card) = &ev {
                run.cards.push(card.clone());
                if let Some(a) = &answer {
                    assert!(engine.send(EngineCommand::Answer {
                        card: card.id,
                        answer: a.clone(),
                        by: AnsweredBy::Click,
                    }));
                }
            }
            run.events.push(ev);
        }
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
            Ok(None) => {}
            Err(e) => panic!("waiting for ssh: {e}"),
        }
    }
    let deadline = Instant::now() + Duration::from_millis(700);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match engine.events.recv_timeout(left) {
            Ok(ev) => run.events.push(ev),
            Err(_) => break,
        }
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    run.out = format!(
        "{}\n{err}",
        std::fs::read_to_string(&out_file).unwrap_or_default()
    );
    run.marker = ctx.marker.exists();
    run
}

fn wait_up(links: &Links, after_starts: u32) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(s) = links.statuses().get(ALIAS)
            && s.state == LinkState::Up
            && s.starts > after_starts
        {
            return s.starts;
        }
        assert!(
            Instant::now() < deadline,
            "the link to {ALIAS} did not come up within 30 s: {:?}",
            links.statuses()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A second account on the host (the attacker), made when missing: (uid, gid).
fn other_host_user() -> (u32, u32) {
    const OTHER: &str = "vults-other";
    let id = |flag: &str| {
        Command::new("id")
            .args([flag, OTHER])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse::<u32>().ok())
    };
    if id("-u").is_none() {
        sh(Command::new("useradd").args(["--system", "--no-create-home", OTHER]));
    }
    (id("-u").expect("uid"), id("-g").expect("gid"))
}

/// `sh -c <script>` as the other host user; whether it succeeded.
fn as_other(user: (u32, u32), script: &str) -> bool {
    Command::new("setpriv")
        .args([
            &format!("--reuid={}", user.0),
            &format!("--regid={}", user.1),
            "--clear-groups",
            "sh",
            "-c",
            script,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The host user's home is attacked before `remote add`, as issue 20 found it: Vults' folder
/// left 0777, `data/` and `data/bin/` made by another host user, and a symlink at the hook's
/// place to `~/.bashrc`. The add refuses while another user owns a folder on the way; once that
/// is gone (the host user's own link and a 0777 folder left), it tightens every folder, puts the
/// hook in place of the link (`~/.bashrc` unchanged), and the other user can neither replace
/// the hook nor make the socket the host's hook connects to.
fn attacked_host_is_refused_then_tightened(ctx: &Ctx, ssh_config: &Path) {
    let other = other_host_user();
    let vh = ctx.home.join(".local/share/vults/host");
    let bashrc = ctx.home.join(".bashrc");
    std::fs::write(&bashrc, "export PS1='host$ '\n").expect(".bashrc");
    chown_to_host(&bashrc);
    std::fs::create_dir_all(vh.join("data/bin")).expect("Vults' folder");
    chown_to_host(&ctx.home.join(".local"));
    sh(Command::new("chmod").arg("0777").arg(&vh));
    sh(Command::new("chown")
        .arg("-R")
        .arg(format!("{}:{}", other.0, other.1))
        .arg(vh.join("data")));
    assert!(
        as_other(
            other,
            &format!(
                "ln -s {} {}",
                quote(&bashrc.to_string_lossy()),
                quote(&vh.join("data/bin/vults-hook").to_string_lossy())
            )
        ),
        "the other user plants the link"
    );
    let config = ssh_config.to_string_lossy();
    let (ok, said) = vults_app_result(ctx, &["remote", "add", ALIAS, "--", "-F", &config]);
    assert!(
        !ok && said.contains(&format!("belongs to uid {}", other.0)),
        "remote add must refuse a folder of another host user's:\n{said}"
    );
    assert_eq!(
        std::fs::read_to_string(&bashrc).expect(".bashrc"),
        "export PS1='host$ '\n",
        "the link's target is unchanged"
    );
    // The host's admin removes what the other user made; the host user's own link and the
    // 0777 folder stay.
    std::fs::remove_dir_all(vh.join("data")).expect("data/");
    std::fs::create_dir_all(vh.join("data/bin")).expect("data/bin");
    std::os::unix::fs::symlink(&bashrc, vh.join("data/bin/vults-hook")).expect("link");
    sh(Command::new("chmod")
        .args(["0777"])
        .arg(vh.join("data"))
        .arg(vh.join("data/bin")));
    chown_to_host(&vh);
}

fn vults_app_result(ctx: &Ctx, args: &[&str]) -> (bool, String) {
    let out = Command::new(bin_dir().join("vults-app"))
        .args(args)
        .env("VULTS_HOME", &ctx.vults_home)
        .env_remove("VULTS_SOCKET")
        .env_remove("VULTS_AGENT_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("vults-app");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn vults_app(ctx: &Ctx, args: &[&str]) -> String {
    let out = Command::new(bin_dir().join("vults-app"))
        .args(args)
        .env("VULTS_HOME", &ctx.vults_home)
        .env_remove("VULTS_SOCKET")
        .env_remove("VULTS_AGENT_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("vults-app");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "vults-app {args:?} failed:\n{text}");
    text
}

pub fn claude_on_an_ssh_host() {
    if !wanted("claude") {
        return;
    }
    let strict = std::env::var("VULTS_REAL_AGENTS").as_deref() == Ok("1");
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let sshd_there = Path::new("/usr/sbin/sshd").is_file();
    if !root || !sshd_there {
        assert!(
            !strict,
            "real-agents: the SSH host test needs root and /usr/sbin/sshd (openssh-server)"
        );
        eprintln!("real-agents: ssh host skipped (needs root and openssh-server)");
        return;
    }
    let _serial = AGENT_SLOTS.take();
    let mut ctx = Ctx::named("claude", "ssh");
    ctx.setup_agent();
    host_account(&ctx.home);
    chown_to_host(&ctx.home);
    chown_to_host(&ctx.project);
    let settings = ctx.home.join(".claude").join("settings.json");
    let original = std::fs::read(&settings).expect("the host's settings.json");
    let dir = ctx.work.dir.join("ssh");
    let (sshd, ssh_config) = start_sshd(&dir);

    // 0. An attacked host: refused, then tightened (issue 20).
    attacked_host_is_refused_then_tightened(&ctx, &ssh_config);

    // 1. remote add, through the alias in the ssh config.
    let added = vults_app(
        &ctx,
        &[
            "remote",
            "add",
            ALIAS,
            "--",
            "-F",
            &ssh_config.to_string_lossy(),
        ],
    );
    let host_hook = ctx.home.join(".local/share/vults/host/data/bin/vults-hook");
    assert!(host_hook.is_file(), "no hook on the host:\n{added}");
    {
        use std::os::unix::fs::PermissionsExt;
        let vh = ctx.home.join(".local/share/vults/host");
        assert!(
            !std::fs::symlink_metadata(&host_hook)
                .expect("the hook")
                .file_type()
                .is_symlink(),
            "the hook replaced the link"
        );
        assert_eq!(
            std::fs::read_to_string(ctx.home.join(".bashrc")).expect(".bashrc"),
            "export PS1='host$ '\n",
            "the link's target is unchanged"
        );
        for d in ["", "/data", "/data/bin", "/run", "/config"] {
            let mode = std::fs::metadata(format!("{}{d}", vh.display()))
                .expect("a folder")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700, "{}{d} is tightened", vh.display());
        }
        // The other host user can neither replace the hook nor make the socket.
        let other = other_host_user();
        let hook_sha = std::fs::read(&host_hook).expect("the hook");
        for attack in [
            format!("cp /bin/true {}", quote(&host_hook.to_string_lossy())),
            format!(
                "mv {} {}.x",
                quote(&vh.join("run").to_string_lossy()),
                quote(&vh.join("run").to_string_lossy())
            ),
            format!("mkdir {}", quote(&vh.join("evil").to_string_lossy())),
            format!(
                "touch {}",
                quote(&vh.join("run/vults.sock").to_string_lossy())
            ),
        ] {
            assert!(!as_other(other, &attack), "the other user could: {attack}");
        }
        assert_eq!(std::fs::read(&host_hook).expect("the hook"), hook_sha);
    }
    let written = std::fs::read_to_string(&settings).unwrap_or_default();
    assert!(
        written.contains(&*host_hook.to_string_lossy()) && written.contains("VULTS_HOME="),
        "the host's Claude Code settings do not run the host's hook:\n{written}\n{added}"
    );

    // 2. The engine and the host's link.
    let paths = ctx.paths();
    let engine = Engine::start_with(paths.clone(), Arc::new(|| {}), EngineOptions::default())
        .expect("engine");
    let links = Links::start(&paths, engine.host_sockets());
    let starts = wait_up(&links, 0);
    let explain = |what: &str, r: &Run| {
        format!(
            "{what}\n---- run output ----\n{}\n---- events ----\n{}\n---- sshd ----\n{}\n---- links ----\n{:?}",
            r.out,
            r.events
                .iter()
                .map(|e| format!("{e:?}"))
                .collect::<Vec<_>>()
                .join("\n"),
            std::fs::read_to_string(&sshd.log).unwrap_or_default(),
            links.statuses()
        )
    };
    let host_folder = format!("{ALIAS}:{}", ctx.project.display());
    let r = run_on_host(&ctx, &dir, &engine, Some(CardAnswer::AlwaysAllow));
    assert!(
        r.marker && r.cards.len() == 1,
        "{}",
        explain("(1) expected one card and the marker", &r)
    );
    let card = r.cards[0].clone();
    assert_eq!(card.folder, host_folder, "the card names the host");
    assert_eq!(card.call.target.command(), Some(ctx.command.as_str()));
    let rule = card.always_rule.clone().expect("an Always rule");
    assert_eq!(rule.folder, host_folder);
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, EngineEvent::SessionChanged(s) if s.folder == host_folder)),
        "{}",
        explain("the flock never showed the host's session", &r)
    );

    // 3. The rule answers the host's next call; the same folder here is another folder.
    let r = run_on_host(&ctx, &dir, &engine, None);
    assert!(
        r.marker && r.cards.is_empty(),
        "{}",
        explain("(2) the Always rule should answer without a card", &r)
    );
    assert!(
        r.events.iter().any(|e| matches!(e, EngineEvent::Audited(l)
            if l.iter().any(|a| a.folder == host_folder && a.by.label() == format!("rule:{}", rule.id)))),
        "{}",
        explain("(2) no audit line by the rule for the host's folder", &r)
    );
    let payload = serde_json::json!({"session_id": "local", "cwd": ctx.project,
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": ctx.command}});
    let mut local = Command::new(bin_dir().join("vults-hook"))
        .args(["--agent", "claude", "PermissionRequest"])
        .env("VULTS_HOME", &ctx.vults_home)
        .env_remove("VULTS_SOCKET")
        .current_dir(&ctx.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("local vults-hook");
    let mut stdin = local.stdin.take().expect("stdin");
    stdin
        .write_all(payload.to_string().as_bytes())
        .expect("payload");
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(20);
    let local_card = loop {
        match engine.events.recv_timeout(Duration::from_millis(200)) {
            Ok(EngineEvent::CardAdded(c)) => break Some(c),
            Ok(_) => {}
            Err(_) if Instant::now() > deadline => break None,
            Err(_) => {}
        }
    };
    let local_card =
        local_card.expect("the same folder on this machine must get a card, not the host's rule");
    assert_eq!(local_card.folder, ctx.project.to_string_lossy());
    assert!(engine.send(EngineCommand::Answer {
        card: local_card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    }));
    let out = local.wait_with_output().expect("local hook");
    assert!(String::from_utf8_lossy(&out.stdout).contains("deny"));

    // 4. Kill the link: the host's next hook call is silent within 2 s.
    let payload_host = serde_json::json!({"session_id": "h", "cwd": ctx.project,
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "echo after the link died"}})
    .to_string();
    // The call is ready on the host before the kill (an ssh session of its own), and runs the
    // moment the test says so: nothing of the link can have come back by then.
    let script = format!(
        "read go; s=$(date +%s%N); out=$(printf '%s' {p} | VULTS_HOME={vh} {hook} --agent claude PermissionRequest); \
         e=$(date +%s%N); echo \"$(( (e - s) / 1000000 )) [$out]\"",
        p = quote(&payload_host),
        vh = quote(&ctx.home.join(".local/share/vults/host").to_string_lossy()),
        hook = quote(&host_hook.to_string_lossy()),
    );
    let mut probe = ssh(&dir, &format!("sh -c {}", quote(&script)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ssh probe");
    std::thread::sleep(Duration::from_millis(500));
    let pid = links
        .statuses()
        .get(ALIAS)
        .and_then(|s| s.pid)
        .expect("the link's ssh pid");
    // SAFETY: kill(2) on the link's own ssh process.
    unsafe { libc::kill(libc::pid_t::try_from(pid).expect("pid"), libc::SIGKILL) };
    let mut go = probe.stdin.take().expect("probe stdin");
    go.write_all(b"go\n").expect("go");
    drop(go);
    let mut line = String::new();
    BufReader::new(probe.stdout.take().expect("probe stdout"))
        .read_line(&mut line)
        .expect("probe answer");
    let _ = probe.wait();
    let (ms, printed) = line.trim().split_once(' ').unwrap_or(("", ""));
    let ms: u64 = ms
        .parse()
        .unwrap_or_else(|_| panic!("the host's probe said {line:?}"));
    assert_eq!(printed, "[]", "link down: the host's hook prints nothing");
    assert!(
        ms < 2000,
        "link down: the host's hook took {ms} ms (must give up within 2 s)"
    );

    // The link comes back by itself; with the rule gone, the next call gets a card again.
    let t_down = Instant::now();
    let starts_again = wait_up(&links, starts);
    let back_after = t_down.elapsed();
    assert!(engine.send(EngineCommand::RemoveRule(rule.id.clone())));
    let r = run_on_host(&ctx, &dir, &engine, Some(CardAnswer::Allow));
    assert!(
        r.marker && r.cards.len() == 1 && r.cards[0].folder == host_folder,
        "{}",
        explain(
            "(4) after the link came back: expected a card for the host and the marker",
            &r
        )
    );
    drop(links);
    drop(engine);

    // 5. remote remove: the host's settings as they were, byte for byte; the hook gone.
    let removed = vults_app(&ctx, &["remote", "remove", ALIAS]);
    assert_eq!(
        std::fs::read(&settings).expect("settings.json"),
        original,
        "remote remove must give the host's settings.json back byte for byte:\n{removed}"
    );
    assert!(
        !host_hook.exists(),
        "the hook stays on the host:\n{removed}"
    );
    drop(sshd);
    ctx.work.keep = false;
    eprintln!(
        "real-agents: claude on an ssh host passed: link down → the host's hook silent in {ms} ms; \
         the link back up {:.1} s later (start {starts_again})",
        back_after.as_secs_f64()
    );
}
