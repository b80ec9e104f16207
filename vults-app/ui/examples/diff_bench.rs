//! Card diff benchmark (numbers go to BENCHMARKS.md, "Cards"): how long a card with the diff of
//! a 2,000-line file takes to make and to draw, against one frame's budget (16.7 ms at 60 Hz).
//!
//! ```text
//! cargo run --release -p vults-ui --example diff_bench   (the table goes to stderr)
//! ```
//!
//! For three changes to a 2,000-line Rust file — an Edit of one line, a Write that changes every
//! 10th line (200 hunks' worth of lines), and a Write that replaces every line (4,000 diff lines)
//! — it times, median of 30 runs each:
//! 1. the diff (`vults_engine::diff::card_diff`, similar's line diff, once per card),
//! 2. the lines to show (`ui::code::diff`: numbers, marks, pieces of 48 lines; once per card),
//! 3. the card's first frame: its view, the diff, colour and galleys of the pieces in view
//!    (48 lines each; the rest are laid out when scrolled to) and tessellation,
//! 4. each frame after (`CardView::ui` + tessellation), drawing what the card kept,
//! 5. for comparison, laying out all the diff's lines as one galley (what the card avoids).

use egui::{Context, RawInput, Rect, pos2, vec2};
use std::time::{Duration, Instant, SystemTime};
use vults_core::agents::{Target, ToolCall, ToolKind};
use vults_core::protocol::{AgentKind, Identity};
use vults_engine::messages::{CardContext, PendingCard, SessionKey};
use vults_ui::card::{self, CardView};
use vults_ui::code;

const LINES: usize = 2_000;
const RUNS: usize = 30;
const PATH: &str = "/home/ada/src/vults/src/big.rs";

fn file(changed_every: usize, tag: &str) -> String {
    (1..=LINES)
        .map(|i| {
            if changed_every > 0 && i % changed_every == 0 {
                format!("    let {tag}_{i} = compute(\"{tag}\", {i}) + other_value; // changed\n")
            } else {
                format!("    let value_{i} = compute(\"line\", {i}); // the original line {i}\n")
            }
        })
        .collect()
}

fn card(target: Target, before: &str) -> PendingCard {
    let tool = match target {
        Target::Edit { .. } => "Edit",
        _ => "Write",
    };
    PendingCard {
        id: 1,
        agent: AgentKind::Claude,
        identity: Identity::Builtin(AgentKind::Claude),
        session: SessionKey {
            identity: "claude".into(),
            session: "bench".into(),
        },
        folder: "/home/ada/src/vults".into(),
        call: ToolCall {
            session_id: None,
            cwd: None,
            tool: tool.into(),
            kind: ToolKind::of(tool),
            target,
            exact: None,
        },
        destructive: None,
        reason: vults_engine::messages::Reason::NoRule,
        always_rule: None,
        file_rule: None,
        question: false,
        arrived: SystemTime::now(),
        context: Box::new(CardContext {
            before: vec![(PATH.into(), before.into())],
            ..Default::default()
        }),
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn input() -> RawInput {
    RawInput {
        screen_rect: Some(Rect::from_min_size(
            pos2(0.0, 0.0),
            vec2(card::WIDTH, 720.0),
        )),
        ..Default::default()
    }
}

/// One frame; its texture changes are dropped (nothing uploads them here).
fn frame(ctx: &Context, ui: impl FnMut(&mut egui::Ui)) -> egui::FullOutput {
    let mut out = ctx.run_ui(input(), ui);
    out.textures_delta.clear();
    out
}

fn main() {
    let before = file(0, "");
    let cases = [
        (
            "Edit of one line",
            Target::Edit {
                path: PATH.into(),
                old: Some(
                    "    let value_1000 = compute(\"line\", 1000); // the original line 1000\n"
                        .into(),
                ),
                new: Some("    let value_1000 = compute(\"line\", 1000) * 2;\n".into()),
            },
        ),
        (
            "Write, every 10th line changed",
            Target::Write {
                path: PATH.into(),
                content: Some(file(10, "ten")),
            },
        ),
        (
            "Write, every line changed",
            Target::Write {
                path: PATH.into(),
                content: Some(file(1, "all")),
            },
        ),
    ];
    let ctx = Context::default();
    // Fonts exist after a first frame.
    let _ = frame(&ctx, |_| {});
    eprintln!(
        "| change to a {LINES}-line file | diff lines | diff | lines to show | first frame of the card | each frame after | (all lines as one galley) |"
    );
    eprintln!("|---|---|---|---|---|---|---|");
    for (name, target) in cases {
        let card = card(target, &before);
        let (mut diff_t, mut job_t, mut first_t, mut frame_t) = (vec![], vec![], vec![], vec![]);
        let mut whole_t = vec![];
        let mut lines = 0;
        let now = SystemTime::now();
        for _ in 0..RUNS {
            let t = Instant::now();
            let files = vults_engine::diff::card_diff(&card.call, &card.context).expect("a diff");
            diff_t.push(t.elapsed());
            lines = files
                .iter()
                .flat_map(|f| &f.hunks)
                .map(|h| h.lines.len())
                .sum();
            let _ = frame(&ctx, |ui| {
                let t = Instant::now();
                let laid = code::diff(ui.ctx(), &files, false);
                job_t.push(t.elapsed());
                assert!(laid.text().lines().count() >= lines);
                // For comparison: all of it as one galley, uncoloured (a new width each run, so
                // egui's galley cache cannot answer).
                let font = egui::TextStyle::Monospace.resolve(ui.style());
                let width = 400.0 + (job_t.len() % 17) as f32;
                let job = egui::text::LayoutJob::simple(
                    laid.text().to_string(),
                    font,
                    egui::Color32::WHITE,
                    width,
                );
                let t = Instant::now();
                let g = ui.ctx().fonts_mut(|f| f.layout_job(job));
                whole_t.push(t.elapsed());
                assert!(g.rows.len() >= lines);
            });
            // A card as the window makes it: its view (the diff) and its first frame (colour,
            // layout job, and the galleys of the pieces in view), with tessellation.
            let t = Instant::now();
            let mut view = CardView::new(&card);
            let out = frame(&ctx, |ui| {
                view.ui(ui, &card, now, false);
            });
            let meshes = ctx.tessellate(out.shapes, out.pixels_per_point);
            first_t.push(t.elapsed());
            assert!(!meshes.is_empty());
        }
        // Then each frame only draws what it kept.
        let mut view = CardView::new(&card);
        let _ = frame(&ctx, |ui| {
            view.ui(ui, &card, now, false);
        });
        for _ in 0..RUNS {
            let t = Instant::now();
            let out = frame(&ctx, |ui| {
                view.ui(ui, &card, now, false);
            });
            let meshes = ctx.tessellate(out.shapes, out.pixels_per_point);
            frame_t.push(t.elapsed());
            assert!(!meshes.is_empty());
        }
        eprintln!(
            "| {name} | {lines} | {} | {} | {} | {} | ({}) |",
            ms(median(diff_t)),
            ms(median(job_t)),
            ms(median(first_t)),
            ms(median(frame_t)),
            ms(median(whole_t))
        );
    }
}
