//! Scripts handed to a shell: `bash -c '…'`, `sh script`, `source <(curl …)`, a shell reading
//! a here-document; and what a pipeline hands on as a whole (`echo 'rm -rf x' | sh`,
//! `echo "DROP TABLE t" | psql`, `curl … | sh`). The script handed on is classified as a
//! command of its own.

use super::cx::{Cx, RUNTIME_PROGRAM, UNPARSABLE};
use super::databases::{SQL_CLIENTS, destructive_sql};
use super::downloads::{CURL_SH, fetches, simple_fetches};
use super::interpreters::{code_danger, is_interpreter};
use crate::shell::{Head, Simple, Word, head, program_name};

const SHELLS: [&str; 8] = ["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

pub(super) fn check(
    prog: &str,
    args: &[Word],
    stdin: &[Word],
    depth: usize,
    cx: Cx,
) -> Option<String> {
    match prog {
        "source" | "." if args.first().is_some_and(|a| a.substs.iter().any(fetches)) => {
            Some(CURL_SH.into())
        }
        p if SHELLS.contains(&p) => check_shell(args, stdin, depth, cx),
        _ => None,
    }
}

/// `bash -c '…'`, `sh script`, `bash` reading stdin.
fn check_shell(args: &[Word], stdin: &[Word], depth: usize, cx: Cx) -> Option<String> {
    let mut j = 0;
    let mut inline = false;
    while let Some(a) = args.get(j) {
        let t = a.text.as_str();
        if t == "--" || t == "-" {
            j += 1;
            break;
        }
        if t.starts_with("--") {
            j += 1;
            if matches!(t, "--rcfile" | "--init-file") {
                j += 1;
            }
            continue;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            if t[1..].contains('c') {
                inline = true;
            }
            j += 1;
            if t[1..].contains('o') || t[1..].contains('O') {
                j += 1;
            }
            continue;
        }
        break;
    }
    if inline {
        let script = args.get(j)?;
        if !script.substs.is_empty() {
            // `bash -c "$(curl …)"`: the script is some command's output.
            return Some(if script.substs.iter().any(fetches) {
                CURL_SH.to_string()
            } else {
                RUNTIME_PROGRAM.to_string()
            });
        }
        return (cx.command)(&script.text, depth + 1, cx);
    }
    match args.get(j) {
        // `bash <(curl …)`
        Some(file) if file.substs.iter().any(fetches) => Some(CURL_SH.to_string()),
        // A script file: its contents are not ours to read.
        Some(_) => None,
        // Reads its script on stdin: a here-document or here-string is read here; a pipe in
        // check_pipeline.
        None => stdin.iter().find_map(|s| {
            if s.substs.is_empty() {
                (cx.command)(&s.text, depth + 1, cx)
            } else {
                Some(UNPARSABLE.to_string())
            }
        }),
    }
}

/// What a pipeline does as a whole: `curl … | sh`, `echo "DROP TABLE t" | psql`.
pub(super) fn check_pipeline(pipeline: &[Simple], cx: Cx) -> Option<String> {
    if pipeline.len() < 2 {
        return None;
    }
    let programs: Vec<Option<(String, &[Word])>> = pipeline
        .iter()
        .map(|s| match head(&s.words) {
            Head::Program(i) => Some((program_name(&s.words[i].text), &s.words[i + 1..])),
            _ => None,
        })
        .collect();
    for (n, entry) in programs.iter().enumerate().skip(1) {
        let Some((prog, args)) = entry else { continue };
        let fed_from_fetch = pipeline[..n].iter().any(simple_fetches);
        let reads_stdin_script = (SHELLS.contains(&prog.as_str())
            && !args
                .iter()
                .any(|a| !a.text.starts_with('-') && !a.text.starts_with('+')))
            || (is_interpreter(prog) && (args.is_empty() || args.iter().all(|a| a.is("-"))));
        if fed_from_fetch && reads_stdin_script {
            return Some(CURL_SH.to_string());
        }
        if reads_stdin_script && SHELLS.contains(&prog.as_str()) {
            // `echo 'rm -rf x' | sh`, `cat <<EOF | bash`: the script is in the command line.
            for earlier in &pipeline[..n] {
                if let Some(why) = piped_texts(earlier)
                    .iter()
                    .find_map(|t| (cx.command)(t, 1, cx))
                {
                    return Some(why);
                }
            }
        }
        if reads_stdin_script && is_interpreter(prog) {
            // `echo 'import os; os.remove("x")' | python3`
            for earlier in &pipeline[..n] {
                if let Some(why) = piped_texts(earlier)
                    .iter()
                    .find_map(|t| code_danger(prog, t))
                {
                    return Some(why);
                }
            }
        }
        if SQL_CLIENTS.contains(&prog.as_str()) {
            for earlier in &pipeline[..n] {
                if let Some(why) = earlier
                    .words
                    .iter()
                    .chain(&earlier.stdin)
                    .find_map(|w| destructive_sql(&w.text))
                {
                    return Some(why);
                }
            }
        }
    }
    None
}

/// What a command piped into a shell hands it as its script, when the command line shows it:
/// `echo …` / `printf …` arguments, or a here-document / here-string.
fn piped_texts(simple: &Simple) -> Vec<String> {
    let Head::Program(i) = head(&simple.words) else {
        return Vec::new();
    };
    let prog = program_name(&simple.words[i].text);
    let mut texts: Vec<String> = simple.stdin.iter().map(|w| w.text.clone()).collect();
    if matches!(prog.as_str(), "echo" | "printf") {
        let args: Vec<&str> = simple.words[i + 1..]
            .iter()
            .map(|w| w.text.as_str())
            .filter(|t| !t.starts_with('-'))
            .collect();
        // printf's and `echo -e`'s `\n` separate commands as a newline does.
        texts.push(args.join(" ").replace("\\n", "\n"));
    }
    texts
}
