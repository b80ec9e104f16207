//! Windows: `RegisterHotKey` on a thread of its own with its own message loop (`WM_HOTKEY`),
//! `MOD_NOREPEAT` so a held key does not repeat. Ended with `WM_QUIT` posted to the thread.

use windows_sys::Win32::Foundation::GetLastError;
use windows_sys::Win32::System::Threading::GetCurrentThreadId;
use windows_sys::Win32::UI::Input::KeyboardAndMouse::{
    MOD_ALT, MOD_CONTROL, MOD_NOREPEAT, MOD_SHIFT, MOD_WIN, RegisterHotKey, UnregisterHotKey,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    GetMessageW, MSG, PM_NOREMOVE, PeekMessageW, PostThreadMessageW, WM_HOTKEY, WM_QUIT,
};

use super::{Chord, Events, Key, KeyAction, KeysBackend, KeysEvent, NamedKey, Stop};

/// ERROR_HOTKEY_ALREADY_REGISTERED.
const TAKEN: u32 = 1409;

/// The virtual-key code of a chord's key.
fn vk(key: Key) -> u32 {
    match key {
        Key::Letter(c) => c.to_ascii_uppercase() as u32,
        Key::Digit(d) => 0x30 + d as u32,
        Key::F(n) => 0x70 + (n as u32 - 1),
        Key::Named(n) => match n {
            NamedKey::Space => 0x20,
            NamedKey::Enter => 0x0D,
            NamedKey::Escape => 0x1B,
            NamedKey::Backspace => 0x08,
            NamedKey::Tab => 0x09,
            NamedKey::Insert => 0x2D,
            NamedKey::Delete => 0x2E,
            NamedKey::Home => 0x24,
            NamedKey::End => 0x23,
            NamedKey::PageUp => 0x21,
            NamedKey::PageDown => 0x22,
            NamedKey::Left => 0x25,
            NamedKey::Up => 0x26,
            NamedKey::Right => 0x27,
            NamedKey::Down => 0x28,
        },
    }
}

fn modifiers(chord: &Chord) -> u32 {
    let m = chord.mods;
    let mut bits = MOD_NOREPEAT;
    if m.ctrl {
        bits |= MOD_CONTROL;
    }
    if m.alt {
        bits |= MOD_ALT;
    }
    if m.shift {
        bits |= MOD_SHIFT;
    }
    if m.super_ {
        bits |= MOD_WIN;
    }
    bits
}

pub(super) fn start(bindings: &[(KeyAction, Chord); 3], events: Events) -> Result<Stop, String> {
    let bindings = bindings.to_vec();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<u32, String>>();
    let thread = std::thread::Builder::new()
        .name("vults-keys-windows".into())
        .spawn(move || {
            // SAFETY: plain Win32 calls on this thread's own message queue; `msg` is a valid,
            // writable MSG for each call.
            unsafe {
                let mut msg: MSG = std::mem::zeroed();
                // Makes the thread's message queue, so WM_QUIT can be posted to it.
                PeekMessageW(&mut msg, std::ptr::null_mut(), 0, 0, PM_NOREMOVE);
                let mut registered = Vec::new();
                for (i, (_, chord)) in bindings.iter().enumerate() {
                    let id = i as i32 + 1;
                    if RegisterHotKey(std::ptr::null_mut(), id, modifiers(chord), vk(chord.key))
                        == 0
                    {
                        let err = GetLastError();
                        for id in registered {
                            UnregisterHotKey(std::ptr::null_mut(), id);
                        }
                        let _ = ready_tx.send(Err(if err == TAKEN {
                            format!(
                                "{chord} is taken by another program; choose another in Settings"
                            )
                        } else {
                            format!("{chord} cannot be registered (error {err})")
                        }));
                        return;
                    }
                    registered.push(id);
                }
                let _ = ready_tx.send(Ok(GetCurrentThreadId()));
                events.send(KeysEvent::Ready {
                    backend: KeysBackend::Windows,
                    bindings: bindings.iter().map(|(a, c)| (*a, c.to_string())).collect(),
                });
                while GetMessageW(&mut msg, std::ptr::null_mut(), 0, 0) > 0 {
                    if msg.message == WM_HOTKEY {
                        let i = msg.wParam.wrapping_sub(1);
                        if let Some((action, _)) = bindings.get(i)
                            && !events.send(KeysEvent::Pressed(*action))
                        {
                            break;
                        }
                    }
                }
                for id in registered {
                    UnregisterHotKey(std::ptr::null_mut(), id);
                }
            }
        })
        .map_err(|e| format!("cannot start the keys' thread: {e}"))?;
    let thread_id = ready_rx
        .recv()
        .map_err(|_| "the keys' thread ended".to_string())??;
    Ok(Box::new(move || {
        // SAFETY: posting a message to a thread id is harmless even if it has ended.
        unsafe {
            PostThreadMessageW(thread_id, WM_QUIT, 0, 0);
        }
        let _ = thread.join();
    }))
}
