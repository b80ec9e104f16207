//! Interpreter one-liners that delete files or run a shell: `python3 -c 'import shutil;
//! shutil.rmtree(…)'`, `perl -e 'unlink …'`, `node -e 'require("child_process").exec(…)'`, on
//! the command line or on stdin.

use super::cx::{Cx, RUNTIME_PROGRAM};
use super::downloads::{CURL_SH, fetches};
use crate::shell::Word;

const INTERPRETERS: [&str; 9] = [
    "python", "python2", "python3", "perl", "ruby", "node", "php", "deno", "bun",
];

/// Python (any version), Perl, Ruby, Node, PHP, Deno, Bun.
pub(super) fn is_interpreter(prog: &str) -> bool {
    INTERPRETERS.contains(&prog)
        || prog
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

pub(super) fn check(
    prog: &str,
    args: &[Word],
    stdin: &[Word],
    _depth: usize,
    _cx: Cx,
) -> Option<String> {
    if is_interpreter(prog) {
        return check_interpreter(prog, args, stdin);
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    Perl,
    Ruby,
    Js,
    Php,
}

fn lang_of(prog: &str) -> Lang {
    match prog {
        "perl" => Lang::Perl,
        "ruby" => Lang::Ruby,
        "php" => Lang::Php,
        "node" | "deno" | "bun" => Lang::Js,
        _ => Lang::Python,
    }
}

/// The code an interpreter is given on its command line (`python -c`, `perl -e`, `node -e`,
/// `ruby -e`, `php -r`, `deno eval`, `bun -e`), and whether it reads its program on stdin
/// (no script file named, or `-`).
fn inline_code<'w>(prog: &str, args: &'w [Word]) -> (Vec<&'w str>, bool) {
    let lang = lang_of(prog);
    let mut code = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let t = a.text.as_str();
        k += 1;
        if t == "-" {
            return (code, true);
        }
        if t == "--" {
            let script = args.get(k).is_some();
            return (code.clone(), code.is_empty() && !script);
        }
        if let Some(v) = t
            .strip_prefix("--eval=")
            .or_else(|| t.strip_prefix("--print="))
        {
            code.push(v);
            continue;
        }
        let cluster = t.len() > 1
            && t.starts_with('-')
            && !t.starts_with("--")
            && t[1..].chars().all(|c| c.is_ascii_alphabetic());
        let is_code_flag = match lang {
            Lang::Python => cluster && t.ends_with('c'),
            Lang::Perl | Lang::Ruby => cluster && t.ends_with(['e', 'E']),
            Lang::Js => matches!(t, "-e" | "--eval" | "-p" | "--print" | "-pe"),
            Lang::Php => matches!(t, "-r" | "-B" | "-R" | "-E"),
        };
        if is_code_flag {
            if let Some(c) = args.get(k) {
                code.push(c.text.as_str());
                k += 1;
            }
            if lang == Lang::Python {
                // Everything after `-c code` is the code's own argv.
                return (code, false);
            }
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            let ends = match lang {
                Lang::Python => t == "-m",
                Lang::Php => t == "-f",
                _ => false,
            };
            if ends {
                // `python -m module`, `php -f file`: a program we do not read.
                return (code, false);
            }
            let takes_value = match lang {
                Lang::Python => matches!(t, "-W" | "-X" | "-Q"),
                Lang::Perl => matches!(t, "-I" | "-M" | "-m"),
                Lang::Ruby => matches!(t, "-I" | "-r" | "-C"),
                Lang::Js => {
                    matches!(
                        t,
                        "-r" | "--require" | "--import" | "--loader" | "--env-file"
                    ) && prog == "node"
                }
                Lang::Php => matches!(t, "-c" | "-d" | "-z"),
            };
            if takes_value {
                k += 1;
            }
            continue;
        }
        if matches!(prog, "deno" | "bun") && t == "eval" && code.is_empty() {
            code.extend(args.get(k).map(|w| w.text.as_str()));
            return (code, false);
        }
        // A script file (or a subcommand such as `deno run`): its contents are not ours to read.
        return (code, false);
    }
    let stdin = code.is_empty();
    (code, stdin)
}

/// Inline code an interpreter runs, and the program it reads on stdin.
fn check_interpreter(prog: &str, args: &[Word], stdin: &[Word]) -> Option<String> {
    let (code, reads_stdin) = inline_code(prog, args);
    if let Some(why) = code.iter().find_map(|c| code_danger(prog, c)) {
        return Some(why);
    }
    // `python3 -c "$CODE"`, `node -e "$(cat x.js)"`: the code is only known when it runs.
    if args
        .iter()
        .any(|a| a.leading_expansion && code.contains(&a.text.as_str()))
    {
        return Some(if args.iter().any(|a| a.substs.iter().any(fetches)) {
            CURL_SH.to_string()
        } else {
            RUNTIME_PROGRAM.to_string()
        });
    }
    if reads_stdin {
        return stdin.iter().find_map(|s| code_danger(prog, &s.text));
    }
    None
}

/// Names that delete files in any of the languages, whatever they are called on.
const CODE_DELETES: &[&str] = &[
    "unlink",
    "unlinkSync",
    "rmdir",
    "rmdirSync",
    "rmtree",
    "removedirs",
    "rmSync",
    "rm_rf",
    "rm_r",
    "rm_f",
    "remove_tree",
    "remove_dir",
    "remove_entry",
    "remove_entry_secure",
    "rimraf",
    "removeSync",
    "emptyDir",
    "emptyDirSync",
];
/// `remove`, `rm` and `delete` delete files when called on one of these.
const FILE_MODULES: &[&str] = &[
    "os",
    "fs",
    "fsp",
    "fse",
    "promises",
    "FileUtils",
    "File",
    "Dir",
    "Deno",
    "shutil",
];
/// Names that run another program (a shell) whatever they are called on.
const CODE_SHELLS: &[&str] = &[
    "subprocess",
    "child_process",
    "execSync",
    "execFileSync",
    "spawnSync",
    "shell_exec",
    "passthru",
    "proc_open",
    "popen",
    "Open3",
    "posix_spawn",
    "posix_spawnp",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "pcntl_exec",
    "qx",
];
/// What `system`, `exec`, `spawn` are called on when they run a program.
const SHELL_MODULES: &[&str] = &[
    "os",
    "Kernel",
    "IO",
    "pty",
    "Process",
    "child_process",
    "cp",
    "Bun",
    "Deno",
    "subprocess",
];

/// Whether interpreter code deletes files or runs a shell, judged by the names it calls:
/// `os.remove`, `shutil.rmtree`, `unlink`, `fs.rmSync`, `FileUtils.rm_rf` …; `os.system`,
/// `subprocess`, `child_process`, `system()`, `exec`, backticks in Perl, Ruby and PHP. A name
/// inside a string counts too; `platform.system()` or `regex.exec()` do not.
pub(super) fn code_danger(prog: &str, code: &str) -> Option<String> {
    let lang = lang_of(prog);
    let chars: Vec<char> = code.chars().collect();
    let deletes = || Some(format!("{prog} code deletes files"));
    let shell = || Some(format!("{prog} code runs a shell"));
    if matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php) && code.contains('`') {
        return shell();
    }
    if lang == Lang::Ruby
        && chars
            .windows(3)
            .any(|w| w[0] == '%' && w[1] == 'x' && !w[2].is_alphanumeric() && w[2] != ' ')
    {
        return shell();
    }
    let ident_start = |c: char| c.is_alphabetic() || c == '_' || c == '$';
    let mut i = 0;
    let mut prev: Option<(usize, usize)> = None;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_alphanumeric() {
                i += 1;
            }
            continue;
        }
        if !ident_start(c) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
        {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect();
        // `a.b`, `A::b`, `$a->b`: `b` is called on `a` (when the text between is just that).
        let sep: String = prev
            .map(|(_, end)| chars[end..start].iter().collect())
            .unwrap_or_default();
        let dotted = start > 0 && chars[start - 1] == '.'
            || (start > 1 && matches!(chars[start - 2..start], [':', ':'] | ['-', '>']));
        let qualifier: Option<String> = match prev {
            Some((s, e)) if dotted && matches!(sep.as_str(), "." | "::" | "->") => {
                Some(chars[s..e].iter().collect())
            }
            _ => None,
        };
        let q = qualifier.as_deref();
        prev = Some((start, i));
        if CODE_DELETES.contains(&name.as_str())
            || (matches!(name.as_str(), "remove" | "rm" | "delete")
                && q.is_some_and(|q| FILE_MODULES.contains(&q)))
        {
            return deletes();
        }
        let shell_module = q.is_some_and(|q| SHELL_MODULES.contains(&q));
        let runs = CODE_SHELLS.contains(&name.as_str())
            || match name.as_str() {
                // Undotted, on an unknown receiver (`__import__('os').system`), or on `os` …
                "system" | "spawn" => !dotted || q.is_none() || shell_module,
                "exec" => {
                    shell_module || (!dotted && matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php))
                }
                "run" | "Command" | "spawnSync" | "$" => {
                    q.is_some_and(|q| q == "Deno" || q == "Bun")
                }
                _ => false,
            };
        if runs {
            return shell();
        }
    }
    None
}
