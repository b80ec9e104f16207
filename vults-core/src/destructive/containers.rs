//! Containers: prunes, `rm -f`, `volume rm`, `compose down -v` (Docker, Podman, nerdctl).

use super::args::{flag, positionals};
use super::cx::Cx;
use crate::shell::Word;

pub(super) fn check(
    prog: &str,
    args: &[Word],
    _stdin: &[Word],
    _depth: usize,
    _cx: Cx,
) -> Option<String> {
    match prog {
        "docker" | "podman" | "nerdctl" | "docker-compose" | "podman-compose" => {
            check_containers(prog, args)
        }
        _ => None,
    }
}

/// Container prunes, `rm -f`, `volume rm`, `compose down -v` (Docker, Podman, nerdctl).
fn check_containers(prog: &str, args: &[Word]) -> Option<String> {
    let pos = positionals(
        args,
        &[
            "-H",
            "--host",
            "--context",
            "-c",
            "--config",
            "-l",
            "--log-level",
            "-f",
            "--file",
            "-p",
            "--project-name",
            "--project-directory",
            "--env-file",
            "--profile",
        ],
    );
    let (name, pos) = match prog.strip_suffix("-compose") {
        Some(base) => (base, [&["compose"], pos.as_slice()].concat()),
        None => (prog, pos),
    };
    match pos.as_slice() {
        [
            group @ ("system" | "volume" | "image" | "container"),
            "prune",
            ..,
        ] => Some(format!("{name} {group} prune")),
        ["rm", ..] | ["container", "rm" | "remove", ..] if flag(args, 'f', "--force") => {
            Some(format!("{name} rm -f"))
        }
        ["volume", "rm" | "remove", ..] => Some(format!("{name} volume rm")),
        ["compose", "down", ..] if flag(args, 'v', "--volumes") => {
            Some(format!("{name} compose down -v"))
        }
        _ => None,
    }
}
