//! A tool row says what happened in words, from what the chat learns: its own question (a card
//! waits), the engine's answer and who gave it, the CLI's result, and Stop. Before, a tool that
//! ran after Allow still said "asks", one ended by Stop read "refused · Exit code 137", Claude
//! Code's own `<tool_use_error>` showed raw, and a policy's deny read like a click's.
#![cfg(unix)]

use crate::common::{Running, fake_cli, paths, test_dir};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent};
use vults_tests::TempHome;
use vults_zeca::tool::{self, Asked};
use vults_zeca::{ChatCommand, Conversation, Entry, ZecaOptions};

/// Claude Code's stream-json side, scripted: per user line a Bash tool_use and its
/// can_use_tool. Allowed, the tool "runs" until the file $FAKE_GO exists; denied, its result is
/// the deny message. A turn that says "unread" fails in Claude Code's own way, without asking.
/// Stopped (SIGTERM), the running tool's result is "Exit code 137", as Claude Code writes it.
const FAKE: &str = r#"#!/bin/sh
echo '{"type":"system","subtype":"init","session_id":"fake-rows","tools":["Bash"]}'
n=0
trap 'printf "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_%s\",\"content\":\"Exit code 137\",\"is_error\":true}]}}\n" "$n"; exit 143' TERM
tool_use() {
  printf '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_%s","name":"Bash","input":{"command":"echo vults > marker.txt"}}]}}\n' "$n"
}
result() {
  printf '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_%s","content":"%s","is_error":%s}]}}\n' "$n" "$1" "$2"
  echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"fake-rows"}'
}
while IFS= read -r line; do
  case "$line" in
    *'"type":"user"'*unread*)
      n=$((n+1)); tool_use
      result '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>' true
      ;;
    *'"type":"user"'*)
      n=$((n+1)); tool_use
      printf '{"type":"control_request","request_id":"r%s","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"echo vults > marker.txt"},"tool_use_id":"toolu_%s"}}\n' "$n" "$n"
      ;;
    *'"behavior":"allow"'*)
      while [ ! -e "$FAKE_GO" ]; do sleep 0.05; done
      rm -f "$FAKE_GO"
      result 'written' false
      ;;
    *'"behavior":"deny"'*)
      result 'Denied from Vults' true
      ;;
  esac
done
"#;

struct Setup {
    /// Removed when the setup is dropped (after the app stopped).
    _home: TempHome,
    project: String,
    go: PathBuf,
    app: Running,
}

impl Drop for Setup {
    fn drop(&mut self) {
        self.app.stop();
    }
}

fn setup(name: &str, policy: bool) -> Setup {
    let home = test_dir(name);
    let dir = &home.dir;
    let project = dir.join("project").display().to_string();
    let fake = fake_cli(dir, "claude", FAKE);
    let paths = paths(dir);
    if policy {
        std::fs::create_dir_all(paths.policies_file().parent().unwrap()).unwrap();
        std::fs::write(
            paths.policies_file(),
            "[[policy]]\nname = \"no markers\"\nagents = [\"claude\"]\nkind = \"shell\"\n\
             target = \"echo vults *\"\naction = \"deny\"\n",
        )
        .unwrap();
    }
    let go = dir.join("go");
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, fake)].into(),
        env: vec![("FAKE_GO".into(), go.display().to_string())],
        ..ZecaOptions::default()
    };
    let app = Running::start(paths, options);
    Setup {
        _home: home,
        project,
        go,
        app,
    }
}

impl Setup {
    fn send(&self, chat: &str, text: &str) {
        self.app.chat(ChatCommand::Send {
            chat: chat.into(),
            folder: self.project.clone(),
            engine: "claude".into(),
            text: text.into(),
        });
    }

    fn card(&self) -> u64 {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(20) {
            if let Ok(EngineEvent::CardAdded(card)) = self
                .app
                .engine
                .events
                .recv_timeout(Duration::from_millis(100))
            {
                return card.id;
            }
        }
        panic!("no card came");
    }

    fn answer(&self, card: u64, answer: CardAnswer) {
        self.answer_by(card, answer, AnsweredBy::Click);
    }

    fn answer_by(&self, card: u64, answer: CardAnswer, by: AnsweredBy) {
        assert!(
            self.app
                .engine
                .send(EngineCommand::Answer { card, answer, by })
        );
    }

    /// The last tool row's words, once the conversation's update says `mark`.
    fn row_says(&self, mark: &str) -> (Conversation, tool::Status) {
        let c = self
            .app
            .updated_until(mark, |c| last_row(c).is_some_and(|(s, _)| s.mark == mark));
        let (status, _) = last_row(&c).unwrap();
        (c, status)
    }
}

fn last_row(c: &Conversation) -> Option<(tool::Status, Entry)> {
    let e = c
        .entries
        .iter()
        .rev()
        .find(|e| matches!(e, Entry::Tool { .. }))?;
    Some((tool::status(e, c.running)?, e.clone()))
}

#[test]
fn a_row_asks_then_runs_after_allow_then_ran() {
    let s = setup("rows-allow", false);
    s.send("r1", "write the file");
    s.row_says("asks");
    let card = s.card();
    s.answer(card, CardAnswer::Allow);
    // Allowed and still running: no longer "asks".
    let (c, _) = s.row_says("allowed — running");
    assert!(c.running);
    std::fs::write(&s.go, b"").unwrap();
    let (_, st) = s.row_says("ran");
    assert_eq!(st.detail.as_deref(), Some("written"));
    let c = s.app.updated_until("the turn's end", |c| !c.running);
    assert_eq!(last_row(&c).unwrap().0.mark, "ran");
}

/// `A` on the chat's inline card sends Allow `by: key` (ui's chat_view test): the row says a
/// key on its card, as History does, never a global key.
#[test]
fn an_allow_by_the_cards_own_key_says_so() {
    let s = setup("rows-key", false);
    s.send("r5", "write the file");
    let card = s.card();
    s.answer_by(card, CardAnswer::Allow, AnsweredBy::Key);
    s.row_says("allowed by you, with a key on its card — running");
    std::fs::write(&s.go, b"").unwrap();
    s.row_says("ran · allowed by you, with a key on its card");
}

#[test]
fn a_deny_by_you_and_one_by_a_policy_say_who() {
    let s = setup("rows-deny", false);
    s.send("r2", "write the file");
    let card = s.card();
    s.answer(card, CardAnswer::Deny);
    let (_, st) = s.row_says("denied by you");
    assert_eq!(st.tone, tool::Tone::Bad);
    assert_eq!(st.detail, None);
    drop(s);

    let s = setup("rows-policy", true);
    s.send("r3", "write the file");
    let (_, row) = last_row(&s.row_says("denied by policy no markers").0).unwrap();
    assert!(
        matches!(row, Entry::Tool { asked: Some(Asked::Denied { by: AnsweredBy::Policy(ref p) }), .. } if p == "no markers"),
        "{row:?}"
    );
}

#[test]
fn a_tool_ended_by_stop_says_stopped() {
    let s = setup("rows-stop", false);
    s.send("r4", "write the file");
    let card = s.card();
    s.answer(card, CardAnswer::Allow);
    s.row_says("allowed — running");
    s.app.chat(ChatCommand::Stop { chat: "r4".into() });
    let c = s.app.updated_until("the stop", |c| {
        c.entries
            .iter()
            .any(|e| matches!(e, Entry::Note { text } if text == "Stopped."))
    });
    let (st, row) = last_row(&c).unwrap();
    assert_eq!(st.mark, "stopped", "{row:?}");
    assert!(
        matches!(&row, Entry::Tool { result: Some(r), .. } if r == "Exit code 137"),
        "the tool's own last words are kept (on hover): {row:?}"
    );
}

#[test]
fn claude_codes_own_tool_error_reads_as_its_words() {
    let s = setup("rows-error", false);
    s.send("r5", "write the unread file");
    let (c, st) = s.row_says("failed");
    assert_eq!(
        st.detail.as_deref(),
        Some("File has not been read yet. Read it first before writing to it.")
    );
    let (_, row) = last_row(&c).unwrap();
    assert!(
        matches!(&row, Entry::Tool { result: Some(r), .. } if !r.contains("tool_use_error")),
        "{row:?}"
    );
}
