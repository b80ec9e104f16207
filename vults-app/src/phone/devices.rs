//! Paired devices, kept in `devices.json` (config dir), written atomically (0600).
//!
//! A revoked device stays in the file with `revoked_at`, so a later request from it is
//! refused as "revoked" (and audited as such) rather than as an unknown device.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<u64>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct DevicesFile {
    devices: Vec<Device>,
}

/// The devices file and its contents.
#[derive(Debug)]
pub struct DeviceStore {
    path: PathBuf,
    devices: Vec<Device>,
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
        })
    }

    pub fn all(&self) -> &[Device] {
        &self.devices
    }

    pub fn get(&self, id: &str) -> Option<&Device> {
        self.devices.iter().find(|d| d.id == id)
    }

    /// Adds (or, for the same key pairing again, replaces and un-revokes) a device, and saves.
    pub fn add(&mut self, device: Device) -> std::io::Result<()> {
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
        self.save(next)?;
        Ok(true)
    }

    fn save(&mut self, next: Vec<Device>) -> std::io::Result<()> {
        let file = DevicesFile { devices: next };
        let json = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
        vults_core::atomic::write(&self.path, &json, Some(0o600))?;
        self.devices = file.devices;
        Ok(())
    }
}
