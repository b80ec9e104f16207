//! The desktop around the window that draws nothing, below the view crate (`vults-ui`): the
//! one-instance socket ([`instance`]: a second start brings the running window forward), and
//! the tray, the quit signals and opening a file ([`tray`], behind its `DesktopSide` port).
//! The composition root (`vults-app/src/compose/`) starts them; the window reads them through
//! their ports. Raw X11 stays in the view crate (`vults-ui`'s `viewport/x11.rs`): it places the
//! window's own viewports and speaks egui's keys and screens.

#![warn(missing_docs)]

pub mod instance;
pub mod tray;
