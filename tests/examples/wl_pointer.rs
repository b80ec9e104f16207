//! A pointer for a headless wlroots compositor (sway): a headless seat has no pointer, so no
//! client gets a click until some device says there is one. This makes one through
//! `zwlr_virtual_pointer_manager_v1` and reads commands on stdin, one a line, until stdin ends:
//!
//! - `move X Y` — the pointer to (X, Y) of a `W`×`H` output (`size W H` first; 1280×800 by
//!   default), as a person's hand moves it: the compositor sends the motion to the client under it.
//! - `press` / `release` / `click` — the left button.
//!
//! Each command is answered `ok` once the compositor has read it (a `wl_display.sync` round
//! trip), so a test waits on the line, never on a sleep.

#[cfg(target_os = "linux")]
fn main() {
    if let Err(e) = linux::run() {
        eprintln!("wl_pointer: {e}");
        std::process::exit(1);
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("wl_pointer: Wayland compositors run on Linux only");
    std::process::exit(1);
}

#[cfg(target_os = "linux")]
mod linux {
    use std::io::{BufRead, Write};
    use std::time::Instant;
    use wayland_client::protocol::{wl_pointer, wl_registry, wl_seat};
    use wayland_client::{Connection, Dispatch, QueueHandle};
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
                name, interface, ..
            } = event
            {
                match interface.as_str() {
                    "wl_seat" if state.seat.is_none() => {
                        state.seat = Some(registry.bind(name, 1, qh, ()));
                    }
                    "zwlr_virtual_pointer_manager_v1" => {
                        state.manager = Some(registry.bind(name, 1, qh, ()));
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
        ZwlrVirtualPointerV1
    );

    pub fn run() -> Result<(), String> {
        let conn = Connection::connect_to_env().map_err(|e| format!("no Wayland display: {e}"))?;
        let mut queue = conn.new_event_queue();
        let qh = queue.handle();
        conn.display().get_registry(&qh, ());
        let mut state = State::default();
        queue.roundtrip(&mut state).map_err(|e| e.to_string())?;
        let manager = state
            .manager
            .clone()
            .ok_or("the compositor offers no zwlr_virtual_pointer_manager_v1")?;
        let pointer = manager.create_virtual_pointer(state.seat.as_ref(), &qh, ());
        queue.roundtrip(&mut state).map_err(|e| e.to_string())?;
        let start = Instant::now();
        let ms = || start.elapsed().as_millis() as u32;
        let (mut width, mut height) = (1280_u32, 800_u32);
        let button = |state: wl_pointer::ButtonState| {
            pointer.button(ms(), BTN_LEFT, state);
            pointer.frame();
        };
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
                Some("size") => (width, height) = (number(1)?, number(2)?),
                Some("move") => {
                    pointer.motion_absolute(ms(), number(1)?, number(2)?, width, height);
                    pointer.frame();
                }
                Some("press") => button(wl_pointer::ButtonState::Pressed),
                Some("release") => button(wl_pointer::ButtonState::Released),
                Some("click") => {
                    button(wl_pointer::ButtonState::Pressed);
                    button(wl_pointer::ButtonState::Released);
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
