//! A frozen app audits no answer the agent never got, with Claude Code in
//! `-p` mode and the shipped `vults-app --headless`: a policy allows the command. Live, the
//! command runs and the audit says `allow`. Stopped with SIGSTOP while the request is in flight,
//! the hook gives up after its 2 s and Claude Code goes on without an answer (no marker); after
//! SIGCONT the app must not audit an `allow` for that request.

use crate::harness::*;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const POLICY: &str = "e2e: claude runs shell";

/// `vults-app --headless`, killed (after a SIGCONT) on drop.
struct App(Child);

impl App {
    fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(self.0.id() as i32, sig) }, 0);
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run_claude(ctx: &Ctx, label: &str) -> std::process::ExitStatus {
    let out = ctx.work.dir.join(format!("{label}.out"));
    Command::new("bash")
        .arg(here().join("agent.sh"))
        .args(["run", "claude"])
        .arg(&ctx.home)
        .arg(&ctx.project)
        .arg(ctx.mock.port.to_string())
        .env("REAL_AGENT_TIMEOUT", "90")
        .env("VULTS_HOME", &ctx.vults_home)
        .env_remove("VULTS_SOCKET")
        .env_remove("VULTS_AGENT_HOME")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(out.with_extension("err")).unwrap())
        .status()
        .expect("agent.sh run claude")
}

/// The audit's lines about `target`, as (decision, by).
fn audited(ctx: &Ctx, target: &str) -> Vec<(String, String)> {
    std::fs::read_to_string(ctx.paths().audit_log())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["target"] == target)
        .map(|v| {
            (
                v["decision"].as_str().unwrap_or_default().to_string(),
                v["by"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

pub fn claude_with_a_frozen_app() {
    if !wanted("claude") {
        return;
    }
    let _one_at_a_time = AGENT_SLOTS.take();
    let mut ctx = Ctx::new("claude");
    ctx.setup_agent();
    ctx.install_vults();
    let paths = ctx.paths();
    std::fs::write(
        paths.policies_file(),
        format!(
            "[[policy]]\nname = \"{POLICY}\"\nagents = [\"claude\"]\nkind = \"shell\"\naction = \"allow\"\n"
        ),
    )
    .unwrap();
    let _ = std::fs::remove_file(&paths.socket);
    let app = App(Command::new(bin_dir().join("vults-app"))
        .arg("--headless")
        .env("VULTS_HOME", &ctx.vults_home)
        .env_remove("VULTS_SOCKET")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(ctx.work.dir.join("headless.log")).unwrap())
        .spawn()
        .expect("vults-app --headless"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !paths.socket.exists() {
        assert!(
            Instant::now() < deadline,
            "vults-app --headless made no socket"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Live: the policy answers, the command runs, the audit says so.
    run_claude(&ctx, "live");
    let by = format!("policy:{POLICY}");
    assert!(
        ctx.marker.exists(),
        "live: the policy's allow did not run the command; audit {:?}",
        audited(&ctx, &ctx.command)
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !audited(&ctx, &ctx.command).contains(&("allow".into(), by.clone())) {
        assert!(Instant::now() < deadline, "live: the allow was not audited");
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = audited(&ctx, &ctx.command).len();

    // Frozen while the request is in flight: the hook gives up, Claude Code gets no answer.
    std::fs::remove_file(&ctx.marker).unwrap();
    app.signal(libc::SIGSTOP);
    run_claude(&ctx, "frozen");
    assert!(
        !ctx.marker.exists(),
        "frozen: the command ran without an answer from Vults"
    );
    app.signal(libc::SIGCONT);
    std::thread::sleep(Duration::from_secs(2));
    let after = audited(&ctx, &ctx.command);
    let claimed: Vec<_> = after[before..]
        .iter()
        .filter(|(d, _)| d == "allow" || d == "deny")
        .collect();
    assert!(
        claimed.is_empty(),
        "frozen: the audit claims an answer Claude Code never got: {claimed:?}"
    );
    drop(app);
    ctx.work.keep = false;
}
