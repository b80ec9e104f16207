//! Zeca's tests, in one binary: the decision order with a scripted stand-in CLI (`decisions`),
//! a CLI that ends mid-turn (`crash`), the conversation's folder (`folder`), idle CLIs
//! ended and resumed (`idle`), and what a tool row says happened (`rows`). The real CLIs,
//! end to end: tests/real-agents/zeca.rs.

mod common;
mod crash;
mod decisions;
mod folder;
mod idle;
mod rows;
