//! Infrastructure and cloud: `terraform destroy` (and OpenTofu, Terragrunt), `pulumi destroy`,
//! `kubectl delete`, `helm uninstall`, the AWS, Google Cloud and Azure CLIs' deletions, and
//! `gh <thing> delete`.

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
        "terraform" | "tofu" | "terragrunt" => check_terraform(prog, args),
        "pulumi" => check_pulumi(args),
        "kubectl" | "oc" => {
            let pos = positionals(args, KUBE_OPTS);
            (pos.first() == Some(&"delete")).then(|| format!("{prog} delete"))
        }
        "helm" => {
            let pos = positionals(args, KUBE_OPTS);
            matches!(pos.first(), Some(&("uninstall" | "delete" | "del" | "un")))
                .then(|| "helm uninstall".into())
        }
        "aws" => check_aws(args),
        "gcloud" | "gsutil" | "az" => check_cloud(prog, args),
        "gh" => check_gh(args),
        _ => None,
    }
}

/// kubectl's and helm's global options that take a value.
const KUBE_OPTS: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--kube-context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-s",
    "--server",
    "--token",
    "--as",
    "--as-group",
    "-l",
    "--selector",
    "-o",
    "--output",
];

/// `terraform destroy`, `terraform apply -destroy`, `state rm`, `workspace delete`; the same
/// for OpenTofu and Terragrunt (`terragrunt run-all destroy`).
fn check_terraform(prog: &str, args: &[Word]) -> Option<String> {
    let pos = positionals(args, &[]);
    let mut pos = pos.as_slice();
    if prog == "terragrunt" && matches!(pos.first(), Some(&("run-all" | "run"))) {
        pos = &pos[1..];
    }
    let (sub, rest) = pos.split_first()?;
    match *sub {
        "destroy" => Some(format!("{prog} destroy")),
        "apply"
            if args.iter().any(|a| {
                matches!(
                    a.text.as_str(),
                    "-destroy" | "--destroy" | "-destroy=true" | "--destroy=true"
                )
            }) =>
        {
            Some(format!("{prog} apply -destroy"))
        }
        "state" if rest.first() == Some(&"rm") => Some(format!("{prog} state rm")),
        "workspace" if rest.first() == Some(&"delete") => Some(format!("{prog} workspace delete")),
        _ => None,
    }
}

fn check_pulumi(args: &[Word]) -> Option<String> {
    let pos = positionals(args, &["-C", "--cwd", "-s", "--stack"]);
    match pos.as_slice() {
        ["destroy", ..] => Some("pulumi destroy".into()),
        ["stack", "rm", ..] => Some("pulumi stack rm".into()),
        _ => None,
    }
}

/// `aws s3 rm --recursive`, `aws s3 rb`, `aws s3 sync --delete`, and any `delete-*` or
/// `terminate-*` operation.
fn check_aws(args: &[Word]) -> Option<String> {
    let pos = positionals(
        args,
        &[
            "--profile",
            "--region",
            "--output",
            "--endpoint-url",
            "--query",
            "--color",
            "--ca-bundle",
            "--cli-read-timeout",
            "--cli-connect-timeout",
        ],
    );
    let has = |s: &str| args.iter().any(|a| a.is(s));
    match pos.as_slice() {
        ["s3", "rm", ..] if has("--recursive") => Some("aws s3 rm --recursive".into()),
        ["s3", "rb", ..] => Some("aws s3 rb".into()),
        ["s3", "sync", ..] if args.iter().any(|a| a.text.starts_with("--delete")) => {
            Some("aws s3 sync --delete".into())
        }
        [_, op, ..] if op.starts_with("delete-") => Some("aws delete".into()),
        [_, op, ..] if op.starts_with("terminate-") => Some("aws terminate".into()),
        _ => None,
    }
}

/// `gcloud … delete`, `gcloud storage rm -r`, `gsutil rm -r`, `gsutil rb`, `az … delete`.
fn check_cloud(prog: &str, args: &[Word]) -> Option<String> {
    let pos = positionals(
        args,
        &[
            "--project",
            "--account",
            "--configuration",
            "--zone",
            "--region",
            "--format",
            "--filter",
            "--query",
            "-o",
            "--output",
            "--subscription",
            "-n",
            "--name",
            "-g",
            "--resource-group",
            "-h",
            "-u",
        ],
    );
    let recursive = flag(args, 'r', "--recursive") || flag(args, 'R', "--recursive");
    match (prog, pos.as_slice()) {
        ("gsutil", ["rm", ..]) if recursive => Some("gsutil rm -r".into()),
        ("gsutil", ["rb", ..]) => Some("gsutil rb".into()),
        ("gcloud", ["storage", "rm", ..]) if recursive => Some("gcloud storage rm -r".into()),
        ("gcloud", _) if pos.contains(&"delete") => Some("gcloud delete".into()),
        ("az", _)
            if pos
                .iter()
                .any(|p| *p == "delete" || p.starts_with("delete-")) =>
        {
            Some("az delete".into())
        }
        _ => None,
    }
}

/// `gh <thing> delete` (a repository, release, issue …) and `gh api -X DELETE`.
fn check_gh(args: &[Word]) -> Option<String> {
    let pos = positionals(
        args,
        &[
            "-R",
            "--repo",
            "-X",
            "--method",
            "-H",
            "--header",
            "-f",
            "-F",
            "--field",
            "--raw-field",
            "-q",
            "--jq",
            "-t",
            "--template",
            "--hostname",
        ],
    );
    if pos.first() == Some(&"api") {
        let mut method = None;
        for (k, a) in args.iter().enumerate() {
            let t = a.text.as_str();
            if t == "-X" || t == "--method" {
                method = args.get(k + 1).map(|w| w.text.as_str());
            } else if let Some(m) = t.strip_prefix("--method=").or_else(|| t.strip_prefix("-X")) {
                method = Some(m);
            }
        }
        return method
            .is_some_and(|m| m.eq_ignore_ascii_case("delete"))
            .then(|| "gh api DELETE".into());
    }
    match pos.as_slice() {
        [thing, "delete", ..] => Some(format!("gh {thing} delete")),
        _ => None,
    }
}
