//! The flock: every running agent session as a bird — agent, folder, state, last tool and
//! target, cost, rate limits and task — and above them the cards that wait in the stack when
//! the screen has no room for their windows, oldest first, each opened in place.

use super::card::CardView;
use super::state::Model;
use super::theme;
use egui::{Color32, RichText};
use std::collections::HashMap;
use std::time::SystemTime;
use vults_engine::messages::{CardAnswer, CardId, PendingCard, RateWindow, Session};
use vults_i18n::tr;

/// The cards in the stack ("+2 more" on the island), oldest first: each a line that opens the
/// whole card in place, answered like any card (its keys stay with the card on screen).
pub fn stack_ui(
    ui: &mut egui::Ui,
    stacked: &[&PendingCard],
    views: &mut HashMap<CardId, CardView>,
    now: SystemTime,
) -> Option<(CardId, CardAnswer)> {
    if stacked.is_empty() {
        return None;
    }
    let mut answer = None;
    egui::Frame::new()
        .fill(Color32::from_rgb(0x33, 0x2A, 0x18))
        .stroke(egui::Stroke::new(1.0, theme::AMBER))
        .corner_radius(10)
        .inner_margin(egui::Margin::symmetric(12, 8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(
                RichText::new(tr!("stack-more-waiting", count = stacked.len()))
                    .strong()
                    .color(theme::AMBER),
            );
            egui::ScrollArea::vertical()
                .id_salt("stack")
                .max_height(ui.ctx().content_rect().height() * 0.6)
                .show(ui, |ui| {
                    for card in stacked {
                        let waited = now
                            .duration_since(card.arrived)
                            .unwrap_or_default()
                            .as_secs();
                        let title = format!(
                            "{} · {}  {} · {}",
                            card.identity.display_name(),
                            vults_core::text::reveal(&card.call.tool).text,
                            theme::shown_target(&card.call.target.summary()),
                            theme::waited_text(waited)
                        );
                        egui::CollapsingHeader::new(RichText::new(title).monospace())
                            .id_salt(("stacked", card.id))
                            .show(ui, |ui| {
                                let view =
                                    views.entry(card.id).or_insert_with(|| CardView::new(card));
                                let frame = theme::card_frame(card.destructive.is_some());
                                if let Some(a) =
                                    frame.show(ui, |ui| view.ui(ui, card, now, false)).inner
                                {
                                    answer = Some((card.id, a));
                                }
                            });
                    }
                });
        });
    ui.add_space(8.0);
    answer
}

/// The Flock tab: every session as a bird, what it does and what it costs, and the cards that
/// had no room on screen.
#[derive(Debug, Default)]
pub struct FlockView;

impl FlockView {
    /// Draws the flock as `model` has it, as of `now`.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model, now: SystemTime) {
        let _ = self.draw(ui, model, now);
    }

    /// Draws the flock; the session whose "Show terminal" was clicked.
    pub fn draw(
        &mut self,
        ui: &mut egui::Ui,
        model: &Model,
        now: SystemTime,
    ) -> Option<vults_engine::messages::SessionKey> {
        let mut show = None;
        let birds = model.birds();
        if birds.is_empty() {
            ui.add_space(24.0);
            ui.vertical_centered(|ui| {
                ui.label(RichText::new(tr!("flock-empty")).heading());
                ui.label(RichText::new(tr!("flock-empty-hint")).color(Color32::from_gray(140)));
            });
            return None;
        }
        let now_unix = vults_engine::clock::unix_ms(now) / 1000;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show_viewport(ui, |ui, viewport| {
                // Only the birds in view are laid out; the others take the height they had
                // when last drawn (a bird never drawn is drawn once, wherever it is, to learn
                // it), so 500 ended birds cost what the few on screen do. Heights are kept for
                // the birds of the flock now, no others.
                let id = ui.make_persistent_id("bird heights");
                let mut heights: BirdHeights =
                    ui.data_mut(|d| d.remove_temp(id)).unwrap_or_default();
                heights.retain(|key, _| model.sessions.contains_key(key));
                let origin = ui.cursor().top();
                for session in birds {
                    let top = ui.cursor().top();
                    let y = top - origin;
                    if let Some(&step) = heights.get(&session.key)
                        && (y + step < viewport.min.y || y > viewport.max.y)
                    {
                        ui.add_space(step);
                        continue;
                    }
                    // Its own id scope: a bird's widgets keep their ids whichever are skipped.
                    if ui
                        .push_id(&session.key, |ui| bird_ui(ui, model, session, now_unix))
                        .inner
                    {
                        show = Some(session.key.clone());
                    }
                    ui.add_space(6.0);
                    heights.insert(session.key.clone(), ui.cursor().top() - top);
                }
                ui.data_mut(|d| d.insert_temp(id, heights));
            });
        show
    }
}

/// Each bird's height (spacing included) when last drawn, by session.
type BirdHeights = HashMap<vults_engine::messages::SessionKey, f32>;

/// Draws one bird; true when its "Show terminal" was clicked.
fn bird_ui(ui: &mut egui::Ui, model: &Model, s: &Session, now_unix: u64) -> bool {
    let mut show = false;
    let name = s.agent_name.as_deref();
    let color = theme::agent_color(s.agent, name);
    let dim = s.state == vults_engine::messages::SessionState::Ended;
    egui::Frame::new()
        .fill(if dim {
            Color32::from_gray(28)
        } else {
            Color32::from_gray(36)
        })
        .corner_radius(10)
        .inner_margin(egui::Margin::symmetric(12, 10))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal_top(|ui| {
                theme::paint_bird(ui, color, &theme::agent_letter(s.agent, name), 34.0);
                ui.add_space(6.0);
                ui.vertical(|ui| {
                    ui.horizontal(|ui| {
                        ui.label(
                            RichText::new(theme::agent_label(s.agent, name))
                                .strong()
                                .color(color),
                        );
                        ui.label(
                            RichText::new(theme::state_text(s.state))
                                .color(theme::state_color(s.state)),
                        );
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            let who = super::show_terminal::who(s);
                            let folder = vults_core::text::reveal(&s.folder).text.into_owned();
                            show = super::show_terminal::button(
                                ui,
                                model.showing.contains(&s.key),
                                &tr!("flock-show-terminal-hover"),
                                Some((
                                    &tr!("flock-show-terminal-of", who = &who, folder = &folder),
                                    &tr!("flock-showing-terminal-of", who = &who, folder = &folder),
                                )),
                            );
                            if let Some(cost) = s.cost_usd {
                                ui.label(RichText::new(theme::cost_text(cost)).monospace());
                            }
                        });
                    });
                    ui.label(
                        RichText::new(vults_core::text::reveal(&s.folder).text)
                            .monospace()
                            .color(Color32::from_gray(190)),
                    );
                    if let Some(what) = &s.in_terminal {
                        ui.add(
                            egui::Label::new(
                                RichText::new(tr!("flock-asks-in-terminal", what = what))
                                    .strong()
                                    .color(theme::AMBER),
                            )
                            .wrap(),
                        );
                    }
                    if let Some(task) = &s.task {
                        // A task Zeca started: the bird took off from the chat.
                        ui.label(
                            RichText::new(tr!("flock-from-zeca-task", task = task))
                                .italics()
                                .color(theme::AMBER),
                        );
                    }
                    if let Some(tool) = &s.last_tool {
                        let target = theme::shown_target(s.last_target.as_deref().unwrap_or(""));
                        let tool = vults_core::text::reveal(tool);
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("{}  {target}", tool.text))
                                    .monospace()
                                    .color(Color32::from_gray(160)),
                            )
                            .truncate(),
                        );
                    }
                    if s.five_hour.is_some() || s.seven_day.is_some() {
                        ui.horizontal(|ui| {
                            if let Some(w) = &s.five_hour {
                                rate_ui(ui, &tr!("rate-window-five-hours"), w, now_unix);
                            }
                            if let Some(w) = &s.seven_day {
                                rate_ui(ui, &tr!("rate-window-seven-days"), w, now_unix);
                            }
                        });
                    }
                    if let Some(shown) = model.shown.as_ref().filter(|x| x.session == s.key) {
                        super::show_terminal::line_ui(ui, shown);
                    }
                });
            });
        });
    show
}

fn rate_ui(ui: &mut egui::Ui, window: &str, w: &RateWindow, now_unix: u64) {
    let used = w.used_percentage.clamp(0.0, 100.0);
    let color = if used >= 90.0 {
        theme::RED
    } else if used >= 70.0 {
        theme::AMBER
    } else {
        Color32::from_gray(170)
    };
    let mut text = tr!("rate-used", window = window, percent = format!("{used:.0}"));
    if let Some(at) = w.resets_at {
        text.push_str(&format!(", {}", theme::resets_text(at, now_unix)));
    }
    let (rect, _) = ui.allocate_exact_size(egui::vec2(56.0, 6.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 3, Color32::from_gray(60));
    let mut done = rect;
    done.set_width(rect.width() * (used / 100.0) as f32);
    ui.painter().rect_filled(done, 3, color);
    ui.label(RichText::new(text).small().color(color));
    ui.add_space(8.0);
}
