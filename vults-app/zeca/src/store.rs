//! Where the chat keeps things: one JSON file per conversation in `<data>/zeca/chats/`, the
//! tasks' logs in `<data>/zeca/tasks/`, the settings in `<config>/zeca.json`. Every write is
//! atomic (`vults_core::atomic`), private (0600), and a file that does not parse is never
//! written over.

use super::conversation::{Conversation, ZecaSettings};
use crate::error::StoreError;
use std::path::PathBuf;
use vults_core::paths::{PRIVATE_FILE_MODE, Paths};

/// The chat's files: conversations, tasks' logs and settings (see the module).
pub struct Store {
    chats: PathBuf,
    tasks: PathBuf,
    settings: PathBuf,
    /// The settings file did not parse at start: it is not written over.
    settings_writable: bool,
}

/// A chat id names a file: letters, digits, `-` and `_`, at most 64.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl Store {
    /// The files under `paths`' data and config folders; nothing is read or made yet.
    pub fn new(paths: &Paths) -> Store {
        let dir = paths.data_dir.join("zeca");
        Store {
            chats: dir.join("chats"),
            tasks: dir.join("tasks"),
            settings: paths.config_dir.join("zeca.json"),
            settings_writable: true,
        }
    }

    /// The file of the conversation `id`.
    pub fn path_of(&self, id: &str) -> PathBuf {
        self.chats.join(format!("{id}.json"))
    }

    /// The log of the headless task `task`.
    pub fn task_log(&self, task: &str) -> PathBuf {
        self.tasks.join(format!("{task}.log"))
    }

    /// Writes `conv` to its file, atomically; refused for an id that is not [`valid_id`].
    pub fn save(&self, conv: &Conversation) -> Result<(), StoreError> {
        if !valid_id(&conv.id) {
            return Err(StoreError::InvalidId(conv.id.clone()));
        }
        let path = self.path_of(&conv.id);
        let text = serde_json::to_vec_pretty(conv)?;
        vults_core::atomic::write(&path, &text, Some(PRIVATE_FILE_MODE))
            .map_err(|source| StoreError::Chat { path, source })
    }

    /// Every saved conversation, oldest file name first; what could not be read is said.
    pub fn load_all(&self) -> (Vec<Conversation>, Vec<String>) {
        let mut convs = Vec::new();
        let mut problems = Vec::new();
        let Ok(dir) = std::fs::read_dir(&self.chats) else {
            return (convs, problems);
        };
        let mut files: Vec<PathBuf> = dir
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for path in files {
            match std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<Conversation>(&b).map_err(|e| e.to_string()))
            {
                Ok(mut c) if valid_id(&c.id) && path == self.path_of(&c.id) => {
                    if c.last_active == 0 {
                        // Saved before the chat kept its last activity: the file's time is it.
                        c.last_active = std::fs::metadata(&path)
                            .and_then(|m| m.modified())
                            .map(vults_engine::clock::unix_ms)
                            .unwrap_or(0);
                    }
                    convs.push(c)
                }
                Ok(c) => problems.push(format!(
                    "chat file {} names another chat ({:?}); left alone",
                    path.display(),
                    c.id
                )),
                Err(e) => problems.push(format!(
                    "chat file {} not read ({e}); left alone",
                    path.display()
                )),
            }
        }
        (convs, problems)
    }

    /// The settings, and what went wrong reading them (then defaults hold and the file stays).
    pub fn load_settings(&self) -> (ZecaSettings, Option<String>) {
        match std::fs::read(&self.settings) {
            Err(_) => (ZecaSettings::default(), None),
            Ok(b) => match serde_json::from_slice(&b) {
                Ok(s) => (s, None),
                Err(e) => (
                    ZecaSettings::default(),
                    Some(format!(
                        "{} not read ({e}); the chat's settings are the defaults and the file \
                         will not be written over",
                        self.settings.display()
                    )),
                ),
            },
        }
    }

    /// Writes the settings, atomically; refused (until Vults quits) when the file there did not
    /// parse, so a person's edit is never lost.
    pub fn save_settings(&mut self, s: &ZecaSettings) -> Result<(), StoreError> {
        if !self.settings_writable || matches!(self.load_settings(), (_, Some(_))) {
            self.settings_writable = false;
            return Err(StoreError::SettingsUnparsed(self.settings.clone()));
        }
        let text = serde_json::to_vec_pretty(s)?;
        vults_core::atomic::write(&self.settings, &text, Some(PRIVATE_FILE_MODE)).map_err(
            |source| StoreError::Settings {
                path: self.settings.clone(),
                source,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::Entry;

    fn paths(dir: &std::path::Path) -> Paths {
        let home = dir.to_path_buf();
        Paths::resolve(move |k| (k == "VULTS_HOME").then(|| home.clone()))
    }

    #[test]
    fn a_conversation_comes_back_with_its_session_and_a_bad_file_is_left_alone() {
        let dir = std::env::temp_dir().join(format!("vults-zeca-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut store = Store::new(&paths(&dir));
        let mut c = Conversation::new("c-1", "/p", "claude");
        c.session_id = Some("s-9".into());
        c.entries.push(Entry::User { text: "hi".into() });
        c.running = true;
        store.save(&c).unwrap();
        std::fs::write(store.chats.join("broken.json"), b"{not json").unwrap();
        let (back, problems) = store.load_all();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].session_id.as_deref(), Some("s-9"));
        assert_eq!(back[0].entries, c.entries);
        assert!(
            !back[0].running,
            "a running turn does not survive a restart"
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            std::fs::read(store.chats.join("broken.json")).unwrap(),
            b"{not json"
        );
        // Settings that do not parse are never written over.
        std::fs::create_dir_all(store.settings.parent().unwrap()).unwrap();
        std::fs::write(&store.settings, b"[").unwrap();
        assert!(store.load_settings().1.is_some());
        assert!(store.save_settings(&ZecaSettings::default()).is_err());
        assert_eq!(std::fs::read(&store.settings).unwrap(), b"[");
        assert!(!valid_id("../x") && !valid_id("") && valid_id("c-1_a"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Files written before the chat kept its last activity and its last folder still read:
    /// the conversation's time is its file's, the folder is not known yet.
    #[test]
    fn older_files_read_with_their_time_and_no_folder() {
        let dir = std::env::temp_dir().join(format!("vults-zeca-store-old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::new(&paths(&dir));
        std::fs::create_dir_all(&store.chats).unwrap();
        std::fs::write(
            store.path_of("c-2"),
            br#"{"id":"c-2","folder":"/p","engine":"claude","session_id":"s","entries":[]}"#,
        )
        .unwrap();
        let (back, problems) = store.load_all();
        assert!(problems.is_empty(), "{problems:?}");
        let now = vults_engine::clock::now_ms();
        assert!(
            back[0].last_active > now - 60_000 && back[0].last_active <= now,
            "{}",
            back[0].last_active
        );
        let old: ZecaSettings =
            serde_json::from_str(r#"{"claude":null,"codex":null,"terminal":"kitty -e"}"#).unwrap();
        assert_eq!(old.terminal.as_deref(), Some("kitty -e"));
        assert_eq!(old.last_folder, None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
