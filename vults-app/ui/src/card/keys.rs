//! The keys a card answers: each press read from its own event, never with Ctrl, Alt, Cmd or
//! Super held.

use egui::Key;

/// One key press that may answer a card: no Ctrl, Alt, Cmd or Super with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Press {
    key: Key,
    shift: bool,
}

impl Press {
    pub(super) fn is(self, key: Key) -> bool {
        self.key == key && !self.shift
    }
    pub(super) fn is_shift(self, key: Key) -> bool {
        self.key == key && self.shift
    }
}

/// This frame's key presses that may answer: each read from its own event — the key and the
/// modifiers winit gave that very press — never from the modifiers held when the frame is
/// drawn (a fast `shift+a` has released Shift by then). A press with Ctrl, Alt, Cmd or
/// Super held is never one; nor is a repeat, nor anything while a text field has the
/// focus. Super is not among egui's modifiers on Linux and Windows, so its own key events
/// are followed, in order, across frames.
pub(super) fn presses(ui: &egui::Ui, keys: bool, super_held: &mut bool) -> Vec<Press> {
    let typing = ui.ctx().memory(|m| m.focused().is_some());
    let mut out = Vec::new();
    ui.input(|i| {
        for event in &i.events {
            match event {
                egui::Event::Key {
                    key: Key::SuperLeft | Key::SuperRight,
                    pressed,
                    ..
                } => *super_held = *pressed,
                egui::Event::WindowFocused(false) => *super_held = false,
                egui::Event::Key {
                    key,
                    pressed: true,
                    repeat: false,
                    modifiers,
                    ..
                } if keys && !typing => {
                    let chord = modifiers.ctrl
                        || modifiers.alt
                        || modifiers.command
                        || modifiers.mac_cmd
                        || *super_held;
                    if !chord {
                        out.push(Press {
                            key: *key,
                            shift: modifiers.shift,
                        });
                    }
                }
                _ => {}
            }
        }
    });
    out
}

/// Whether a press asks to bring what is out of sight into view, a page at a time: ↓, Page Down
/// or Space.
pub(super) fn pages_down(presses: &[Press]) -> bool {
    presses
        .iter()
        .any(|p| p.is(Key::ArrowDown) || p.is(Key::PageDown) || p.is(Key::Space))
}
