//! The flock's draw time (issue 30, "A week without a restart"): the Flock tab laid out and
//! tessellated by egui with no renderer (what the window's CPU does each frame before the GPU),
//! with 5 birds, with 500 ended birds still in it, and with 5 birds after 500 ended sessions came
//! and went (each drawn while it was there). Not a test: the numbers go in BENCHMARKS.md.
//!
//!   cargo bench -p vults-ui --bench flock
//!
//! Prints (on stderr) the median and the 95th percentile of a frame over `FRAMES` frames, for
//! each case.

use std::time::{Duration, Instant, SystemTime};
use vults_core::agents::AgentKind;
use vults_core::protocol::Identity;
use vults_engine::messages::{EngineEvent, RateWindow, Session, SessionKey, SessionState};
use vults_ui::flock::FlockView;
use vults_ui::state::Model;

const FRAMES: usize = 300;

fn session(n: usize, state: SessionState, now: SystemTime) -> Session {
    let identity = Identity::Builtin(AgentKind::Claude);
    Session {
        key: SessionKey {
            identity: identity.key().to_string(),
            session: format!("soak-{n:06}"),
        },
        identity: Some(identity),
        agent: AgentKind::Claude,
        agent_name: None,
        folder: format!("/work/soak/part-{n}"),
        state,
        last_tool: Some("Edit".into()),
        last_target: Some(format!("/work/soak/src/part_{n}/mod_19.rs")),
        cost_usd: Some(0.42 + n as f64 / 100.0),
        five_hour: Some(RateWindow {
            used_percentage: 41.0,
            resets_at: None,
        }),
        seven_day: None,
        task: None,
        in_terminal: None,
        terminal: None,
        started: now - Duration::from_secs(600),
        last_event: now - Duration::from_secs(n as u64 % 600),
    }
}

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(520.0, 760.0),
        )),
        ..Default::default()
    }
}

/// One frame of the Flock tab; its time.
fn frame(ctx: &egui::Context, view: &mut FlockView, model: &Model, now: SystemTime) -> Duration {
    let t = Instant::now();
    let mut out = ctx.run_ui(input(), |ui| {
        egui::Frame::central_panel(ui.style()).show(ui, |ui| view.ui(ui, model, now));
    });
    // No renderer takes the font atlas: the bench drops it.
    out.textures_delta.clear();
    let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
    std::hint::black_box(prims);
    t.elapsed()
}

fn measure(label: &str, ctx: &egui::Context, view: &mut FlockView, model: &Model, now: SystemTime) {
    // The first frames build fonts and galleys.
    for _ in 0..20 {
        frame(ctx, view, model, now);
    }
    let mut times: Vec<Duration> = (0..FRAMES).map(|_| frame(ctx, view, model, now)).collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!(
        "{label:<58} median {:>7.3} ms, p95 {:>7.3} ms ({FRAMES} frames, {} birds)",
        ms(times[FRAMES / 2]),
        ms(times[FRAMES * 95 / 100]),
        model.sessions.len()
    );
}

fn main() {
    let now = SystemTime::now();
    let live = |model: &mut Model| {
        for n in 0..5 {
            model.apply(EngineEvent::SessionChanged(session(
                1_000_000 + n,
                SessionState::Working,
                now,
            )));
        }
    };

    // 5 birds, in a fresh window.
    let (ctx, mut view, mut model) = (egui::Context::default(), FlockView, Model::default());
    live(&mut model);
    measure("5 birds", &ctx, &mut view, &model, now);

    // 500 ended birds still in the flock (before they leave), and the 5.
    let (ctx, mut view, mut model) = (egui::Context::default(), FlockView, Model::default());
    live(&mut model);
    for n in 0..500 {
        model.apply(EngineEvent::SessionChanged(session(
            n,
            SessionState::Ended,
            now,
        )));
    }
    measure("5 birds and 500 ended ones", &ctx, &mut view, &model, now);

    // 500 sessions come and go, each drawn while working and while ended; then the 5.
    let (ctx, mut view, mut model) = (egui::Context::default(), FlockView, Model::default());
    live(&mut model);
    for n in 0..500 {
        model.apply(EngineEvent::SessionChanged(session(
            n,
            SessionState::Working,
            now,
        )));
        frame(&ctx, &mut view, &model, now);
        model.apply(EngineEvent::SessionChanged(session(
            n,
            SessionState::Ended,
            now,
        )));
        frame(&ctx, &mut view, &model, now);
        if n >= 16 {
            // 16 at a time, as bench/soak's load runs them.
            model.apply(EngineEvent::SessionGone(
                session(n - 16, SessionState::Ended, now).key,
            ));
        }
    }
    for n in 484..500 {
        model.apply(EngineEvent::SessionGone(
            session(n, SessionState::Ended, now).key,
        ));
    }
    measure(
        "5 birds after 500 ended sessions came and went",
        &ctx,
        &mut view,
        &model,
        now,
    );
}
