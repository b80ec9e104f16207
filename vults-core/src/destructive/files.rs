//! Files: deleting in bulk (`rm -r`, `find -delete`, `xargs rm`, `Remove-Item -Recurse`,
//! `rsync --delete`), clobbering a file that is not the project's (`> ~/.bashrc`, `tee`),
//! emptying one (`: > f`, `cp /dev/null f`, `truncate`), recursive permission changes on a
//! home or system folder, `crontab -r`; and where a path is (the project, the home folder,
//! a temporary folder).

use super::args::{has, positionals, short_has};
use super::cx::Cx;
use crate::shell::{Head, Script, Simple, Word, head, program_name};

pub(super) fn check(
    prog: &str,
    args: &[Word],
    _stdin: &[Word],
    depth: usize,
    cx: Cx,
) -> Option<String> {
    let short_has = |letter: char| short_has(args, letter);
    let has = |s: &str| has(args, s);
    match prog {
        "rm" if short_has('r')
            || short_has('R')
            || args
                .iter()
                .take_while(|a| !a.is("--"))
                .any(|a| a.is("--recursive")) =>
        {
            Some("rm -r".into())
        }
        "rm" | "unlink" | "rmdir" if cx.fed.is_some() => {
            Some(format!("{} {prog}", cx.fed.unwrap_or_default()))
        }
        "rmdir" | "rd" if args.iter().any(|a| a.text.eq_ignore_ascii_case("/s")) => {
            Some("rmdir /s".into())
        }
        "del" | "erase" if args.iter().any(|a| a.text.eq_ignore_ascii_case("/s")) => {
            Some("del /s".into())
        }
        "remove-item" | "ri" | "rm" | "rmdir" | "del"
            if args.iter().any(|a| {
                let t = a.text.to_ascii_lowercase();
                t.len() >= 4 && "-recurse".starts_with(&t)
            }) =>
        {
            Some("Remove-Item -Recurse".into())
        }
        "chmod"
            if (short_has('R') || has("--recursive"))
                && args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "777" | "0777" | "a+rwx" | "ugo+rwx" | "a=rwx" | "ugo=rwx" | "+rwx"
                    )
                }) =>
        {
            Some("chmod -R 777".into())
        }
        "chmod"
            if (short_has('R') || has("--recursive"))
                && args
                    .iter()
                    .any(|a| !a.text.starts_with('-') && home_or_system(&a.text)) =>
        {
            Some("chmod -R on a home or system folder".into())
        }
        "chown" | "chgrp" if short_has('R') || has("--recursive") => Some(format!("{prog} -R")),
        "find" => {
            if has("-delete") {
                return Some("find -delete".into());
            }
            let mut k = 0;
            while k < args.len() {
                if matches!(
                    args[k].text.as_str(),
                    "-exec" | "-execdir" | "-ok" | "-okdir"
                ) {
                    let end = args[k + 1..]
                        .iter()
                        .position(|a| a.is(";") || a.is("+"))
                        .map(|p| k + 1 + p)
                        .unwrap_or(args.len());
                    let fed = Cx {
                        fed: Some("find -exec"),
                        ..cx
                    };
                    if let Some(why) = (cx.words)(&args[k + 1..end], &[], depth + 1, fed) {
                        return Some(why);
                    }
                    k = end;
                }
                k += 1;
            }
            None
        }
        "rimraf" | "del-cli" => Some("rm -r".into()),
        "tee"
            if !(short_has('a') || has("--append"))
                && args
                    .iter()
                    .any(|a| !a.text.starts_with('-') && clobbers(&a.text, cx)) =>
        {
            Some(OVERWRITE.into())
        }
        "cp" => {
            let files = positionals(args, &["-t", "--target-directory", "-S", "--suffix"]);
            (files.len() >= 2
                && files[0] == "/dev/null"
                && files[1..].iter().any(|f| !is_temp_or_device(f)))
            .then(|| EMPTY.into())
        }
        "truncate" if truncate_shrinks(args) => Some("truncate".into()),
        "crontab" if short_has('r') => Some("crontab -r".into()),
        "rsync" if args.iter().any(|a| a.text.starts_with("--delete")) => {
            Some("rsync --delete".into())
        }
        _ => None,
    }
}

pub(super) const OVERWRITE: &str = "overwrite with >";
const EMPTY: &str = "empty a file";

/// Temporary folders: writing there never loses anything of the user's.
const TEMP_PREFIXES: [&str; 8] = [
    "/tmp/",
    "/var/tmp/",
    "/private/tmp/",
    "/var/folders/",
    "/private/var/folders/",
    "/dev/shm/",
    "$TMPDIR",
    "${TMPDIR}",
];

/// A temporary file, or a device (`/dev/null`, `/dev/stderr`; disks are checked on their own).
fn is_temp_or_device(path: &str) -> bool {
    path.starts_with("/dev/") || TEMP_PREFIXES.iter().any(|p| path.starts_with(p))
}

/// `$NAME` or `${NAME}` at the start of `path`, followed by nothing or a `/`.
fn starts_with_var(path: &str, name: &str) -> bool {
    [
        format!("${name}"),
        format!("${{{name}}}"),
        format!("%{name}%"),
    ]
    .iter()
    .any(|v| {
        path.strip_prefix(v.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '\\']))
    })
}

/// In the user's home: `~`, `~/…`, `~user/…`, `$HOME/…`, `$XDG_CONFIG_HOME/…` and the like.
fn is_home_path(path: &str) -> bool {
    path.starts_with('~')
        || [
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_STATE_HOME",
            "USERPROFILE",
            "APPDATA",
            "LOCALAPPDATA",
        ]
        .iter()
        .any(|v| starts_with_var(path, v))
}

fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

/// `rest` is `prefix` itself or a path below it: what follows.
fn below<'p>(path: &'p str, prefix: &str) -> Option<&'p str> {
    path.strip_prefix(prefix)
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Where an absolute or home path lies inside the project folder (what follows the folder),
/// or `None`. `~/code/app/x` is taken as inside a project at `/home/<user>/code/app` (or
/// `/Users/<user>/…`, `/root/…`): the home folder is the one above the project.
fn in_project<'p>(path: &'p str, cx: Cx) -> Option<&'p str> {
    let root = cx.project?;
    if is_absolute(path) {
        return below(path, root);
    }
    let from_home = ["~", "$HOME", "${HOME}"]
        .iter()
        .find_map(|h| below(path, h))?;
    let root_from_home = if let Some(r) = below(root, "/root") {
        r
    } else {
        let r = root
            .strip_prefix("/home/")
            .or_else(|| root.strip_prefix("/Users/"))?;
        &r[r.find('/')?..]
    };
    if root_from_home.is_empty() {
        return None;
    }
    below(from_home, root_from_home)
}

fn has_dotdot(path: &str) -> bool {
    path.split(['/', '\\']).any(|c| c == "..")
}

/// Whether `path` may lie outside the project folder: in the home folder, an absolute path not
/// under the project, a path through `..`, or any relative path after a `cd` that left the
/// project. Temporary files and devices never are; a path that starts with another variable
/// (`$OUT/x`) cannot be told and is taken as inside.
fn outside_project(path: &str, cx: Cx) -> bool {
    if path.is_empty() || is_temp_or_device(path) {
        return false;
    }
    if in_project(path, cx).is_some() {
        return has_dotdot(path);
    }
    if is_home_path(path) || is_absolute(path) {
        return true;
    }
    if path.starts_with('$') || path.starts_with('%') {
        return false;
    }
    has_dotdot(path) || cx.away
}

/// Whether truncating `path` can lose a file of the user's that the project does not own: it
/// lies outside the project ([`outside_project`]), or it is a dotfile or inside a dot folder
/// (`.env`, `.git/config`, `~/.bashrc`).
fn clobbers(path: &str, cx: Cx) -> bool {
    if path.is_empty() || is_temp_or_device(path) {
        return false;
    }
    if outside_project(path, cx) {
        return true;
    }
    in_project(path, cx)
        .unwrap_or(path)
        .split(['/', '\\'])
        .any(|c| c.starts_with('.') && c != "." && c != "..")
}

/// Whether a script `cd`s (or `pushd`s) out of the project: home, `cd -`, an absolute path
/// outside it, `..`. Relative paths in that script are then taken as outside too.
pub(super) fn leaves_project(script: &Script, cx: Cx) -> bool {
    script.pipelines.iter().flatten().any(|simple| {
        let Head::Program(i) = head(&simple.words) else {
            return false;
        };
        if !matches!(program_name(&simple.words[i].text).as_str(), "cd" | "pushd") {
            return false;
        }
        match positionals(&simple.words[i + 1..], &[]).first() {
            None => true,
            Some(dir) => {
                dir.is_empty() || *dir == "-" || outside_project(dir, Cx { away: false, ..cx })
            }
        }
    })
}

/// A command that writes nothing, redirected with `>` into a file: `> f`, `: > f`,
/// `true > f`, `cat /dev/null > f`, `echo -n > f`, `printf '' > f` — the file is emptied.
/// Otherwise a `>` (not `>>`) into a file [`clobbers`] says is not the project's.
pub(super) fn check_clobber(simple: &Simple, cx: Cx) -> Option<String> {
    let targets: Vec<&str> = simple
        .truncated
        .iter()
        .map(String::as_str)
        .filter(|t| !t.is_empty() && !is_temp_or_device(t))
        .collect();
    if targets.is_empty() {
        return None;
    }
    let writes_nothing = simple.subshell.is_none()
        && (simple.words.iter().all(crate::shell::is_assignment)
            || match head(&simple.words) {
                Head::Program(i) => {
                    let args: Vec<&str> = simple.words[i + 1..]
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect();
                    match program_name(&simple.words[i].text).as_str() {
                        ":" | "true" | "false" => true,
                        "cat" => !args.is_empty() && args.iter().all(|a| *a == "/dev/null"),
                        "echo" => args.is_empty() || args == ["-n"],
                        "printf" => args == [""],
                        _ => false,
                    }
                }
                _ => false,
            });
    if writes_nothing {
        return Some(EMPTY.into());
    }
    targets
        .iter()
        .any(|t| clobbers(t, cx))
        .then(|| OVERWRITE.into())
}

/// Home folders and system trees: `/`, `~`, `$HOME`, `/home/<user>`, `/Users/<user>`,
/// `/root`, and anything under `/etc`, `/usr`, `/bin`, `/var`, `/opt`, `/System`, `C:\Windows` …
fn home_or_system(path: &str) -> bool {
    let mut t = path.replace('\\', "/");
    loop {
        let trimmed = t
            .strip_suffix("/*")
            .or_else(|| t.strip_suffix("/."))
            .or_else(|| t.strip_suffix('/'))
            .map(str::to_string);
        match trimmed {
            Some(s) => t = s,
            None => break,
        }
    }
    if t.is_empty() || t == "*" {
        return path.starts_with(['/', '\\']);
    }
    if t == "~" || (t.starts_with('~') && !t.contains('/')) {
        return true;
    }
    if ["HOME", "USERPROFILE"]
        .iter()
        .any(|v| [format!("${v}"), format!("${{{v}}}"), format!("%{v}%")].contains(&t))
    {
        return true;
    }
    let b = t.as_bytes();
    let rest = if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        // A Windows drive: `C:` itself, or its system and user folders.
        if t.len() == 2 {
            return true;
        }
        &t[2..]
    } else {
        t.as_str()
    };
    let Some(rest) = rest.strip_prefix('/') else {
        return false;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let first = parts[0].to_ascii_lowercase();
    match first.as_str() {
        "home" | "users" => parts.len() <= 2,
        "etc"
        | "usr"
        | "bin"
        | "sbin"
        | "lib"
        | "lib32"
        | "lib64"
        | "libx32"
        | "boot"
        | "var"
        | "opt"
        | "sys"
        | "proc"
        | "dev"
        | "system"
        | "library"
        | "applications"
        | "private"
        | "snap"
        | "srv"
        | "root"
        | "nix"
        | "windows"
        | "program files"
        | "program files (x86)"
        | "programdata" => true,
        _ => false,
    }
}

/// `truncate` that can shrink a file: any size but a pure growth (`+N`, `%N`, `>N`), or a
/// size taken from a reference file. Files all in temporary folders are left alone.
fn truncate_shrinks(args: &[Word]) -> bool {
    let mut sizes = Vec::new();
    let mut reference = false;
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let t = a.text.as_str();
        k += 1;
        if t == "-s" || t == "--size" {
            sizes.extend(args.get(k).map(|w| w.text.as_str()));
            k += 1;
        } else if let Some(v) = t.strip_prefix("--size=") {
            sizes.push(v);
        } else if let Some(v) = t.strip_prefix("-s").filter(|v| !v.is_empty()) {
            sizes.push(v);
        } else if t == "-r" || t == "--reference" || t.starts_with("--reference=") {
            reference = true;
        }
    }
    let files = positionals(args, &["-s", "--size", "-r", "--reference", "-o"]);
    if files.iter().all(|f| is_temp_or_device(f)) {
        return false;
    }
    reference || sizes.iter().any(|s| !s.starts_with(['+', '%', '>']))
}
