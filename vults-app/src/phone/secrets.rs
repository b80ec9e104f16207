//! Where the app's phone-link keys live: the OS keyring (through `keyring-core` and the
//! platform store set by [`use_platform_store`]), or — where no keyring service runs — a file
//! readable only by the user (0600), and the app says so (see [`KeyStorage`]).

use super::crypto::{AppKeys, b64, unb64_array};
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
    File { path: PathBuf, reason: String },
}

impl KeyStorage {
    pub fn describe(&self) -> String {
        match self {
            KeyStorage::Keyring => "Phone link keys are in the system keyring.".into(),
            KeyStorage::File { path, reason } => format!(
                "No usable system keyring ({reason}); the phone link keys are in {} (readable only by you).",
                path.display()
            ),
        }
    }
}

/// Sets the platform's credential store as keyring-core's default: the Secret Service on
/// Linux, the Keychain on macOS, the Credential Manager on Windows. Call once, early in
/// `main`; tests skip it (and get the file) or set keyring-core's mock store.
pub fn use_platform_store() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    let store = zbus_secret_service_keyring_store::Store::new().map_err(|e| e.to_string())?;
    #[cfg(target_os = "macos")]
    let store = apple_native_keyring_store::keychain::Store::new().map_err(|e| e.to_string())?;
    #[cfg(windows)]
    let store = windows_native_keyring_store::Store::new().map_err(|e| e.to_string())?;
    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    {
        keyring_core::set_default_store(store);
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    Err("no keyring store for this platform".into())
}

/// The fallback file's path.
pub fn fallback_file(paths: &Paths) -> PathBuf {
    paths.config_dir.join("phone-link.key")
}

/// Loads the app's keys, creating them on first use.
pub fn load_or_create(paths: &Paths) -> std::io::Result<(AppKeys, KeyStorage)> {
    let file = fallback_file(paths);
    match keyring_entry() {
        Ok(entry) => match entry.get_password() {
            Ok(s) => match decode(&s) {
                Some(keys) => return Ok((keys, KeyStorage::Keyring)),
                None => {
                    // Never overwrite a secret we cannot read: fall back, and say why.
                    return from_file(&file, "the keyring entry is not in the expected form");
                }
            },
            Err(keyring_core::Error::NoEntry) => {
                // First run with a keyring, or a move from the file: keep the keys paired
                // phones know.
                let keys = match read_file(&file) {
                    Some(k) => k,
                    None => AppKeys::generate(),
                };
                match entry.set_password(&b64(&keys.to_bytes())) {
                    Ok(()) => {
                        let _ = std::fs::remove_file(&file);
                        return Ok((keys, KeyStorage::Keyring));
                    }
                    Err(e) => return from_file_with(&file, keys, &e.to_string()),
                }
            }
            Err(e) => return from_file(&file, &e.to_string()),
        },
        Err(e) => from_file(&file, &e.to_string()),
    }
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
    vults_core::atomic::write(path, b64(&keys.to_bytes()).as_bytes(), Some(0o600))?;
    Ok((
        keys,
        KeyStorage::File {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        },
    ))
}
