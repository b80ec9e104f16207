//! Running the real binaries with a temp `VULTS_HOME`, and an `Xvfb` of the test's own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn app_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_vults-app"))
}

/// Runs a binary to its end with a clean environment (`PATH` only, plus `env`).
pub fn run(bin: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", bin.display()))
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}
