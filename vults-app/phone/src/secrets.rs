//! Where the app's phone-link keys live: the OS keyring (through `keyring-core` and the
//! platform store set by [`use_platform_store`]), or — where no keyring service runs — a file
//! readable only by the user (0600), and the app says so (see [`KeyStorage`]).

use super::crypto::{AppKeys, b64, unb64_array};
use super::error::KeyringError;
use std::path::{Path, PathBuf};
use vults_core::paths::Paths;

const SERVICE: &str = "vults";
const USER: &str = "phone-link-keys";

/// Where the keys were found or put, for Settings → Phone to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyStorage {
    /// In the OS keyring.
    Keyring,
    /// In a 0600 file, because the keyring could not be used (the reason).
    File {
        /// The file.
        path: PathBuf,
        /// Why the keyring could not be used.
        reason: String,
    },
}

impl KeyStorage {
    /// The sentence the command line says about where the keys are.
    pub fn describe(&self) -> String {
        self.describe_as("phone link keys are")
    }

    /// Why the keyring was not used, when the secret is in the file.
    pub fn no_keyring(&self) -> Option<NoKeyring> {
        match self {
            KeyStorage::Keyring => None,
            KeyStorage::File { reason, .. } => Some(NoKeyring::of(reason)),
        }
    }

    /// What the command line says of where `what` ("the broker password is") was put: the
    /// keyring, or the private file and why, in words (the keyring's own error is in the log).
    pub fn describe_as(&self, what: &str) -> String {
        match self {
            KeyStorage::Keyring => format!("The {what} in the system keyring."),
            KeyStorage::File { path, reason } => format!(
                "No system keyring: {}. The {what} in {} instead (readable only by you).",
                NoKeyring::of(reason).english(),
                path.display()
            ),
        }
    }
}

/// Why the keyring could not be used, as a person reads it; the error itself (a D-Bus address,
/// an OS error number) goes to the log.
pub fn why_no_keyring(error: &str) -> &'static str {
    NoKeyring::of(error).english()
}

/// Why the keyring could not be used, sorted from the keyring's own error, for the window to
/// word in its language ([`NoKeyring::english`] is the command line's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoKeyring {
    /// No keyring service (GNOME Keyring, KWallet) runs.
    NoService,
    /// No desktop session bus (D-Bus), so no keyring service can be reached.
    NoBus,
    /// The keyring is locked.
    Locked,
    /// This system has no keyring Vults can use.
    Unsupported,
    /// Anything else: the log says why.
    NoAnswer,
}

impl NoKeyring {
    /// Sorts the keyring's error.
    pub fn of(error: &str) -> NoKeyring {
        let e = error.to_ascii_lowercase();
        if e.contains("org.freedesktop.secrets") || e.contains("serviceunknown") {
            NoKeyring::NoService
        } else if e.contains("zbus")
            || e.contains("d-bus")
            || e.contains("dbus")
            || e.contains("/bus")
        {
            NoKeyring::NoBus
        } else if e.contains("locked") || e.contains("prompt") {
            NoKeyring::Locked
        } else if e.contains("no keyring store for this platform") || e.contains("nodefaultstore") {
            NoKeyring::Unsupported
        } else {
            NoKeyring::NoAnswer
        }
    }

    /// In English, as the command line says it.
    pub fn english(self) -> &'static str {
        match self {
            NoKeyring::NoService => "no keyring service (GNOME Keyring, KWallet) is running",
            NoKeyring::NoBus => {
                "no desktop session bus (D-Bus) was found, so no keyring service can be reached"
            }
            NoKeyring::Locked => "the keyring is locked",
            NoKeyring::Unsupported => "this system has no keyring Vults can use",
            NoKeyring::NoAnswer => "the system keyring did not answer (the log says why)",
        }
    }
}

/// Which secret a [`Stored`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret {
    /// The phone link's keys.
    LinkKeys,
    /// The push (VAPID) key.
    PushKey,
    /// The app's broker password.
    BrokerPassword,
    /// The phone's broker password.
    PhoneBrokerPassword,
}

impl Secret {
    /// The English subject of [`KeyStorage::describe_as`] ("phone link keys are").
    pub fn english(self) -> &'static str {
        match self {
            Secret::LinkKeys => "phone link keys are",
            Secret::PushKey => "push key is",
            Secret::BrokerPassword => "broker password is",
            Secret::PhoneBrokerPassword => "phone's broker password is",
        }
    }
}

/// Where one secret is kept, for Settings → Phone to word; `Display` is the command line's
/// English ([`KeyStorage::describe_as`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The secret.
    pub secret: Secret,
    /// Where it is.
    pub storage: KeyStorage,
}

impl std::fmt::Display for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.storage.describe_as(self.secret.english()))
    }
}

/// Sets the platform's credential store as keyring-core's default: the Secret Service on
/// Linux, the Keychain on macOS, the Credential Manager on Windows. Call once, early in
/// `main`; tests skip it (and get the file) or set keyring-core's mock store.
pub fn use_platform_store() -> Result<(), KeyringError> {
    let result = platform_store();
    if let Err(e) = &result {
        tracing::info!("the keyring cannot be used: {e}");
        let _ = STORE_ERROR.set(e.to_string());
    }
    result
}

/// Why the platform store could not be set, to say so instead of "no default store".
static STORE_ERROR: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn platform_store() -> Result<(), KeyringError> {
    #[cfg(target_os = "linux")]
    let store = zbus_secret_service_keyring_store::Store::new().map_err(KeyringError::Store)?;
    #[cfg(target_os = "macos")]
    let store = apple_native_keyring_store::keychain::Store::new().map_err(KeyringError::Store)?;
    #[cfg(windows)]
    let store = windows_native_keyring_store::Store::new().map_err(KeyringError::Store)?;
    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    {
        keyring_core::set_default_store(store);
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    Err(KeyringError::NoStore)
}

/// The fallback file's path.
pub fn fallback_file(paths: &Paths) -> PathBuf {
    paths.config_dir.join("phone-link.key")
}

/// Loads the app's keys, creating them on first use.
pub fn load_or_create(paths: &Paths) -> std::io::Result<(AppKeys, KeyStorage)> {
    let file = fallback_file(paths);
    let entry = match keyring_entry() {
        Ok(entry) => entry,
        Err(e) => {
            let reason = STORE_ERROR.get().cloned().unwrap_or_else(|| e.to_string());
            return from_file(&file, &reason);
        }
    };
    match entry.get_password() {
        Ok(s) => match decode(&s) {
            Some(keys) => Ok((keys, KeyStorage::Keyring)),
            // Never overwrite a secret we cannot read: fall back, and say why.
            None => from_file(&file, "the keyring entry is not in the expected form"),
        },
        Err(keyring_core::Error::NoEntry) => {
            // First run with a keyring, or a move from the file: keep the keys paired phones
            // already know.
            let keys = read_file(&file).unwrap_or_else(AppKeys::generate);
            match entry.set_password(&b64(&keys.to_bytes())) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&file);
                    Ok((keys, KeyStorage::Keyring))
                }
                Err(e) => from_file_with(&file, keys, &e.to_string()),
            }
        }
        Err(e) => from_file(&file, &e.to_string()),
    }
}

/// The VAPID key's entry in the keyring (Web Push: the key pushes are signed for with).
const VAPID_USER: &str = "phone-push-vapid-key";

/// The VAPID key's fallback file (0600), where no keyring can be used.
pub fn vapid_file(paths: &Paths) -> PathBuf {
    paths.config_dir.join("phone-push-vapid.key")
}

/// Loads the app's VAPID key (P-256), creating it on first use, kept like the link's keys: in
/// the keyring, or a 0600 file and why. A stored key that does not read is an error, never
/// replaced (subscriptions made with its public half would stop working).
pub fn load_or_create_vapid(
    paths: &Paths,
) -> std::io::Result<(super::push::webpush::VapidKey, KeyStorage)> {
    use super::push::webpush::VapidKey;
    let file = vapid_file(paths);
    if let Some(stored) = read_secret(VAPID_USER, &file) {
        let key = unb64_array::<32>(stored.trim()).and_then(|b| VapidKey::from_bytes(&b));
        let Some(key) = key else {
            return Err(std::io::Error::other(format!(
                "the stored push (VAPID) key is not in the expected form; remove {} or its \
                 keyring entry to make a new one (phones then subscribe again)",
                file.display()
            )));
        };
        let storage = if file.exists() {
            KeyStorage::File {
                path: file,
                reason: STORE_ERROR
                    .get()
                    .cloned()
                    .unwrap_or_else(|| "the keyring could not be used".into()),
            }
        } else {
            KeyStorage::Keyring
        };
        return Ok((key, storage));
    }
    let key = VapidKey::generate();
    let storage = store_secret(VAPID_USER, &file, Some(&b64(&key.to_bytes())))?;
    Ok((key, storage))
}

/// The broker password's entry in the keyring.
const BROKER_USER: &str = "phone-broker-password";

/// The broker password's fallback file (0600), where no keyring can be used.
pub fn broker_password_file(paths: &Paths) -> PathBuf {
    paths.config_dir.join("phone-broker.secret")
}

/// The broker password, from the keyring (or its 0600 fallback file); `None` when none is set.
pub fn broker_password(paths: &Paths) -> Option<String> {
    read_secret(BROKER_USER, &broker_password_file(paths))
}

/// Keeps the broker password in the keyring (or, without one, in a 0600 file, and says so);
/// `None` removes it from both.
pub fn set_broker_password(paths: &Paths, password: Option<&str>) -> std::io::Result<KeyStorage> {
    store_secret(BROKER_USER, &broker_password_file(paths), password)
}

/// The phone's broker password's entry in the keyring (the login the QR code hands the
/// phone; see `BrokerConfig::phone_username`).
const PHONE_BROKER_USER: &str = "phone-broker-phone-password";

/// The phone's broker password's fallback file (0600), where no keyring can be used.
pub fn phone_broker_password_file(paths: &Paths) -> PathBuf {
    paths.config_dir.join("phone-broker-phone.secret")
}

/// The password the phone logs in to the broker with; `None` when none is set.
pub fn phone_broker_password(paths: &Paths) -> Option<String> {
    read_secret(PHONE_BROKER_USER, &phone_broker_password_file(paths))
}

/// Keeps the phone's broker password as [`set_broker_password`] keeps the app's.
pub fn set_phone_broker_password(
    paths: &Paths,
    password: Option<&str>,
) -> std::io::Result<KeyStorage> {
    store_secret(
        PHONE_BROKER_USER,
        &phone_broker_password_file(paths),
        password,
    )
}

fn read_secret(user: &str, file: &Path) -> Option<String> {
    if let Ok(entry) = keyring_core::Entry::new(SERVICE, user)
        && let Ok(p) = entry.get_password()
    {
        return Some(p);
    }
    std::fs::read_to_string(file).ok()
}

fn store_secret(user: &str, file: &Path, password: Option<&str>) -> std::io::Result<KeyStorage> {
    let entry = keyring_core::Entry::new(SERVICE, user);
    let Some(password) = password else {
        if let Ok(entry) = &entry {
            let _ = entry.delete_credential();
        }
        match std::fs::remove_file(file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => return Ok(KeyStorage::Keyring),
        }
    };
    let reason = match entry.and_then(|e| e.set_password(password)) {
        Ok(()) => {
            let _ = std::fs::remove_file(file);
            return Ok(KeyStorage::Keyring);
        }
        Err(e) => STORE_ERROR.get().cloned().unwrap_or_else(|| e.to_string()),
    };
    write_secret(file, password.as_bytes())?;
    Ok(KeyStorage::File {
        path: file.to_path_buf(),
        reason,
    })
}

/// Held by every unit test of this crate that reads or writes secrets: the keyring's default
/// store is one per process (a test switches it to the mock store), and its entries are not
/// per `VULTS_HOME`, so two such tests at once would read each other's passwords.
#[cfg(test)]
pub(crate) fn test_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn keyring_entry() -> keyring_core::Result<keyring_core::Entry> {
    keyring_core::Entry::new(SERVICE, USER)
}

fn decode(s: &str) -> Option<AppKeys> {
    unb64_array::<64>(s.trim()).map(|b| AppKeys::from_bytes(&b))
}

fn read_file(path: &Path) -> Option<AppKeys> {
    decode(&std::fs::read_to_string(path).ok()?)
}

fn from_file(path: &Path, reason: &str) -> std::io::Result<(AppKeys, KeyStorage)> {
    match read_file(path) {
        Some(keys) => Ok((
            keys,
            KeyStorage::File {
                path: path.to_path_buf(),
                reason: reason.to_string(),
            },
        )),
        None => {
            if path.exists() {
                return Err(std::io::Error::other(format!(
                    "{} is not a Vults key file; move it away to create new keys (paired phones must then pair again)",
                    path.display()
                )));
            }
            from_file_with(path, AppKeys::generate(), reason)
        }
    }
}

fn from_file_with(
    path: &Path,
    keys: AppKeys,
    reason: &str,
) -> std::io::Result<(AppKeys, KeyStorage)> {
    write_secret(path, b64(&keys.to_bytes()).as_bytes())?;
    Ok((
        keys,
        KeyStorage::File {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        },
    ))
}

/// Writes a secret through a temp file created 0600 from its first byte (a file made with the
/// default mode and narrowed afterwards would be readable by others for a moment), then renames
/// it over `path`.
pub(crate) fn write_secret(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let result = (|| {
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test, because keyring-core's default store is process-wide: first without a store
    // (the file), then with the mock store (the keys move into it, the file goes away).
    /// Settings → Phone showed the raw D-Bus error ("Platform failure: zbus error: Failed to
    /// connect to address `unix:path=/run/user/0/bus` …"); it says why in words now.
    #[test]
    fn a_keyring_that_cannot_be_used_is_said_in_words() {
        let file = |reason: &str| KeyStorage::File {
            path: "/home/u/.config/vults/phone-link.key".into(),
            reason: reason.into(),
        };
        let no_bus = file(
            "Platform failure: zbus error: Failed to connect to address `unix:path=/run/user/0/bus`: No such file or directory (os error 2)",
        );
        assert_eq!(
            no_bus.describe(),
            "No system keyring: no desktop session bus (D-Bus) was found, so no keyring service \
             can be reached. The phone link keys are in /home/u/.config/vults/phone-link.key \
             instead (readable only by you)."
        );
        let no_service = file(
            "Platform failure: zbus error: org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided",
        );
        assert!(
            no_service
                .describe()
                .contains("no keyring service (GNOME Keyring, KWallet) is running")
        );
        for (reason, words) in [
            (
                "Platform failure: the collection is locked",
                "the keyring is locked",
            ),
            (
                "no keyring store for this platform",
                "this system has no keyring Vults can use",
            ),
            (
                "something else",
                "the system keyring did not answer (the log says why)",
            ),
        ] {
            assert_eq!(why_no_keyring(reason), words);
        }
        for storage in [no_bus, no_service] {
            let d = storage.describe();
            assert!(!d.contains("zbus") && !d.contains("os error"), "{d}");
        }
        assert_eq!(
            KeyStorage::Keyring.describe_as("broker password is"),
            "The broker password is in the system keyring."
        );
    }

    #[test]
    fn the_push_key_is_made_once_and_kept() {
        let _keyring = test_lock();
        let home = std::env::temp_dir().join(format!("vults-vapid-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let h = home.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));
        let (first, storage) = load_or_create_vapid(&paths).unwrap();
        let (again, _) = load_or_create_vapid(&paths).unwrap();
        assert_eq!(
            again.public_raw(),
            first.public_raw(),
            "subscriptions keep working"
        );
        if let KeyStorage::File { path, .. } = &storage {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(path).unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o600);
            }
            // A file that is not a key is never replaced: push is off, and the app says why.
            std::fs::write(path, "not a key").unwrap();
            let err = load_or_create_vapid(&paths).unwrap_err().to_string();
            assert!(err.contains("not in the expected form"), "{err}");
            assert_eq!(std::fs::read_to_string(path).unwrap(), "not a key");
        }
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn keys_fall_back_to_a_0600_file_then_move_into_the_keyring() {
        let _keyring = test_lock();
        let home = std::env::temp_dir().join(format!("vults-secrets-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let h = home.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));

        let (keys, storage) = load_or_create(&paths).unwrap();
        let KeyStorage::File { path, reason } = &storage else {
            panic!("expected the file fallback, got {storage:?}");
        };
        assert!(!reason.is_empty());
        assert!(path.is_file(), "{} holds the keys", path.display());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let (again, _) = load_or_create(&paths).unwrap();
        assert_eq!(again.sign_public(), keys.sign_public());

        keyring_core::set_default_store(keyring_core::mock::Store::new().unwrap());
        let (moved, storage) = load_or_create(&paths).unwrap();
        assert_eq!(storage, KeyStorage::Keyring);
        assert_eq!(
            moved.sign_public(),
            keys.sign_public(),
            "paired phones keep working"
        );
        assert!(!fallback_file(&paths).exists(), "no copy left in the file");
        let (from_keyring, storage) = load_or_create(&paths).unwrap();
        assert_eq!(storage, KeyStorage::Keyring);
        assert_eq!(from_keyring.box_public(), keys.box_public());

        // The broker password goes to the keyring too, and away again.
        assert_eq!(broker_password(&paths), None);
        let storage = set_broker_password(&paths, Some("s3cret")).unwrap();
        assert_eq!(storage, KeyStorage::Keyring);
        assert_eq!(broker_password(&paths).as_deref(), Some("s3cret"));
        assert!(!broker_password_file(&paths).exists(), "not on disk");
        set_broker_password(&paths, None).unwrap();
        assert_eq!(broker_password(&paths), None);
        // The phone's own login is a separate entry: setting it leaves the app's alone.
        set_broker_password(&paths, Some("app-pw")).unwrap();
        set_phone_broker_password(&paths, Some("phone-pw")).unwrap();
        assert_eq!(phone_broker_password(&paths).as_deref(), Some("phone-pw"));
        assert_eq!(broker_password(&paths).as_deref(), Some("app-pw"));
        assert!(!phone_broker_password_file(&paths).exists(), "not on disk");
        set_phone_broker_password(&paths, None).unwrap();
        assert_eq!(phone_broker_password(&paths), None);
        assert_eq!(broker_password(&paths).as_deref(), Some("app-pw"));
        set_broker_password(&paths, None).unwrap();
        let _ = std::fs::remove_dir_all(&home);
    }
}
