//! UI tests of the window, in one binary (one link): views fed a fixed `Model` with PNG
//! snapshots (`views`), and the whole window with the real engine and the real `vults-hook`
//! process on a real socket (`live`).

mod cards;
mod fixtures;
mod fold;
mod hidden;
mod hosts;
mod keys;
mod live;
mod smaller;
mod truth;
mod views;
mod welcome;
mod window;
