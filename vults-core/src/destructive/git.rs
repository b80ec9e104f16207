//! git: history and work that cannot come back (`push --force`, `reset --hard`, `clean -f`,
//! `branch -D`, `stash drop`, `reflog expire` …), and shell aliases made on the command line.

use super::cx::Cx;
use crate::shell::Word;

pub(super) fn check(
    prog: &str,
    args: &[Word],
    _stdin: &[Word],
    depth: usize,
    cx: Cx,
) -> Option<String> {
    if prog == "git" {
        return check_git(args, depth, cx);
    }
    None
}

fn check_git(args: &[Word], depth: usize, cx: Cx) -> Option<String> {
    // Global options before the subcommand.
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let t = a.text.as_str();
        // `git -c alias.x='!rm -rf …' x`: a shell alias made on the command line.
        if t == "-c"
            && let Some(value) = args.get(k + 1)
            && value.text.to_ascii_lowercase().starts_with("alias.")
            && let Some((_, script)) = value.text.split_once("=!")
            && let Some(why) = (cx.command)(script, depth + 1, cx)
        {
            return Some(why);
        }
        if matches!(
            t,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
        ) {
            k += 2;
        } else if t.starts_with('-') {
            k += 1;
        } else {
            break;
        }
    }
    let sub = args.get(k)?.text.as_str();
    let rest = &args[k + 1..];
    let opts = || {
        rest.iter()
            .take_while(|a| !a.is("--"))
            .map(|a| a.text.as_str())
    };
    let cluster_has = |letter: char| {
        opts().any(|t| {
            t.len() > 1
                && t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].chars().all(|c| c.is_ascii_alphabetic())
                && t[1..].contains(letter)
        })
    };
    let long = |name: &str| opts().any(|t| t == name || t.starts_with(&format!("{name}=")));
    match sub {
        "push" => {
            if long("--force")
                || long("--force-with-lease")
                || long("--force-if-includes")
                || cluster_has('f')
            {
                return Some("git push --force".into());
            }
            if long("--mirror") {
                return Some("git push --mirror".into());
            }
            if long("--delete") || cluster_has('d') {
                return Some("git push --delete".into());
            }
            for t in opts().filter(|t| !t.starts_with('-')) {
                if t.starts_with('+') {
                    return Some("git push --force".into());
                }
                if t.starts_with(':') && t.len() > 1 {
                    return Some("git push --delete".into());
                }
            }
            None
        }
        "reset" if long("--hard") => Some("git reset --hard".into()),
        "clean"
            if (long("--force") || cluster_has('f'))
                && !(long("--dry-run") || cluster_has('n')) =>
        {
            Some("git clean -f".into())
        }
        "checkout" => {
            if long("--force") || cluster_has('f') {
                return Some("git checkout --force".into());
            }
            let dashdash = rest.iter().position(|a| a.is("--"));
            let discards = match dashdash {
                Some(p) => p + 1 < rest.len(),
                None => rest
                    .iter()
                    .any(|a| matches!(a.text.as_str(), "." | ":/" | "*")),
            };
            discards.then(|| "git checkout -- <paths>".into())
        }
        "restore" => {
            let staged = long("--staged") || cluster_has('S');
            let worktree = long("--worktree") || cluster_has('W');
            let paths = rest.iter().any(|a| !a.text.starts_with('-'));
            (paths && (worktree || !staged)).then(|| "git restore".into())
        }
        "branch" => {
            let force_delete = opts().any(|t| t == "-D")
                || (cluster_has('D'))
                || ((long("--delete") || cluster_has('d'))
                    && (long("--force") || cluster_has('f')));
            force_delete.then(|| "git branch -D".into())
        }
        "switch" if long("--discard-changes") || long("--force") || cluster_has('f') => {
            Some("git switch --discard-changes".into())
        }
        "stash" if rest.first().is_some_and(|a| a.is("clear")) => Some("git stash clear".into()),
        "stash" if rest.first().is_some_and(|a| a.is("drop")) => Some("git stash drop".into()),
        "reflog" => match rest.first().map(|a| a.text.as_str()) {
            Some(op @ ("expire" | "delete")) => Some(format!("git reflog {op}")),
            _ => None,
        },
        "gc" if opts().any(|t| matches!(t, "--prune=now" | "--prune=all")) => {
            Some("git gc --prune=now".into())
        }
        "prune" if !(long("--dry-run") || cluster_has('n')) => Some("git prune".into()),
        "filter-branch" | "filter-repo" => Some(format!("git {sub}")),
        _ => None,
    }
}
