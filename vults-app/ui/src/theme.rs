//! Shared looks: agent colours and marks, state colours, and how times and money read.

use egui::{Color32, Pos2, Shape, Stroke, Vec2};
use vults_core::protocol::{AgentKind, Identity};
use vults_engine::messages::SessionState;

pub(crate) const AMBER: Color32 = Color32::from_rgb(0xF5, 0xA5, 0x24);
pub(crate) const RED: Color32 = Color32::from_rgb(0xE5, 0x48, 0x4D);
pub(crate) const GREEN: Color32 = Color32::from_rgb(0x3D, 0xB8, 0x6B);
/// The fill behind a card.
pub const CARD_FILL: Color32 = Color32::from_rgb(0x1E, 0x20, 0x25);
pub(crate) const PILL_FILL: Color32 = Color32::from_rgba_premultiplied(0x14, 0x15, 0x19, 0xEB);

/// DejaVu Sans Mono (Bitstream Vera licence, `assets/fonts/`): box drawing (a plan's markdown
/// table, `│`), arrows and the symbols the window draws that egui's own fonts lack.
const SYMBOLS_FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSansMono.ttf");

/// Adds the symbols font after egui's own, in both families: a character they lack is drawn
/// from it instead of as a missing-glyph box. Call once per context (the window does, on its
/// first frame).
pub fn install_fonts(ctx: &egui::Context) {
    use egui::epaint::text::{FontInsert, FontPriority, InsertFontFamily};
    ctx.add_font(FontInsert::new(
        "vults-symbols",
        egui::FontData::from_static(SYMBOLS_FONT),
        [egui::FontFamily::Proportional, egui::FontFamily::Monospace]
            .into_iter()
            .map(|family| InsertFontFamily {
                family,
                priority: FontPriority::Lowest,
            })
            .collect(),
    ));
}

/// A target as a list shows it (the flock, History, the stack): hidden characters written out
/// ([`vults_core::text::reveal`]), and a tool input in JSON that names a file (OpenCode's edit,
/// whose target is its whole input) as that file.
pub fn shown_target(target: &str) -> String {
    let trimmed = target.trim_start();
    let target = if trimmed.starts_with('{') {
        vults_core::agents::input_path(target)
            .or_else(|| plan_of(target))
            .unwrap_or_else(|| target.to_string())
    } else if trimmed.starts_with('[') {
        questions_of(target).unwrap_or_else(|| target.to_string())
    } else {
        target.to_string()
    };
    vults_core::text::reveal(&target).text.into_owned()
}

/// A path of at most `max` characters, cut in the middle: its start, `…`, and its last folder
/// whole (`/tmp/vults-ju…/api`), so two folders that differ only at the end still differ. A
/// last folder longer than that keeps its end.
pub fn middle_cut(path: &str, max: usize) -> String {
    let n = path.chars().count();
    if n <= max || max < 4 {
        return path.to_string();
    }
    let trimmed = path.trim_end_matches(['/', '\\']);
    let last_at = trimmed.rfind(['/', '\\']).map_or(0, |i| i + 1);
    let last = &trimmed[last_at..];
    let last_n = last.chars().count();
    if last_n + 2 >= max {
        let tail: String = last.chars().skip(last_n - (max - 1)).collect();
        return format!("…{tail}");
    }
    let head: String = path.chars().take(max - 2 - last_n).collect();
    format!("{head}…/{last}")
}

/// A plan review's target (Claude Code's ExitPlanMode input, `{"plan": "# Plan: …"}`) as the
/// plan's first heading ("Plan: list the project", or "plan: …" when it does not say so);
/// `None` for any other input.
fn plan_of(target: &str) -> Option<String> {
    let input: serde_json::Value = serde_json::from_str(target).ok()?;
    let plan = input
        .as_object()
        .filter(|o| o.len() == 1)?
        .get("plan")?
        .as_str()?;
    let lines = || plan.lines().map(str::trim).filter(|l| !l.is_empty());
    let heading = lines()
        .find(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .or_else(|| lines().next())?;
    Some(if heading.to_lowercase().starts_with("plan") {
        heading.to_string()
    } else {
        format!("plan: {heading}")
    })
}

/// An AskUserQuestion's target (its questions as JSON, as the audit keeps it) as the questions
/// read: "Which database? · Which port?"; `None` for any other text.
fn questions_of(target: &str) -> Option<String> {
    let serde_json::Value::Array(items) = serde_json::from_str(target).ok()? else {
        return None;
    };
    let questions: Option<Vec<&str>> = items
        .iter()
        .map(|q| q.get("question").and_then(serde_json::Value::as_str))
        .collect();
    questions.filter(|q| !q.is_empty()).map(|q| q.join(" · "))
}

/// Text whose `code` is between backticks, as a person reads it: the backticks gone, each piece
/// of code in monospace on a faint ground, the rest in the body font (`color`).
pub fn with_code(ui: &egui::Ui, text: &str, color: Color32) -> egui::text::LayoutJob {
    let body = egui::TextStyle::Body.resolve(ui.style());
    let code = egui::FontId::monospace(body.size - 1.0);
    let mut job = egui::text::LayoutJob::default();
    for (i, piece) in text.split('`').enumerate() {
        if piece.is_empty() {
            continue;
        }
        let format = if i % 2 == 1 {
            egui::TextFormat {
                font_id: code.clone(),
                color: Color32::from_gray(235),
                background: Color32::from_gray(45),
                ..Default::default()
            }
        } else {
            egui::TextFormat::simple(body.clone(), color)
        };
        job.append(piece, 0.0, format);
    }
    job.wrap.max_width = ui.available_width();
    job
}

/// A card's frame, inline in the chat or floating: red-edged when the call is destructive.
pub fn card_frame(destructive: bool) -> egui::Frame {
    egui::Frame::new()
        .fill(CARD_FILL)
        .corner_radius(12)
        .stroke(egui::Stroke::new(
            1.5,
            if destructive {
                RED
            } else {
                Color32::from_gray(70)
            },
        ))
        .inner_margin(egui::Margin::same(14))
}

/// An agent's look, from its row in the agent table; `None` for `other` and for an agent drawn
/// as a named tool is.
fn look_of(agent: AgentKind) -> Option<vults_core::agents::Look> {
    agent.agent().and_then(|a| a.spec().look)
}

/// An agent's colour: its row's, else one made from its name (a named tool's own).
pub fn agent_color(agent: AgentKind, name: Option<&str>) -> Color32 {
    if let Some(look) = look_of(agent) {
        let [r, g, b] = look.rgb;
        return Color32::from_rgb(r, g, b);
    }
    let hash = name
        .unwrap_or("other")
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    let hue = (hash % 360) as f32 / 360.0;
    egui::ecolor::Hsva::new(hue, 0.55, 0.85, 1.0).into()
}

pub(crate) fn identity_color(identity: &Identity) -> Color32 {
    match identity {
        Identity::Builtin(kind) => agent_color(*kind, None),
        Identity::Named(name) => agent_color(AgentKind::Other, Some(name.as_str())),
    }
}

/// The letter on an agent's bird.
pub fn agent_letter(agent: AgentKind, name: Option<&str>) -> String {
    match look_of(agent) {
        Some(look) => look.letter.to_string(),
        None => name
            .and_then(|n| n.chars().next())
            .map(|c| c.to_ascii_uppercase().to_string())
            .unwrap_or_else(|| "?".into()),
    }
}

/// The name a person knows an agent by: the built-in's name, or the named tool's own.
pub fn agent_label(agent: AgentKind, name: Option<&str>) -> String {
    match (agent, name) {
        (AgentKind::Other, Some(n)) => n.to_string(),
        _ => agent.display_name().to_string(),
    }
}

/// Paints a small bird: a round body in the agent's colour, a beak, and the agent's letter.
pub fn paint_bird(ui: &mut egui::Ui, color: Color32, letter: &str, size: f32) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), egui::Sense::hover());
    let painter = ui.painter_at(rect.expand(2.0));
    let c = rect.center() - Vec2::new(size * 0.06, 0.0);
    let r = size * 0.42;
    let beak = [
        Pos2::new(c.x + r * 0.85, c.y - r * 0.28),
        Pos2::new(c.x + r * 1.22, c.y - r * 0.05),
        Pos2::new(c.x + r * 0.85, c.y + r * 0.18),
    ];
    painter.add(Shape::convex_polygon(beak.to_vec(), AMBER, Stroke::NONE));
    painter.circle_filled(c, r, color);
    painter.text(
        c,
        egui::Align2::CENTER_CENTER,
        letter,
        egui::FontId::proportional(size * 0.5),
        Color32::WHITE,
    );
    response
}

/// A finished turn: waits for the person, but asks nothing yet (softer than a card's amber).
pub(crate) const DONE: Color32 = Color32::from_rgb(0x6C, 0xB4, 0xF0);

/// What a bird says its session is doing.
pub(crate) fn state_text(state: SessionState) -> String {
    vults_i18n::text(match state {
        SessionState::Working => "state-working",
        SessionState::WaitingForYou => "state-waiting-for-you",
        SessionState::Done => "state-done",
        SessionState::AsksInTerminal => "state-asks-in-terminal",
        SessionState::Idle => "state-idle",
        SessionState::Ended => "state-ended",
    })
}

pub(crate) fn state_color(state: SessionState) -> Color32 {
    match state {
        SessionState::Working => GREEN,
        SessionState::WaitingForYou | SessionState::AsksInTerminal => AMBER,
        SessionState::Done => DONE,
        SessionState::Idle => Color32::from_gray(150),
        SessionState::Ended => Color32::from_gray(100),
    }
}

/// "12 s", "3 min", "1 h 4 min": how long something has waited.
pub fn duration_text(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min", secs / 60),
        3600..=86399 => format!("{} h {} min", secs / 3600, (secs % 3600) / 60),
        _ => format!("{} d {} h", secs / 86400, (secs % 86400) / 3600),
    }
}

/// How long a card has waited: "just now", "10 s" (in steps of 5 s, so a waiting card
/// repaints every 5 s in its first minute, then once a minute), "3 min", …
pub fn waited_text(secs: u64) -> String {
    match secs {
        0..=4 => vults_i18n::tr!("waited-just-now"),
        5..=59 => vults_i18n::tr!("waited-seconds", seconds = secs / 5 * 5),
        _ => duration_text(secs),
    }
}

/// In how many seconds [`waited_text`] of a wait that is now `secs` long reads differently.
pub fn next_waited_change(secs: u64) -> u64 {
    match secs {
        0..=59 => 5 - secs % 5,
        _ => 60 - secs % 60,
    }
}

/// The rule sentence under Always and why a card asks, worded as the notification and the phone
/// page word them (one place: `vults_notify::words`).
pub use vults_notify::words::{rule_words, sentence_words};

/// Who answered, in the person's language (History, Zeca's chat): what
/// [`vults_engine::messages::AnsweredBy::words`] says in English; what came from outside (a
/// device's or a policy's name, an older line's text) shown through [`vults_core::text::reveal`].
pub fn answered_by_words(by: &vults_engine::messages::AnsweredBy) -> String {
    use vults_engine::messages::AnsweredBy;
    use vults_i18n::tr;
    let shown = |text: &str| vults_core::text::reveal(text).text.into_owned();
    match by {
        AnsweredBy::Click => tr!("answered-by-you"),
        AnsweredBy::Key => tr!("answered-by-key"),
        AnsweredBy::GlobalKey => tr!("answered-by-global-key"),
        AnsweredBy::Notification => tr!("answered-by-notification"),
        AnsweredBy::Phone(device) => tr!("answered-by-phone", device = shown(device)),
        AnsweredBy::UnknownPhone => tr!("answered-by-unknown-phone"),
        AnsweredBy::Rule(_) => tr!("answered-by-rule"),
        AnsweredBy::Policy(name) => tr!("answered-by-policy", name = shown(name)),
        AnsweredBy::Withdrawn => tr!("answered-by-nobody"),
        AnsweredBy::Terminal => tr!("answered-in-terminal"),
        AnsweredBy::Other(text) => tr!("answered-by-other", who = shown(text)),
    }
}

/// "$1.27".
pub fn cost_text(usd: f64) -> String {
    format!("${usd:.2}")
}

/// "resets in 2 h 13 min" from Unix seconds.
pub fn resets_text(resets_at: u64, now_unix: u64) -> String {
    if resets_at <= now_unix {
        vults_i18n::tr!("rate-resetting")
    } else {
        vults_i18n::tr!("rate-resets-in", time = duration_text(resets_at - now_unix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundles_word_every_rule_as_the_core_does_in_english() {
        use vults_core::rules::{RuleAction, RuleSentence};
        let _en = vults_i18n::scoped(&vults_i18n::Choice::Language("en".into()));
        let file = || "src/server.py".to_string();
        for action in [
            RuleAction::ExactChange(file()),
            RuleAction::ExactChange(String::new()),
            RuleAction::ExactContent(file()),
            RuleAction::ExactContent(String::new()),
            RuleAction::ExactInput,
            RuleAction::ExactCommand,
            RuleAction::AnyChange(file()),
            RuleAction::AnyContent(file()),
            RuleAction::Read(file()),
            RuleAction::UseOn(file()),
            RuleAction::ExactQuery,
            RuleAction::ExactUrl,
            RuleAction::ExactPatch,
            RuleAction::ExactTarget,
        ] {
            let sentence = RuleSentence {
                who: "Claude Code".into(),
                tool: "Edit".into(),
                action,
            };
            assert_eq!(sentence_words(&sentence), sentence.english());
        }
    }

    #[test]
    fn a_cards_wait_reads_in_steps_that_repaint_rarely() {
        assert_eq!(waited_text(3), "just now");
        assert_eq!(waited_text(12), "10 s");
        assert_eq!(waited_text(75), "1 min");
        assert_eq!(next_waited_change(12), 3);
        assert_eq!(next_waited_change(75), 45);
        assert_eq!(resets_text(1_000 + 3 * 86_400, 1_000), "resets in 3 d 0 h");
    }

    #[test]
    fn a_long_folder_is_cut_in_the_middle_and_keeps_its_last_folder() {
        let api = middle_cut("/tmp/vults-just-a-long-temp-folder/acme/api", 24);
        let web = middle_cut("/tmp/vults-just-a-long-temp-folder/acme/web", 24);
        assert_eq!(api, "/tmp/vults-just-a-l…/api");
        assert_eq!(web, "/tmp/vults-just-a-l…/web");
        assert_eq!(api.chars().count(), 24);
        assert_eq!(middle_cut("~/src/acme/api", 24), "~/src/acme/api");
        let long_last = middle_cut("/w/a-very-long-last-folder-name-indeed", 12);
        assert_eq!(long_last, "…name-indeed");
        assert!(long_last.chars().count() <= 12);
    }

    /// History reads an AskUserQuestion's target (its questions as JSON in the audit) as the
    /// questions, and leaves any other list as it came.
    #[test]
    fn a_questions_target_reads_as_its_questions() {
        let target = r#"[{"header":"Storage","multiSelect":false,"options":[],"question":"Which database?"},{"question":"Which port?"}]"#;
        assert_eq!(shown_target(target), "Which database? · Which port?");
        assert_eq!(shown_target("[1, 2]"), "[1, 2]");
        assert_eq!(shown_target("[not json"), "[not json");
        // A plan review's input reads as its plan's first heading.
        assert_eq!(
            shown_target(r##"{"plan":"# Plan: list the project\n\n| a | b |"}"##),
            "Plan: list the project"
        );
        assert_eq!(
            shown_target(r#"{"plan":"Check the files."}"#),
            "plan: Check the files."
        );
    }
}
