//! vults-notify's integration tests, one binary: notifications against a stand-in server on
//! a private session bus, global keys under Xvfb, and the crate's structure.

#[cfg(target_os = "linux")]
mod keys_portal;
#[cfg(target_os = "linux")]
mod keys_x11;
#[cfg(target_os = "linux")]
mod notifications;
mod structure;
