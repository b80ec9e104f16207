//! The edge: opens the window with eframe (glow renderer) around the ports the app composed
//! (`vults-app/src/compose.rs` starts the engine and every subsystem; this only draws).
//!
//! **Wayland.** Wayland lets no client place its windows or keep them above others, so the
//! island and the cards could not float at the top of the screen. On a Wayland session with
//! XWayland (GNOME, KDE, Sway all start it) the app runs through XWayland, where it can; with
//! no XWayland (`DISPLAY` unset) it opens one ordinary window with the island as a strip and
//! the cards inside ([`Layout::Embedded`]). `VULTS_LAYOUT=embedded` chooses that anywhere.

use super::app::{Layout, VultsWindow};
use super::island;
use std::sync::{Arc, OnceLock};

struct NativeApp(VultsWindow);

impl eframe::App for NativeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.0.logic(ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.ui(ui);
    }

    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        match self.0.layout {
            // One clear colour serves every viewport: transparent, and each panel paints its own.
            Layout::Floating => [0.0; 4],
            Layout::Embedded => visuals.panel_fill.to_normalized_gamma_f32(),
        }
    }
}

/// Which layout this desktop allows (see the module docs).
pub fn choose_layout(env: impl Fn(&str) -> Option<String>) -> Layout {
    let set = |k: &str| env(k).is_some_and(|v| !v.is_empty());
    if env("VULTS_LAYOUT").as_deref() == Some("embedded") {
        return Layout::Embedded;
    }
    if cfg!(target_os = "linux")
        && (set("WAYLAND_DISPLAY") || set("WAYLAND_SOCKET"))
        && !set("DISPLAY")
    {
        return Layout::Embedded;
    }
    Layout::Floating
}

/// What Settings → General says of the layout this desktop gets: the id of its message
/// (`layout.ftl`), worded when the page is drawn, so it follows a change of language.
pub fn layout_note(layout: Layout) -> String {
    match layout {
        Layout::Floating => "layout-floating",
        Layout::Embedded if std::env::var("VULTS_LAYOUT").as_deref() == Ok("embedded") => {
            "layout-embedded-chosen"
        }
        Layout::Embedded => "layout-embedded-wayland",
    }
    .into()
}

/// What wakes the window from another thread: `request_repaint` on its context once it exists
/// (before, a wake is dropped: the window looks at everything on its first frame anyway).
#[derive(Clone, Default)]
pub struct WindowWake(Arc<OnceLock<egui::Context>>);

impl WindowWake {
    /// A wake for subsystems to call (the engine's subscription, the phone link, the installer).
    pub fn waker(&self) -> Arc<dyn Fn() + Send + Sync> {
        let cell = self.0.clone();
        Arc::new(move || {
            if let Some(ctx) = cell.get() {
                ctx.request_repaint();
            }
        })
    }
}

/// Opens `window` with eframe and runs it until it is closed (tray → Quit). Everything the
/// window drives was composed before (`vults-app/src/compose.rs`): this only draws.
pub fn open(wake: WindowWake, layout: Layout, window: VultsWindow) -> Result<(), crate::Error> {
    let viewport = match layout {
        // Moved to the top centre of the chosen monitor once the window knows it (app.rs).
        Layout::Floating => crate::viewport::floating(
            crate::viewport::Floating::Island,
            super::app::ISLAND_TITLE,
            egui::pos2(400.0, 6.0),
            island::SIZE,
        ),
        Layout::Embedded => egui::ViewportBuilder::default()
            .with_title("Vults")
            .with_app_id("vults")
            .with_inner_size([900.0, 680.0]),
    };
    #[allow(unused_mut)] // only Linux sets the event loop hook
    let mut options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        viewport,
        ..Default::default()
    };
    #[cfg(target_os = "linux")]
    if layout == Layout::Floating {
        options.event_loop_builder = Some(Box::new(|builder| {
            use winit::platform::x11::EventLoopBuilderExtX11 as _;
            builder.with_x11();
        }));
    }
    eframe::run_native(
        "Vults",
        options,
        Box::new(move |cc| {
            let _ = wake.0.set(cc.egui_ctx.clone());
            // The cards, the pill and the birds are drawn for a dark theme.
            cc.egui_ctx.set_theme(egui::Theme::Dark);
            // Events may have come before the context existed: look at them now.
            cc.egui_ctx.request_repaint();
            Ok(Box::new(NativeApp(window)))
        }),
    )
    .map_err(crate::Error::WindowCannotOpen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn wayland_without_xwayland_embeds_the_cards_in_one_window() {
        let layout = choose_layout(env(&[("WAYLAND_DISPLAY", "wayland-0")]));
        let expected = if cfg!(target_os = "linux") {
            Layout::Embedded
        } else {
            Layout::Floating
        };
        assert_eq!(layout, expected);
        assert_eq!(
            choose_layout(env(&[("WAYLAND_DISPLAY", "wayland-0"), ("DISPLAY", ":0")])),
            Layout::Floating
        );
        assert_eq!(
            choose_layout(env(&[("DISPLAY", ":0"), ("VULTS_LAYOUT", "embedded")])),
            Layout::Embedded
        );
    }
}
