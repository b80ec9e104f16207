//! The Chat view (Zeca): one conversation at a time with the user's Claude Code — streamed text
//! rendered as light markdown, compact tool rows, the chat's own cards inline (the same card
//! view and keys as the floating cards), a Stop button, tasks, and the chat's settings. It reads
//! the model and returns `ChatAction`s; it never does I/O.

use super::card::CardView;
use super::theme;
use crate::state::Model;
use egui::{Color32, RichText};
use std::collections::{HashMap, HashSet};
use std::time::SystemTime;
use vults_core::agents::Agent;
use vults_engine::messages::{CardAnswer, CardId, PendingCard, SessionState};
use vults_i18n::tr;
use vults_zeca::tool::Tone;
use vults_zeca::{ChatCommand, Conversation, Entry, TaskSpec, ZecaSettings};

/// What the view asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ChatAction {
    Command(ChatCommand),
    /// A card answered here, and by what: a click or a key.
    Answer(CardId, CardAnswer, vults_engine::messages::AnsweredBy),
    /// "Show terminal" on a task whose agent is in the flock: that bird's session.
    ShowTerminal(vults_engine::messages::SessionKey),
}

#[derive(Default)]
pub(crate) struct ChatView {
    /// The conversation shown; `None`: a new one (made by its first turn).
    pub selected: Option<String>,
    /// The folder of a new conversation.
    pub folder: String,
    pub draft: String,
    /// The engine of a new conversation: `claude` or `codex`.
    pub engine: String,
    task_open: bool,
    task_prompt: String,
    task_folder: String,
    task_agent: String,
    task_headless: bool,
    settings_open: bool,
    settings: Option<ZecaSettings>,
    cards: HashMap<CardId, CardView>,
    /// Makes ids for new conversations.
    new_id: Option<String>,
    /// Tasks whose bird has been in the flock: one that is gone has left, not "not yet" come.
    tasks_seen: HashSet<String>,
    /// The message box, to hand the keyboard to a card that comes while it is empty.
    composer: Option<egui::Id>,
    /// Cards float over this same window (one window for everything): the keys then go to one
    /// card of all, inline or floating — [`ChatView::keys_card`], never to two at once.
    pub one_window: bool,
    /// The new-chat folder was filled from the one the chat remembers (once: a folder the
    /// person clears stays cleared).
    folder_remembered: bool,
    /// In one window, the card that takes the keys (the oldest on screen; set by the window).
    pub keys_card: Option<vults_engine::messages::CardId>,
    /// The conversation is scrolled down: it says "more above ↑" over it.
    more_above: bool,
}

/// The least height the conversation keeps (a card in it scrolls as one piece within it): the
/// task and settings forms scroll in what is left.
const CONVERSATION_MIN: f32 = 160.0;
/// The least height the forms get, however small the window.
const FORMS_MIN: f32 = 72.0;
/// About the height of the composer (the message box, Send and Stop).
const COMPOSER_HEIGHT: f32 = 76.0;

impl ChatView {
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model, now: SystemTime) -> Option<ChatAction> {
        let mut action = None;
        if self.task_agent.is_empty() {
            self.task_agent = "claude".into();
        }
        if self.engine.is_empty() {
            self.engine = "claude".into();
        }
        if !self.folder_remembered
            && let Some(last) = model.zeca_settings.last_folder.as_ref()
        {
            // A new chat starts in the folder the last one ran in, also after a restart.
            if self.folder.trim().is_empty() {
                self.folder = last.clone();
            }
            self.folder_remembered = true;
        }
        // The conversation picker, the folder and the engine.
        ui.horizontal(|ui| {
            let title = self
                .selected
                .as_ref()
                .filter(|id| model.chats.contains_key(*id))
                .map_or_else(|| tr!("chat-new"), |id| chat_title(model, id));
            egui::ComboBox::from_label(tr!("chat-conversation"))
                .selected_text(title)
                .width(220.0)
                .height(360.0)
                .show_ui(ui, |ui| {
                    if ui
                        .selectable_label(self.selected.is_none(), tr!("chat-new"))
                        .clicked()
                    {
                        self.selected = None;
                    }
                    // The latest first; each row says where and when, so rows that start
                    // with the same words still differ.
                    let mut convs: Vec<&Conversation> = model.chats.values().collect();
                    convs.sort_by(|a, b| (b.last_active, &b.id).cmp(&(a.last_active, &a.id)));
                    for c in convs {
                        let on = self.selected.as_deref() == Some(c.id.as_str());
                        let row = ui
                            .selectable_label(on, picker_row(ui, c, model, now))
                            .on_hover_text(&c.folder);
                        if row.clicked() {
                            self.selected = Some(c.id.clone());
                            if folder_open(c) {
                                self.folder = c.folder.clone();
                            }
                        }
                    }
                });
            if ui.button(tr!("chat-start-new")).clicked() {
                self.selected = None;
                self.new_id = None;
            }
        });
        let conv = self.selected.as_ref().and_then(|id| model.chats.get(id));
        ui.horizontal(|ui| {
            ui.label(tr!("chat-engine"));
            match conv {
                Some(c) => {
                    ui.label(engine_name(&c.engine));
                }
                None => {
                    agent_choice(ui, &mut self.engine);
                }
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label(tr!("chat-folder"));
            match conv.filter(|c| !folder_open(c)) {
                Some(c) => {
                    ui.add(egui::Label::new(RichText::new(&c.folder).monospace()).truncate())
                        .on_hover_text(&c.folder);
                }
                None => {
                    ui.add(
                        egui::TextEdit::singleline(&mut self.folder)
                            .hint_text(tr!("chat-folder-hint"))
                            .desired_width(f32::INFINITY),
                    )
                    .labelled_by(label.id);
                }
            }
        });
        ui.separator();
        let chat_id = self
            .selected
            .clone()
            .unwrap_or_else(|| self.new_id.get_or_insert_with(new_chat_id).clone());
        let cards: Vec<&PendingCard> = model
            .cards
            .iter()
            .filter(|c| vults_zeca::chat_of_session(&c.session.session) == Some(chat_id.as_str()))
            .collect();
        let running = conv.is_some_and(|c| c.running);
        // The composer at the bottom, the conversation above it. The task and settings forms
        // scroll in what room the conversation leaves them: the conversation (and a card in
        // it) keeps CONVERSATION_MIN, so a form never squeezes a card or draws over it.
        let room = ui.available_height();
        let forms_max = (room - COMPOSER_HEIGHT - CONVERSATION_MIN).max(FORMS_MIN);
        let mut why_not_sent = None;
        egui::Panel::bottom("zeca-composer").show(ui, |ui| {
            ui.add_space(4.0);
            egui::ScrollArea::vertical()
                .id_salt("zeca-forms")
                .max_height(forms_max)
                .auto_shrink([false, true])
                .show(ui, |ui| {
                    if let Some(a) = self.tasks_ui(ui, model, &chat_id, conv) {
                        action = Some(a);
                    }
                    if let Some(a) = self.settings_ui(ui, model) {
                        action = Some(a);
                    }
                });
            ui.horizontal(|ui| {
                let label = ui.label(tr!("chat-message"));
                let edit = ui
                    .add(
                        egui::TextEdit::multiline(&mut self.draft)
                            .hint_text(tr!(
                                "chat-message-hint",
                                agent = engine_name(
                                    conv.map_or(self.engine.as_str(), |c| c.engine.as_str())
                                )
                            ))
                            .desired_rows(2)
                            .desired_width(ui.available_width() - 80.0),
                    )
                    .labelled_by(label.id);
                self.composer = Some(edit.id);
                let send_keys = edit.has_focus()
                    && ui.input(|i| i.modifiers.command && i.key_pressed(egui::Key::Enter));
                let folder_typed = conv.is_none_or(folder_open);
                let no_folder = folder_typed && self.folder.trim().is_empty();
                let no_text = self.draft.trim().is_empty();
                let can_send = !no_text && !no_folder;
                why_not_sent = no_folder.then(|| tr!("chat-needs-folder"));
                ui.vertical(|ui| {
                    let send = ui
                        .add_enabled(can_send, egui::Button::new(tr!("chat-send")))
                        .on_disabled_hover_text(if no_folder {
                            tr!("chat-type-folder")
                        } else {
                            tr!("chat-type-message")
                        })
                        .clicked();
                    if (send || send_keys && can_send) && !self.draft.trim().is_empty() {
                        let folder = match conv {
                            Some(c) if !folder_typed => c.folder.clone(),
                            _ => self.folder.trim().to_string(),
                        };
                        action = Some(ChatAction::Command(ChatCommand::Send {
                            chat: chat_id.clone(),
                            folder,
                            engine: self.engine.clone(),
                            text: std::mem::take(&mut self.draft).trim().to_string(),
                        }));
                        self.selected = Some(chat_id.clone());
                        self.new_id = None;
                    }
                    if ui
                        .add_enabled(running, egui::Button::new(tr!("chat-stop")))
                        .on_hover_text(tr!(
                            "chat-stop-hover",
                            agent = engine_name(
                                conv.map_or(self.engine.as_str(), |c| c.engine.as_str())
                            )
                        ))
                        .clicked()
                    {
                        action = Some(ChatAction::Command(ChatCommand::Stop {
                            chat: chat_id.clone(),
                        }));
                    }
                });
            });
            if let Some(why) = why_not_sent {
                // Said next to Send, not left to guess from a greyed-out button.
                ui.label(RichText::new(why).small().color(theme::AMBER));
            }
            ui.add_space(4.0);
        });
        // What the conversation scrolled out of sight above: said on a row of its own, so a
        // card that does not fit scrolls as one piece and never reads as the whole view.
        if self.more_above {
            ui.label(
                RichText::new(tr!("chat-more-above"))
                    .small()
                    .color(Color32::from_gray(160)),
            );
        }
        let scrolled = egui::ScrollArea::vertical()
            .id_salt("zeca-conversation")
            .auto_shrink([false, false])
            .stick_to_bottom(true)
            .show(ui, |ui| {
                let Some(conv) = conv else {
                    ui.label(RichText::new(tr!("chat-empty")).color(Color32::from_gray(160)));
                    return;
                };
                self.tasks_seen
                    .extend(model.sessions.values().filter_map(|s| s.task.clone()));
                for entry in &conv.entries {
                    if let Some(session) =
                        entry_ui(ui, entry, model, conv.running, &self.tasks_seen)
                    {
                        action = Some(ChatAction::ShowTerminal(session));
                    }
                    ui.add_space(6.0);
                }
                for card in &cards {
                    if !self.cards.contains_key(&card.id)
                        && self.draft.trim().is_empty()
                        && let Some(composer) = self.composer
                    {
                        // A new card while the message box is empty (just sent from): the box
                        // lets go of the keyboard, so A / D answer the card as they say.
                        ui.memory_mut(|m| m.surrender_focus(composer));
                    }
                    let view = self
                        .cards
                        .entry(card.id)
                        .or_insert_with(|| CardView::new(card));
                    let frame = theme::card_frame(card.destructive.is_some());
                    // One card takes the keys: the newest here, or in one window the one the
                    // window chose of all (the oldest on screen).
                    let keys = if self.one_window {
                        self.keys_card == Some(card.id)
                    } else {
                        cards.iter().map(|c| c.id).max() == Some(card.id)
                    };
                    let answer = frame.show(ui, |ui| view.ui(ui, card, now, keys)).inner;
                    if let Some(a) = answer {
                        action = Some(ChatAction::Answer(card.id, a, view.answered_by()));
                    }
                }
                if conv.running && cards.is_empty() {
                    ui.label(RichText::new("…").color(Color32::from_gray(150)));
                }
            });
        let more_above = scrolled.state.clamped_offset().y > 1.0;
        if more_above != self.more_above {
            self.more_above = more_above;
            ui.ctx().request_repaint();
        }
        let live: Vec<CardId> = model.cards.iter().map(|c| c.id).collect();
        self.cards.retain(|id, _| live.contains(id));
        action
    }

    fn tasks_ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &Model,
        chat_id: &str,
        conv: Option<&Conversation>,
    ) -> Option<ChatAction> {
        let mut action = None;
        if ui
            .selectable_label(self.task_open, tr!("chat-start-task"))
            .on_hover_text(tr!("chat-start-task-hover"))
            .clicked()
        {
            self.task_open = !self.task_open;
            if self.task_folder.is_empty() {
                self.task_folder = conv.map_or_else(|| self.folder.clone(), |c| c.folder.clone());
            }
            // A task starts with the agent this conversation talks to; the radio changes it.
            if self.task_open {
                self.task_agent = conv.map_or_else(|| self.engine.clone(), |c| c.engine.clone());
            }
        }
        if !self.task_open {
            return None;
        }
        egui::Grid::new("zeca-task").num_columns(2).show(ui, |ui| {
            let label = ui.label(tr!("chat-task-folder"));
            ui.text_edit_singleline(&mut self.task_folder)
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label(tr!("chat-task-prompt"));
            ui.text_edit_singleline(&mut self.task_prompt)
                .labelled_by(label.id);
            ui.end_row();
            ui.label(tr!("chat-agent"));
            ui.horizontal(|ui| {
                agent_choice(ui, &mut self.task_agent);
                ui.checkbox(&mut self.task_headless, tr!("chat-headless"));
            });
            ui.end_row();
        });
        let terminal = model
            .zeca_settings
            .terminal
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| tr!("chat-systems-terminal"));
        let start = if self.task_headless {
            tr!("chat-start-task-headless")
        } else {
            tr!("chat-start-task-in", terminal = terminal)
        };
        // Headless, the prompt is all the task has to go on (`claude -p ""` only fails).
        let no_prompt = self.task_headless && self.task_prompt.trim().is_empty();
        let ready = !self.task_folder.trim().is_empty() && !no_prompt;
        if ui.add_enabled(ready, egui::Button::new(start)).clicked() {
            action = Some(ChatAction::Command(ChatCommand::StartTask {
                chat: chat_id.to_string(),
                task: TaskSpec {
                    folder: self.task_folder.trim().to_string(),
                    prompt: std::mem::take(&mut self.task_prompt),
                    agent: self.task_agent.clone(),
                    headless: self.task_headless,
                },
            }));
            self.selected = Some(chat_id.to_string());
            self.new_id = None;
            self.task_open = false;
        }
        ui.separator();
        action
    }

    fn settings_ui(&mut self, ui: &mut egui::Ui, model: &Model) -> Option<ChatAction> {
        if ui
            .selectable_label(self.settings_open, tr!("chat-settings"))
            .clicked()
        {
            self.settings_open = !self.settings_open;
            self.settings = Some(model.zeca_settings.clone());
        }
        if !self.settings_open {
            return None;
        }
        let s = self
            .settings
            .get_or_insert_with(|| model.zeca_settings.clone());
        // One line per agent the chat drives (its row's `chat`), in the table's order.
        let mut clis: Vec<(&str, String)> = Agent::ALL
            .into_iter()
            .filter(|a| a.spec().chat.is_some())
            .map(|a| (a.name(), s.clis.get(a.name()).cloned().unwrap_or_default()))
            .collect();
        let mut terminal = s.terminal.clone().unwrap_or_default();
        egui::Grid::new("zeca-settings")
            .num_columns(2)
            .show(ui, |ui| {
                for (name, path) in &mut clis {
                    ui.label(tr!("chat-binary", agent = *name));
                    ui.add(egui::TextEdit::singleline(path).hint_text(tr!("chat-binary-hint")));
                    ui.end_row();
                }
                ui.label(tr!("chat-terminal-for-tasks"));
                ui.add(
                    egui::TextEdit::singleline(&mut terminal).hint_text(tr!("chat-terminal-hint")),
                );
                ui.end_row();
            });
        let some = |t: String| (!t.trim().is_empty()).then(|| t.trim().to_string());
        for (name, path) in clis {
            match some(path) {
                Some(path) => s.clis.insert(name.to_string(), path),
                None => s.clis.remove(name),
            };
        }
        s.terminal = some(terminal);
        let mut action = None;
        if ui.button(tr!("chat-save-settings")).clicked() {
            action = Some(ChatAction::Command(ChatCommand::Configure(s.clone())));
            self.settings_open = false;
        }
        ui.separator();
        action
    }
}

/// A picker row: the first words, and below them where and when (the folder's last name, the
/// last activity) and whether it waits for you, so conversations that start alike still differ.
fn picker_row(
    ui: &egui::Ui,
    c: &Conversation,
    model: &Model,
    now: SystemTime,
) -> egui::text::LayoutJob {
    let mut about = vec![folder_name(&c.folder).to_string()];
    if let Some(when) = ago_text(vults_engine::clock::unix_ms(now), c.last_active) {
        about.push(when);
    }
    let asks = model
        .cards
        .iter()
        .any(|k| vults_zeca::chat_of_session(&k.session.session) == Some(c.id.as_str()));
    if asks {
        about.push(tr!("chat-asks-you"));
    } else if c.running {
        about.push(tr!("chat-working"));
    }
    let style = ui.style();
    let mut job = egui::text::LayoutJob::default();
    RichText::new(chat_title(model, &c.id)).append_to(
        &mut job,
        style,
        egui::FontSelection::Default,
        egui::Align::Center,
    );
    RichText::new(format!("\n{}", about.join(" · ")))
        .small()
        .color(if asks {
            theme::AMBER
        } else {
            Color32::from_gray(150)
        })
        .append_to(
            &mut job,
            style,
            egui::FontSelection::Default,
            egui::Align::Center,
        );
    job
}

/// A conversation's name in the picker and on its cards: its first words, numbered when an
/// earlier conversation starts with the same words ("write the file (2)"), so no two read alike.
pub fn chat_title(model: &Model, id: &str) -> String {
    let Some(c) = model.chats.get(id) else {
        return tr!("chat-untitled");
    };
    let title = c.title();
    // Ids count up with the time a conversation was made: the earlier ones come first.
    let earlier = model
        .chats
        .range::<str, _>((std::ops::Bound::Unbounded, std::ops::Bound::Excluded(id)))
        .filter(|(_, o)| o.title() == title)
        .count();
    let title = title_words(&title);
    if earlier == 0 {
        title
    } else {
        format!("{title} ({})", earlier + 1)
    }
}

/// A conversation's title ([`Conversation::title`]) in the person's words: its own first
/// words as they are, the chat's fallbacks ("New chat", "task: <prompt>") worded.
fn title_words(title: &str) -> String {
    match title {
        "New chat" => tr!("chat-new"),
        "task" => tr!("chat-title-task-bare"),
        _ => match title.strip_prefix("task: ") {
            Some(prompt) => tr!("chat-title-task", prompt = prompt),
            None => title.to_string(),
        },
    }
}

/// A task's state as the chat keeps it ("running", "running headless (log …)", "opened in the
/// terminal", "ended (…)", "could not start: …", vults-zeca's driver and task), in the
/// person's words; what the process said stays as it said it.
fn task_state_words(state: &str) -> String {
    if state == "running" {
        return tr!("chat-task-running");
    }
    if state == "opened in the terminal" {
        return tr!("chat-task-opened");
    }
    if let Some(log) = state
        .strip_prefix("running headless (log ")
        .and_then(|s| s.strip_suffix(')'))
    {
        return tr!("chat-task-headless", log = log);
    }
    if let Some(status) = state
        .strip_prefix("ended (")
        .and_then(|s| s.strip_suffix(')'))
    {
        return tr!("chat-task-ended", status = status);
    }
    match state.strip_prefix("could not start: ") {
        Some(why) => tr!("chat-task-could-not-start", why = why),
        None => state.to_string(),
    }
}

/// A folder's last name ("vults" for /home/ada/src/vults).
fn folder_name(folder: &str) -> &str {
    let f = folder.trim_end_matches(['/', '\\']);
    let name = f.rsplit(['/', '\\']).next().unwrap_or(f);
    if name.is_empty() { folder } else { name }
}

/// "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago"; `None` when not known.
fn ago_text(now_ms: u64, then_ms: u64) -> Option<String> {
    if then_ms == 0 {
        return None;
    }
    let secs = now_ms.saturating_sub(then_ms) / 1000;
    Some(match secs {
        0..=59 => tr!("chat-ago-just-now"),
        60..=3599 => tr!("chat-ago-minutes", count = secs / 60),
        3600..=86_399 => tr!("chat-ago-hours", count = secs / 3600),
        86_400..=172_799 => tr!("chat-ago-yesterday"),
        _ => tr!("chat-ago-days", count = secs / 86_400),
    })
}

/// The line a chat's card carries where it floats (another tab, another conversation, the
/// window hidden), so it is plain where it comes from: "from Zeca · `<chat title>`". Clicked, it
/// asks for that conversation in the Chat view: returns its id. `None` drawn for other cards.
pub fn card_origin_ui(ui: &mut egui::Ui, model: &Model, card: &PendingCard) -> Option<String> {
    let chat = vults_zeca::chat_of_session(&card.session.session)?;
    let title = chat_title(model, chat);
    let link = ui
        .link(
            RichText::new(tr!("chat-from-zeca", title = title))
                .italics()
                .color(theme::AMBER),
        )
        .on_hover_text(tr!("chat-open"));
    link.clicked().then(|| chat.to_string())
}

/// How much taller [`card_origin_ui`] makes a card.
pub const ORIGIN_HEIGHT: f32 = 20.0;

/// A conversation whose CLI never started (its folder did not exist, its CLI was not found)
/// keeps its folder open to change; once it ran, the folder is the conversation's.
fn folder_open(c: &Conversation) -> bool {
    c.session_id.is_none() && !c.running
}

/// The name people know a conversation's agent by.
fn engine_name(engine: &str) -> &'static str {
    vults_zeca::chat_agent(engine).map_or("Claude Code", |(a, _)| a.display_name())
}

/// A radio button per agent Zeca chats with (its row's chat engine), by `--agent` name.
fn agent_choice(ui: &mut egui::Ui, value: &mut String) {
    for agent in vults_core::agents::Agent::ALL {
        if agent.spec().chat.is_some() {
            ui.radio_value(value, agent.name().to_string(), agent.display_name());
        }
    }
}

/// A fresh conversation id (the window's clock; no I/O).
fn new_chat_id() -> String {
    let ms = vults_engine::clock::unix_ms(SystemTime::now());
    format!("c{ms}")
}

fn entry_ui(
    ui: &mut egui::Ui,
    entry: &Entry,
    model: &Model,
    running: bool,
    tasks_seen: &HashSet<String>,
) -> Option<vults_engine::messages::SessionKey> {
    let mut show = None;
    match entry {
        Entry::User { text } => {
            egui::Frame::new()
                .fill(Color32::from_rgb(40, 52, 70))
                .corner_radius(8)
                .inner_margin(egui::Margin::same(8))
                .show(ui, |ui| {
                    ui.label(RichText::new(text).color(Color32::from_gray(230)));
                });
        }
        Entry::Assistant { text } => markdown(ui, text),
        Entry::Tool {
            name,
            summary,
            result,
            ..
        } => {
            let status = vults_zeca::tool::status(entry, running)?;
            let color = match status.tone {
                Tone::Quiet => Color32::from_gray(170),
                Tone::Waiting => theme::AMBER,
                Tone::Good => theme::GREEN,
                Tone::Bad => theme::RED,
            };
            let head = ui.horizontal(|ui| {
                ui.label(RichText::new(mark_words(&status.kind)).small().color(color));
                ui.label(RichText::new(name).strong());
                // One line, cut at the window's edge (the card shows the whole, so does hover):
                // a long command must not widen the conversation and push the card out.
                ui.add(
                    egui::Label::new(
                        RichText::new(summary)
                            .monospace()
                            .color(Color32::from_gray(190)),
                    )
                    .truncate(),
                )
                .on_hover_text(summary);
            });
            if let Some(r) = result.as_ref().filter(|r| !r.is_empty()) {
                head.response
                    .on_hover_text(vults_zeca::tool::result_words(r));
            }
            if let Some(first) = &status.detail {
                ui.label(RichText::new(format!("   {first}")).small().color(
                    if status.tone == Tone::Bad {
                        theme::RED
                    } else {
                        Color32::from_gray(150)
                    },
                ));
            }
        }
        Entry::Note { text } => {
            ui.label(RichText::new(text).italics().color(Color32::from_gray(160)));
        }
        Entry::Task {
            id,
            folder,
            agent,
            prompt,
            state,
            ..
        } => {
            // The bird it became, when its agent has said something through the hook.
            let bird = model
                .sessions
                .values()
                .find(|s| s.task.as_deref() == Some(id.as_str()));
            let flock = tr!(match bird.map(|b| b.state) {
                Some(SessionState::WaitingForYou) => "chat-flock-waiting",
                Some(SessionState::Done) => "chat-flock-done",
                Some(SessionState::AsksInTerminal) => "chat-flock-asks-in-terminal",
                Some(SessionState::Working) => "chat-flock-working",
                Some(SessionState::Idle) => "chat-flock-idle",
                Some(SessionState::Ended) => "chat-flock-ended",
                None if tasks_seen.contains(id) => "chat-flock-left",
                None if state.starts_with("ended") => "chat-flock-not",
                None => "chat-flock-not-yet",
            });
            egui::Frame::new()
                .stroke(egui::Stroke::new(1.0, Color32::from_gray(80)))
                .corner_radius(8)
                .inner_margin(egui::Margin::same(8))
                .show(ui, |ui| {
                    ui.label(
                        RichText::new(tr!("chat-task", id = id, agent = agent, folder = folder))
                            .strong(),
                    );
                    if !prompt.is_empty() {
                        ui.label(prompt);
                    }
                    ui.label(
                        RichText::new(format!("{} · {flock}", task_state_words(state))).small(),
                    );
                    // Its agent's terminal, once the bird has said where it runs (a headless
                    // task's line says it has none).
                    if let Some(bird) = bird {
                        let showing = model.showing.contains(&bird.key);
                        ui.horizontal(|ui| {
                            if crate::show_terminal::button(
                                ui,
                                showing,
                                &tr!("chat-task-terminal-hover"),
                                Some((
                                    &tr!("chat-task-show-terminal", id = id),
                                    &tr!("chat-task-showing-terminal", id = id),
                                )),
                            ) {
                                show = Some(bird.key.clone());
                            }
                        });
                        if let Some(shown) = model.shown.as_ref().filter(|s| s.session == bird.key)
                        {
                            crate::show_terminal::line_ui(ui, shown);
                        }
                    }
                });
        }
    }
    show
}

/// A tool row's mark in the person's words ([`vults_zeca::tool::Status::mark`] is its English).
fn mark_words(mark: &vults_zeca::tool::Mark) -> String {
    use vults_zeca::tool::Mark;
    let by = crate::theme::answered_by_words;
    match mark {
        Mark::Stopped => tr!("chat-mark-stopped"),
        Mark::Denied(who) => tr!("chat-mark-denied", by = by(who)),
        Mark::Withdrawn => tr!("chat-mark-withdrawn"),
        Mark::Failed => tr!("chat-mark-failed"),
        Mark::Answered => tr!("chat-mark-answered"),
        Mark::RanAllowedBy(who) => tr!("chat-mark-ran-allowed", by = by(who)),
        Mark::Ran => tr!("chat-mark-ran"),
        Mark::NoResult => tr!("chat-mark-no-result"),
        Mark::Asks => tr!("chat-mark-asks"),
        Mark::AllowedRunning(None) => tr!("chat-mark-allowed-running"),
        Mark::AllowedRunning(Some(who)) => tr!("chat-mark-allowed-by-running", by = by(who)),
        Mark::Running => tr!("chat-mark-running"),
    }
}

/// A small markdown renderer: fenced code blocks, headings, bullets, `inline code`, **bold**.
pub fn markdown(ui: &mut egui::Ui, text: &str) {
    let mut code: Option<String> = None;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            match code.take() {
                Some(block) => code_block(ui, &block),
                None => code = Some(String::new()),
            }
            continue;
        }
        if let Some(block) = code.as_mut() {
            if !block.is_empty() {
                block.push('\n');
            }
            block.push_str(line);
            continue;
        }
        let t = line.trim_end();
        if let Some(h) = t
            .strip_prefix("### ")
            .or(t.strip_prefix("## "))
            .or(t.strip_prefix("# "))
        {
            ui.label(RichText::new(h).strong().size(16.0));
        } else if let Some(item) = t.strip_prefix("- ").or(t.strip_prefix("* ")) {
            ui.horizontal_wrapped(|ui| {
                ui.label("•");
                inline(ui, item);
            });
        } else if !t.is_empty() {
            ui.horizontal_wrapped(|ui| inline(ui, t));
        } else {
            ui.add_space(4.0);
        }
    }
    if let Some(block) = code {
        code_block(ui, &block); // still streaming
    }
}

fn code_block(ui: &mut egui::Ui, code: &str) {
    egui::Frame::new()
        .fill(Color32::from_gray(24))
        .corner_radius(6)
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            ui.label(RichText::new(code).monospace());
        });
}

/// One line with `code` and **bold** spans.
fn inline(ui: &mut egui::Ui, line: &str) {
    ui.spacing_mut().item_spacing.x = 0.0;
    let mut rest = line;
    while !rest.is_empty() {
        let tick = rest.find('`');
        let star = rest.find("**");
        let (at, bold) = match (tick, star) {
            (Some(t), Some(s)) if s < t => (s, true),
            (Some(t), _) => (t, false),
            (None, Some(s)) => (s, true),
            (None, None) => {
                ui.label(rest);
                return;
            }
        };
        let mark = if bold { "**" } else { "`" };
        let after = &rest[at + mark.len()..];
        let Some(end) = after.find(mark) else {
            ui.label(rest);
            return;
        };
        if at > 0 {
            ui.label(&rest[..at]);
        }
        let span = &after[..end];
        if bold {
            ui.label(RichText::new(span).strong());
        } else {
            ui.label(
                RichText::new(span)
                    .monospace()
                    .background_color(Color32::from_gray(40)),
            );
        }
        rest = &after[end + mark.len()..];
    }
}
