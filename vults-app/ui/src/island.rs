//! The island: a small pill at the top centre with the number of birds, and when cards wait,
//! a pulse and their count — and "+2 more" when some have no room on screen and wait in the
//! stack the flock lists. A click on it shows the flock.

use super::theme;
use egui::{Color32, CornerRadius, FontId, Role, Sense, Vec2, WidgetInfo};
use vults_i18n::tr;

/// The island's size in points; the root window is made exactly this big.
pub const SIZE: Vec2 = Vec2::new(300.0, 38.0);

/// The island: the small always-on-top pill that says what waits (and the stacked cards'
/// "+N more").
#[derive(Debug, Default)]
pub struct IslandView {
    /// Cards are paused: the pill says so where it would say "Vults".
    pub paused: bool,
    /// The pill was right-clicked since the window last looked: its menu (Show terminal for
    /// each bird) opens or closes.
    pub menu_asked: bool,
    /// Quiet (do not disturb, quiet hours): the pill is still and says "quiet" there instead.
    pub quiet: bool,
    /// An agent's hook is out ("Claude Code hook out", from the watcher): said in amber where
    /// the pill says "Vults".
    pub alert: Option<String>,
    /// The plan's limit closest to its end ("5 h limit 81 %"), where the pill says "Vults"
    /// when no hook is out.
    pub limit: Option<String>,
    /// What the pill last said (its accessible name), logged when it changes: the log then
    /// tells what the island showed and when, which the desktop tests read.
    pub said: String,
}

impl IslandView {
    /// Draws the pill. `stacked` of the `waiting` cards have no room on screen (the flock lists
    /// them). `pulse` is the pulse's phase in 0..1 while it animates, `None` when still.
    /// Returns true when clicked.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        birds: usize,
        waiting: usize,
        stacked: usize,
        pulse: Option<f32>,
    ) -> bool {
        let mut label = island_label(birds, waiting, stacked);
        if self.paused {
            label.push_str(&format!(", {}", tr!("island-cards-paused")));
        } else if self.quiet {
            label.push_str(&format!(", {}", tr!("island-quiet")));
        }
        for extra in [&self.alert, &self.limit].into_iter().flatten() {
            label.push_str(", ");
            label.push_str(extra);
        }
        if label != self.said {
            tracing::info!("island says: {label}");
            self.said.clone_from(&label);
        }
        let (rect, response) = ui.allocate_exact_size(SIZE, Sense::click());
        response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &label));
        let painter = ui.painter_at(rect);
        let hover = response.hovered();
        let fill = if hover {
            Color32::from_rgba_premultiplied(0x24, 0x26, 0x2C, 0xF2)
        } else {
            theme::PILL_FILL
        };
        painter.rect_filled(rect, CornerRadius::same((SIZE.y / 2.0) as u8), fill);

        // The birds: a small bird and the count.
        let mut x = rect.left() + 16.0;
        let cy = rect.center().y;
        painter.circle_filled(
            egui::pos2(x + 6.0, cy),
            7.0,
            Color32::from_rgb(0x9A, 0xA4, 0xB8),
        );
        painter.add(egui::Shape::convex_polygon(
            vec![
                egui::pos2(x + 12.0, cy - 2.5),
                egui::pos2(x + 16.5, cy),
                egui::pos2(x + 12.0, cy + 2.0),
            ],
            theme::AMBER,
            egui::Stroke::NONE,
        ));
        x += 24.0;
        let birds_text = tr!("island-birds", count = birds);
        let font = FontId::proportional(15.0);
        // The birds' words end where the right side's first word starts ("paused" may need
        // their room: then the count stands alone beside the bird).
        let mut birds_room = f32::INFINITY;
        if waiting > 0 {
            // From the right: "+2 more" (when some wait in the stack), then "6 waiting", then the
            // dot — or, while paused, "paused" in its place: every new request goes to the
            // agent's terminal until Pause is undone, and the pill says so beside what waits.
            let mut right = rect.right() - 16.0;
            if stacked > 0 {
                let more = painter.layout_no_wrap(
                    tr!("island-more", count = stacked),
                    FontId::proportional(13.0),
                    Color32::from_rgb(0x1E, 0x20, 0x25),
                );
                let badge = egui::Rect::from_min_size(
                    egui::pos2(right - more.size().x - 12.0, cy - 10.0),
                    egui::vec2(more.size().x + 12.0, 20.0),
                );
                painter.rect_filled(badge, CornerRadius::same(10), theme::AMBER);
                painter.galley(
                    egui::pos2(badge.left() + 6.0, cy - more.size().y / 2.0),
                    more,
                    Color32::WHITE,
                );
                right = badge.left() - 8.0;
            }
            let text = tr!("island-waiting", count = waiting);
            let galley = painter.layout_no_wrap(text, font.clone(), theme::AMBER);
            let text_left = right - galley.size().x;
            painter.galley(
                egui::pos2(text_left, cy - galley.size().y / 2.0),
                galley,
                theme::AMBER,
            );
            if self.paused {
                let text = painter.layout_no_wrap(
                    tr!("island-paused"),
                    FontId::proportional(12.0),
                    Color32::BLACK,
                );
                let badge = egui::Rect::from_min_size(
                    egui::pos2(text_left - 6.0 - text.size().x - 10.0, cy - 9.0),
                    egui::vec2(text.size().x + 10.0, 18.0),
                );
                painter.rect_filled(badge, CornerRadius::same(9), theme::AMBER);
                painter.galley(
                    egui::pos2(badge.left() + 5.0, cy - text.size().y / 2.0),
                    text,
                    Color32::BLACK,
                );
                birds_room = badge.left() - 6.0 - x;
            } else {
                let dot = egui::pos2(text_left - 12.0, cy);
                // The dot's pulse grows to 12 px around it: the birds' words end before.
                birds_room = dot.x - 12.0 - 4.0 - x;
                if let Some(phase) = pulse {
                    let grow = 5.0 + 7.0 * phase;
                    let alpha = ((1.0 - phase) * 160.0) as u8;
                    painter.circle_filled(
                        dot,
                        grow,
                        Color32::from_rgba_unmultiplied(0xF5, 0xA5, 0x24, alpha),
                    );
                }
                painter.circle_filled(dot, 5.0, theme::AMBER);
            }
        }
        let mut galley = painter.layout_no_wrap(birds_text, font.clone(), Color32::from_gray(230));
        if galley.size().x > birds_room {
            galley = painter.layout_no_wrap(birds.to_string(), font, Color32::from_gray(230));
        }
        // In a language whose words for what waits take the whole pill, what waits keeps it:
        // the count of birds is in the pill's name and one click away.
        if galley.size().x <= birds_room {
            painter.galley(
                egui::pos2(x, cy - galley.size().y / 2.0),
                galley,
                Color32::WHITE,
            );
        }
        if waiting == 0 {
            let (text, color) = if self.paused {
                (tr!("island-paused"), theme::AMBER)
            } else if let Some(alert) = &self.alert {
                (alert.clone(), theme::AMBER)
            } else if self.quiet {
                (tr!("island-quiet"), Color32::from_gray(150))
            } else if let Some(limit) = &self.limit {
                (limit.clone(), Color32::from_gray(170))
            } else {
                // The app's name, the same in every language.
                ("Vults".to_owned(), Color32::from_gray(120))
            };
            let galley = painter.layout_no_wrap(text, FontId::proportional(13.0), color);
            painter.galley(
                egui::pos2(
                    rect.right() - 16.0 - galley.size().x,
                    cy - galley.size().y / 2.0,
                ),
                galley,
                Color32::WHITE,
            );
        }
        if response.secondary_clicked() {
            self.menu_asked = true;
        }
        response.on_hover_text(tr!("island-hover")).clicked()
    }
}

/// What the island says, also its accessible name: "3 birds, 2 waiting", and with cards in
/// the stack "3 birds, 6 waiting, +2 more".
pub fn island_label(birds: usize, waiting: usize, stacked: usize) -> String {
    let b = tr!("island-birds", count = birds);
    match (waiting, stacked) {
        (0, _) => b,
        (w, 0) => format!("{b}, {}", tr!("island-waiting", count = w)),
        (w, s) => format!(
            "{b}, {}, {}",
            tr!("island-waiting", count = w),
            tr!("island-more", count = s)
        ),
    }
}
