//! Paired devices, kept in `devices.json` (config dir), written atomically (0600).
//!
//! A revoked device stays in the file with `revoked_at`, so a later request from it is
//! refused as "revoked" (and audited as such) rather than as an unknown device, and the same
//! key can never pair again.
//!
//! The store is the one writer of the file; the gate keeps a copy of the list for its checks
//! and never holds its own lock while the file is written (see [`super::gate::Gate`]).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
/// Called just before the file is written (tests hold a write here to prove nothing else
/// waits for the disk). Only with the `test-support` feature.
#[cfg(any(test, feature = "test-support"))]
pub type WriteHook = std::sync::Arc<dyn Fn() + Send + Sync>;

/// A paired phone (one entry of `devices.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// Derived from the signing key ([`super::crypto::device_id`]).
    pub id: String,
    /// The name the user typed on the phone.
    pub name: String,
    /// Ed25519 public key, base64url.
    pub sign_key: String,
    /// X25519 public key, base64url.
    pub box_key: String,
    /// Unix milliseconds.
    pub paired_at: u64,
    /// When it was revoked (Unix ms); a revoked device stays listed, and its requests are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<u64>,
    /// Its Web Push subscription, when the page subscribed (signed and sealed, like any
    /// request); forgotten when the device is revoked or the push service says it is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<Subscription>,
}

/// A Web Push subscription as the page's `PushManager` made it: where to POST, and the keys
/// the message is encrypted to (RFC 8291).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    /// The push service's URL for this subscription: only ever `https://`.
    pub endpoint: String,
    /// The browser's P-256 public key, uncompressed, base64url.
    pub p256dh: String,
    /// The 16-byte authentication secret, base64url.
    pub auth: String,
}

/// The longest endpoint taken (real ones are under 600 characters).
pub const MAX_ENDPOINT: usize = 2048;

impl Subscription {
    /// Checks a subscription as it arrives: an `https://` URL with a host and no user info,
    /// no longer than [`MAX_ENDPOINT`], without whitespace or control characters; `p256dh` a
    /// point on P-256; `auth` 16 bytes.
    pub fn new(endpoint: &str, p256dh: &str, auth: &str) -> Result<Subscription, &'static str> {
        if endpoint.len() > MAX_ENDPOINT
            || endpoint
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
            || super::crypto::https_origin(endpoint).is_none()
        {
            return Err("the push endpoint must be an https:// URL with a host");
        }
        let key = super::crypto::unb64(p256dh).ok_or("p256dh must be base64url")?;
        if super::crypto::p256_public(&key).is_none() {
            return Err("p256dh must be an uncompressed P-256 public key");
        }
        if super::crypto::unb64_array::<16>(auth).is_none() {
            return Err("auth must be 16 bytes, base64url");
        }
        Ok(Subscription {
            endpoint: endpoint.to_string(),
            p256dh: p256dh.to_string(),
            auth: auth.to_string(),
        })
    }

    /// The keys, decoded (checked by [`Subscription::new`]; a hand-edited file may differ).
    pub fn keys(&self) -> Option<([u8; 65], [u8; 16])> {
        let p = super::crypto::unb64(&self.p256dh)?.try_into().ok()?;
        Some((p, super::crypto::unb64_array::<16>(&self.auth)?))
    }
}

impl Device {
    /// How the audit names the device: `<name> (<id>)`, so two phones can always be told
    /// apart (names are unique too, see [`super::gate`]).
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.id)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct DevicesFile {
    devices: Vec<Device>,
}

/// The devices file and its contents.
pub struct DeviceStore {
    path: PathBuf,
    devices: Vec<Device>,
    #[cfg(any(test, feature = "test-support"))]
    hook: Option<WriteHook>,
}

impl std::fmt::Debug for DeviceStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceStore")
            .field("path", &self.path)
            .field("devices", &self.devices)
            .finish_non_exhaustive()
    }
}

impl DeviceStore {
    /// Reads the file; a missing file is no devices. A file that cannot be parsed is an error:
    /// the app reports it and pairs nothing over it (no paired phone is silently lost).
    pub fn load(path: &Path) -> std::io::Result<DeviceStore> {
        let devices = match std::fs::read(path) {
            Ok(bytes) => {
                serde_json::from_slice::<DevicesFile>(&bytes)
                    .map_err(|e| {
                        std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!("{} cannot be read: {e}", path.display()),
                        )
                    })?
                    .devices
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        Ok(DeviceStore {
            path: path.to_path_buf(),
            devices,
            #[cfg(any(test, feature = "test-support"))]
            hook: None,
        })
    }

    /// Every device, revoked ones too, in pairing order.
    pub fn all(&self) -> &[Device] {
        &self.devices
    }

    /// The device of this id, revoked or not.
    pub fn get(&self, id: &str) -> Option<&Device> {
        self.devices.iter().find(|d| d.id == id)
    }

    /// Runs `hook` before every write of the file (tests; the `test-support` feature).
    #[cfg(any(test, feature = "test-support"))]
    pub fn set_write_hook(&mut self, hook: Option<WriteHook>) {
        self.hook = hook;
    }

    /// Adds (or, for the same key pairing again, replaces) a device, and saves. A revoked key
    /// stays revoked: adding it again is an error and changes nothing.
    pub fn add(&mut self, device: Device) -> std::io::Result<()> {
        if self.get(&device.id).is_some_and(|d| d.revoked_at.is_some()) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "this device was revoked and cannot pair again",
            ));
        }
        let mut next = self.devices.clone();
        next.retain(|d| d.id != device.id);
        next.push(device);
        self.save(next)
    }

    /// Marks a device revoked, and saves. Returns whether it was found.
    pub fn revoke(&mut self, id: &str, now_ms: u64) -> std::io::Result<bool> {
        let mut next = self.devices.clone();
        let Some(d) = next.iter_mut().find(|d| d.id == id) else {
            return Ok(false);
        };
        d.revoked_at.get_or_insert(now_ms);
        // A revoked phone is pushed nothing again.
        d.push = None;
        self.save(next)?;
        Ok(true)
    }

    /// Sets (or with `None` removes) a device's push subscription, and saves. A revoked or
    /// unknown device gets none. `only_if`: change it only while the subscription is this
    /// endpoint (a 410 for an old one leaves a newer one alone). Returns whether it changed.
    pub fn set_push(
        &mut self,
        id: &str,
        push: Option<Subscription>,
        only_if: Option<&str>,
    ) -> std::io::Result<bool> {
        let mut next = self.devices.clone();
        let Some(d) = next.iter_mut().find(|d| d.id == id) else {
            return Ok(false);
        };
        if (push.is_some() && d.revoked_at.is_some())
            || only_if.is_some_and(|e| d.push.as_ref().map(|p| p.endpoint.as_str()) != Some(e))
            || d.push == push
        {
            return Ok(false);
        }
        d.push = push;
        self.save(next)?;
        Ok(true)
    }

    fn save(&mut self, next: Vec<Device>) -> std::io::Result<()> {
        let file = DevicesFile { devices: next };
        let json = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
        #[cfg(any(test, feature = "test-support"))]
        if let Some(hook) = &self.hook {
            hook();
        }
        vults_core::atomic::write(&self.path, &json, Some(0o600))?;
        self.devices = file.devices;
        Ok(())
    }
}
