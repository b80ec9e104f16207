//! The Windows build's floating windows under Wine (issue 38): the real `vults-app.exe` and
//! `vults-hook.exe` on an `Xvfb` with openbox and a focused xterm, driven from outside with
//! xdotool as a person's input arrives on X11, and read back from both sides:
//!
//! - the island and a card are drawn whole at the top centre and the top right: each is an
//!   override-redirect X window (Wine hands only an unmanaged window to no window manager), no
//!   openbox frame or title bar, the size the app asked for, painted from its first row to its
//!   last;
//! - from the Windows side (the app's debug log of `GetWindowLongPtrW` when each is first
//!   shown) each is a `WS_POPUP` with no caption, system menu or boxes, and
//!   `WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE | WS_EX_TOPMOST` without `WS_EX_APPWINDOW`;
//! - neither takes the keyboard when it appears: the xterm keeps the X input focus and stays
//!   openbox's active window, and `a` typed there reaches it and answers nothing (the hook still
//!   waits, the audit has no answer);
//! - a click on Deny denies; a click into the next card and then `a` allows (the card takes the
//!   X input focus on the click), and the audit says so.
//!
//! Run by `.ci/cross.sh` once the Windows build is made, natively: `VULTS_WINE_EXES` is the
//! folder of the two exes and `WINEPREFIX` the prefix `.ci/wine-setup.sh` made. Without
//! `VULTS_WINE_EXES` the test says it skips; with it, a missing tool is a failure.

#[cfg(target_os = "linux")]
mod wine {
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use vults_tests::compositors::{Desktop, Kind, Rect, Window};
    use vults_tests::desktop::{on_path, run};

    const TERMINAL: &str = "vults-terminal";
    const ISLAND: &str = "Vults island";
    /// How a card window's title starts.
    const CARD: &str = "Vults: Claude Code — Bash";
    /// The island's size (vults_ui::island::SIZE) at Wine's 96 dpi.
    const ISLAND_SIZE: (i64, i64) = (300, 38);

    const WS_POPUP: u32 = 0x8000_0000;
    const WS_CAPTION: u32 = 0x00C0_0000;
    const WS_SYSMENU: u32 = 0x0008_0000;
    const WS_THICKFRAME: u32 = 0x0004_0000;
    const WS_MINIMIZEBOX: u32 = 0x0002_0000;
    const WS_MAXIMIZEBOX: u32 = 0x0001_0000;
    const WS_EX_TOPMOST: u32 = 0x0000_0008;
    const WS_EX_TOOLWINDOW: u32 = 0x0000_0080;
    const WS_EX_APPWINDOW: u32 = 0x0004_0000;
    const WS_EX_NOACTIVATE: u32 = 0x0800_0000;

    /// The Windows programs under Wine, with this test's prefix and home.
    struct Wine {
        exes: PathBuf,
        env: Vec<(String, String)>,
    }

    impl Wine {
        fn command(&self, exe: &str) -> Command {
            let mut c = Command::new("wine");
            c.arg(self.exes.join(exe))
                .env_clear()
                .envs(self.env.iter().map(|(k, v)| (k, v)));
            c
        }

        /// `path` as Wine's programs see it (`Z:\…`).
        fn path(&self, path: &Path) -> String {
            let out = Command::new("winepath")
                .arg("-w")
                .arg(path)
                .env_clear()
                .envs(self.env.iter().map(|(k, v)| (k, v)))
                .stderr(Stdio::null())
                .output()
                .expect("winepath runs");
            let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
            assert!(!text.is_empty(), "winepath -w {}", path.display());
            text
        }

        /// Ends this prefix's wineserver and every Windows program in it, and waits.
        fn end(&self) {
            for args in [["-k"], ["-w"]] {
                let _ = Command::new("wineserver")
                    .args(args)
                    .env_clear()
                    .envs(self.env.iter().map(|(k, v)| (k, v)))
                    .status();
            }
        }
    }

    /// A Windows program started by the test, killed when the test ends however it ends.
    struct Kid(Child);

    impl Drop for Kid {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    struct Run {
        desktop: Desktop,
        home: vults_tests::TempHome,
        wine: Wine,
        typed: PathBuf,
        _app: Kid,
    }

    impl Drop for Run {
        /// The Windows programs end before their desktop does.
        fn drop(&mut self) {
            self.wine.end();
        }
    }

    impl Run {
        /// The app's log file and its stderr.
        fn log(&self) -> String {
            let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
            read(self.home.dir.join("log").join("vults.log"))
                + &read(self.home.dir.join("app.stderr"))
        }

        fn audit(&self) -> Vec<serde_json::Value> {
            std::fs::read_to_string(self.home.dir.join("data").join("audit.jsonl"))
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        }

        /// What a failure shows: the windows, the focus, the terminal's text, the app's log.
        fn state(&self) -> String {
            self.desktop
                .screenshot(&shots().join("windows-popups-failed.png"));
            format!(
                "windows: {:#?}\nfocus: {:?}\nthe terminal got: {:?}\naudit: {:?}\napp log:\n{}",
                self.desktop.windows(),
                self.desktop.focused(),
                std::fs::read_to_string(&self.typed).unwrap_or_default(),
                self.audit(),
                self.log(),
            )
        }

        fn windows(&self, starts: &str) -> Vec<Window> {
            let mut w: Vec<Window> = self
                .desktop
                .windows()
                .into_iter()
                .filter(|w| w.title.starts_with(starts))
                .collect();
            w.sort_by_key(|w| (w.rect.y, w.rect.x));
            w
        }

        /// The one window whose title starts with `starts`, once it has stopped moving.
        fn settled(&self, starts: &str) -> Window {
            let mut last: Vec<Window> = Vec::new();
            let settled = wait_until(90, || {
                let now = self.windows(starts);
                let same = now.len() == 1 && now == last;
                last = now;
                std::thread::sleep(Duration::from_millis(300));
                same
            });
            assert!(
                settled,
                "no settled window {starts:?}: {last:?}\n{}",
                self.state()
            );
            last.remove(0)
        }

        /// The real hook, through Wine, asking for Claude Code's Bash `command` in session
        /// `session`; it waits for its answer.
        fn ask(&self, session: &str, command: &str) -> Kid {
            let project = self.home.dir.join("project");
            let payload = serde_json::json!({
                "session_id": session,
                "cwd": self.wine.path(&project),
                "hook_event_name": "PermissionRequest",
                "tool_name": "Bash",
                "tool_input": {"command": command}
            });
            let mut child = self
                .wine
                .command("vults-hook.exe")
                .args(["--agent", "claude", "PermissionRequest"])
                .current_dir(&project)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("the hook starts under Wine");
            let mut stdin = child.stdin.take().expect("stdin");
            stdin
                .write_all(payload.to_string().as_bytes())
                .expect("the payload");
            drop(stdin);
            Kid(child)
        }

        /// Checks a floating window from outside: override-redirect (no window manager frame,
        /// no title bar), and painted from its first row to its last down its middle.
        fn whole(&self, what: &str, w: &Window) {
            let id = w.x_id.expect("an X window").to_string();
            let info = run(&self.desktop.x_env(), "xwininfo", &["-id", &id]).unwrap_or_default();
            assert!(
                info.contains("Override Redirect State: yes"),
                "{what} is a managed window (a title bar and the window manager's place):\n{info}\n{}",
                self.state()
            );
            let column = self.column(w.rect);
            let painted = |i: usize| column.get(i).is_some_and(|p| *p != [0, 0, 0]);
            let h = column.len();
            assert!(
                h as i64 == w.rect.h && painted(0) && painted(h.saturating_sub(1)),
                "{what} is not drawn from its top to its bottom at {:?}: {column:?}\n{}",
                w.rect,
                self.state()
            );
        }

        /// The screen's pixels down the middle of `r`, top to bottom (ImageMagick's `import`).
        fn column(&self, r: Rect) -> Vec<[u8; 3]> {
            let crop = format!("1x{}+{}+{}", r.h, r.x + r.w / 2, r.y);
            let text = run(
                &self.desktop.x_env(),
                "import",
                &["-window", "root", "-crop", &crop, "txt:-"],
            )
            .unwrap_or_default();
            // "0,12: (30,31,34)  #1E1F22  srgb(30,31,34)"
            text.lines()
                .filter_map(|l| {
                    let (_, rest) = l.split_once(": (")?;
                    let rgb: Vec<u8> = rest
                        .split(')')
                        .next()?
                        .split(',')
                        .take(3)
                        .filter_map(|v| v.trim().parse::<f64>().ok().map(|f| f as u8))
                        .collect();
                    rgb.try_into().ok()
                })
                .collect()
        }

        /// The styles the app read back from the Windows side when `title`'s window was first
        /// shown ("floating window "…" shown: style 0x…, extended style 0x…").
        fn styles(&self, title: &str) -> (u32, u32) {
            let mut found = None;
            let logged = wait_until(30, || {
                found = self.log().lines().find_map(|l| {
                    let (_, rest) = l.split_once("floating window \"")?;
                    let (name, rest) = rest.split_once("\" shown: style ")?;
                    if !name.starts_with(title) {
                        return None;
                    }
                    let (style, rest) = rest.split_once(", extended style ")?;
                    let hex = |s: &str| u32::from_str_radix(s.trim().trim_start_matches("0x"), 16);
                    Some((hex(style).ok()?, hex(rest.split_whitespace().next()?).ok()?))
                });
                found.is_some()
            });
            assert!(
                logged,
                "the app logged no styles for {title:?}\n{}",
                self.state()
            );
            found.expect("found")
        }

        fn check_styles(&self, title: &str) {
            let (style, ex) = self.styles(title);
            let shown = format!("{title:?}: style {style:#010x}, extended style {ex:#010x}");
            assert_eq!(style & WS_POPUP, WS_POPUP, "not a popup: {shown}");
            for (bit, name) in [
                (WS_CAPTION, "a caption"),
                (WS_SYSMENU, "a system menu"),
                (WS_THICKFRAME, "a frame"),
                (WS_MINIMIZEBOX, "a minimize box"),
                (WS_MAXIMIZEBOX, "a maximize box"),
            ] {
                assert_eq!(style & bit, 0, "{name}: {shown}");
            }
            let want = WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE | WS_EX_TOPMOST;
            assert_eq!(ex & want, want, "{shown}");
            assert_eq!(ex & WS_EX_APPWINDOW, 0, "an app window: {shown}");
        }

        /// The xterm has the X input focus and is openbox's active window.
        fn terminal_keeps_the_keyboard(&self, when: &str) {
            let focus = self.desktop.focused();
            let terminal = self
                .desktop
                .windows()
                .into_iter()
                .find(|w| w.title == TERMINAL)
                .and_then(|w| w.x_id);
            let active = vults_tests::desktop::active_window(&self.desktop.x_env());
            assert!(
                focus.as_deref() == Some(TERMINAL) && terminal.is_some() && active == terminal,
                "{when}: the keyboard left the terminal (focus {focus:?}, active window \
                 {active:?}, the terminal {terminal:?})\n{}",
                self.state()
            );
        }

        /// Types `a` and Return into the terminal with `hooks` waiting: the terminal gets them,
        /// no hook is answered, the audit has no answer.
        fn type_into_terminal(&self, when: &str, hooks: &mut [&mut Kid]) {
            let before = std::fs::read_to_string(&self.typed).unwrap_or_default();
            self.desktop.key("a");
            self.desktop.key("Return");
            let reached = wait_until(10, || {
                std::fs::read_to_string(&self.typed)
                    .unwrap_or_default()
                    .get(before.len()..)
                    .is_some_and(|new| new.contains("a\n"))
            });
            for hook in hooks.iter_mut() {
                if let Some(reply) = reply_within(hook, 1) {
                    panic!(
                        "`a` typed {when} into the terminal answered a card: {reply}\n{}",
                        self.state()
                    );
                }
            }
            assert!(
                reached,
                "`a` typed {when} did not reach the terminal\n{}",
                self.state()
            );
            let answered: Vec<_> = self.audit();
            assert!(
                answered.is_empty(),
                "`a` typed {when} into the terminal answered: {answered:?}\n{}",
                self.state()
            );
        }
    }

    /// Where the screenshots go: `target/desktop-shots/`.
    fn shots() -> PathBuf {
        vults_tests::workspace_root()
            .join("target")
            .join("desktop-shots")
    }

    fn wait_until(secs: u64, mut f: impl FnMut() -> bool) -> bool {
        let end = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < end {
            if f() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        f()
    }

    /// What the hook printed, once it ended within `secs`; `None` while it still waits.
    fn reply_within(hook: &mut Kid, secs: u64) -> Option<String> {
        if !wait_until(secs, || hook.0.try_wait().ok().flatten().is_some()) {
            return None;
        }
        let mut out = String::new();
        std::io::Read::read_to_string(hook.0.stdout.as_mut()?, &mut out).ok()?;
        Some(out.trim().to_string())
    }

    fn behaviour(reply: &str) -> String {
        let v: serde_json::Value = serde_json::from_str(reply)
            .unwrap_or_else(|e| panic!("the hook's reply is not JSON ({e}): {reply:?}"));
        v["hookSpecificOutput"]["decision"]["behavior"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The centre of the button labelled `label` on a card for `folder` and `command`, from
    /// the card's top left, as the window lays it out (egui_kittest; the same fonts as the
    /// app's under Wine, at 96 dpi).
    fn button_in_card(folder: &str, command: &str, height: f32, label: &str) -> (i64, i64) {
        use egui_kittest::kittest::Queryable;
        use serde_json::json;
        use vults_core::protocol::{AgentKind, Identity};
        use vults_engine::messages::{PendingCard, Reason, SessionKey};
        let call = vults_core::agents::read_tool_call(&json!({
            "tool_name": "Bash", "tool_input": {"command": command}
        }));
        let identity = Identity::Builtin(AgentKind::Claude);
        let card = PendingCard {
            id: 1,
            agent: AgentKind::Claude,
            identity: identity.clone(),
            session: SessionKey {
                identity: "claude".into(),
                session: "s".into(),
            },
            folder: folder.into(),
            always_rule: Some(vults_core::rules::AlwaysRule::for_call(
                &identity, folder, &call, 0,
            )),
            file_rule: None,
            call,
            destructive: None,
            reason: Reason::NoRule,
            question: false,
            arrived: std::time::SystemTime::now(),
            context: Default::default(),
        };
        let mut view = vults_ui::card::CardView::new(&card);
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(vults_ui::card::WIDTH, height))
            .build_ui(move |ui| {
                egui::CentralPanel::default()
                    .frame(vults_ui::theme::card_frame(false))
                    .show(ui, |ui| {
                        view.ui(ui, &card, std::time::SystemTime::now(), true);
                    });
            });
        h.run();
        let c = h.get_by_label(label).rect().center();
        (c.x.round() as i64, c.y.round() as i64)
    }

    #[test]
    fn the_island_and_cards_are_popups_that_take_no_keyboard() {
        let Some(exes) = std::env::var_os("VULTS_WINE_EXES").map(PathBuf::from) else {
            eprintln!(
                "windows_popups: skipped, VULTS_WINE_EXES names no Windows build (.ci/cross.sh \
                 runs it)"
            );
            return;
        };
        let needed = [
            "wine",
            "wineserver",
            "winepath",
            "Xvfb",
            "openbox",
            "xterm",
            "xdotool",
            "xwininfo",
            "xprop",
            "import",
        ];
        let missing: Vec<&str> = needed.into_iter().filter(|t| !on_path(t)).collect();
        assert!(missing.is_empty(), "windows_popups needs {missing:?}");
        for exe in ["vults-app.exe", "vults-hook.exe"] {
            assert!(exes.join(exe).is_file(), "no {}", exes.join(exe).display());
        }
        let started = Instant::now();
        let mut desktop = Desktop::start("windows_popups", Kind::Openbox).expect("the desktop");
        let home = vults_tests::TempHome::new("winpopups");
        let typed = home.dir.join("typed");
        desktop.terminal(TERMINAL, &typed);
        let prefix = std::env::var("WINEPREFIX").unwrap_or_else(|_| "/tmp/vults-wine".to_string());
        let mut env = desktop.x_env();
        env.extend([
            ("WINEPREFIX".to_string(), prefix),
            ("WINEDEBUG".to_string(), "-all".to_string()),
            ("WINEARCH".to_string(), "win64".to_string()),
            ("HOME".to_string(), home.home().display().to_string()),
            ("VULTS_LOG".to_string(), "debug".to_string()),
        ]);
        let mut wine = Wine { exes, env };
        // A wineserver left by a run before was started on another display (or none), and its
        // desktop would draw nothing here.
        wine.end();
        let vults_home = wine.path(&home.dir);
        wine.env.push(("VULTS_HOME".to_string(), vults_home));
        let config = home.dir.join("config");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("settings.json"),
            serde_json::json!({"welcome": {"shown": true}}).to_string(),
        )
        .unwrap();
        let stderr = std::fs::File::create(home.dir.join("app.stderr")).unwrap();
        let app = wine
            .command("vults-app.exe")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("vults-app.exe starts under Wine");
        let run = Run {
            desktop,
            home,
            wine,
            typed,
            _app: Kid(app),
        };
        let area = run.desktop.work_area();

        // The island: at the top centre, whole, a popup, and the terminal keeps the keyboard.
        let island = run.settled(ISLAND);
        let centre = island.rect.centre().0;
        let want = area.x + area.w / 2;
        assert!(
            (centre - want).abs() <= 8 && island.rect.y >= area.y && island.rect.y <= area.y + 24,
            "the island is at {:?}, not at the top centre of {area:?}\n{}",
            island.rect,
            run.state()
        );
        assert_eq!(
            (island.rect.w, island.rect.h),
            ISLAND_SIZE,
            "the island's window is not its size\n{}",
            run.state()
        );
        run.whole("the island", &island);
        run.check_styles(ISLAND);
        run.terminal_keeps_the_keyboard("the island appeared");

        // A card: at the top right, whole, a popup; the terminal keeps the keyboard and `a`
        // typed there answers nothing.
        let mut first = run.ask("w1", "echo first");
        let card = run.settled(CARD);
        let r = card.rect;
        let right = area.x + area.w;
        assert!(
            r.x + r.w <= right && r.x + r.w >= right - 40 && r.y >= area.y && r.y <= area.y + 80,
            "the card is at {r:?}, not at the top right of {area:?}\n{}",
            run.state()
        );
        run.whole("the card", &card);
        run.check_styles(CARD);
        run.terminal_keeps_the_keyboard("the card appeared");
        run.type_into_terminal("while the card is up", &mut [&mut first]);
        run.desktop.screenshot(&shots().join("windows-popups.png"));

        // Deny, clicked.
        let folder = run.wine.path(&run.home.dir.join("project"));
        let (dx, dy) = button_in_card(&folder, "echo first", r.h as f32, "Deny");
        run.desktop.click(r.x + dx, r.y + dy);
        let reply = reply_within(&mut first, 20).unwrap_or_else(|| {
            panic!(
                "a click on Deny at +{dx}+{dy} in {r:?} answered nothing\n{}",
                run.state()
            )
        });
        assert_eq!(behaviour(&reply), "deny", "{reply}");

        // The next card: a click into it (on its folder line, no button there) gives it the
        // keys, and `a` allows.
        let mut second = run.ask("w2", "echo second");
        let card = wait_for_new_card(&run, &card);
        run.whole("the second card", &card);
        run.terminal_keeps_the_keyboard("the second card appeared");
        run.desktop.click(card.rect.x + 40, card.rect.y + 12);
        assert!(
            wait_until(10, || run
                .desktop
                .focused()
                .is_some_and(|f| f.starts_with(CARD))),
            "a click into the card did not give it the keyboard\n{}",
            run.state()
        );
        run.desktop.key("a");
        let reply = reply_within(&mut second, 20).unwrap_or_else(|| {
            panic!(
                "a click into the card and `a` answered nothing\n{}",
                run.state()
            )
        });
        assert_eq!(behaviour(&reply), "allow", "{reply}");

        // The audit: the click's deny and the key's allow, nothing else.
        let mut answers = Vec::new();
        wait_until(10, || {
            answers = run
                .audit()
                .iter()
                .map(|l| {
                    format!(
                        "{}:{}:{}",
                        l["session"].as_str().unwrap_or_default(),
                        l["decision"].as_str().unwrap_or_default(),
                        l["by"].as_str().unwrap_or_default()
                    )
                })
                .collect();
            answers.len() >= 2
        });
        assert_eq!(
            answers,
            ["w1:deny:click", "w2:allow:key"],
            "the audit\n{}",
            run.state()
        );
        eprintln!(
            "windows_popups: the island and two cards under Wine in {:.0} s",
            started.elapsed().as_secs_f64()
        );
    }

    /// The card window that is not `old`, once it has stopped moving.
    fn wait_for_new_card(run: &Run, old: &Window) -> Window {
        let mut last: Vec<Window> = Vec::new();
        let settled = wait_until(90, || {
            let now: Vec<Window> = run
                .windows(CARD)
                .into_iter()
                .filter(|w| w.title != old.title)
                .collect();
            let same = now.len() == 1 && now == last;
            last = now;
            std::thread::sleep(Duration::from_millis(300));
            same
        });
        assert!(settled, "no second card: {last:?}\n{}", run.state());
        last.remove(0)
    }
}
