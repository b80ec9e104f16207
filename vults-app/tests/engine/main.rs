//! The engine over a real socket, with the real `vults-hook` where an agent would run it.
//! One test binary (modules below) to save link time.
#![cfg(unix)]

mod cards;
mod common;
mod crash;
mod load;
mod requests;
mod socket;
