//! X11: passive grabs of each chord on the root window, over x11rb's pure-Rust connection, read
//! on a thread of their own. Each chord is grabbed with and without Caps Lock and Num Lock, so
//! they do not stop it. A held key's auto-repeat is dropped here (a release and a press with
//! the same timestamp); the [`super::Gate`]'s delay is the second guard.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    ClientMessageEvent, ConnectionExt, CreateWindowAux, EventMask, GrabMode, ModMask, Window,
    WindowClass,
};
use x11rb::rust_connection::RustConnection;

use super::{Chord, Events, Key, KeyAction, KeysBackend, KeysEvent, NamedKey, Stop};

/// The keysym of a chord's key (X11's keysymdef.h).
fn keysym(key: Key) -> u32 {
    match key {
        Key::Letter(c) => c.to_ascii_lowercase() as u32,
        Key::Digit(d) => 0x30 + d as u32,
        Key::F(n) => 0xffbe + (n as u32 - 1),
        Key::Named(n) => match n {
            NamedKey::Space => 0x20,
            NamedKey::Enter => 0xff0d,
            NamedKey::Escape => 0xff1b,
            NamedKey::Backspace => 0xff08,
            NamedKey::Tab => 0xff09,
            NamedKey::Insert => 0xff63,
            NamedKey::Delete => 0xffff,
            NamedKey::Home => 0xff50,
            NamedKey::End => 0xff57,
            NamedKey::PageUp => 0xff55,
            NamedKey::PageDown => 0xff56,
            NamedKey::Left => 0xff51,
            NamedKey::Up => 0xff52,
            NamedKey::Right => 0xff53,
            NamedKey::Down => 0xff54,
        },
    }
}

const ALT_L: u32 = 0xffe9;
const META_L: u32 = 0xffe7;
const SUPER_L: u32 = 0xffeb;
const NUM_LOCK: u32 = 0xff7f;

/// The keyboard as the server maps it: keycodes of keysyms, modifier bits of keycodes.
struct Keymap {
    min: u8,
    per: usize,
    syms: Vec<u32>,
    mod_per: usize,
    mod_codes: Vec<u8>,
}

impl Keymap {
    fn read(conn: &RustConnection) -> Result<Keymap, String> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let map = conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        let mods = conn
            .get_modifier_mapping()
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        Ok(Keymap {
            min,
            per: map.keysyms_per_keycode as usize,
            syms: map.keysyms,
            mod_per: mods.keycodes.len() / 8,
            mod_codes: mods.keycodes,
        })
    }

    /// The first keycode that types `sym` (without a modifier column beyond Shift).
    fn keycode(&self, sym: u32) -> Option<u8> {
        if self.per == 0 {
            return None;
        }
        self.syms
            .chunks(self.per)
            .position(|codes| codes.iter().take(2).any(|s| *s == sym))
            .and_then(|i| u8::try_from(self.min as usize + i).ok())
    }

    /// The modifier bit whose keys include the one for `sym`.
    fn modifier(&self, sym: u32) -> Option<u16> {
        let code = self.keycode(sym)?;
        if self.mod_per == 0 {
            return None;
        }
        self.mod_codes
            .chunks(self.mod_per)
            .position(|codes| codes.contains(&code))
            .map(|bit| 1u16 << bit)
    }
}

struct Grab {
    action: KeyAction,
    keycode: u8,
    mods: u16,
}

pub(super) fn start(
    bindings: &[(KeyAction, Chord); 3],
    display: Option<String>,
    events: Events,
) -> Result<Stop, String> {
    let (conn, screen) = RustConnection::connect(display.as_deref())
        .map_err(|e| format!("no X11 display to grab keys on: {e}"))?;
    let conn = Arc::new(conn);
    let root = conn.setup().roots[screen].root;
    let keymap = Keymap::read(&conn)?;
    let alt = keymap
        .modifier(ALT_L)
        .or_else(|| keymap.modifier(META_L))
        .unwrap_or(u16::from(ModMask::M1));
    let super_ = keymap.modifier(SUPER_L).unwrap_or(u16::from(ModMask::M4));
    let num_lock = keymap.modifier(NUM_LOCK).unwrap_or(u16::from(ModMask::M2));
    let lock = u16::from(ModMask::LOCK);
    let mut grabs = Vec::new();
    for (action, chord) in bindings {
        let keycode = keymap
            .keycode(keysym(chord.key))
            .ok_or_else(|| format!("{chord}: this keyboard has no such key"))?;
        let m = chord.mods;
        let mods = [
            (m.ctrl, u16::from(ModMask::CONTROL)),
            (m.alt, alt),
            (m.shift, u16::from(ModMask::SHIFT)),
            (m.super_, super_),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |acc, (_, bit)| acc | bit);
        grabs.push((
            Grab {
                action: *action,
                keycode,
                mods,
            },
            *chord,
        ));
    }
    // Grab every chord with each lock combination; on any failure, let go of what was taken.
    let ignored = [0, lock, num_lock, lock | num_lock];
    let mut taken: Vec<(u8, u16)> = Vec::new();
    let mut failure = None;
    'grab: for (g, chord) in &grabs {
        for extra in ignored {
            let mods = g.mods | extra;
            let checked = conn
                .grab_key(
                    false,
                    root,
                    mods.into(),
                    g.keycode,
                    GrabMode::ASYNC,
                    GrabMode::ASYNC,
                )
                .map_err(|e| e.to_string())
                .and_then(|c| c.check().map_err(|e| format!("{e:?}")));
            match checked {
                Ok(()) => taken.push((g.keycode, mods)),
                Err(e) => {
                    failure = Some(if e.contains("Access") {
                        format!("{chord} is taken by another program; choose another in Settings")
                    } else {
                        format!("{chord} cannot be grabbed: {e}")
                    });
                    break 'grab;
                }
            }
        }
    }
    if let Some(why) = failure {
        for (code, mods) in taken {
            let _ = conn.ungrab_key(code, root, mods.into());
        }
        let _ = conn.flush();
        return Err(why);
    }
    // A window of our own, only to wake the reading thread when the keys are dropped.
    let waker: Window = conn.generate_id().map_err(|e| e.to_string())?;
    conn.create_window(
        0,
        waker,
        root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_ONLY,
        0,
        &CreateWindowAux::new(),
    )
    .map_err(|e| e.to_string())?;
    conn.flush().map_err(|e| e.to_string())?;
    let stopping = Arc::new(AtomicBool::new(false));
    let thread_conn = conn.clone();
    let thread_stopping = stopping.clone();
    let relevant = u16::from(ModMask::CONTROL) | alt | u16::from(ModMask::SHIFT) | super_;
    let bound: Vec<(KeyAction, String)> = grabs
        .iter()
        .map(|(g, chord)| (g.action, chord.to_string()))
        .collect();
    let grabs: Vec<Grab> = grabs.into_iter().map(|(g, _)| g).collect();
    let thread = std::thread::Builder::new()
        .name("vults-keys-x11".into())
        .spawn(move || {
            let conn = thread_conn;
            events.send(KeysEvent::Ready {
                backend: KeysBackend::X11,
                bindings: bound,
            });
            let mut last_release: Option<(u8, u32)> = None;
            loop {
                let event = match conn.wait_for_event() {
                    Ok(e) => e,
                    Err(e) => {
                        if !thread_stopping.load(Ordering::SeqCst) {
                            events.send(KeysEvent::Unavailable(format!(
                                "the X11 connection ended: {e}"
                            )));
                        }
                        return;
                    }
                };
                if thread_stopping.load(Ordering::SeqCst) {
                    break;
                }
                match event {
                    Event::KeyPress(e) => {
                        if last_release == Some((e.detail, e.time)) {
                            continue; // auto-repeat: a release and a press at the same time
                        }
                        let mods = u16::from(e.state) & relevant;
                        if let Some(g) = grabs
                            .iter()
                            .find(|g| g.keycode == e.detail && g.mods == mods)
                            && !events.send(KeysEvent::Pressed(g.action))
                        {
                            break;
                        }
                    }
                    Event::KeyRelease(e) => last_release = Some((e.detail, e.time)),
                    _ => {}
                }
            }
            for (code, mods) in taken {
                let _ = conn.ungrab_key(code, root, mods.into());
            }
            let _ = conn.destroy_window(waker);
            let _ = conn.flush();
        })
        .map_err(|e| format!("cannot start the keys' thread: {e}"))?;
    Ok(Box::new(move || {
        stopping.store(true, Ordering::SeqCst);
        let wake = ClientMessageEvent::new(
            32,
            waker,
            u32::from(x11rb::protocol::xproto::AtomEnum::STRING),
            [0u32; 5],
        );
        let _ = conn.send_event(false, waker, EventMask::NO_EVENT, wake);
        let _ = conn.flush();
        // Woken at once; joined so the grabs are let go when this returns.
        let _ = thread.join();
    }))
}
