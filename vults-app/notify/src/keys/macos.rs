//! macOS: Carbon's `RegisterEventHotKey`, the API global shortcuts use without the Accessibility
//! permission. Hot keys arrive through the application's event target, so this runs on the
//! main thread while the app's run loop (eframe's) turns; the handler only sends the action.
//! Compile-checked from Linux (`.ci/cross.sh`); not run here.

use std::ffi::c_void;

use super::{Chord, Events, Key, KeyAction, KeysBackend, KeysEvent, NamedKey, Stop};

type OSStatus = i32;
type EventTargetRef = *mut c_void;
type EventHandlerRef = *mut c_void;
type EventHandlerCallRef = *mut c_void;
type EventRef = *mut c_void;
type EventHotKeyRef = *mut c_void;
type EventHandlerUPP =
    extern "C" fn(call: EventHandlerCallRef, event: EventRef, user: *mut c_void) -> OSStatus;

#[repr(C)]
#[derive(Clone, Copy)]
struct EventHotKeyID {
    signature: u32,
    id: u32,
}

#[repr(C)]
struct EventTypeSpec {
    event_class: u32,
    event_kind: u32,
}

#[link(name = "Carbon", kind = "framework")]
unsafe extern "C" {
    fn GetApplicationEventTarget() -> EventTargetRef;
    fn InstallEventHandler(
        target: EventTargetRef,
        handler: EventHandlerUPP,
        num_types: usize,
        list: *const EventTypeSpec,
        user_data: *mut c_void,
        out_ref: *mut EventHandlerRef,
    ) -> OSStatus;
    fn RemoveEventHandler(handler: EventHandlerRef) -> OSStatus;
    fn RegisterEventHotKey(
        key_code: u32,
        modifiers: u32,
        id: EventHotKeyID,
        target: EventTargetRef,
        options: u32,
        out_ref: *mut EventHotKeyRef,
    ) -> OSStatus;
    fn UnregisterEventHotKey(hot_key: EventHotKeyRef) -> OSStatus;
    fn GetEventParameter(
        event: EventRef,
        name: u32,
        desired_type: u32,
        actual_type: *mut u32,
        buffer_size: usize,
        actual_size: *mut usize,
        data: *mut c_void,
    ) -> OSStatus;
}

const fn four(c: &[u8; 4]) -> u32 {
    u32::from_be_bytes(*c)
}

const K_EVENT_CLASS_KEYBOARD: u32 = four(b"keyb");
const K_EVENT_HOT_KEY_PRESSED: u32 = 5;
const K_EVENT_PARAM_DIRECT_OBJECT: u32 = four(b"----");
const TYPE_EVENT_HOT_KEY_ID: u32 = four(b"hkid");
const SIGNATURE: u32 = four(b"VLTS");
const CMD_KEY: u32 = 1 << 8;
const SHIFT_KEY: u32 = 1 << 9;
const OPTION_KEY: u32 = 1 << 11;
const CONTROL_KEY: u32 = 1 << 12;
/// eventHotKeyExistsErr.
const TAKEN: OSStatus = -9878;

/// The ANSI virtual key code (Events.h `kVK_*`).
fn key_code(key: Key) -> Option<u32> {
    Some(match key {
        Key::Letter(c) => match c.to_ascii_uppercase() {
            'A' => 0x00,
            'S' => 0x01,
            'D' => 0x02,
            'F' => 0x03,
            'H' => 0x04,
            'G' => 0x05,
            'Z' => 0x06,
            'X' => 0x07,
            'C' => 0x08,
            'V' => 0x09,
            'B' => 0x0B,
            'Q' => 0x0C,
            'W' => 0x0D,
            'E' => 0x0E,
            'R' => 0x0F,
            'Y' => 0x10,
            'T' => 0x11,
            'O' => 0x1F,
            'U' => 0x20,
            'I' => 0x22,
            'P' => 0x23,
            'L' => 0x25,
            'J' => 0x26,
            'K' => 0x28,
            'N' => 0x2D,
            'M' => 0x2E,
            _ => return None,
        },
        Key::Digit(d) => {
            [0x1D, 0x12, 0x13, 0x14, 0x15, 0x17, 0x16, 0x1A, 0x1C, 0x19][d as usize % 10]
        }
        Key::F(n) => match n {
            1 => 0x7A,
            2 => 0x78,
            3 => 0x63,
            4 => 0x76,
            5 => 0x60,
            6 => 0x61,
            7 => 0x62,
            8 => 0x64,
            9 => 0x65,
            10 => 0x6D,
            11 => 0x67,
            12 => 0x6F,
            13 => 0x69,
            14 => 0x6B,
            15 => 0x71,
            16 => 0x6A,
            17 => 0x40,
            18 => 0x4F,
            19 => 0x50,
            20 => 0x5A,
            _ => return None,
        },
        Key::Named(n) => match n {
            NamedKey::Space => 0x31,
            NamedKey::Enter => 0x24,
            NamedKey::Escape => 0x35,
            NamedKey::Backspace => 0x33,
            NamedKey::Tab => 0x30,
            NamedKey::Insert => 0x72,
            NamedKey::Delete => 0x75,
            NamedKey::Home => 0x73,
            NamedKey::End => 0x77,
            NamedKey::PageUp => 0x74,
            NamedKey::PageDown => 0x79,
            NamedKey::Left => 0x7B,
            NamedKey::Right => 0x7C,
            NamedKey::Down => 0x7D,
            NamedKey::Up => 0x7E,
        },
    })
}

fn modifiers(chord: &Chord) -> u32 {
    let m = chord.mods;
    [
        (m.ctrl, CONTROL_KEY),
        (m.alt, OPTION_KEY),
        (m.shift, SHIFT_KEY),
        (m.super_, CMD_KEY),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .fold(0, |acc, (_, bit)| acc | bit)
}

struct Handler {
    events: Events,
    actions: Vec<KeyAction>,
}

extern "C" fn on_hot_key(
    _call: EventHandlerCallRef,
    event: EventRef,
    user: *mut c_void,
) -> OSStatus {
    let mut id = EventHotKeyID {
        signature: 0,
        id: 0,
    };
    // SAFETY: Carbon calls this with a live event; `id` is a writable EventHotKeyID of the size
    // given; `user` is the `Handler` leaked in `start`, freed only after the handler is removed.
    unsafe {
        let status = GetEventParameter(
            event,
            K_EVENT_PARAM_DIRECT_OBJECT,
            TYPE_EVENT_HOT_KEY_ID,
            std::ptr::null_mut(),
            std::mem::size_of::<EventHotKeyID>(),
            std::ptr::null_mut(),
            (&mut id as *mut EventHotKeyID).cast(),
        );
        if status != 0 || id.signature != SIGNATURE {
            return status;
        }
        let handler = &*(user as *const Handler);
        if let Some(action) = handler.actions.get(id.id as usize) {
            handler.events.send(KeysEvent::Pressed(*action));
        }
    }
    0
}

/// What `stop` frees: raw Carbon references, used only on the main thread.
struct Registered {
    handler_ref: EventHandlerRef,
    hot_keys: Vec<EventHotKeyRef>,
    handler: *mut Handler,
}

// SAFETY: the references are only used again by `stop`, which the caller runs on the main
// thread (GlobalKeys is dropped there); moving the pointers between threads does not touch them.
unsafe impl Send for Registered {}

impl Registered {
    fn release(self) {
        // SAFETY: each reference was returned by Carbon in `start` and is released once; the
        // handler box is freed after its handler is removed, so no call can still read it.
        unsafe {
            for h in &self.hot_keys {
                UnregisterEventHotKey(*h);
            }
            if !self.handler_ref.is_null() {
                RemoveEventHandler(self.handler_ref);
            }
            drop(Box::from_raw(self.handler));
        }
    }
}

pub(super) fn start(bindings: &[(KeyAction, Chord); 3], events: Events) -> Result<Stop, String> {
    let codes = bindings
        .iter()
        .map(|(_, c)| key_code(c.key).ok_or_else(|| format!("{c}: macOS has no such key")))
        .collect::<Result<Vec<u32>, String>>()?;
    let handler = Box::into_raw(Box::new(Handler {
        events: events.clone(),
        actions: bindings.iter().map(|(a, _)| *a).collect(),
    }));
    let mut reg = Registered {
        handler_ref: std::ptr::null_mut(),
        hot_keys: Vec::new(),
        handler,
    };
    let spec = EventTypeSpec {
        event_class: K_EVENT_CLASS_KEYBOARD,
        event_kind: K_EVENT_HOT_KEY_PRESSED,
    };
    // SAFETY: Carbon calls with valid arguments; `spec` outlives the call; the handler box
    // lives until `release`.
    unsafe {
        let target = GetApplicationEventTarget();
        let status = InstallEventHandler(
            target,
            on_hot_key,
            1,
            &spec,
            handler.cast(),
            &mut reg.handler_ref,
        );
        if status != 0 {
            reg.release();
            return Err(format!(
                "cannot listen for hot keys (Carbon error {status})"
            ));
        }
        for (i, ((_, chord), code)) in bindings.iter().zip(codes).enumerate() {
            let mut hot: EventHotKeyRef = std::ptr::null_mut();
            let id = EventHotKeyID {
                signature: SIGNATURE,
                id: i as u32,
            };
            let status = RegisterEventHotKey(code, modifiers(chord), id, target, 0, &mut hot);
            if status != 0 {
                reg.release();
                return Err(if status == TAKEN {
                    format!("{chord} is taken by another program; choose another in Settings")
                } else {
                    format!("{chord} cannot be registered (Carbon error {status})")
                });
            }
            reg.hot_keys.push(hot);
        }
    }
    events.send(KeysEvent::Ready {
        backend: KeysBackend::MacOs,
        bindings: bindings.iter().map(|(a, c)| (*a, c.to_string())).collect(),
    });
    Ok(Box::new(move || reg.release()))
}
