//! The one command table: every command of `vults-app`, its arguments and its help, defined once
//! (clap's builder). Parsing, `--help` of every command and the synopsis at the top of
//! `vults-app --help` all come from it; the agents `install --agent` takes come from the agent
//! table (`vults_core::agents::AGENTS`), so a new row shows there with no other edit
//! (docs/adding-an-agent.md; `tests/adding-an-agent.rs` builds this file alone to check it).
//!
//! This file depends on clap and `vults_core` only: what each command does is in `cli/mod.rs`.

use clap::builder::PossibleValue;
use clap::{Arg, ArgAction, Command};
use std::path::PathBuf;
use vults_core::agents::AGENTS;

/// What `vults-app --help` says after the commands.
const ENVIRONMENT: &str = "\
VULTS_HOME moves config, data, the log and the socket; VULTS_SOCKET moves the socket alone;
VULTS_LOG=debug|trace|warn sets the log level (default info).";

/// A leaf command: its name, its usage line (also a line of the synopsis) and what it does.
fn leaf(name: &'static str, usage: &'static str, about: &'static str) -> Command {
    Command::new(name).override_usage(usage).about(about)
}

/// `--hook <path>`: the vults-hook a command reads or copies.
fn hook_arg(help: &'static str) -> Arg {
    Arg::new("hook")
        .long("hook")
        .value_name("path")
        .value_parser(clap::value_parser!(PathBuf))
        .help(help)
}

/// The names `install --agent` takes: every row with install facts, in the table's order. A
/// retired agent (only its old hooks' leftovers) is still taken, as before, but not offered.
pub fn agent_values() -> Vec<PossibleValue> {
    AGENTS
        .iter()
        .filter(|row| row.install.is_some())
        .map(|row| {
            PossibleValue::new(row.name)
                .help(row.display_name)
                .hide(row.agent.retired())
        })
        .collect()
}

fn install() -> Command {
    leaf(
        "install",
        "vults-app install [--hook <path>] [--agent <name>]...",
        "Installs or repairs Vults' hook in every agent found (or only the named ones)",
    )
    .arg(hook_arg(
        "The vults-hook to copy as the installed hook (default: the one beside this program)",
    ))
    .arg(
        Arg::new("agent")
            .long("agent")
            .value_name("name")
            .action(ArgAction::Append)
            .value_parser(agent_values())
            .help("Only this agent (again for more)"),
    )
}

fn doctor() -> Command {
    leaf(
        "doctor",
        "vults-app doctor [--hook <path>] [--json] [--fix]",
        "Prints every agent's install state, the hook copy, the socket and where the log file \
         is; changes nothing without --fix. Exits 1 when a found agent's hook is missing, altered \
         or unreadable, or the socket is not the app's",
    )
    .arg(hook_arg(
        "The vults-hook the installed copy is compared with (default: the one beside this program)",
    ))
    .arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("One JSON document for scripts (docs/doctor.schema.json)"),
    )
    .arg(
        Arg::new("fix")
            .long("fix")
            .action(ArgAction::SetTrue)
            .help("Repair every missing or altered hook first, and say what was done"),
    )
}

fn autostart() -> Command {
    leaf(
        "autostart",
        "vults-app autostart on|off|status",
        "Starts Vults when you log in, or not (the same switch as Settings -> General)",
    )
    .arg(
        Arg::new("state")
            .required(true)
            .value_name("on|off|status")
            .value_parser(["on", "off", "status"])
            .help("On, off, or status: whether it is on"),
    )
}

fn remote() -> Command {
    Command::new("remote")
        .about("Agents on SSH hosts ask in this app too (docs/hosts.md)")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .disable_help_subcommand(true)
        .after_help(
            "VULTS_SSH names the ssh program (default: ssh from PATH); VULTS_HOST_HOOKS a folder \
             of prebuilt hooks for other systems, as <platform>/vults-hook (docs/hosts.md).",
        )
        .subcommand(
            leaf(
                "add",
                "vults-app remote add [user@]host[:port] [--hook <path>] [-- <ssh options>]",
                "Places vults-hook on the host (for its OS and architecture) and registers it in \
                 the agents found there; the running app links the host and answers its agents",
            )
            .arg(
                Arg::new("host")
                    .required(true)
                    .value_name("[user@]host[:port]")
                    .help("The host, as ssh reaches it"),
            )
            .arg(hook_arg(
                "The vults-hook to place there (default: one for the host's system, see VULTS_HOST_HOOKS)",
            ))
            .arg(
                Arg::new("ssh")
                    .last(true)
                    .num_args(1..)
                    .allow_hyphen_values(true)
                    .value_name("ssh options")
                    .help("Given to every ssh for this host (e.g. -i KEY -F CONFIG)"),
            ),
        )
        .subcommand(
            leaf(
                "remove",
                "vults-app remote remove [--forget] <host>",
                "Takes Vults out of the host's agents (their files as they were) and forgets the host",
            )
            .arg(Arg::new("host").required(true).value_name("host"))
            .arg(
                Arg::new("forget")
                    .long("forget")
                    .action(ArgAction::SetTrue)
                    .help("Only forget it, touching nothing on the host (one you cannot reach any more)"),
            ),
        )
        .subcommand(leaf(
            "list",
            "vults-app remote list",
            "The hosts, their system and their hook's SHA-256",
        ))
}

fn phone() -> Command {
    Command::new("phone")
        .about("The paired phone of the running app (docs/phone.md, docs/server.md)")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .disable_help_subcommand(true)
        .subcommand(
            leaf(
                "pair",
                "vults-app phone pair [--broker] [--port <port>] [--loopback]",
                "Shows a pairing QR code and the link it holds, and waits until a phone pairs or \
                 the code expires (5 minutes); exit status 0 only when a phone paired",
            )
            .arg(
                Arg::new("broker")
                    .long("broker")
                    .action(ArgAction::SetTrue)
                    .help("Pair over the MQTT broker the app is connected to, not the LAN page"),
            )
            .arg(
                Arg::new("port")
                    .long("port")
                    .value_name("port")
                    .value_parser(clap::value_parser!(u16))
                    .conflicts_with("broker")
                    .help("The LAN page's port when it is not on yet (default 47610; 0: any free one)"),
            )
            .arg(
                Arg::new("loopback")
                    .long("loopback")
                    .action(ArgAction::SetTrue)
                    .conflicts_with("broker")
                    .help("The page on 127.0.0.1 only, plain HTTP, when it is not on yet: for a browser \
                           on this machine or your own HTTPS proxy in front of it"),
            ),
        )
        .subcommand(leaf(
            "list",
            "vults-app phone list",
            "The paired phones: push on or off, the last delivery and the last failure",
        ))
        .subcommand(
            leaf(
                "revoke",
                "vults-app phone revoke <device>",
                "Revokes a phone: its requests are refused and nothing is pushed to it any more",
            )
            .arg(
                Arg::new("device")
                    .required(true)
                    .value_name("device")
                    .help("Its id, or its name when no other phone has that name"),
            ),
        )
        .subcommand(
            leaf(
                "broker-password",
                "vults-app phone broker-password [--phone] [--clear]",
                "Sets the password the app logs in to the broker with (phone-broker.json's \
                 username), read from standard input, as Settings → Phone does: in the keyring, \
                 else a 0600 file; a running app uses it once restarted",
            )
            .arg(
                Arg::new("phone")
                    .long("phone")
                    .action(ArgAction::SetTrue)
                    .help("The password the phone logs in with instead (phone_username), handed \
                           over in the pairing QR code"),
            )
            .arg(
                Arg::new("clear")
                    .long("clear")
                    .action(ArgAction::SetTrue)
                    .help("Forget the password (anonymous login)"),
            ),
        )
        .subcommand(
            leaf(
                "test",
                "vults-app phone test [<device>]",
                "Pushes a test notification to a phone (every phone with push on, without a device)",
            )
            .arg(
                Arg::new("device")
                    .value_name("device")
                    .help("Its id, or its name when no other phone has that name"),
            ),
        )
}

/// The whole table: `vults-app` and every command under it.
pub fn command() -> Command {
    let commands = [install(), doctor(), autostart(), remote(), phone()];
    let mut synopsis = vec!["vults-app [--headless [--cards]]".to_string()];
    for command in &commands {
        synopsis.extend(usages(command));
        if command.get_name() == "doctor" {
            synopsis.push("vults-app --uninstall".into());
        }
    }
    synopsis.push("vults-app --help | --version".into());
    Command::new("vults-app")
        .about(
            "Vults answers your coding agents' permission requests: a card, a paired phone, or an \
             Always rule.\nWith no command: the window (the island, the flock, cards and \
             Settings); starting it while it runs brings the running window forward.",
        )
        .override_usage(synopsis.join("\n       "))
        .term_width(100)
        .disable_help_subcommand(true)
        .disable_version_flag(true)
        .args_conflicts_with_subcommands(true)
        .arg(
            Arg::new("headless")
                .long("headless")
                .action(ArgAction::SetTrue)
                .help(
                    "Serve agents without a window: Always rules, policies and the paired phone \
                       answer, anything else is left to the agent's own prompt",
                ),
        )
        .arg(
            Arg::new("cards")
                .long("cards")
                .action(ArgAction::SetTrue)
                .requires("headless")
                .help(
                    "With --headless: print cards to stderr and answer them on stdin (allow | \
                       deny | always [card], answer <card> <text>, remove <rule>, pause, resume, \
                       quit); the phone answers too, and the first answer wins",
                ),
        )
        .arg(
            Arg::new("uninstall")
                .long("uninstall")
                .action(ArgAction::SetTrue)
                .exclusive(true)
                .help(
                    "Remove exactly what Vults added to every agent's settings, and start at login",
                ),
        )
        .arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::SetTrue)
                .exclusive(true)
                .help("The version and the hook protocol version"),
        )
        .subcommands(commands)
        // `vults-app uninstall`, as `--uninstall`.
        .subcommand(Command::new("uninstall").hide(true))
        .after_help(ENVIRONMENT)
}

/// The usage lines of a command: its own, or each of its subcommands'.
fn usages(command: &Command) -> Vec<String> {
    if command.has_subcommands() {
        return command.get_subcommands().flat_map(usages).collect();
    }
    let usage = command.clone().render_usage().to_string();
    vec![usage.trim_start_matches("Usage: ").trim().to_string()]
}
