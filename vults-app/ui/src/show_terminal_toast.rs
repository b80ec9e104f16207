//! "Show terminal" in the window's own parts: [`WindowTerminal`] turns a click into a
//! [`ShowRequest`] for the terminal side and its answer into the model's line, and draws the
//! toast and the island's menu (a module of its own so that the card and the model, which
//! [`crate::show_terminal`]'s types serve, never depend on it).

use crate::show_terminal::{
    ShowRequest, Shown, TerminalNews, TerminalSide, failure_line, place_of, who,
};
use crate::state::Model;
use egui::{Color32, RichText};
use std::sync::mpsc::Receiver;
use std::time::SystemTime;
use vults_engine::messages::{Session, SessionKey};
use vults_terminal::FailureKind;

/// How long a show's toast stays up, in seconds.
const TOAST_FOR: f64 = 8.0;
const TOAST_WIDTH: f32 = 520.0;
const MENU_WIDTH: f32 = 360.0;

/// The window's part of "Show terminal": the side that runs it, the requests from outside the
/// window (a notification's action), the toast and the island's menu.
#[derive(Default)]
pub(crate) struct WindowTerminal {
    pub side: Option<Box<dyn TerminalSide>>,
    pub requests: Option<Receiver<SessionKey>>,
    /// `ctx` time when the last line came: the toast shows for [`TOAST_FOR`] after it.
    pub toast_from: Option<f64>,
    /// The island's menu is open (a right click on the island).
    pub menu_open: bool,
    /// The screens were read again since the last show's line came (the window it raised).
    placed: bool,
}

impl WindowTerminal {
    /// Asks for `session`'s terminal; a session the window cannot show gets its line at once.
    pub fn request(&mut self, model: &mut Model, session: &SessionKey, now_t: f64) {
        let failed = |line: vults_i18n::Message| Shown {
            session: session.clone(),
            line,
            ok: false,
            at: SystemTime::now(),
        };
        let Some(s) = model.sessions.get(session) else {
            self.answer(
                model,
                failed(vults_i18n::Message::new("terminal-left-the-flock")),
                now_t,
            );
            return;
        };
        let who = who(s);
        let place = match place_of(s) {
            Ok(place) => place,
            Err(crate::Error::NoPlace { line }) => return self.answer(model, failed(line), now_t),
            Err(other) => {
                let line = vults_i18n::Message::new("terminal-said").arg("text", other.to_string());
                return self.answer(model, failed(line), now_t);
            }
        };
        let Some(side) = self.side.as_mut() else {
            let line = failure_line(
                &who,
                FailureKind::Failed,
                vults_i18n::Message::new("terminal-not-running"),
            );
            return self.answer(model, failed(line), now_t);
        };
        if !model.showing.insert(session.clone()) {
            return; // one is under way for it already
        }
        side.show(ShowRequest {
            session: session.clone(),
            place,
            who,
        });
    }

    /// Takes what came back, and the requests from outside the window; the sessions to show.
    pub fn poll(&mut self, model: &mut Model, now_t: f64) -> Vec<SessionKey> {
        while let Some(news) = self.side.as_mut().and_then(|s| s.poll()) {
            match news {
                TerminalNews::Shown(shown) => {
                    model.showing.remove(&shown.session);
                    self.answer(model, shown, now_t);
                }
                TerminalNews::Survey(rows) => model.terminal_survey = Some(rows),
            }
        }
        self.requests
            .as_ref()
            .map(|rx| rx.try_iter().collect())
            .unwrap_or_default()
    }

    fn answer(&mut self, model: &mut Model, shown: Shown, now_t: f64) {
        // The bottom row keeps its lines as they were said, like the engine's notices.
        model.notice(shown.line.text());
        model.shown = Some(shown);
        self.toast_from = Some(now_t);
        // Where the raised window is now, for the toast to keep clear of it.
        self.placed = false;
    }

    /// The titles of the menu's and the toast's windows while they are open (floating).
    pub fn open_titles(&self) -> impl Iterator<Item = &'static str> {
        [
            self.menu_open.then_some(MENU_TITLE),
            self.toast_from.is_some().then_some(TOAST_TITLE),
        ]
        .into_iter()
        .flatten()
    }

    /// Draws the island's menu (when open) and the toast; the session chosen in the menu.
    /// `floating`: the part of the screen the island is on (each is a small window of its own
    /// under the island); `None`: an area at the top of the one window.
    /// `window`: the active window (floating, X11), which the toast keeps clear of.
    pub fn overlays_ui(
        &mut self,
        ctx: &egui::Context,
        model: &Model,
        screen: Option<egui::Rect>,
        window: Option<egui::Rect>,
    ) -> Option<SessionKey> {
        let now_t = ctx.input(|i| i.time);
        let floating = screen.is_some();
        // Under the island, but never over the cards' column at the right (floating), nor
        // the one window's cards (embedded: at the left).
        let centre = |width: f32| match screen {
            Some(area) => {
                let cards = area.right() - crate::card::WIDTH - 16.0 - 8.0;
                (area.center().x - width / 2.0)
                    .min(cards - width)
                    .max(area.left())
            }
            None => 8.0,
        };
        let mut top = screen.map_or(48.0, |area| area.top() + 50.0);
        let mut chosen = None;
        if self.menu_open {
            let birds = model.birds();
            let height = 36.0 + 23.5 * birds.len().max(1) as f32;
            let pos = egui::pos2(centre(MENU_WIDTH), top);
            let mut close = ctx.input(|i| i.key_pressed(egui::Key::Escape));
            let mut draw = |ui: &mut egui::Ui| {
                if let Some(s) = menu_ui(ui, &birds, model) {
                    chosen = Some(s);
                }
            };
            if floating {
                let builder = crate::viewport::floating(
                    crate::viewport::Floating::Menu,
                    MENU_TITLE,
                    pos,
                    egui::vec2(MENU_WIDTH, height),
                );
                crate::viewport::immediate(ctx, menu_id(), builder, |ui, _| {
                    close |= ui.input(|i| {
                        i.viewport().close_requested() || i.key_pressed(egui::Key::Escape)
                    });
                    egui::CentralPanel::default()
                        .frame(menu_frame())
                        .show(ui, |ui| draw(ui));
                });
            } else {
                egui::Area::new(menu_id().0)
                    .fixed_pos(pos)
                    .order(egui::Order::Foreground)
                    .show(ctx, |ui| {
                        ui.set_width(MENU_WIDTH - 24.0);
                        menu_frame().show(ui, |ui| draw(ui));
                    });
            }
            if close || chosen.is_some() {
                self.menu_open = false;
            } else {
                top += height + 6.0;
            }
        }
        if floating && !std::mem::replace(&mut self.placed, true) {
            crate::viewport::refresh_screens(ctx);
        }
        if let (Some(from), Some(shown)) = (self.toast_from, model.shown.as_ref()) {
            let left = TOAST_FOR - (now_t - from);
            if left <= 0.0 {
                self.toast_from = None;
                return chosen;
            }
            ctx.request_repaint_after(std::time::Duration::from_secs_f64(left));
            let pos = match screen {
                Some(area) => {
                    let size = egui::vec2(TOAST_WIDTH, TOAST_HEIGHT);
                    toast_pos(area, centre(TOAST_WIDTH), top, size, window)
                }
                None => egui::pos2(centre(TOAST_WIDTH), top),
            };
            if floating {
                let builder = crate::viewport::floating(
                    crate::viewport::Floating::Toast,
                    TOAST_TITLE,
                    pos,
                    egui::vec2(TOAST_WIDTH, TOAST_HEIGHT),
                );
                crate::viewport::immediate(ctx, toast_id(), builder, |ui, _| {
                    egui::CentralPanel::default()
                        .frame(toast_frame())
                        .show(ui, |ui| toast_ui(ui, shown));
                });
            } else {
                egui::Area::new(toast_id().0)
                    .fixed_pos(pos)
                    .order(egui::Order::Tooltip)
                    .show(ctx, |ui| {
                        ui.set_max_width(TOAST_WIDTH - 28.0);
                        toast_frame().show(ui, |ui| toast_ui(ui, shown));
                    });
            }
        }
        chosen
    }
}

const TOAST_HEIGHT: f32 = 40.0;
/// Space between the toast and the window it keeps clear of.
const TOAST_GAP: f32 = 8.0;

/// Where the toast goes on `area` (floating, in points): at `x` under the island (`under`),
/// unless it would cover `window`, the active window (after Show terminal, the terminal it
/// raised): then below that window, or beside it, wherever the toast fits on `area` left of
/// the cards' column. A window that leaves no room (a
/// maximized terminal) gets it under the island still, over its oldest rows rather than its
/// prompt. Where the active window is not known, at the bottom of `area`.
pub(crate) fn toast_pos(
    area: egui::Rect,
    x: f32,
    under: f32,
    size: egui::Vec2,
    window: Option<egui::Rect>,
) -> egui::Pos2 {
    let default = egui::pos2(x, under);
    let Some(window) = window else {
        return egui::pos2(x, area.bottom() - size.y - TOAST_GAP);
    };
    // Left of the cards' column, as under the island.
    let x_max = (area.right() - crate::card::WIDTH - 16.0 - 8.0 - size.x).max(area.left());
    let fits = |at: egui::Pos2| {
        area.contains_rect(egui::Rect::from_min_size(at, size)) && at.x <= x_max + 0.5
    };
    let clear = |at: egui::Pos2| !egui::Rect::from_min_size(at, size).intersects(window);
    let below = egui::pos2(x, (window.bottom() + TOAST_GAP).max(under));
    let left = egui::pos2(window.left() - TOAST_GAP - size.x, under);
    let right = egui::pos2(window.right() + TOAST_GAP, under);
    [default, below, left, right]
        .into_iter()
        .find(|at| clear(*at) && fits(*at))
        .unwrap_or(default)
}

/// The island menu's window title (floating).
pub(crate) const MENU_TITLE: &str = "Vults: show terminal";
/// The toast's window title (floating).
pub(crate) const TOAST_TITLE: &str = "Vults: terminal";

fn menu_id() -> egui::ViewportId {
    egui::ViewportId::from_hash_of("vults-island-menu")
}

fn toast_id() -> egui::ViewportId {
    egui::ViewportId::from_hash_of("vults-terminal-toast")
}

fn menu_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(Color32::from_gray(30))
        .stroke(egui::Stroke::new(1.0, Color32::from_gray(70)))
        .corner_radius(10)
        .inner_margin(egui::Margin::symmetric(12, 8))
}

fn toast_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(crate::theme::PILL_FILL)
        .corner_radius(12)
        .inner_margin(egui::Margin::symmetric(14, 8))
}

fn toast_ui(ui: &mut egui::Ui, shown: &Shown) {
    let line = shown.line.text();
    let color = if shown.ok {
        crate::theme::GREEN
    } else {
        crate::theme::AMBER
    };
    ui.horizontal(|ui| {
        // A dot of the line's colour: green it came forward, amber it did not.
        let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
        ui.painter().circle_filled(rect.center(), 4.0, color);
        ui.add(egui::Label::new(RichText::new(&line).color(Color32::from_gray(230))).truncate())
            .on_hover_text(&line);
    });
}

/// The island's menu: "Show terminal" for each bird, waiting ones first; the one chosen.
pub fn menu_ui(ui: &mut egui::Ui, birds: &[&Session], model: &Model) -> Option<SessionKey> {
    let mut chosen = None;
    ui.label(RichText::new(vults_i18n::tr!("terminal-menu-title")).strong());
    if birds.is_empty() {
        ui.label(RichText::new(vults_i18n::tr!("flock-empty")).color(Color32::from_gray(150)));
    }
    // The rows are monospace: how many characters the row really has room for.
    let font = egui::FontId::monospace(12.0);
    let char_width = ui.fonts_mut(|f| f.glyph_width(&font, 'M')).max(1.0);
    let columns = ((ui.available_width() - 2.0) / char_width).floor().max(8.0) as usize;
    for s in birds {
        let folder = crate::theme::shown_target(&vults_core::text::reveal(&s.folder).text);
        let task = s
            .task
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(|t| vults_core::text::reveal(t).text.into_owned());
        let text = menu_row(
            &format!("{} · {}", who(s), crate::theme::state_text(s.state)),
            &folder,
            task.as_deref(),
            model.showing.contains(&s.key),
            columns,
        );
        let item = egui::Button::new(RichText::new(text).font(font.clone()))
            .frame(false)
            .truncate();
        if ui
            .add(item)
            .on_hover_text(vults_i18n::tr!("terminal-menu-hover"))
            .clicked()
        {
            chosen = Some(s.key.clone());
        }
    }
    chosen
}

/// One row of the island's menu, `columns` characters at most: "who · state · folder · task ·
/// showing…". The folder is cut once, in the middle, to the room the row has after who and the
/// state (and "showing…"), so its last folder, which tells two sessions apart, is always in
/// sight; the task gets what room is left after the folder, cut at its end.
pub fn menu_row(
    head: &str,
    folder: &str,
    task: Option<&str>,
    showing: bool,
    columns: usize,
) -> String {
    const SEP: &str = " · ";
    let showing = if showing {
        format!(" · {}", vults_i18n::tr!("terminal-menu-showing"))
    } else {
        String::new()
    };
    let len = |s: &str| s.chars().count();
    let room = columns.saturating_sub(len(head) + len(SEP) + len(&showing));
    // The folder leaves the task its room while it can keep its last folder and a little of
    // its start ("/…/web").
    let last = folder
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .map_or(0, len);
    let least = len(folder).min(last + 3);
    let task_room = task.map_or(0, |t| len(t) + len(SEP));
    let folder = crate::theme::middle_cut(folder, room.saturating_sub(task_room).max(least).max(8));
    let mut row = format!("{head}{SEP}{folder}");
    if let Some(task) = task {
        let left = room.saturating_sub(len(&folder) + len(SEP));
        if len(task) <= left {
            row.push_str(&format!("{SEP}{task}"));
        } else if left >= 6 {
            let cut: String = task.chars().take(left - 1).collect();
            row.push_str(&format!("{SEP}{}…", cut.trim_end()));
        }
    }
    row.push_str(&showing);
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{Rect, pos2, vec2};

    /// A 1920×1080 work area; the toast centred under the island, as `overlays_ui` puts it.
    fn place(window: Option<Rect>) -> Rect {
        let area = Rect::from_min_size(pos2(0.0, 0.0), vec2(1920.0, 1080.0));
        let size = vec2(TOAST_WIDTH, TOAST_HEIGHT);
        let x = area.center().x - TOAST_WIDTH / 2.0;
        let at = toast_pos(area, x, 50.0, size, window);
        let toast = Rect::from_min_size(at, size);
        assert!(area.contains_rect(toast), "{toast:?} is off the screen");
        // Never over the cards' column at the right.
        assert!(
            toast.right() <= 1920.0 - crate::card::WIDTH - 24.0 + 0.5,
            "{toast:?}"
        );
        toast
    }

    /// Two sessions in sibling folders read apart, each row cut once to the room it has: the
    /// folder in the middle, its last folder whole (both read "/tmp/vults-ju…" when the folder
    /// was cut to 30 characters and then the row at the menu's edge).
    #[test]
    fn menu_rows_of_sibling_folders_keep_their_last_folder() {
        let base = "/tmp/vults-jump-8fK2xQ/tmp";
        let head = "Claude Code · waiting for you";
        for columns in [46, 48, 60, 200] {
            let tmux = menu_row(head, &format!("{base}/tmux-agent"), None, false, columns);
            let kitty = menu_row(head, &format!("{base}/kitty-agent"), None, false, columns);
            for (row, last) in [(&tmux, "tmux-agent"), (&kitty, "kitty-agent")] {
                assert!(row.chars().count() <= columns, "{row} is over {columns}");
                assert!(row.ends_with(&format!("/{last}")), "{row}");
                assert!(row.starts_with(head), "{row}");
            }
            assert_ne!(tmux, kitty);
        }
        // Room enough: nothing is cut.
        let whole = menu_row(head, "/tmp/a/tmux-agent", Some("Fix it"), true, 200);
        assert_eq!(
            whole,
            "Claude Code · waiting for you · /tmp/a/tmux-agent · Fix it · showing…"
        );
        // A task gets what is left after the folder; "showing…" always shows.
        let row = menu_row(
            head,
            &format!("{base}/tmux-agent"),
            Some("Fix the login page and its tests"),
            true,
            60,
        );
        assert!(row.chars().count() <= 60, "{row}");
        assert!(row.contains("/tmux-agent"), "{row}");
        assert!(row.ends_with(" · showing…"), "{row}");
    }

    #[test]
    fn the_toast_keeps_clear_of_the_terminal_it_raised() {
        let window = |x: f32, y: f32, w: f32, h: f32| Rect::from_min_size(pos2(x, y), vec2(w, h));
        // A terminal raised at the top of the screen: the toast goes under it, not over its
        // top rows (it went under the island, over them).
        let top = window(400.0, 0.0, 900.0, 500.0);
        let toast = place(Some(top));
        assert!(!toast.intersects(top), "{toast:?} covers {top:?}");
        assert!(toast.top() >= top.bottom());
        // A terminal at the bottom: under the island, where it always was.
        let bottom = window(300.0, 600.0, 1000.0, 480.0);
        assert_eq!(place(Some(bottom)).min, pos2(700.0, 50.0));
        // Full height at the right: beside it.
        let right = window(1000.0, 0.0, 920.0, 1080.0);
        let toast = place(Some(right));
        assert!(!toast.intersects(right), "{toast:?} covers {right:?}");
        // Full height at the left: beside it, left of the cards.
        let left = window(0.0, 0.0, 800.0, 1080.0);
        let toast = place(Some(left));
        assert!(!toast.intersects(left), "{toast:?} covers {left:?}");
        // Maximized: no room anywhere, so under the island, over its oldest rows, never over
        // its prompt at the bottom.
        let max = window(0.0, 0.0, 1920.0, 1080.0);
        assert_eq!(place(Some(max)).min, pos2(700.0, 50.0));
        // Not known (no X server to ask): the bottom of the work area.
        assert_eq!(place(None).max.y, 1080.0 - TOAST_GAP);
    }
}
