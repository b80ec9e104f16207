//! The machinery of the real-agent tests: finding things, the mock, the agent runs, the checks.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use std::sync::Arc;
use vults_core::paths::Paths;
use vults_core::rules::RuleSet;
use vults_engine::messages::{
    AnsweredBy, CardAnswer, CardId, EngineCommand, EngineEvent, PendingCard, SessionState,
};
use vults_engine::{EngineHandle, EngineOptions};

/// Two agent runs at a time. Each has its own work folder, HOME, Vults (and so its socket) and
/// mock, and spends most of its time starting a Node CLI on one core or waiting for its hook:
/// on two cores, two side by side take about the time of one and a half.
pub static AGENT_SLOTS: Slots = Slots::new(2);

/// At most `max` holders at once ([`Slots::take`]); a test that panics gives its slot back.
pub struct Slots {
    taken: Mutex<usize>,
    freed: std::sync::Condvar,
    max: usize,
}

/// A slot of [`Slots`], given back on drop.
pub struct Slot<'a>(&'a Slots);

impl Slots {
    /// `max` slots, none taken.
    pub const fn new(max: usize) -> Slots {
        Slots {
            taken: Mutex::new(0),
            freed: std::sync::Condvar::new(),
            max,
        }
    }

    /// Waits for a free slot.
    pub fn take(&self) -> Slot<'_> {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while *taken >= self.max {
            taken = self.freed.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
        *taken += 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut taken = self.0.taken.lock().unwrap_or_else(|e| e.into_inner());
        *taken -= 1;
        self.0.freed.notify_one();
    }
}

/// Seconds one agent run may take before `timeout` kills it (`VULTS_REAL_AGENTS_TIMEOUT`).
fn run_timeout_s() -> u64 {
    std::env::var("VULTS_REAL_AGENTS_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(90)
}

pub const POLICY_NAME: &str = "e2e: no marker writes";

pub fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("real-agents")
}

/// `target/<profile>`: where this test binary's `deps/` folder sits.
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let deps = exe.parent().expect("deps dir");
    deps.parent().expect("profile dir").to_path_buf()
}

/// Whether to run this agent: `Ok(false)` = skip (with the reason printed).
pub fn wanted(agent: &str) -> bool {
    let mode = std::env::var("VULTS_REAL_AGENTS").unwrap_or_default();
    if mode == "0" {
        eprintln!("real-agents: {agent} skipped (VULTS_REAL_AGENTS=0)");
        return false;
    }
    if let Ok(only) = std::env::var("VULTS_REAL_AGENTS_ONLY")
        && !only.is_empty()
        && !only.split(',').any(|a| a.trim() == agent)
    {
        eprintln!("real-agents: {agent} skipped (VULTS_REAL_AGENTS_ONLY={only})");
        return false;
    }
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert!(
            mode != "1",
            "real-agents: only linux x86_64 is supported (the agents' native packages)"
        );
        eprintln!("real-agents: {agent} skipped (not linux x86_64)");
        return false;
    }
    let installed = here()
        .join(".cache")
        .join(agent)
        .join("node_modules")
        .is_dir();
    if !installed {
        assert!(
            mode != "1",
            "real-agents: {agent} is not installed; run tests/real-agents/install.sh (VULTS_REAL_AGENTS=1 requires it)"
        );
        eprintln!(
            "real-agents: {agent} skipped (not installed; run tests/real-agents/install.sh, or VULTS_REAL_AGENTS=0 to silence)"
        );
        return false;
    }
    for bin in ["vults-hook", "vults-app"] {
        assert!(
            bin_dir().join(bin).is_file(),
            "real-agents: {} is missing; build it first: cargo build -p vults-hook -p vults-app",
            bin_dir().join(bin).display()
        );
    }
    true
}

/// A temp folder kept when the test fails (its path is printed), removed when it passes.
pub struct Work {
    /// The folder (canonical: an agent's folder is compared by path).
    pub dir: PathBuf,
    pub keep: bool,
    temp: Option<vults_tests::TempHome>,
}

impl Work {
    fn new(agent: &str) -> Work {
        let temp = vults_tests::TempHome::empty(&format!("ra-{agent}"));
        Work {
            dir: temp.dir.clone(),
            keep: true,
            temp: Some(temp),
        }
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        let Some(temp) = self.temp.take() else {
            return;
        };
        if self.keep || std::thread::panicking() {
            eprintln!("real-agents: kept {} for inspection", temp.keep().display());
        }
    }
}

/// The mock model server, killed on drop.
pub struct Mock {
    child: Child,
    pub port: u16,
    pub log: PathBuf,
}

impl Mock {
    /// Starts `mock-model.mjs` with `--command`, `--log` and `extra` (e.g. `["--plan", md]`).
    fn start(command: &str, log: PathBuf, extra: &[&str]) -> Mock {
        let mut child = Command::new("node")
            .arg(here().join("mock-model.mjs"))
            .args(["--command", command, "--log"])
            .arg(&log)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node mock-model.mjs (is node on PATH?)");
        let stdout = child.stdout.take().expect("mock stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("mock port line");
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("mock printed {line:?} instead of PORT <n>"));
        Mock { child, port, log }
    }

    /// How many model requests it served.
    fn requests(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    /// Every model request so far, oldest first, as the mock logged it: `{t, method, url, body,
    /// results}` (`results`: the tool results the request carries, `{tool, id, is_error, text}`).
    pub fn requests_json(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The newest result of a call of `tool` the agent sent the model (a deny's message, a plan
    /// review's answer), as `{tool, id, is_error, text}`.
    pub fn last_result_of(&self, tool: &str) -> Option<serde_json::Value> {
        self.requests_json().iter().rev().find_map(|r| {
            r["results"]
                .as_array()?
                .iter()
                .rev()
                .find(|x| x["tool"] == tool)
                .cloned()
        })
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent_sh(args: &[&str]) -> Command {
    let mut c = Command::new("bash");
    c.arg(here().join("agent.sh")).args(args);
    c
}

fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Everything about one agent's three runs.
pub struct Ctx {
    pub agent: &'static str,
    pub work: Work,
    pub home: PathBuf,
    pub project: PathBuf,
    pub vults_home: PathBuf,
    pub marker: PathBuf,
    pub command: String,
    pub mock: Mock,
    pub report: String,
    /// Extra environment for `agent.sh run` (e.g. `OPENCODE_VIA`).
    pub run_env: Vec<(&'static str, String)>,
    /// How long the test takes to click a card (a person is not instant).
    pub answer_after: Duration,
}

impl Ctx {
    pub fn new(agent: &'static str) -> Ctx {
        Ctx::named(agent, agent)
    }

    /// As [`Ctx::new`], in a work folder named after `label` (`/tmp/vults-ra-<label>-<pid>`).
    pub fn named(agent: &'static str, label: &str) -> Ctx {
        Ctx::with_mock(agent, label, &[])
    }

    /// As [`Ctx::named`], the mock started with `mock_args` too (e.g. `["--plan", md]`).
    pub fn with_mock(agent: &'static str, label: &str, mock_args: &[&str]) -> Ctx {
        let work = Work::new(label);
        let home = work.dir.join("home");
        let project = work.dir.join("project");
        let vults_home = work.dir.join("vults");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&project).expect("project");
        std::fs::create_dir_all(&vults_home).expect("vults home");
        let marker = project.join("marker.txt");
        let command = format!("echo vults-e2e > {}", marker.display());
        let mock = Mock::start(&command, work.dir.join("mock.jsonl"), mock_args);
        Ctx {
            agent,
            work,
            home,
            project,
            vults_home,
            marker,
            command,
            mock,
            report: String::new(),
            run_env: Vec::new(),
            answer_after: Duration::ZERO,
        }
    }

    pub fn paths(&self) -> Paths {
        let home = self.vults_home.clone();
        let agent_home = self.home.clone();
        Paths::resolve(move |k| match k {
            "VULTS_HOME" => Some(home.clone()),
            "VULTS_AGENT_HOME" => Some(agent_home.clone()),
            _ => None,
        })
    }

    /// The agent's own model config (no hooks) in the fake HOME.
    pub fn setup_agent(&self) {
        let port = self.mock.port.to_string();
        let out = agent_sh(&[
            "setup",
            self.agent,
            path_str(&self.home),
            path_str(&self.project),
            &port,
        ])
        .output()
        .expect("agent.sh setup");
        assert!(
            out.status.success(),
            "agent.sh setup {} failed: {}",
            self.agent,
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Vults' installer registers the hook in the fake HOME.
    pub fn install_vults(&mut self) {
        let hook = bin_dir().join("vults-hook");
        let out = Command::new(bin_dir().join("vults-app"))
            .arg("install")
            .arg("--hook")
            .arg(&hook)
            .envs(self.installer_env())
            .stdin(Stdio::null())
            .output()
            .expect("vults-app install");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = writeln!(
            self.report,
            "vults-app install → {}\n{}",
            out.status,
            text.trim()
        );
        assert!(
            out.status.success(),
            "{}: vults-app install --hook {} failed ({}):\n{text}",
            self.agent,
            hook.display(),
            out.status
        );
        // The agent's own config now runs Vults' own copy of the hook, by absolute path.
        let installed = self.paths().installed_hook();
        assert!(
            installed.is_file(),
            "{}: the installer left no hook copy at {}\n{text}",
            self.agent,
            installed.display()
        );
        let config = self.home.join(match self.agent {
            "claude" => ".claude/settings.json",
            "codex" => ".codex/hooks.json",
            "qwen" => ".qwen/settings.json",
            "copilot" => ".copilot/settings.json",
            _ => ".config/opencode/plugin/vults.js",
        });
        let written = std::fs::read_to_string(&config).unwrap_or_default();
        assert!(
            written.contains(path_str(&installed)),
            "{}: {} does not mention the installed hook {}:\n{written}\ninstaller said:\n{text}",
            self.agent,
            config.display(),
            installed.display()
        );
        // `vults-app doctor` agrees.
        let out = Command::new(bin_dir().join("vults-app"))
            .arg("doctor")
            .envs(self.installer_env())
            .stdin(Stdio::null())
            .output()
            .expect("vults-app doctor");
        let doctor = String::from_utf8_lossy(&out.stdout).to_string();
        let display = match self.agent {
            "claude" => "Claude Code",
            "codex" => "Codex CLI",
            "qwen" => "Qwen Code",
            "copilot" => "Copilot CLI",
            _ => "OpenCode",
        };
        let line = doctor
            .lines()
            .find(|l| l.starts_with(display))
            .unwrap_or_default()
            .to_string();
        let _ = writeln!(self.report, "vults-app doctor → {line}");
        assert!(
            line[display.len()..].trim_start().starts_with("installed"),
            "{}: vults-app doctor does not say installed:\n{doctor}{}",
            self.agent,
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// What `vults-app install` / `doctor` run with: this test's Vults and fake HOME only.
    fn installer_env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("VULTS_HOME", self.vults_home.clone()),
            ("VULTS_AGENT_HOME", self.home.clone()),
            ("HOME", self.home.clone()),
            ("XDG_CONFIG_HOME", self.home.join(".config")),
            ("COPILOT_HOME", self.home.join(".copilot")),
            ("CODEX_HOME", self.home.join(".codex")),
        ]
    }

    /// One headless agent run while the engine runs; `on_card` answers each card (or not).
    pub fn run(
        &mut self,
        engine: &mut Engine,
        label: &str,
        answer: Option<CardAnswer>,
    ) -> RunResult {
        let _ = std::fs::remove_file(&self.marker);
        let out_path = self.work.dir.join(format!("{label}.out"));
        let err_path = self.work.dir.join(format!("{label}.err"));
        let requests_before = self.mock.requests();
        let started = Instant::now();
        let port = self.mock.port.to_string();
        let mut child = agent_sh(&[
            "run",
            self.agent,
            path_str(&self.home),
            path_str(&self.project),
            &port,
        ])
        .env("REAL_AGENT_TIMEOUT", run_timeout_s().to_string())
        .envs(self.run_env.iter().map(|(k, v)| (*k, v.as_str())))
        .env("VULTS_HOME", &self.vults_home)
        .env_remove("VULTS_SOCKET")
        .env_remove("VULTS_AGENT_HOME")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("out file"))
        .stderr(std::fs::File::create(&err_path).expect("err file"))
        .spawn()
        .expect("agent.sh run");
        let mut result = RunResult::default();
        let hard_stop = Duration::from_secs(run_timeout_s() + 15);
        loop {
            for ev in engine.drain(Duration::from_millis(100)) {
                if let EngineEvent::CardAdded(card) = &ev {
                    result.cards.push(card.clone());
                    if let Some(a) = &answer {
                        std::thread::sleep(self.answer_after);
                        engine.answer(card.id, a.clone());
                    }
                }
                result.events.push(ev);
            }
            match child.try_wait() {
                Ok(Some(status)) => {
                    result.status = status.code();
                    break;
                }
                Ok(None) if started.elapsed() > hard_stop => {
                    let _ = child.kill();
                    let _ = child.wait();
                    result.status = None;
                    break;
                }
                Ok(None) => {}
                Err(e) => panic!("waiting for the agent: {e}"),
            }
        }
        // Late events (SessionEnd, audit lines) trail the agent's exit a little.
        result
            .events
            .extend(engine.drain(Duration::from_millis(700)));
        result.secs = started.elapsed().as_secs_f64();
        result.marker = self.marker.exists();
        result.model_requests = self.mock.requests() - requests_before;
        result.out_tail = tail(&out_path, 25);
        result.err_tail = tail(&err_path, 25);
        let _ = writeln!(
            self.report,
            "{label}: {:.1} s, exit {:?}, marker {}, cards {}, model requests {}, sessions: {}",
            result.secs,
            result.status,
            result.marker,
            result.cards.len(),
            result.model_requests,
            result.sessions()
        );
        result
    }

    /// Everything useful for a failure: the runs so far, the agent's output, the engine's notices,
    /// the audit, the agent's hook config.
    pub fn explain(&self, r: &RunResult, engine_log: &str) -> String {
        format!(
            "\n==== {} ====\n{}\n---- agent stdout (tail) ----\n{}\n---- agent stderr (tail) ----\n{}\n\
             ---- engine events ----\n{}\n---- engine log ----\n{}\n---- audit ----\n{}\n---- work dir ----\n{}\n",
            self.agent,
            self.report,
            r.out_tail,
            r.err_tail,
            r.events
                .iter()
                .map(|e| format!("{e:?}"))
                .collect::<Vec<_>>()
                .join("\n"),
            engine_log,
            tail(&self.paths().audit_log(), 20),
            self.work.dir.display()
        )
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[derive(Default, Debug)]
pub struct RunResult {
    pub status: Option<i32>,
    pub secs: f64,
    pub marker: bool,
    pub cards: Vec<PendingCard>,
    pub events: Vec<EngineEvent>,
    pub model_requests: usize,
    pub out_tail: String,
    pub err_tail: String,
}

impl RunResult {
    /// The flock showed this agent's session, working in the project folder.
    pub fn session_seen(&self, agent: &str, project: &Path) -> bool {
        self.events.iter().any(|e| match e {
            EngineEvent::SessionChanged(s) => {
                s.key.identity == agent && Path::new(&s.folder) == project
            }
            _ => false,
        })
    }

    /// `identity/session in folder: Working→WaitingForYou→…` per session seen.
    fn sessions(&self) -> String {
        let mut seen: Vec<(String, String, Vec<String>)> = Vec::new();
        for e in &self.events {
            if let EngineEvent::SessionChanged(s) = e {
                let key = format!("{}/{}", s.key.identity, s.key.session);
                let state = format!("{:?}", s.state);
                match seen.iter_mut().find(|(k, _, _)| *k == key) {
                    Some((_, _, states)) => {
                        if states.last() != Some(&state) {
                            states.push(state);
                        }
                    }
                    None => seen.push((key, s.folder.clone(), vec![state])),
                }
            }
        }
        seen.iter()
            .map(|(k, f, states)| format!("{k} in {f}: {}", states.join("→")))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The flock showed the session waiting for the user while the card was up.
    pub fn waited(&self) -> bool {
        self.events.iter().any(|e| {
            matches!(e, EngineEvent::SessionChanged(s) if s.state == SessionState::WaitingForYou)
        })
    }

    /// After the turn ended, the flock showed the session done and waiting for the person
    /// ("done — waiting for you": [`SessionState::Done`]), once no card was up.
    pub fn turn_done(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e, EngineEvent::SessionChanged(s) if s.state == SessionState::Done))
    }

    pub fn audited(&self, decision: &str, by_prefix: &str) -> bool {
        self.events.iter().any(|e| match e {
            EngineEvent::Audited(lines) => lines
                .iter()
                .any(|l| l.decision == decision && l.by.label().starts_with(by_prefix)),
            _ => false,
        })
    }
}

pub fn audit_lines(paths: &Paths) -> Vec<String> {
    std::fs::read_to_string(paths.audit_log())
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The runs of one agent.
pub fn run_agent(agent: &'static str) {
    if !wanted(agent) {
        return;
    }
    let _serial = AGENT_SLOTS.take();
    let t0 = Instant::now();
    let mut ctx = Ctx::new(agent);
    ctx.setup_agent();
    ctx.install_vults();

    // (c) a card, answered Allow through the engine's card-answer API.
    let mut engine = Engine::start(ctx.paths());
    let r = ctx.run(&mut engine, "card", Some(CardAnswer::Allow));
    let log = engine.stop();
    let ok = r.marker && r.cards.len() == 1 && r.session_seen(agent, &ctx.project);
    assert!(
        ok,
        "{agent} (c) card → Allow: expected exactly one card, the marker and a session; got cards {}, marker {}, session {}{}",
        r.cards.len(),
        r.marker,
        r.session_seen(agent, &ctx.project),
        ctx.explain(&r, &log)
    );
    assert!(
        r.waited(),
        "{agent} (c): the flock never showed the session waiting for the user{}",
        ctx.explain(&r, &log)
    );
    // Claude Code's and Codex's turns end with Stop, headless too (docs/other-agents.md): the
    // bird then says it waits for the person.
    if matches!(agent, "claude" | "codex") {
        assert!(
            r.turn_done(),
            "{agent} (c): after the turn ended the flock never showed the session done — \
             waiting for you{}",
            ctx.explain(&r, &log)
        );
    }
    let card = r.cards[0].clone();
    assert_eq!(
        card.identity.key(),
        agent,
        "{agent}: the card is for another agent{}",
        ctx.explain(&r, &log)
    );
    assert_eq!(
        card.call.target.command(),
        Some(ctx.command.as_str()),
        "{agent}: the card must show the whole command{}",
        ctx.explain(&r, &log)
    );
    let rule = card.always_rule.clone().unwrap_or_else(|| {
        panic!(
            "{agent}: the card offers no Always rule{}",
            ctx.explain(&r, &log)
        )
    });
    assert_eq!(
        rule.folder,
        path_str(&ctx.project),
        "{agent}: the rule's folder is the project folder"
    );

    // (a) the Always rule, written to rules.json before the engine starts, answers alone.
    let mut rules = RuleSet::default();
    rules.add(rule.clone());
    rules
        .save(&ctx.paths().rules_file())
        .expect("write rules.json");
    let mut engine = Engine::start(ctx.paths());
    let r = ctx.run(&mut engine, "rule", None);
    let log = engine.stop();
    let ok = r.marker && r.cards.is_empty() && r.session_seen(agent, &ctx.project);
    assert!(
        ok,
        "{agent} (a) Always rule {}: expected no card, the marker and a session; got cards {}, marker {}, session {}{}",
        rule.id,
        r.cards.len(),
        r.marker,
        r.session_seen(agent, &ctx.project),
        ctx.explain(&r, &log)
    );
    assert!(
        r.audited("allow", &format!("rule:{}", rule.id)),
        "{agent} (a): the audit must say allow by rule:{}{}",
        rule.id,
        ctx.explain(&r, &log)
    );
    // (d) the same rule answers through the shipped binary, `vults-app --headless`.
    let audit_before = audit_lines(&ctx.paths());
    let mut engine = Engine::start_headless(
        &ctx.vults_home,
        &ctx.paths(),
        ctx.work.dir.join("headless.log"),
    );
    let r = ctx.run(&mut engine, "headless-rule", None);
    let log = engine.stop();
    let by_rule = audit_lines(&ctx.paths())
        .iter()
        .skip(audit_before.len())
        .any(|l| l.contains("\"decision\":\"allow\"") && l.contains(&format!("rule:{}", rule.id)));
    assert!(
        r.marker && by_rule,
        "{agent} (d) vults-app --headless with the Always rule {}: expected the marker and an audit line allow by the rule; got marker {}, audited {by_rule}{}",
        rule.id,
        r.marker,
        ctx.explain(&r, &log)
    );
    std::fs::remove_file(ctx.paths().rules_file()).expect("remove rules.json");

    // (b) a policy deny.
    let policy = format!(
        "[[policy]]\nname = \"{POLICY_NAME}\"\nagents = [\"{}\"]\nkind = \"shell\"\ntarget = \"echo vults-e2e *\"\naction = \"deny\"\n",
        card.identity.key()
    );
    std::fs::write(ctx.paths().policies_file(), policy).expect("write policies.toml");
    let mut engine = Engine::start(ctx.paths());
    let r = ctx.run(&mut engine, "policy", None);
    let log = engine.stop();
    let ok = !r.marker && r.cards.is_empty() && r.session_seen(agent, &ctx.project);
    assert!(
        ok,
        "{agent} (b) policy deny: expected no card, no marker and a session; got cards {}, marker {}, session {}{}",
        r.cards.len(),
        r.marker,
        r.session_seen(agent, &ctx.project),
        ctx.explain(&r, &log)
    );
    assert!(
        r.audited("deny", &format!("policy:{POLICY_NAME}")),
        "{agent} (b): the audit must say deny by policy:{POLICY_NAME}{}",
        ctx.explain(&r, &log)
    );

    ctx.work.keep = false;
    eprintln!(
        "real-agents: {agent} passed in {:.1} s\n{}",
        t0.elapsed().as_secs_f64(),
        ctx.report
    );
}

/// The engine: in-process and interactive (the test is the one who clicks), or the shipped
/// binary `vults-app --headless` (rules and policies answer; no cards).
pub struct Engine {
    handle: Option<EngineHandle>,
    headless: Option<(Child, PathBuf)>,
    log: String,
}

impl Engine {
    pub fn start(paths: Paths) -> Engine {
        let options = EngineOptions {
            interactive: true,
            stop_on_signal: false,
            ..EngineOptions::default()
        };
        let socket = paths.socket.clone();
        let handle = vults_engine::Engine::start_with(paths, Arc::new(|| {}), options)
            .unwrap_or_else(|e| panic!("engine start on {}: {e}", socket.display()));
        Engine {
            handle: Some(handle),
            headless: None,
            log: String::new(),
        }
    }

    /// `vults-app --headless` with this `VULTS_HOME`; returns once its socket is there.
    fn start_headless(vults_home: &Path, paths: &Paths, log: PathBuf) -> Engine {
        let _ = std::fs::remove_file(&paths.socket);
        let child = Command::new(bin_dir().join("vults-app"))
            .arg("--headless")
            .env("VULTS_HOME", vults_home)
            .env_remove("VULTS_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("headless log"))
            .spawn()
            .expect("vults-app --headless");
        let engine = Engine {
            handle: None,
            headless: Some((child, log)),
            log: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !paths.socket.exists() {
            if Instant::now() > deadline {
                let log = engine.stop();
                panic!(
                    "vults-app --headless made no socket at {} within 10 s:\n{log}",
                    paths.socket.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        engine
    }

    /// The events that arrive within `wait` (none from a headless engine).
    fn drain(&mut self, wait: Duration) -> Vec<EngineEvent> {
        let mut out = Vec::new();
        let Some(handle) = &self.handle else {
            std::thread::sleep(wait);
            return out;
        };
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match handle.events.recv_timeout(left) {
                Ok(ev) => {
                    if let EngineEvent::Notice(n) = &ev {
                        let _ = writeln!(self.log, "notice: {n}");
                    }
                    out.push(ev);
                }
                Err(_) => return out,
            }
        }
    }

    fn answer(&mut self, card: CardId, answer: CardAnswer) {
        let _ = writeln!(self.log, "answering card {card}: {answer:?}");
        let handle = self
            .handle
            .as_ref()
            .expect("only the in-process engine has cards");
        assert!(
            handle.send(EngineCommand::Answer {
                card,
                answer,
                by: AnsweredBy::Click,
            }),
            "the engine stopped before the card could be answered"
        );
    }

    /// Stops it; returns its log (notices and what the test did, or the headless stderr).
    pub fn stop(mut self) -> String {
        if let Some(mut handle) = self.handle.take() {
            handle.stop();
            for ev in handle.events.try_iter() {
                if let EngineEvent::Notice(n) = &ev {
                    let _ = writeln!(self.log, "notice: {n}");
                }
            }
        }
        if let Some((mut child, log)) = self.headless.take() {
            #[cfg(unix)]
            {
                let pid = libc::pid_t::try_from(child.id()).expect("pid");
                // SAFETY: kill(2) on our own child's pid; no memory is touched.
                unsafe { libc::kill(pid, libc::SIGTERM) };
                let deadline = Instant::now() + Duration::from_secs(5);
                while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            let _ = child.kill();
            let _ = child.wait();
            self.log
                .push_str(&std::fs::read_to_string(&log).unwrap_or_default());
        }
        std::mem::take(&mut self.log)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some((child, _)) = &mut self.headless {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
