//! Each terminal's and multiplexer's choice, from recorded `terminal` blocks (the shape the
//! hook sends, docs/hook-protocol.md) and a made-up process table for each platform.

use crate::kinds::Platform;
use crate::outcome::{Failure, FailureKind};
use crate::place::Place;
use crate::plan::fake::FakeSystem;
use crate::plan::{Cmd, Compositor, Desktop, Plan, Raise, plan_for};
use serde_json::json;
use std::path::PathBuf;
use vults_core::protocol::Terminal;

/// A place from a recorded `terminal` block.
fn place(block: serde_json::Value) -> Place {
    let t: Terminal = serde_json::from_value(block).expect("a terminal block");
    Place::local(&t)
}

fn plan(sys: &FakeSystem, p: &Place) -> Plan {
    plan_for(p, sys).unwrap_or_else(|f| panic!("no plan: {f}"))
}

fn fail(sys: &FakeSystem, p: &Place) -> Failure {
    match plan_for(p, sys) {
        Ok(plan) => panic!("a plan: {plan:?}"),
        Err(f) => f,
    }
}

fn args(cmd: &Cmd) -> String {
    cmd.args.join(" ")
}

fn x11(window: Option<u32>, pid: u32) -> Raise {
    Raise::X11 {
        display: ":0".into(),
        window,
        pid,
        title: None,
    }
}

/// systemd(1) ← xterm(300) ← bash(301) ← node(450): an agent straight in an xterm.
fn xterm_machine() -> FakeSystem {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(300, 1, "xterm").exe = Some("/usr/bin/xterm".into());
    s.table.add(301, 300, "bash").tty = Some("/dev/pts/1".into());
    s.table.add(450, 301, "node").tty = Some("/dev/pts/1".into());
    s
}

#[test]
fn xterm_raises_the_window_of_windowid() {
    let s = xterm_machine();
    let p = place(json!({"cwd": "/proj", "pid": 450, "env": {"WINDOWID": "12582926"}}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "xterm (pid 300)");
    assert!(plan.choose.is_empty());
    assert_eq!(plan.raise, [x11(Some(12582926), 300)]);
    assert!(plan.caveats.is_empty());
}

#[test]
fn a_terminal_without_windowid_is_raised_by_its_pid() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(200, 1, "gnome-terminal-").exe = Some("/usr/libexec/gnome-terminal-server".into());
    s.table.add(201, 200, "bash");
    s.table.add(210, 201, "claude");
    let p = place(
        json!({"pid": 210, "env": {"GNOME_TERMINAL_SCREEN": "/org/gnome/Terminal/screen/ab12"}}),
    );
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "GNOME Terminal (pid 200)");
    assert_eq!(plan.raise, [x11(None, 200)]);
    assert_eq!(plan.caveats.len(), 1, "its tab cannot be chosen");
}

#[test]
fn konsole_chooses_its_tab_over_dbus_with_what_the_live_environment_adds() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(500, 1, "konsole");
    s.table.add(501, 500, "zsh");
    s.table.add(502, 501, "codex");
    // The hook sends KONSOLE_DBUS_SESSION; the window and service come from the process.
    s.table.env(
        502,
        &[
            ("KONSOLE_DBUS_SESSION", "/Sessions/3"),
            ("KONSOLE_DBUS_WINDOW", "/Windows/1"),
            ("KONSOLE_DBUS_SERVICE", ":1.42"),
            ("WINDOWID", "4194311"),
        ],
    );
    s.programs
        .insert("dbus-send".into(), "/usr/bin/dbus-send".into());
    let p = place(
        json!({"pid": 502, "env": {"KONSOLE_DBUS_SESSION": "/Sessions/3", "WINDOWID": "4194311"}}),
    );
    let plan = plan(&s, &p);
    assert_eq!(plan.choose.len(), 1);
    assert_eq!(
        args(&plan.choose[0].cmd),
        "--session --type=method_call --dest=:1.42 /Windows/1 \
         org.kde.konsole.Window.setCurrentSession int32:3"
    );
    assert!(!plan.choose[0].fatal);
    assert_eq!(plan.raise, [x11(Some(4194311), 500)]);
}

fn kitty_machine() -> FakeSystem {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(800, 1, "kitty").exe = Some("/usr/lib/kitty/kitty".into());
    s.table.add(801, 800, "bash");
    s.table.add(802, 801, "node");
    s
}

#[test]
fn kitty_with_remote_control_focuses_the_agents_window_and_tab() {
    let mut s = kitty_machine();
    s.table.env(
        802,
        &[
            ("KITTY_LISTEN_ON", "unix:/tmp/kitty-800"),
            ("KITTY_WINDOW_ID", "2"),
        ],
    );
    let p = place(
        json!({"pid": 802, "env": {"KITTY_WINDOW_ID": "2", "KITTY_PID": "800", "WINDOWID": "71303180"}}),
    );
    let plan = plan(&s, &p);
    // Which of its windows, as tmux's says its pane.
    assert_eq!(plan.found().to_string(), "kitty window 2 (pid 800)");
    assert_eq!(plan.choose.len(), 1);
    assert_eq!(
        plan.choose[0].cmd.program,
        PathBuf::from("/usr/lib/kitty/kitty")
    );
    assert_eq!(
        args(&plan.choose[0].cmd),
        "@ --to unix:/tmp/kitty-800 focus-window --match id:2"
    );
    assert_eq!(plan.raise, [x11(Some(71303180), 800)]);
    assert!(plan.caveats.is_empty());
}

#[test]
fn kitty_without_remote_control_raises_its_window_and_says_how_to_turn_it_on() {
    let s = kitty_machine();
    let p = place(json!({"pid": 802, "env": {"KITTY_WINDOW_ID": "2", "WINDOWID": "71303180"}}));
    let plan = plan(&s, &p);
    assert!(plan.choose.is_empty());
    assert_eq!(plan.raise, [x11(Some(71303180), 800)]);
    assert_eq!(plan.caveats, [crate::plan::kitty_hint()]);
    assert!(plan.caveats[0].to_string().contains("allow_remote_control"));
}

#[test]
fn wezterm_activates_the_pane_with_its_own_cli_beside_the_gui() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(900, 1, "wezterm-gui").exe = Some("/usr/bin/wezterm-gui".into());
    s.table.add(901, 900, "fish");
    s.table.add(902, 901, "opencode");
    s.table.env(
        902,
        &[("WEZTERM_UNIX_SOCKET", "/run/user/1000/wezterm/gui-sock-900")],
    );
    s.files.insert("/usr/bin/wezterm".into());
    let p = place(json!({"pid": 902, "env": {"WEZTERM_PANE": "7", "TERM_PROGRAM": "WezTerm"}}));
    let plan = plan(&s, &p);
    let c = &plan.choose[0].cmd;
    assert_eq!(c.program, PathBuf::from("/usr/bin/wezterm"));
    assert_eq!(args(c), "cli --no-auto-start activate-pane --pane-id 7");
    assert_eq!(
        c.env,
        [(
            "WEZTERM_UNIX_SOCKET".to_string(),
            "/run/user/1000/wezterm/gui-sock-900".to_string()
        )]
    );
    assert_eq!(plan.raise, [x11(None, 900)]);
}

/// tmux server 600 (a daemon under systemd) runs the agent in pane %5; its client (700) runs
/// in an xterm (680) whose WINDOWID is the client's.
fn tmux_machine(client_session: &str) -> FakeSystem {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    let server = s.table.add(600, 1, "tmux: server");
    server.exe = Some("/usr/bin/tmux".into());
    server.args = vec!["tmux".into(), "new".into()];
    s.table.add(610, 600, "bash");
    s.table.add(611, 610, "claude");
    s.table.add(680, 1, "xterm");
    s.table.add(690, 680, "bash");
    s.table.add(700, 690, "tmux").exe = Some("/usr/bin/tmux".into());
    s.table.env(700, &[("WINDOWID", "8388621")]);
    let sock = "-S /tmp/tmux-1000/default";
    s.answer(
        &format!("{sock} list-panes -a -F {}", crate::mux::TMUX_PANES),
        "%0\t605\t@0\twork\n%4\t609\t@1\twork\n%5\t610\t@1\twork\n%6\t612\t@1\twork\n",
    );
    s.answer(
        &format!("{sock} list-clients -F {}", crate::mux::TMUX_CLIENTS),
        &format!("700\t1700000100\t/dev/pts/7\t{client_session}\n"),
    );
    s
}

fn tmux_place(pane: &str) -> Place {
    // The pane's environment holds the server's stale WINDOWID (the terminal that started it).
    place(json!({"cwd": "/proj", "pid": 611, "env": {
        "TMUX": "/tmp/tmux-1000/default,600,0", "TMUX_PANE": pane, "WINDOWID": "1111"
    }}))
}

#[test]
fn tmux_selects_the_window_and_pane_then_raises_the_clients_terminal() {
    let s = tmux_machine("work");
    let plan = plan(&s, &tmux_place("%5"));
    assert_eq!(
        plan.found().to_string(),
        "tmux pane %5 (window @1, session work) in xterm (pid 680)"
    );
    assert_eq!(plan.choose.len(), 1);
    assert!(plan.choose[0].fatal);
    assert_eq!(plan.choose[0].cmd.program, PathBuf::from("/usr/bin/tmux"));
    assert_eq!(
        args(&plan.choose[0].cmd),
        "-S /tmp/tmux-1000/default select-window -t %5 ; select-pane -t %5"
    );
    // The client's WINDOWID, not the one the pane inherited.
    assert_eq!(plan.raise, [x11(Some(8388621), 680)]);
}

#[test]
fn tmux_switches_a_client_on_another_session_to_the_agents() {
    let s = tmux_machine("other");
    let plan = plan(&s, &tmux_place("%5"));
    assert_eq!(
        args(&plan.choose[0].cmd),
        "-S /tmp/tmux-1000/default switch-client -c /dev/pts/7 -t %5 ; select-window -t %5 ; \
         select-pane -t %5"
    );
}

#[test]
fn tmux_prefers_the_most_recent_client_on_the_session() {
    let mut s = tmux_machine("work");
    s.table.add(720, 690, "tmux");
    s.table.env(720, &[("WINDOWID", "999")]);
    s.answer(
        &format!(
            "-S /tmp/tmux-1000/default list-clients -F {}",
            crate::mux::TMUX_CLIENTS
        ),
        "700\t1700000100\t/dev/pts/7\twork\n720\t1700000900\t/dev/pts/9\twork\n",
    );
    let plan = plan(&s, &tmux_place("%5"));
    assert_eq!(plan.raise, [x11(Some(999), 680)]);
}

#[test]
fn a_tmux_pane_is_found_by_its_process_when_tmux_pane_is_wrong() {
    let s = tmux_machine("work");
    let plan = plan(&s, &tmux_place("%4"));
    assert!(args(&plan.choose[0].cmd).contains("select-pane -t %5"));
}

#[test]
fn a_detached_tmux_session_says_how_to_attach() {
    let mut s = tmux_machine("work");
    s.answer(
        &format!(
            "-S /tmp/tmux-1000/default list-clients -F {}",
            crate::mux::TMUX_CLIENTS
        ),
        "",
    );
    let f = fail(&s, &tmux_place("%5"));
    assert_eq!(f.kind, FailureKind::Detached);
    assert!(
        f.message
            .to_string()
            .starts_with("run `tmux attach -t work` in a terminal"),
        "the remedy first: {f}"
    );
}

/// A tmux server on a socket of its own: the command names it, or it would not attach.
#[test]
fn the_attach_hint_names_a_tmux_socket_that_is_not_the_default() {
    use crate::mux::tmux_attach;
    assert_eq!(
        tmux_attach("/tmp/tmux-1000/default", "work"),
        "tmux attach -t work"
    );
    assert_eq!(
        tmux_attach("/tmp/tmux-1000/agents", "work"),
        "tmux -S /tmp/tmux-1000/agents attach -t work"
    );
    assert_eq!(
        tmux_attach("/run/user/1000/my tmux", "api web"),
        "tmux -S '/run/user/1000/my tmux' attach -t 'api web'"
    );
}

#[test]
fn a_gone_tmux_pane_or_server_says_so() {
    let mut s = tmux_machine("work");
    s.answer(
        &format!(
            "-S /tmp/tmux-1000/default list-panes -a -F {}",
            crate::mux::TMUX_PANES
        ),
        "%0\t605\t@0\twork\n",
    );
    let f = fail(&s, &tmux_place("%5"));
    assert_eq!(f.kind, FailureKind::Ended);
    assert_eq!(f.message.to_string(), "the agent's tmux pane %5 is gone");
    // The window words it in the person's language when it draws it; the log keeps English.
    {
        let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
        assert_eq!(
            f.message.text(),
            "o painel %5 do tmux do agente não existe mais"
        );
        assert_eq!(f.to_string(), "the agent's tmux pane %5 is gone");
    }
    assert_eq!(f.message.text(), "the agent's tmux pane %5 is gone");
    s.refuse(
        &format!(
            "-S /tmp/tmux-1000/default list-panes -a -F {}",
            crate::mux::TMUX_PANES
        ),
        "no server running on /tmp/tmux-1000/default",
    );
    let f = fail(&s, &tmux_place("%5"));
    assert_eq!(f.kind, FailureKind::Failed);
    assert_eq!(
        f.message.to_string(),
        "tmux: no server running on /tmp/tmux-1000/default"
    );
    // A program's own error is said as it came, in every language.
    let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
    assert_eq!(
        f.message.text(),
        "tmux: no server running on /tmp/tmux-1000/default"
    );
}

#[test]
fn tmux_in_kitty_chooses_the_pane_and_the_clients_kitty_tab() {
    let mut s = tmux_machine("work");
    s.table.procs.get_mut(&680).expect("terminal").name = "kitty".into();
    s.table.env(
        700,
        &[
            ("WINDOWID", "8388621"),
            ("KITTY_WINDOW_ID", "3"),
            ("KITTY_LISTEN_ON", "unix:/tmp/kitty-680"),
        ],
    );
    let plan = plan(&s, &tmux_place("%5"));
    assert_eq!(plan.choose.len(), 2);
    assert!(args(&plan.choose[0].cmd).contains("select-pane -t %5"));
    assert_eq!(
        args(&plan.choose[1].cmd),
        "@ --to unix:/tmp/kitty-680 focus-window --match id:3"
    );
    assert_eq!(
        plan.found().to_string(),
        "tmux pane %5 (window @1, session work) in kitty window 3 (pid 680)"
    );
}

#[test]
fn gnu_screen_selects_the_window_and_follows_the_client_that_started_it() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(300, 1, "xterm");
    s.table.add(301, 300, "bash");
    let client = s.table.add(310, 301, "screen");
    client.args = vec!["screen".into()];
    client.tty = Some("/dev/pts/2".into());
    s.table.add(311, 310, "screen").args = vec!["SCREEN".into()];
    s.table.add(312, 311, "bash");
    s.table.add(313, 312, "claude");
    s.table.env(
        313,
        &[
            ("WINDOW", "2"),
            ("STY", "311.pts-2.box"),
            ("SCREENDIR", "/home/me/.screen"),
        ],
    );
    s.table.env(310, &[("WINDOWID", "2097166")]);
    let p = place(json!({"pid": 313, "env": {"STY": "311.pts-2.box"}}));
    let plan = plan(&s, &p);
    assert_eq!(args(&plan.choose[0].cmd), "-S 311.pts-2.box -X select 2");
    // The agent's own socket folder goes with the command.
    assert_eq!(
        plan.choose[0].cmd.env,
        [("SCREENDIR".to_string(), "/home/me/.screen".to_string())]
    );
    assert_eq!(
        plan.found().to_string(),
        "screen window 2 (session 311.pts-2.box) in xterm (pid 300)"
    );
    assert_eq!(plan.raise, [x11(Some(2097166), 300)]);
}

#[test]
fn a_reattached_screen_session_is_found_by_the_client_naming_it() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(311, 1, "screen").args = vec!["SCREEN".into()];
    s.table.add(312, 311, "bash");
    s.table.add(313, 312, "claude");
    for (term, sh, cl, args) in [
        (300, 301, 302, "-r other"),
        (400, 401, 402, "-x 311.pts-2.box"),
    ] {
        s.table.add(term, 1, "xterm");
        s.table.add(sh, term, "bash");
        let c = s.table.add(cl, sh, "screen");
        c.args = std::iter::once("screen")
            .chain(args.split(' '))
            .map(String::from)
            .collect();
        c.tty = Some(format!("/dev/pts/{cl}"));
    }
    let p = place(json!({"pid": 313, "env": {"STY": "311.pts-2.box"}}));
    let plan = plan(&s, &p);
    assert!(
        plan.found().to_string().ends_with("in xterm (pid 400)"),
        "{}",
        plan.found().to_string()
    );
    // No WINDOW: the session is shown, its window not chosen.
    assert!(plan.choose.is_empty());
    assert_eq!(plan.caveats.len(), 1);
}

#[test]
fn zellij_focuses_the_pane_by_id_and_follows_its_client() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    let server = s.table.add(1000, 1, "zellij");
    server.exe = Some("/usr/bin/zellij".into());
    server.args = ["zellij", "--server", "/run/user/1000/zellij/0.44.1/dev"]
        .map(String::from)
        .to_vec();
    s.table.add(1001, 1000, "bash");
    s.table.add(1002, 1001, "qwen");
    s.table.add(800, 1, "alacritty");
    s.table.add(801, 800, "bash");
    let client = s.table.add(802, 801, "zellij");
    client.args = ["zellij", "attach", "dev"].map(String::from).to_vec();
    client.tty = Some("/dev/pts/3".into());
    let p =
        place(json!({"pid": 1002, "env": {"ZELLIJ_SESSION_NAME": "dev", "ZELLIJ_PANE_ID": "3"}}));
    let plan = plan(&s, &p);
    assert_eq!(plan.choose[0].cmd.program, PathBuf::from("/usr/bin/zellij"));
    assert_eq!(
        args(&plan.choose[0].cmd),
        "--session dev action focus-pane-id terminal_3"
    );
    assert!(!plan.choose[0].fatal);
    assert_eq!(
        plan.found().to_string(),
        "Zellij pane 3 (session dev) in Alacritty (pid 800)"
    );
    assert_eq!(plan.raise, [x11(None, 800)]);
}

#[test]
fn vs_code_raises_the_window_with_the_projects_name_or_opens_its_folder() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(2000, 1, "code").exe = Some("/usr/share/code/code".into());
    s.table.add(2010, 2000, "code").exe = Some("/usr/share/code/code".into());
    s.table.add(2011, 2010, "bash");
    s.table.add(2012, 2011, "claude");
    s.files.insert("/usr/share/code/bin/code".into());
    s.dirs.insert("/home/me/proj/src".into());
    s.dirs.insert("/home/me/proj/.git".into());
    let p = place(json!({"cwd": "/home/me/proj/src", "pid": 2012,
        "env": {"TERM_PROGRAM": "vscode", "VSCODE_PID": "2000"}}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "VS Code (pid 2000)");
    assert_eq!(
        plan.raise,
        [
            Raise::X11 {
                display: ":0".into(),
                window: None,
                pid: 2000,
                title: Some("proj".into())
            },
            Raise::Editor {
                cli: "/usr/share/code/bin/code".into(),
                folder: "/home/me/proj".into(),
                label: "VS Code"
            }
        ]
    );
    // A folder that is not there is never opened.
    let p = place(json!({"cwd": "/gone", "pid": 2012, "env": {"TERM_PROGRAM": "vscode"}}));
    assert_eq!(plan_for(&p, &s).expect("plan").raise.len(), 1);
}

#[test]
fn vs_code_on_gnome_wayland_still_shows_its_window_through_its_own_cli() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.desktop = Desktop {
        x11: None,
        wayland: Some(Compositor::Gnome),
    };
    s.table.add(1, 0, "systemd");
    s.table.add(2000, 1, "code").exe = Some("/usr/share/code/code".into());
    s.table.add(2011, 2000, "bash");
    s.programs.insert("code".into(), "/usr/bin/code".into());
    s.dirs.insert("/home/me/proj".into());
    let p = place(json!({"cwd": "/home/me/proj", "pid": 2011}));
    let plan = plan(&s, &p);
    assert_eq!(
        plan.raise,
        [Raise::Editor {
            cli: "/usr/bin/code".into(),
            folder: "/home/me/proj".into(),
            label: "VS Code"
        }]
    );
    assert_eq!(plan.cannot_raise, None);
}

#[test]
fn cursor_on_a_mac_opens_its_folder_with_the_bundles_cli() {
    let mut s = FakeSystem::new(Platform::MacOs);
    s.table.add(1, 0, "launchd");
    s.table.add(3000, 1, "Cursor").exe =
        Some("/Applications/Cursor.app/Contents/MacOS/Cursor".into());
    s.table.add(3001, 3000, "Cursor Helper (Plugin)").exe = Some(
        "/Applications/Cursor.app/Contents/Frameworks/Cursor Helper (Plugin).app/Contents/MacOS/Cursor Helper (Plugin)"
            .into(),
    );
    s.table.add(3002, 3001, "zsh");
    s.table.add(3003, 3002, "claude");
    s.files
        .insert("/Applications/Cursor.app/Contents/Resources/app/bin/cursor".into());
    s.dirs.insert("/Users/me/app".into());
    let p = place(json!({"cwd": "/Users/me/app", "pid": 3003, "env": {"TERM_PROGRAM": "vscode"}}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "Cursor (pid 3000)");
    assert_eq!(
        plan.raise,
        [
            Raise::Editor {
                cli: "/Applications/Cursor.app/Contents/Resources/app/bin/cursor".into(),
                folder: "/Users/me/app".into(),
                label: "Cursor"
            },
            Raise::MacApp {
                app: "/Applications/Cursor.app".into()
            }
        ]
    );
}

fn mac_terminal(app: &str, exe: &str) -> FakeSystem {
    let mut s = FakeSystem::new(Platform::MacOs);
    s.table.add(1, 0, "launchd");
    s.table.add(400, 1, app).exe = Some(exe.into());
    s.table.add(401, 400, "login").tty = Some("/dev/ttys004".into());
    s.table.add(402, 401, "zsh").tty = Some("/dev/ttys004".into());
    s.table.add(403, 402, "claude").tty = Some("/dev/ttys004".into());
    s
}

#[test]
fn iterm2_is_shown_by_its_session_id() {
    let s = mac_terminal("iTerm2", "/Applications/iTerm.app/Contents/MacOS/iTerm2");
    let p = place(json!({"pid": 403, "env": {
        "TERM_PROGRAM": "iTerm.app",
        "ITERM_SESSION_ID": "w0t1p0:6B29F4B4-1A2B-4C3D-9E8F-0123456789AB"
    }}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "iTerm2 (pid 400)");
    assert_eq!(
        plan.raise,
        [Raise::MacIterm {
            session: Some("6B29F4B4-1A2B-4C3D-9E8F-0123456789AB".into()),
            tty: Some("/dev/ttys004".into())
        }]
    );
}

#[test]
fn apple_terminal_is_shown_by_the_agents_tty() {
    let s = mac_terminal(
        "Terminal",
        "/System/Applications/Utilities/Terminal.app/Contents/MacOS/Terminal",
    );
    let p = place(json!({"pid": 403, "env": {
        "TERM_PROGRAM": "Apple_Terminal", "TERM_SESSION_ID": "E1F2-…"
    }}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "Terminal (pid 400)");
    assert_eq!(
        plan.raise,
        [Raise::MacTerminal {
            tty: "/dev/ttys004".into()
        }]
    );
}

#[test]
fn kitty_on_a_mac_chooses_its_tab_then_brings_the_app_forward() {
    let mut s = mac_terminal("kitty", "/Applications/kitty.app/Contents/MacOS/kitty");
    s.table
        .env(403, &[("KITTY_LISTEN_ON", "unix:/tmp/mykitty")]);
    let p = place(json!({"pid": 403, "env": {"KITTY_WINDOW_ID": "1"}}));
    let plan = plan(&s, &p);
    assert_eq!(
        args(&plan.choose[0].cmd),
        "@ --to unix:/tmp/mykitty focus-window --match id:1"
    );
    assert_eq!(
        plan.raise,
        [Raise::MacApp {
            app: "/Applications/kitty.app".into()
        }]
    );
}

fn windows_machine() -> FakeSystem {
    let mut s = FakeSystem::new(Platform::Windows);
    s.desktop = Desktop::default();
    s.table.add(4, 0, "System");
    s.table.add(5000, 4, "explorer.exe");
    s
}

#[test]
fn windows_terminal_raises_the_window_holding_the_agents_console() {
    let mut s = windows_machine();
    s.table.add(5100, 5000, "WindowsTerminal.exe").exe = Some(
        r"C:\Program Files\WindowsApps\Microsoft.WindowsTerminal_1.21\WindowsTerminal.exe".into(),
    );
    s.table.add(5110, 5100, "OpenConsole.exe");
    s.table.add(5120, 5100, "pwsh.exe");
    s.table.add(5130, 5120, "node.exe");
    let p = place(json!({"cwd": r"C:\src\app", "pid": 5130, "env": {
        "WT_SESSION": "0b5e4d4c-96a3-4f3d-a4b8-3b3c3d5e6f70",
        "WT_PROFILE_ID": "{574e775e-4f2a-5b96-ac1e-a2962a402336}"
    }}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "Windows Terminal (pid 5100)");
    assert_eq!(
        plan.raise,
        [
            Raise::WinConsole { pid: 5130 },
            Raise::WinWindowOf { pid: 5100 }
        ]
    );
    assert_eq!(plan.caveats.len(), 1, "its tab cannot be chosen");
}

#[test]
fn a_conhost_console_raises_its_console_window() {
    let mut s = windows_machine();
    s.table.add(5200, 5000, "cmd.exe");
    s.table.add(5201, 5200, "conhost.exe");
    s.table.add(5210, 5200, "node.exe");
    let p = place(json!({"cwd": r"C:\src\app", "pid": 5210, "env": {}}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "console window");
    assert_eq!(plan.raise, [Raise::WinConsole { pid: 5210 }]);
}

#[test]
fn windows_terminal_as_the_default_terminal_is_reached_through_the_console() {
    let mut s = windows_machine();
    s.table.add(5300, 5000, "cmd.exe");
    s.table.add(5310, 5300, "codex.exe");
    let p =
        place(json!({"pid": 5310, "env": {"WT_SESSION": "0b5e4d4c-96a3-4f3d-a4b8-3b3c3d5e6f70"}}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "Windows Terminal");
    assert_eq!(plan.raise, [Raise::WinConsole { pid: 5310 }]);
}

#[test]
fn vs_code_on_windows_opens_its_folder_then_raises_its_window() {
    let mut s = windows_machine();
    let code = r"C:\Users\me\AppData\Local\Programs\Microsoft VS Code\Code.exe";
    s.table.add(6000, 5000, "Code.exe").exe = Some(code.into());
    s.table.add(6010, 6000, "Code.exe").exe = Some(code.into());
    s.table.add(6020, 6010, "pwsh.exe");
    s.table.add(6030, 6020, "claude.exe");
    s.files
        .insert(r"C:\Users\me\AppData\Local\Programs\Microsoft VS Code\bin\code.cmd".into());
    s.dirs.insert(r"C:\src\app".into());
    let p = place(json!({"cwd": r"C:\src\app", "pid": 6030, "env": {"TERM_PROGRAM": "vscode"}}));
    let plan = plan(&s, &p);
    assert_eq!(plan.found().to_string(), "VS Code (pid 6000)");
    assert_eq!(
        plan.raise,
        [
            Raise::Editor {
                cli: r"C:\Users\me\AppData\Local\Programs\Microsoft VS Code\bin\code.cmd".into(),
                folder: r"C:\src\app".into(),
                label: "VS Code"
            },
            Raise::WinWindowOf { pid: 6000 }
        ]
    );
}

/// An xterm (300) running `ssh me@devbox` (310), and Vults' own link (an ssh without a tty).
fn ssh_machine() -> FakeSystem {
    let mut s = xterm_machine();
    let link = s.table.add(250, 1, "ssh");
    link.args = [
        "ssh",
        "-N",
        "-T",
        "-R",
        "/h/run/vults.sock:/l/hosts/devbox.sock",
        "--",
        "devbox",
    ]
    .map(String::from)
    .to_vec();
    let ssh = s.table.add(310, 301, "ssh");
    ssh.args = ["ssh", "-t", "me@devbox"].map(String::from).to_vec();
    ssh.tty = Some("/dev/pts/1".into());
    s.table.env(310, &[("WINDOWID", "12582926")]);
    s
}

fn host_place(host: &str) -> Place {
    let t: Terminal = serde_json::from_value(json!({
        "cwd": "/home/me/app", "pid": 300,
        "env": {"TMUX": "/tmp/tmux-1001/default,77,0", "TMUX_PANE": "%2"}
    }))
    .expect("block");
    Place::on_host(&t, host)
}

#[test]
fn an_agent_on_an_ssh_host_shows_the_local_terminal_running_ssh_to_it() {
    let s = ssh_machine();
    let plan = plan(&s, &host_place("devbox"));
    assert_eq!(
        plan.found().to_string(),
        "ssh to devbox (pid 310) in xterm (pid 300)"
    );
    // The host's pid (300 here too) and its tmux are never used locally.
    assert!(plan.choose.is_empty());
    assert_eq!(plan.raise, [x11(Some(12582926), 300)]);
    assert_eq!(plan.caveats.len(), 1);
    assert!(
        plan.caveats[0].to_string().contains("runs on devbox"),
        "{:?}",
        plan.caveats
    );
    assert!(
        plan.caveats[0].to_string().contains("tmux pane %2 there"),
        "{:?}",
        plan.caveats
    );
    assert!(
        s.asked.borrow().is_empty(),
        "nothing is asked of the host: {:?}",
        s.asked.borrow()
    );
}

#[test]
fn an_ssh_host_known_by_an_alias_is_matched_through_ssh_g() {
    let mut s = ssh_machine();
    s.programs.insert("ssh".into(), "/usr/bin/ssh".into());
    s.answer(
        "-G -- box",
        "host box\nhostname 10.0.0.5\nuser me\nport 22\n",
    );
    s.answer(
        "-G -l me -- devbox",
        "host devbox\nhostname 10.0.0.5\nuser me\nport 22\n",
    );
    let plan = plan(&s, &host_place("box"));
    assert_eq!(
        plan.found().to_string(),
        "ssh to box (pid 310) in xterm (pid 300)"
    );
}

#[test]
fn an_ssh_host_with_no_local_ssh_says_where_the_agent_is() {
    let mut s = ssh_machine();
    s.table.procs.remove(&310);
    let f = fail(&s, &host_place("devbox"));
    assert_eq!(f.kind, FailureKind::Elsewhere);
    assert_eq!(
        f.message.to_string(),
        "the agent runs on devbox, and no terminal on this computer runs ssh to it"
    );
    // Another user on the host is another destination.
    let f = fail(&ssh_machine(), &host_place("root@devbox"));
    assert_eq!(f.kind, FailureKind::Elsewhere);
}

#[test]
fn an_agent_in_an_ssh_login_into_this_computer_has_its_terminal_elsewhere() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(700, 1, "sshd");
    s.table.add(710, 700, "sshd-session");
    s.table.add(711, 710, "bash");
    s.table.add(712, 711, "claude");
    s.table.env(
        712,
        &[("SSH_CONNECTION", "192.168.1.20 50000 192.168.1.5 22")],
    );
    let f = fail(&s, &place(json!({"pid": 712})));
    assert_eq!(f.kind, FailureKind::Elsewhere);
    assert!(f.message.to_string().contains("from 192.168.1.20"), "{f}");
}

#[test]
fn a_process_that_ended_gives_the_one_line_reason() {
    let s = xterm_machine();
    let f = fail(&s, &place(json!({"pid": 4242, "env": {"WINDOWID": "5"}})));
    assert_eq!(f.kind, FailureKind::Ended);
    assert_eq!(
        f.message.to_string(),
        "the agent's process (pid 4242) has ended"
    );
    let f = fail(&s, &place(json!({"cwd": "/x"})));
    assert_eq!(f.kind, FailureKind::NotFound);
}

#[test]
fn a_pid_given_to_another_program_is_an_ended_agent() {
    let mut s = xterm_machine();
    // Another program's pane variable.
    s.table.env(450, &[("TMUX_PANE", "%9")]);
    let f = fail(&s, &place(json!({"pid": 450, "env": {"TMUX_PANE": "%1"}})));
    assert_eq!(f.kind, FailureKind::Ended);
    // Started after the event arrived (the table's processes start at their pid in ms).
    let s = xterm_machine();
    let seen = std::time::UNIX_EPOCH + std::time::Duration::from_secs(5);
    assert!(plan_for(&place(json!({"pid": 450})).seen_at(seen), &s).is_ok());
    let mut s = xterm_machine();
    s.table.procs.get_mut(&450).expect("agent").started_ms = Some(10_000);
    let f = fail(&s, &place(json!({"pid": 450})).seen_at(seen));
    assert_eq!(f.kind, FailureKind::Ended);
}

#[test]
fn without_a_display_nothing_can_be_raised() {
    let mut s = xterm_machine();
    s.desktop = Desktop::default();
    let plan = plan(&s, &place(json!({"pid": 450})));
    assert!(plan.raise.is_empty());
    assert_eq!(
        plan.cannot_raise.as_ref().map(|f| f.kind),
        Some(FailureKind::NoDisplay)
    );
}

#[test]
fn wayland_compositors_each_raise_their_own_way() {
    let p = place(json!({"pid": 450, "env": {"WINDOWID": "77"}}));
    let mut s = xterm_machine();
    s.desktop = Desktop {
        x11: Some(":0".into()),
        wayland: Some(Compositor::Sway("/run/user/1000/sway.sock".into())),
    };
    assert_eq!(
        plan(&s, &p).raise,
        [
            Raise::Sway {
                socket: "/run/user/1000/sway.sock".into(),
                pid: 300
            },
            x11(Some(77), 300)
        ]
    );
    s.desktop.wayland = Some(Compositor::Hyprland(vec![
        "/run/user/1000/hypr/x/.socket.sock".into(),
    ]));
    assert!(matches!(
        plan(&s, &p).raise[0],
        Raise::Hyprland { pid: 300, .. }
    ));
    s.desktop.wayland = Some(Compositor::Kde);
    assert_eq!(plan(&s, &p).raise[0], Raise::Kwin { pid: 300 });
    // GNOME: only an XWayland window can come forward; the reason is kept for the rest.
    s.desktop.wayland = Some(Compositor::Gnome);
    let plan_gnome = plan(&s, &p);
    assert_eq!(plan_gnome.raise, [x11(Some(77), 300)]);
    let reason = plan_gnome.cannot_raise.expect("a reason");
    assert_eq!(reason.kind, FailureKind::Forbidden);
    assert!(
        reason
            .message
            .to_string()
            .starts_with("cannot raise windows on this desktop")
    );
    s.desktop = Desktop {
        x11: None,
        wayland: Some(Compositor::Other("river".into())),
    };
    let plan_other = plan(&s, &p);
    assert!(plan_other.raise.is_empty());
    assert!(
        plan_other
            .cannot_raise
            .expect("reason")
            .message
            .to_string()
            .contains("river")
    );
}

#[test]
fn the_desktop_is_read_from_the_environment() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    };
    assert_eq!(
        Desktop::from_env(env(&[("DISPLAY", ":1")])),
        Desktop {
            x11: Some(":1".into()),
            wayland: None
        }
    );
    let d = Desktop::from_env(env(&[
        ("WAYLAND_DISPLAY", "wayland-1"),
        ("HYPRLAND_INSTANCE_SIGNATURE", "abc_123"),
        ("XDG_RUNTIME_DIR", "/run/user/1000"),
    ]));
    assert_eq!(
        d.wayland,
        Some(Compositor::Hyprland(vec![
            "/run/user/1000/hypr/abc_123/.socket.sock".into(),
            "/tmp/hypr/abc_123/.socket.sock".into()
        ]))
    );
    let d = Desktop::from_env(env(&[
        ("XDG_SESSION_TYPE", "wayland"),
        ("XDG_CURRENT_DESKTOP", "KDE"),
    ]));
    assert_eq!(d.wayland, Some(Compositor::Kde));
    let d = Desktop::from_env(env(&[
        ("WAYLAND_DISPLAY", "wayland-1"),
        ("HYPRLAND_INSTANCE_SIGNATURE", "../../etc"),
    ]));
    assert_eq!(
        d.wayland,
        Some(Compositor::Other("this Wayland compositor".into()))
    );
}

#[test]
fn a_daemon_with_no_terminal_says_what_is_above_it() {
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(90, 1, "cron");
    s.table.add(91, 90, "sh");
    s.table.add(92, 91, "claude");
    let f = fail(&s, &place(json!({"pid": 92})));
    assert_eq!(f.kind, FailureKind::NotFound);
    assert_eq!(
        f.message.to_string(),
        "found no terminal window above the agent's process (pid 92: claude < sh < cron < systemd)"
    );
}

#[test]
fn hostile_variables_are_not_passed_on() {
    let mut s = kitty_machine();
    s.table.env(802, &[("KITTY_LISTEN_ON", "unix:/tmp/k\nx")]);
    let p = place(json!({"pid": 802, "env": {
        "KITTY_WINDOW_ID": "2; rm -rf /", "WINDOWID": "0x4c0000e"
    }}));
    let plan = plan(&s, &p);
    assert!(plan.choose.is_empty());
    assert_eq!(plan.raise, [x11(Some(0x4c0000e), 800)]);
    let mut s = tmux_machine("work");
    s.table.procs.get_mut(&600).expect("server").args = vec!["tmux: server".into()];
    let f = fail(
        &s,
        &place(json!({"pid": 611, "env": {"TMUX": "relative/sock,600,0", "TMUX_PANE": "%5"}})),
    );
    assert_eq!(f.kind, FailureKind::NotFound);
    assert!(f.message.to_string().contains("socket is unknown"), "{f}");
}

#[test]
fn a_headless_task_vults_started_has_no_terminal_even_when_vults_runs_in_one() {
    let mut s = xterm_machine();
    // Vults (pid 460) was started from the xterm's shell; it runs `claude -p` (470).
    s.table.add(460, 301, "vults-app");
    s.table.add(470, 460, "claude");
    s.own_pid = 460;
    let f = fail(
        &s,
        &place(json!({"pid": 470, "env": {"VULTS_TASK": "t-1"}})),
    );
    assert_eq!(f.kind, FailureKind::NoTerminal);
    // A task Vults started in a terminal of its own is that terminal's.
    s.table.add(480, 460, "kitty");
    s.table.add(481, 480, "sh");
    s.table.add(482, 481, "claude");
    assert_eq!(
        plan(&s, &place(json!({"pid": 482}))).found().to_string(),
        "kitty (pid 480)"
    );
}

/// GNOME (mutter with XWayland), the agent in foot, a native Wayland terminal: the X11 way finds
/// no window list on XWayland, and the line says GNOME's reason, not the X server's
/// ("its window manager keeps no window list (_NET_CLIENT_LIST)").
#[cfg(all(unix, not(target_os = "macos")))]
#[test]
fn gnome_with_a_native_wayland_terminal_says_gnome_lets_no_app_raise_it() {
    struct NoX11Windows;
    impl crate::exec::Act for NoX11Windows {
        fn run(&self, _cmd: &Cmd) -> Result<String, vults_i18n::Message> {
            Ok(String::new())
        }
        fn raise(&self, how: &Raise) -> Result<Option<vults_i18n::Message>, Failure> {
            assert!(matches!(how, Raise::X11 { .. }), "{how:?}");
            Err(crate::x11::no_window_list())
        }
    }
    let mut s = FakeSystem::new(Platform::Unix);
    s.table.add(1, 0, "systemd");
    s.table.add(300, 1, "foot").exe = Some("/usr/bin/foot".into());
    s.table.add(301, 300, "bash").tty = Some("/dev/pts/1".into());
    s.table.add(450, 301, "node").tty = Some("/dev/pts/1".into());
    s.desktop = Desktop {
        x11: Some(":0".into()),
        wayland: Some(Compositor::Gnome),
    };
    let f = plan(&s, &place(json!({"pid": 450})))
        .run_with(&NoX11Windows)
        .expect_err("nothing can raise foot on GNOME");
    assert_eq!(f.kind, FailureKind::Forbidden);
    assert!(
        f.message
            .to_string()
            .contains("GNOME on Wayland does not let an app bring another app's window"),
        "{f}"
    );
    assert!(!f.message.to_string().contains("_NET_CLIENT_LIST"), "{f}");
    // On plain X11 the X server's reason is the one there is.
    s.desktop.wayland = None;
    let f = plan(&s, &place(json!({"pid": 450})))
        .run_with(&NoX11Windows)
        .expect_err("no window list");
    assert!(f.message.to_string().contains("_NET_CLIENT_LIST"), "{f}");
}
