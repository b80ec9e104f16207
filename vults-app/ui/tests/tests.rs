//! UI tests of the window, in one binary (one link): views fed a fixed `Model` with PNG
//! snapshots (`views`), and the whole window with the real engine and the real `vults-hook`
//! process on a real socket (`live`).

mod attention_view;
mod cards;
mod chat_view;
mod chat_view_small;
mod chat_view_states;
mod chat_view_use;
mod fixtures;
mod fold;
mod glyphs;
mod hidden;
mod history_pages;
mod hosts;
mod hosts_view;
mod i18n;
mod i18n_window;
mod keys;
mod live;
mod plan;
mod raster;
mod show_terminal;
mod show_terminal_live;
// A private dbus-daemon and the notification-server stand-in: Linux's.
#[cfg(target_os = "linux")]
mod notify_live;
mod pause;
mod smaller;
mod truth;
mod views;
mod waiting;
mod welcome;
mod window;
