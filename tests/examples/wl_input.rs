//! A person's hand for a headless Wayland compositor: input that goes in through the
//! compositor, as a real mouse's and keyboard's does, never into XWayland behind its back.
//! A headless seat has no input device, so no client gets a click until some device says there
//! is one. This makes one through what the compositor offers and reads commands on stdin, one a
//! line, until stdin ends:
//!
//! - wlroots (sway): `zwlr_virtual_pointer_manager_v1` and `zwp_virtual_keyboard_manager_v1`,
//!   one keyboard for the whole run as a person has (`wtype` makes a keyboard for each key, and
//!   sway hands its keyboard back to the focused window whenever a keyboard is added: a card a
//!   click gave the keys lost them to the next key's new keyboard);
//! - mutter (`--mutter`): its RemoteDesktop D-Bus session (`org.gnome.Mutter.RemoteDesktop`),
//!   pointer and keyboard. A session lives as long as the D-Bus connection that made it, so it
//!   is this process's. Without a screen cast stream mutter takes no absolute motion: a move
//!   goes to the top left corner (the pointer stops at the screen's edge) and from there by
//!   the distance to the point (mutter does not accelerate a virtual pointer).
//! - KWin: `org_kde_kwin_fake_input`, pointer and keyboard. KWin hands that interface only to a
//!   program whose desktop file asks for it (`X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input`
//!   with this binary's path as `Exec`), which the desktop tests write before KWin starts.
//!
//! Commands:
//!
//! - `move X Y` — the pointer to (X, Y) of a `W`×`H` output (`size W H` first; 1280×800 by
//!   default): the compositor sends the motion to the client under it.
//! - `press` / `release` / `click` — the left button.
//! - `key CODE…` — presses the keys of these evdev key codes in order and releases them in the
//!   reverse order (`key 29 56 21` is Ctrl+Alt+Y), with the modifiers they hold.
//!
//! Each command is answered `ok` once the compositor has read it (a `wl_display.sync` round
//! trip), so a test waits on the line, never on a sleep.

#[cfg(target_os = "linux")]
fn main() {
    let done = if std::env::args().any(|a| a == "--mutter") {
        mutter::run()
    } else {
        linux::run()
    };
    if let Err(e) = done {
        eprintln!("wl_input: {e}");
        std::process::exit(1);
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("wl_input: Wayland compositors run on Linux only");
    std::process::exit(1);
}

#[cfg(target_os = "linux")]
mod linux {
    use std::io::{BufRead, Write};
    use std::time::Instant;
    use wayland_client::protocol::{wl_pointer, wl_registry, wl_seat};
    use wayland_client::{Connection, Dispatch, QueueHandle};
    use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
        zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
        zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
    };
    use wayland_protocols_plasma::fake_input::client::org_kde_kwin_fake_input::OrgKdeKwinFakeInput;
    use wayland_protocols_wlr::virtual_pointer::v1::client::{
        zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
        zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
    };

    /// The left button (linux/input-event-codes.h).
    const BTN_LEFT: u32 = 0x110;

    #[derive(Default)]
    struct State {
        seat: Option<wl_seat::WlSeat>,
        manager: Option<ZwlrVirtualPointerManagerV1>,
        keyboards: Option<ZwpVirtualKeyboardManagerV1>,
        fake: Option<OrgKdeKwinFakeInput>,
    }

    /// The keymap of the virtual keyboard: US, from the compositor's own XKB data.
    const KEYMAP: &str = "xkb_keymap {\n\
        xkb_keycodes { include \"evdev+aliases(qwerty)\" };\n\
        xkb_types { include \"complete\" };\n\
        xkb_compat { include \"complete\" };\n\
        xkb_symbols { include \"pc+us+inet(evdev)\" };\n\
        };\n";

    /// The XKB modifier mask an evdev key code holds (Shift, Control, Alt), 0 for others.
    fn modifier(code: u32) -> u32 {
        match code {
            42 | 54 => 1,
            29 | 97 => 4,
            56 | 100 => 8,
            _ => 0,
        }
    }

    impl Dispatch<wl_registry::WlRegistry, ()> for State {
        fn event(
            state: &mut Self,
            registry: &wl_registry::WlRegistry,
            event: wl_registry::Event,
            _: &(),
            _: &Connection,
            qh: &QueueHandle<Self>,
        ) {
            if let wl_registry::Event::Global {
                name,
                interface,
                version,
            } = event
            {
                match interface.as_str() {
                    "wl_seat" if state.seat.is_none() => {
                        state.seat = Some(registry.bind(name, 1, qh, ()));
                    }
                    "zwlr_virtual_pointer_manager_v1" => {
                        state.manager = Some(registry.bind(name, 1, qh, ()));
                    }
                    "zwp_virtual_keyboard_manager_v1" => {
                        state.keyboards = Some(registry.bind(name, 1, qh, ()));
                    }
                    // Version 4 has the keyboard (KWin 5.27 offers 4, later ones 5).
                    "org_kde_kwin_fake_input" if version >= 4 => {
                        state.fake = Some(registry.bind(name, 4, qh, ()));
                    }
                    _ => {}
                }
            }
        }
    }

    macro_rules! ignore {
        ($($t:ty),*) => {$(
            impl Dispatch<$t, ()> for State {
                fn event(_: &mut Self, _: &$t, _: <$t as wayland_client::Proxy>::Event, _: &(),
                    _: &Connection, _: &QueueHandle<Self>) {}
            }
        )*};
    }
    ignore!(
        wl_seat::WlSeat,
        ZwlrVirtualPointerManagerV1,
        ZwlrVirtualPointerV1,
        ZwpVirtualKeyboardManagerV1,
        ZwpVirtualKeyboardV1,
        OrgKdeKwinFakeInput
    );

    /// The device the commands drive.
    enum Hand {
        Wlroots(ZwlrVirtualPointerV1, Option<ZwpVirtualKeyboardV1>),
        Kwin(OrgKdeKwinFakeInput),
    }

    impl Hand {
        /// Presses the keys `codes` in order and releases them in the reverse order.
        fn keys(&self, ms: u32, codes: &[u32]) -> Result<(), String> {
            match self {
                Hand::Wlroots(_, None) => {
                    Err("the compositor offers no zwp_virtual_keyboard_manager_v1".into())
                }
                Hand::Wlroots(_, Some(k)) => {
                    // wlroots takes the modifiers a virtual keyboard holds from its word, not
                    // from its keys.
                    let mut held = 0;
                    for &code in codes {
                        k.key(ms, code, 1);
                        if modifier(code) != 0 {
                            held |= modifier(code);
                            k.modifiers(held, 0, 0, 0);
                        }
                    }
                    for &code in codes.iter().rev() {
                        k.key(ms, code, 0);
                        if modifier(code) != 0 {
                            held &= !modifier(code);
                            k.modifiers(held, 0, 0, 0);
                        }
                    }
                    Ok(())
                }
                Hand::Kwin(fake) => {
                    for &code in codes {
                        fake.keyboard_key(code, 1);
                    }
                    for &code in codes.iter().rev() {
                        fake.keyboard_key(code, 0);
                    }
                    Ok(())
                }
            }
        }

        fn button(&self, ms: u32, pressed: bool) {
            match self {
                Hand::Wlroots(p, _) => {
                    let state = if pressed {
                        wl_pointer::ButtonState::Pressed
                    } else {
                        wl_pointer::ButtonState::Released
                    };
                    p.button(ms, BTN_LEFT, state);
                    p.frame();
                }
                Hand::Kwin(f) => f.button(BTN_LEFT, u32::from(pressed)),
            }
        }

        fn motion(&self, ms: u32, (x, y): (u32, u32), (width, height): (u32, u32)) {
            match self {
                Hand::Wlroots(p, _) => {
                    p.motion_absolute(ms, x, y, width, height);
                    p.frame();
                }
                Hand::Kwin(f) => f.pointer_motion_absolute(f64::from(x), f64::from(y)),
            }
        }
    }

    /// The keymap in a file of its own (the compositor maps it; the text ends with a NUL).
    fn keymap_file() -> Result<std::fs::File, String> {
        let path = std::env::temp_dir().join(format!("wl_input-keymap-{}", std::process::id()));
        let mut text = KEYMAP.as_bytes().to_vec();
        text.push(0);
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        let file = std::fs::File::open(&path).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&path);
        Ok(file)
    }

    pub fn run() -> Result<(), String> {
        let conn = Connection::connect_to_env().map_err(|e| format!("no Wayland display: {e}"))?;
        let mut queue = conn.new_event_queue();
        let qh = queue.handle();
        conn.display().get_registry(&qh, ());
        let mut state = State::default();
        queue.roundtrip(&mut state).map_err(|e| e.to_string())?;
        let hand = if let Some(fake) = state.fake.clone() {
            // KWin grants what it offered on asking (it lists the interface only to a program
            // its desktop file allows).
            fake.authenticate(
                "Vults desktop tests".into(),
                "a person's input for the desktop matrix".into(),
            );
            Hand::Kwin(fake)
        } else if let Some(manager) = state.manager.clone() {
            let pointer = manager.create_virtual_pointer(state.seat.as_ref(), &qh, ());
            let keyboard = match (&state.keyboards, &state.seat) {
                (Some(keyboards), Some(seat)) => {
                    let k = keyboards.create_virtual_keyboard(seat, &qh, ());
                    let file = keymap_file()?;
                    let size = u32::try_from(KEYMAP.len() + 1).map_err(|e| e.to_string())?;
                    // XKB_KEYMAP_FORMAT_TEXT_V1
                    k.keymap(1, std::os::fd::AsFd::as_fd(&file), size);
                    Some(k)
                }
                _ => None,
            };
            Hand::Wlroots(pointer, keyboard)
        } else {
            return Err(
                "the compositor offers neither zwlr_virtual_pointer_manager_v1 nor \
                        org_kde_kwin_fake_input (KWin lists the latter only to a program whose \
                        desktop file asks for it)"
                    .into(),
            );
        };
        queue.roundtrip(&mut state).map_err(|e| e.to_string())?;
        let start = Instant::now();
        let ms = || start.elapsed().as_millis() as u32;
        let mut size = (1280_u32, 800_u32);
        let mut out = std::io::stdout();
        for line in std::io::stdin().lock().lines() {
            let line = line.map_err(|e| e.to_string())?;
            let words: Vec<&str> = line.split_whitespace().collect();
            let number = |i: usize| -> Result<u32, String> {
                words
                    .get(i)
                    .and_then(|w| w.parse().ok())
                    .ok_or(format!("{line:?}: a number is missing"))
            };
            match words.first().copied() {
                Some("size") => size = (number(1)?, number(2)?),
                Some("move") => hand.motion(ms(), (number(1)?, number(2)?), size),
                Some("press") => hand.button(ms(), true),
                Some("release") => hand.button(ms(), false),
                Some("click") => {
                    hand.button(ms(), true);
                    hand.button(ms(), false);
                }
                Some("key") => {
                    let codes = (1..words.len())
                        .map(number)
                        .collect::<Result<Vec<u32>, String>>()?;
                    hand.keys(ms(), &codes)?;
                }
                None => continue,
                Some(other) => return Err(format!("unknown command {other:?}")),
            }
            queue.roundtrip(&mut state).map_err(|e| e.to_string())?;
            writeln!(out, "ok")
                .and_then(|()| out.flush())
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

#[cfg(target_os = "linux")]
mod mutter {
    use std::io::{BufRead, Write};

    const REMOTE_DESKTOP: &str = "org.gnome.Mutter.RemoteDesktop";
    const SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";
    /// The left button (linux/input-event-codes.h).
    const BTN_LEFT: i32 = 0x110;

    pub fn run() -> Result<(), String> {
        let address = std::env::var("DBUS_SESSION_BUS_ADDRESS")
            .map_err(|_| "no DBUS_SESSION_BUS_ADDRESS: mutter's session bus")?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(async {
            let conn = zbus::connection::Builder::address(address.as_str())
                .map_err(|e| e.to_string())?
                .build()
                .await
                .map_err(|e| e.to_string())?;
            // mutter opens its Wayland socket before it has taken its D-Bus names: the session
            // is asked for until mutter answers.
            let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
            let reply = loop {
                match conn
                    .call_method(
                        Some(REMOTE_DESKTOP),
                        "/org/gnome/Mutter/RemoteDesktop",
                        Some(REMOTE_DESKTOP),
                        "CreateSession",
                        &(),
                    )
                    .await
                {
                    Ok(reply) => break reply,
                    Err(e) if std::time::Instant::now() < until => {
                        eprintln!("wl_input: mutter's RemoteDesktop not there yet: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    }
                    Err(e) => return Err(format!("RemoteDesktop.CreateSession: {e}")),
                }
            };
            let session: zbus::zvariant::OwnedObjectPath =
                reply.body().deserialize().map_err(|e| e.to_string())?;
            let call = |method: &'static str, body: Body| {
                let conn = conn.clone();
                let session = session.clone();
                async move {
                    let done = match body {
                        Body::None => {
                            conn.call_method(
                                Some(REMOTE_DESKTOP),
                                &session,
                                Some(SESSION),
                                method,
                                &(),
                            )
                            .await
                        }
                        Body::Motion(dx, dy) => {
                            conn.call_method(
                                Some(REMOTE_DESKTOP),
                                &session,
                                Some(SESSION),
                                method,
                                &(dx, dy),
                            )
                            .await
                        }
                        Body::Button(b, pressed) => {
                            conn.call_method(
                                Some(REMOTE_DESKTOP),
                                &session,
                                Some(SESSION),
                                method,
                                &(b, pressed),
                            )
                            .await
                        }
                        Body::Key(k, pressed) => {
                            conn.call_method(
                                Some(REMOTE_DESKTOP),
                                &session,
                                Some(SESSION),
                                method,
                                &(k, pressed),
                            )
                            .await
                        }
                    };
                    done.map(|_| ())
                        .map_err(|e| format!("RemoteDesktop.Session.{method}: {e}"))
                }
            };
            call("Start", Body::None).await?;
            let mut out = std::io::stdout();
            for line in std::io::stdin().lock().lines() {
                let line = line.map_err(|e| e.to_string())?;
                let words: Vec<&str> = line.split_whitespace().collect();
                let number = |i: usize| -> Result<u32, String> {
                    words
                        .get(i)
                        .and_then(|w| w.parse().ok())
                        .ok_or(format!("{line:?}: a number is missing"))
                };
                let button = |pressed| call("NotifyPointerButton", Body::Button(BTN_LEFT, pressed));
                match words.first().copied() {
                    Some("size") => {}
                    Some("move") => {
                        let (x, y) = (f64::from(number(1)?), f64::from(number(2)?));
                        call(
                            "NotifyPointerMotionRelative",
                            Body::Motion(-100_000.0, -100_000.0),
                        )
                        .await?;
                        call("NotifyPointerMotionRelative", Body::Motion(x, y)).await?;
                    }
                    Some("press") => button(true).await?,
                    Some("release") => button(false).await?,
                    Some("click") => {
                        button(true).await?;
                        button(false).await?;
                    }
                    Some("key") => {
                        let codes = (1..words.len())
                            .map(number)
                            .collect::<Result<Vec<u32>, String>>()?;
                        for &code in &codes {
                            call("NotifyKeyboardKeycode", Body::Key(code, true)).await?;
                        }
                        for &code in codes.iter().rev() {
                            call("NotifyKeyboardKeycode", Body::Key(code, false)).await?;
                        }
                    }
                    None => continue,
                    Some(other) => return Err(format!("unknown command {other:?}")),
                }
                // Each call was answered: mutter has taken the event in.
                writeln!(out, "ok")
                    .and_then(|()| out.flush())
                    .map_err(|e| e.to_string())?;
            }
            Ok(())
        })
    }

    /// The arguments of a RemoteDesktop call.
    enum Body {
        None,
        Motion(f64, f64),
        Button(i32, bool),
        Key(u32, bool),
    }
}
