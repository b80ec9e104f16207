//! `vults-app --help` names every option of `remote` (`--hook`, `remove --forget`), as
//! `vults-app remote` and docs/hosts.md do; it left both out.

#[test]
fn help_names_the_remote_options() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vults-app"))
        .arg("--help")
        .output()
        .expect("vults-app --help runs");
    let help = String::from_utf8_lossy(&out.stdout);
    for want in [
        "remote add [user@]host[:port] [--hook <path>] [-- <ssh options>]",
        "remote remove [--forget] <host>",
    ] {
        assert!(help.contains(want), "--help lacks {want:?}:\n{help}");
    }
}
