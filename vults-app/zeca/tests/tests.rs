//! Zeca's tests, in one binary: the decision order with a scripted stand-in CLI (`decisions`),
//! a CLI that ends mid-turn (`crash`), and the conversation's folder (`folder`). The real CLIs,
//! end to end: tests/real-agents/zeca.rs.

mod common;
mod crash;
mod decisions;
mod folder;
