//! The paired phone's tests, in one binary (one link): the LAN link over a real loopback
//! socket (`lan`, `hardening`), the gate fed the frames a broker would carry (`broker_gate`),
//! the page in a real browser (`browser`), and the phone through a real Mosquitto (`broker`,
//! `login`, with `broker_support`), the page's own rule of what is hidden (`page`), and the real
//! `vults-app --headless` answered by a phone paired through `vults-app phone pair` (`headless`).

mod broker;
mod broker_abuse;
mod broker_gate;
mod broker_support;
mod browser;
mod hardening;
mod headless;
mod lan;
mod login;
mod page;
mod push;
