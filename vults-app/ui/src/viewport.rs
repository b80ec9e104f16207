//! The app's own windows besides the root (each card, the main window over the island, the
//! island's menu and toast) are egui immediate viewports, and [`immediate`] is how they open.
//!
//! eframe 0.37 runs a frame outside winit's event loop when the root window reports itself
//! invisible or minimized (`check_redraw_requests` paints such a window directly, for Windows'
//! sake). A window cannot be created there, and `show_viewport_immediate` then panics with
//! "egui backend is implemented incorrectly - the user callback was never called". On X11 a
//! root window counts as invisible until its first `VisibilityNotify`, which a busy or stalled
//! window manager delays: a card that arrived in the first moments after start killed the app.
//! [`immediate`] turns that panic into "not this frame": the window opens on the next frame run
//! from the event loop, which comes as soon as the root is shown.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::time::Duration;

use egui::{ViewportBuilder, ViewportClass, ViewportId};

/// What egui says when the backend returned without drawing the viewport.
const NOT_DRAWN: &str = "the user callback was never called";

/// How soon a window that could not open is tried again.
const RETRY: Duration = Duration::from_millis(100);

thread_local! {
    /// Set while [`immediate`] expects egui's panic, so the panic hook stays silent for it.
    static EXPECTING: Cell<bool> = const { Cell::new(false) };
}

/// Shows `id`'s window as [`egui::Context::show_viewport_immediate`] does and returns what `ui`
/// returned, or `None` when the window could not be created this frame (see the module docs):
/// `ui` was not called, nothing else changed, and another frame comes soon to try again.
/// Any other panic goes on unwinding.
pub fn immediate<T>(
    ctx: &egui::Context,
    id: ViewportId,
    builder: ViewportBuilder,
    ui: impl FnMut(&mut egui::Ui, ViewportClass) -> T,
) -> Option<T> {
    quiet_hook();
    // A window opened from inside another's `ui` sets it again; each gives back what it found.
    let was = EXPECTING.with(|e| e.replace(true));
    // The callback owns no state of its own and is never half run: egui panics only when the
    // backend returned before calling it, with every lock and borrow released.
    let shown = panic::catch_unwind(AssertUnwindSafe(|| {
        ctx.show_viewport_immediate(id, builder, ui)
    }));
    EXPECTING.with(|e| e.set(was));
    match shown {
        Ok(out) => Some(out),
        Err(payload) if is_not_drawn(payload.as_ref()) => {
            tracing::debug!("window {id:?} not opened this frame (no event loop); trying again");
            ctx.request_repaint_after_for(RETRY, ViewportId::ROOT);
            None
        }
        Err(payload) => panic::resume_unwind(payload),
    }
}

fn is_not_drawn(payload: &(dyn Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    text.is_some_and(|t| t.contains(NOT_DRAWN))
}

/// Wraps the panic hook once: egui's expected panic is neither logged nor printed; every other
/// panic reaches the previous hook (the log's) as before.
fn quiet_hook() {
    static WRAPPED: Once = Once::new();
    WRAPPED.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let expected = EXPECTING.with(Cell::get) && is_not_drawn(info.payload());
            if !expected {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn egui_s_never_drawn_panic_is_recognised_and_no_other() {
        let text: Box<dyn Any + Send> = Box::new(
            "egui backend is implemented incorrectly - the user callback was never called",
        );
        assert!(is_not_drawn(text.as_ref()));
        let owned: Box<dyn Any + Send> = Box::new(format!("x: {NOT_DRAWN}"));
        assert!(is_not_drawn(owned.as_ref()));
        let other: Box<dyn Any + Send> = Box::new("index out of bounds");
        assert!(!is_not_drawn(other.as_ref()));
        let number: Box<dyn Any + Send> = Box::new(7_u32);
        assert!(!is_not_drawn(number.as_ref()));
    }

    #[test]
    fn without_a_backend_the_window_is_embedded_and_drawn() {
        // egui alone (no eframe) has no immediate renderer: the viewport is drawn inside the
        // current one, and the callback runs.
        let ctx = egui::Context::default();
        let mut got = None;
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            got = immediate(
                ui.ctx(),
                ViewportId::from_hash_of("t"),
                ViewportBuilder::default(),
                |_, class| class,
            );
        });
        out.textures_delta.clear();
        assert!(
            got == Some(ViewportClass::EmbeddedWindow),
            "the callback ran embedded"
        );
    }

    #[test]
    fn another_panic_in_the_window_goes_on_unwinding() {
        let ctx = egui::Context::default();
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            let _ = ctx.run_ui(egui::RawInput::default(), |ui| {
                immediate(
                    ui.ctx(),
                    ViewportId::from_hash_of("t"),
                    ViewportBuilder::default(),
                    |_, _| -> () { panic!("a bug of the window's own") },
                );
            });
        }));
        let payload = caught.expect_err("the window's own panic is not swallowed");
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"a bug of the window's own")
        );
    }
}
