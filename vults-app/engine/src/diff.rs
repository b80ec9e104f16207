//! Unified diffs for cards: what an Edit, a MultiEdit, a Write over an existing file or a Codex
//! `apply_patch` changes, as hunks of marked lines with a few lines of context. Pure: the
//! engine read the files before the card was made ([`CardContext::before`]); the window lays
//! the diff out and the phone page gets it as JSON ([`to_json`]).
//!
//! A diff never hides a changed line: every removed and added line is in a hunk. Unchanged lines
//! far from a change are left out, which is why a card also offers the exact text the agent sent.

use crate::messages::{CardContext, EditPair};
use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};
use std::time::Duration;
use vults_core::agents::{Target, ToolCall};

/// Unchanged lines kept around each change.
pub const CONTEXT: usize = 3;
/// A diff that takes longer than this settles for a correct but less minimal answer.
const DIFF_TIMEOUT: Duration = Duration::from_millis(250);

/// What a line of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// A line the change leaves as it is, shown around a change.
    Context,
    /// A line the change takes out.
    Removed,
    /// A line the change puts in.
    Added,
}

impl Tag {
    /// The unified-diff mark: ` `, `-` or `+`.
    pub fn mark(self) -> char {
        match self {
            Tag::Context => ' ',
            Tag::Removed => '-',
            Tag::Added => '+',
        }
    }
}

/// One line of a diff, with its numbers where the file could be read: `old` in the file as it
/// is (context and removed lines), `new` in the file as it will be (context and added lines).
/// Two columns, as unified-diff readers show them: a context line and a removed line never
/// read as the same "19".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// What the line is.
    pub tag: Tag,
    /// Its number in the file as it is, when known.
    pub old: Option<usize>,
    /// Its number in the file as it will be, when known.
    pub new: Option<usize>,
    /// The line's text, without its end of line.
    pub text: String,
}

impl Line {
    /// Its one number: in the old file for a removed line, in the new one otherwise.
    pub fn line(&self) -> Option<usize> {
        match self.tag {
            Tag::Removed => self.old,
            _ => self.new,
        }
    }
}

/// A run of changed lines with their context.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// A patch's `@@ …` header text, when it has one.
    pub header: Option<String>,
    /// The hunk's lines, in order.
    pub lines: Vec<Line>,
}

/// What happens to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// The file exists and changes.
    Update,
    /// The file is created.
    Add,
    /// The file is deleted.
    Delete,
}

impl Op {
    /// The word a card and the phone page show: `update`, `add` or `delete`.
    pub fn word(self) -> &'static str {
        match self {
            Op::Update => "update",
            Op::Add => "add",
            Op::Delete => "delete",
        }
    }
}

/// The diff of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The file's path as the agent wrote it.
    pub path: String,
    /// What happens to it.
    pub op: Op,
    /// A patch's `*** Move to:` path.
    pub move_to: Option<String>,
    /// The file's changes, in order.
    pub hunks: Vec<Hunk>,
}

impl FileDiff {
    /// Whether its lines carry line numbers.
    pub fn numbered(&self) -> bool {
        self.hunks
            .iter()
            .flat_map(|h| &h.lines)
            .any(|l| l.old.is_some() || l.new.is_some())
    }

    /// The diff as plain unified-diff text (marks, no numbers): for reading and tests.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, h) in self.hunks.iter().enumerate() {
            if i > 0 || h.header.is_some() {
                out.push_str("@@");
                if let Some(header) = &h.header {
                    out.push(' ');
                    out.push_str(header);
                }
                out.push('\n');
            }
            for l in &h.lines {
                out.push(l.tag.mark());
                out.push_str(&l.text);
                out.push('\n');
            }
        }
        out
    }
}

/// The diff a card shows, or `None` when its target is not a change to files it can diff (a
/// Write to a new file shows its content; a command shows the command).
pub fn card_diff(call: &ToolCall, context: &CardContext) -> Option<Vec<FileDiff>> {
    match &call.target {
        Target::Edit { path, old, new } => {
            let edits = if !context.edits.is_empty() {
                context.edits.clone()
            } else if let (Some(old), Some(new)) = (old, new) {
                vec![EditPair {
                    old: old.clone(),
                    new: new.clone(),
                    replace_all: false,
                }]
            } else {
                // OpenCode says an edit or a write as the unified diff it made, kept whole in
                // the call's exact input.
                return input_diff(call.exact.as_deref()?);
            };
            let hunks = match context
                .before(path)
                .and_then(|b| Some((b, apply(b, &edits)?)))
            {
                Some((before, after)) => file_hunks(before, &after),
                // The file could not be read, or an edit does not fit it: each edit on its own.
                None => edits
                    .iter()
                    .map(|e| fragment_hunk(&e.old, &e.new))
                    .collect(),
            };
            if hunks.is_empty() {
                return None; // nothing changes: the card shows the text as sent
            }
            Some(vec![FileDiff {
                path: path.clone(),
                op: Op::Update,
                move_to: None,
                hunks,
            }])
        }
        Target::Write {
            path,
            content: Some(content),
        } => {
            let hunks = file_hunks(context.before(path)?, content);
            if hunks.is_empty() {
                return None; // the same content: the card shows it as it is
            }
            Some(vec![FileDiff {
                path: path.clone(),
                op: Op::Update,
                move_to: None,
                hunks,
            }])
        }
        Target::Patch { patch } => {
            let mut files = parse_patch(patch)?;
            for f in &mut files {
                number_patch_file(f, context.before(&f.path));
            }
            Some(files)
        }
        // OpenCode's change to several files (an apply_patch), read as its whole input.
        Target::Input { json } => input_diff(json),
        _ => None,
    }
}

/// The unified diff OpenCode made for a file change (`metadata.diff`, next to `filepath`), as
/// the tool input in JSON carries it: shown as it came, numbered by its own `@@` lines, one
/// file's under the path the input names.
fn input_diff(json: &str) -> Option<Vec<FileDiff>> {
    let input: Value = serde_json::from_str(json).ok()?;
    let diff = input.get("diff")?.as_str()?;
    let path = ["filepath", "filePath", "file_path", "path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str));
    let mut files = parse_unified(diff)?;
    if let (Some(path), [only]) = (path, files.as_mut_slice()) {
        only.path = path.to_string();
    }
    Some(files)
}

/// Reads a unified diff (`--- a` / `+++ b` / `@@ -o,n +o,n @@` hunks), numbered by its hunk
/// headers, each hunk as long as its header says. `None` when it has no hunk or a line in a
/// hunk does not fit.
pub fn parse_unified(text: &str) -> Option<Vec<FileDiff>> {
    let mut files: Vec<FileDiff> = Vec::new();
    let (mut old, mut new) = (0usize, 0usize);
    let (mut old_left, mut new_left) = (0usize, 0usize);
    let mut from = String::new();
    let range = |r: &str| -> Option<(usize, usize)> {
        let mut it = r.splitn(2, ',');
        let start = it.next()?.parse().ok()?;
        let count = it.next().map_or(Some(1), |c| c.parse().ok())?;
        Some((start, count))
    };
    for raw in text.lines() {
        let l = raw.strip_suffix('\r').unwrap_or(raw);
        if old_left > 0 || new_left > 0 {
            let (tag, numbers) = match l.chars().next() {
                Some(' ') | None => (Tag::Context, (Some(old), Some(new))),
                Some('-') => (Tag::Removed, (Some(old), None)),
                Some('+') => (Tag::Added, (None, Some(new))),
                Some('\\') => continue, // "\ No newline at end of file"
                _ => return None,
            };
            match tag {
                Tag::Context => {
                    (old, new) = (old + 1, new + 1);
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
                Tag::Removed => {
                    old += 1;
                    old_left = old_left.saturating_sub(1);
                }
                Tag::Added => {
                    new += 1;
                    new_left = new_left.saturating_sub(1);
                }
            }
            files.last_mut()?.hunks.last_mut()?.lines.push(Line {
                tag,
                old: numbers.0,
                new: numbers.1,
                text: l.get(1..).unwrap_or_default().to_string(),
            });
        } else if let Some(p) = l.strip_prefix("--- ") {
            from = p.split('\t').next().unwrap_or(p).trim().to_string();
        } else if let Some(p) = l.strip_prefix("+++ ") {
            let to = p.split('\t').next().unwrap_or(p).trim();
            let (path, op) = match (from.as_str(), to) {
                ("/dev/null", to) => (to.to_string(), Op::Add),
                (from, "/dev/null") => (from.to_string(), Op::Delete),
                (_, to) => (to.to_string(), Op::Update),
            };
            files.push(FileDiff {
                path,
                op,
                move_to: None,
                hunks: Vec::new(),
            });
        } else if let Some(rest) = l.strip_prefix("@@ -") {
            let (ranges, header) = rest.split_once(" @@").unwrap_or((rest, ""));
            let (o, n) = ranges.split_once(" +")?;
            (old, old_left) = range(o)?;
            (new, new_left) = range(n)?;
            let header = header.trim();
            if files.is_empty() {
                files.push(FileDiff {
                    path: String::new(),
                    op: Op::Update,
                    move_to: None,
                    hunks: Vec::new(),
                });
            }
            files.last_mut()?.hunks.push(Hunk {
                header: (!header.is_empty()).then(|| header.to_string()),
                lines: Vec::new(),
            });
        }
        // Anything else between hunks (Index:, ====, diff --git, \ No newline) is a heading.
    }
    files.retain(|f| !f.hunks.is_empty());
    (!files.is_empty()).then_some(files)
}

/// The files a call changes whose current text a diff needs: the Edit/Write path, or each
/// file a patch updates or deletes.
pub fn paths_to_read(call: &ToolCall) -> Vec<String> {
    match &call.target {
        Target::Edit { path, .. } | Target::Write { path, .. } => vec![path.clone()],
        Target::Patch { patch } => parse_patch(patch)
            .unwrap_or_default()
            .into_iter()
            .filter(|f| f.op != Op::Add)
            .map(|f| f.path)
            .collect(),
        _ => Vec::new(),
    }
}

/// The file after the edits, or `None` when one does not apply (its old text is not there).
pub fn apply(before: &str, edits: &[EditPair]) -> Option<String> {
    let mut text = before.to_string();
    for e in edits {
        if e.old.is_empty() || !text.contains(&e.old) {
            return None;
        }
        text = if e.replace_all {
            text.replace(&e.old, &e.new)
        } else {
            text.replacen(&e.old, &e.new, 1)
        };
    }
    Some(text)
}

fn lines_diff<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, str> {
    TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new)
}

fn line_of(change: &similar::Change<&str>) -> Line {
    let tag = match change.tag() {
        ChangeTag::Equal => Tag::Context,
        ChangeTag::Delete => Tag::Removed,
        ChangeTag::Insert => Tag::Added,
    };
    Line {
        tag,
        old: change.old_index().map(|i| i + 1),
        new: change.new_index().map(|i| i + 1),
        text: strip_eol(change.value()).to_string(),
    }
}

fn strip_eol(s: &str) -> &str {
    let s = s.strip_suffix('\n').unwrap_or(s);
    s.strip_suffix('\r').unwrap_or(s)
}

/// Hunks of a whole file's diff, numbered, with [`CONTEXT`] lines around each change.
pub fn file_hunks(before: &str, after: &str) -> Vec<Hunk> {
    let diff = lines_diff(before, after);
    diff.grouped_ops(CONTEXT)
        .iter()
        .map(|group| Hunk {
            header: None,
            lines: group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .map(|c| line_of(&c))
                .collect(),
        })
        .filter(|h| h.lines.iter().any(|l| l.tag != Tag::Context))
        .collect()
}

/// One edit's old and new text as one hunk: every line of both, unnumbered.
fn fragment_hunk(old: &str, new: &str) -> Hunk {
    let diff = lines_diff(old, new);
    Hunk {
        header: None,
        lines: diff
            .iter_all_changes()
            .map(|c| Line {
                old: None,
                new: None,
                ..line_of(&c)
            })
            .collect(),
    }
}

/// Reads a Codex patch (`*** Begin Patch` … `*** End Patch`): `None` when it is not one or a
/// line does not fit the format, so the card shows the patch text as it came.
pub fn parse_patch(patch: &str) -> Option<Vec<FileDiff>> {
    let mut lines = patch.lines().skip_while(|l| l.trim() != "*** Begin Patch");
    lines.next()?;
    let mut files: Vec<FileDiff> = Vec::new();
    for raw in lines {
        let l = raw.strip_suffix('\r').unwrap_or(raw);
        if l.trim() == "*** End Patch" {
            return (!files.is_empty()).then_some(files);
        }
        let new_file = |path: &str, op| FileDiff {
            path: path.trim().to_string(),
            op,
            move_to: None,
            hunks: Vec::new(),
        };
        if let Some(p) = l.strip_prefix("*** Add File: ") {
            let mut f = new_file(p, Op::Add);
            f.hunks.push(Hunk::default());
            files.push(f);
        } else if let Some(p) = l.strip_prefix("*** Delete File: ") {
            files.push(new_file(p, Op::Delete));
        } else if let Some(p) = l.strip_prefix("*** Update File: ") {
            files.push(new_file(p, Op::Update));
        } else if let Some(p) = l.strip_prefix("*** Move to: ") {
            files.last_mut()?.move_to = Some(p.trim().to_string());
        } else if l.trim() == "*** End of File" {
            continue;
        } else if let Some(header) = l.strip_prefix("@@") {
            let f = files.last_mut().filter(|f| f.op == Op::Update)?;
            let header = header.trim();
            f.hunks.push(Hunk {
                header: (!header.is_empty()).then(|| header.to_string()),
                lines: Vec::new(),
            });
        } else {
            let f = files.last_mut()?;
            let (tag, text) = match l.chars().next() {
                Some('+') => (Tag::Added, &l[1..]),
                Some('-') if f.op == Op::Update => (Tag::Removed, &l[1..]),
                Some(' ') if f.op == Op::Update => (Tag::Context, &l[1..]),
                // Codex reads an empty line in a hunk as an empty context line.
                None if f.op == Op::Update => (Tag::Context, ""),
                _ => return None,
            };
            if f.op == Op::Delete {
                return None;
            }
            if f.hunks.is_empty() {
                f.hunks.push(Hunk::default());
            }
            f.hunks.last_mut()?.lines.push(Line {
                tag,
                old: None,
                new: None,
                text: text.to_string(),
            });
        }
    }
    None // no `*** End Patch`
}

/// Line numbers for a parsed patch file: an added file counts from 1; an updated or deleted
/// one needs its current text, and each hunk is found in it after the one before (as Codex
/// applies them). A hunk that cannot be found leaves the whole file unnumbered.
fn number_patch_file(f: &mut FileDiff, before: Option<&str>) {
    match (f.op, before) {
        (Op::Add, _) => {
            for (i, l) in f.hunks.iter_mut().flat_map(|h| &mut h.lines).enumerate() {
                l.new = Some(i + 1);
            }
        }
        (Op::Delete, Some(text)) => {
            f.hunks = vec![Hunk {
                header: None,
                lines: text
                    .lines()
                    .enumerate()
                    .map(|(i, t)| Line {
                        tag: Tag::Removed,
                        old: Some(i + 1),
                        new: None,
                        text: t.to_string(),
                    })
                    .collect(),
            }];
        }
        (Op::Update, Some(text)) => {
            let file: Vec<&str> = text.lines().collect();
            let mut from = 0;
            let mut shift: isize = 0; // new line number minus old line number so far
            let mut numbered = Vec::new();
            for h in &f.hunks {
                let old: Vec<&str> = h
                    .lines
                    .iter()
                    .filter(|l| l.tag != Tag::Added)
                    .map(|l| l.text.as_str())
                    .collect();
                let Some(start) = find_lines(&file, &old, from) else {
                    return;
                };
                let (mut o, mut n) = (start + 1, (start as isize + 1 + shift) as usize);
                let mut lines = h.lines.clone();
                for l in &mut lines {
                    match l.tag {
                        Tag::Context => {
                            (l.old, l.new) = (Some(o), Some(n));
                            o += 1;
                            n += 1;
                        }
                        Tag::Removed => {
                            l.old = Some(o);
                            o += 1;
                            shift -= 1;
                        }
                        Tag::Added => {
                            l.new = Some(n);
                            n += 1;
                            shift += 1;
                        }
                    }
                }
                from = start + old.len();
                numbered.push(lines);
            }
            for (h, lines) in f.hunks.iter_mut().zip(numbered) {
                h.lines = lines;
            }
        }
        _ => {}
    }
}

/// Where `needle` starts in `file` at or after `from` (exact, else ignoring trailing blanks).
fn find_lines(file: &[&str], needle: &[&str], from: usize) -> Option<usize> {
    if needle.is_empty() || needle.len() > file.len() {
        return None;
    }
    let fits = |eq: &dyn Fn(&str, &str) -> bool| {
        (from..=file.len() - needle.len())
            .find(|&i| needle.iter().zip(&file[i..]).all(|(a, b)| eq(a, b)))
    };
    fits(&|a, b| a == b).or_else(|| fits(&|a, b| a.trim_end() == b.trim_end()))
}

/// "+3 −1": the lines a diff adds and removes, as its card and its notification say them.
pub fn changes(files: &[FileDiff]) -> String {
    let lines = || files.iter().flat_map(|f| &f.hunks).flat_map(|h| &h.lines);
    let added = lines().filter(|l| l.tag == Tag::Added).count();
    let removed = lines().filter(|l| l.tag == Tag::Removed).count();
    format!("+{added} −{removed}")
}

/// The diff for the phone page: `[{path, op, move_to, hunks: [{header, lines: [[mark, old, new,
/// text]]}]}]`, with `old` / `new` `null` where the line has none or it is unnumbered.
pub fn to_json(files: &[FileDiff]) -> Value {
    Value::Array(
        files
            .iter()
            .map(|f| {
                json!({
                    "path": f.path,
                    "op": f.op.word(),
                    "move_to": f.move_to,
                    "hunks": f.hunks.iter().map(|h| json!({
                        "header": h.header,
                        "lines": h.lines.iter().map(|l| json!([l.tag.mark().to_string(), l.old, l.new, l.text])).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use vults_core::agents::{ToolKind, read_tool_call};

    fn call(target: Target) -> ToolCall {
        ToolCall {
            session_id: None,
            cwd: None,
            tool: "Edit".into(),
            kind: ToolKind::Edit,
            target,
            exact: None,
        }
    }

    fn before(path: &str, text: &str) -> CardContext {
        CardContext {
            before: vec![(path.into(), text.into())],
            ..Default::default()
        }
    }

    fn numbered_file(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn edit_of_a_read_file_is_numbered_with_three_lines_of_context() {
        let c = call(Target::Edit {
            path: "/p/a.txt".into(),
            old: Some("line 10\n".into()),
            new: Some("ten\n".into()),
        });
        let d = card_diff(&c, &before("/p/a.txt", &numbered_file(20))).unwrap();
        let lines = &d[0].hunks[0].lines;
        let shown: Vec<_> = lines
            .iter()
            .map(|l| (l.tag.mark(), l.line(), &*l.text))
            .collect();
        assert_eq!(
            shown,
            vec![
                (' ', Some(7), "line 7"),
                (' ', Some(8), "line 8"),
                (' ', Some(9), "line 9"),
                ('-', Some(10), "line 10"),
                ('+', Some(10), "ten"),
                (' ', Some(11), "line 11"),
                (' ', Some(12), "line 12"),
                (' ', Some(13), "line 13"),
            ]
        );
    }

    /// Issue 21: one number column made a context line and a removed line both read "19".
    /// Each line has its number in the old file and in the new one, as far as it is in each.
    #[test]
    fn a_context_line_and_a_removed_line_never_read_the_same_number() {
        let c = call(Target::Edit {
            path: "/p/a.txt".into(),
            old: Some("line 5\n".into()),
            new: Some("five\nfive and a half\nfive and three quarters\n".into()),
        });
        let d = card_diff(&c, &before("/p/a.txt", &numbered_file(12))).unwrap();
        let shown: Vec<_> = d[0].hunks[0]
            .lines
            .iter()
            .map(|l| (l.tag.mark(), l.old, l.new))
            .collect();
        assert_eq!(
            shown,
            vec![
                (' ', Some(2), Some(2)),
                (' ', Some(3), Some(3)),
                (' ', Some(4), Some(4)),
                ('-', Some(5), None),
                ('+', None, Some(5)),
                ('+', None, Some(6)),
                ('+', None, Some(7)),
                (' ', Some(6), Some(8)),
                (' ', Some(7), Some(9)),
                (' ', Some(8), Some(10)),
            ]
        );
    }

    #[test]
    fn edit_of_an_unread_file_diffs_the_fragments_unnumbered() {
        let c = call(Target::Edit {
            path: "/p/a.rs".into(),
            old: Some("a\nb\nc".into()),
            new: Some("a\nB\nc".into()),
        });
        let d = card_diff(&c, &CardContext::default()).unwrap();
        assert!(!d[0].numbered());
        assert_eq!(d[0].text(), " a\n-b\n+B\n c\n");
    }

    #[test]
    fn multi_edit_applies_every_edit_in_order_and_makes_hunks() {
        let ctx = CardContext {
            edits: vec![
                EditPair {
                    old: "line 2\n".into(),
                    new: "two\n".into(),
                    replace_all: false,
                },
                EditPair {
                    old: "line 30".into(),
                    new: "thirty".into(),
                    replace_all: false,
                },
            ],
            ..before("/p/a.txt", &numbered_file(40))
        };
        let c = call(Target::Edit {
            path: "/p/a.txt".into(),
            old: None,
            new: Some("[…]".into()),
        });
        let d = card_diff(&c, &ctx).unwrap();
        assert_eq!(d[0].hunks.len(), 2, "two changes far apart: two hunks");
        let t = d[0].text();
        assert!(
            t.contains("-line 2\n+two\n") && t.contains("-line 30\n+thirty\n"),
            "{t}"
        );
    }

    #[test]
    fn write_over_an_existing_file_diffs_against_it_and_a_new_file_has_none() {
        let c = call(Target::Write {
            path: "/p/a.txt".into(),
            content: Some("line 1\nLINE 2\nline 3\n".into()),
        });
        let d = card_diff(&c, &before("/p/a.txt", &numbered_file(3))).unwrap();
        assert_eq!(d[0].text(), " line 1\n-line 2\n+LINE 2\n line 3\n");
        assert_eq!(card_diff(&c, &CardContext::default()), None);
        // Writing the same content again changes nothing: no (empty) diff.
        let same = call(Target::Write {
            path: "/p/a.txt".into(),
            content: Some(numbered_file(3)),
        });
        assert_eq!(
            card_diff(&same, &before("/p/a.txt", &numbered_file(3))),
            None
        );
    }

    const PATCH: &str = "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+text\n*** Update File: src/lib.rs\n@@ fn main\n line 4\n-line 5\n+five\n line 6\n*** Delete File: old.txt\n*** End Patch\n";

    #[test]
    fn apply_patch_is_parsed_into_files_and_numbered_where_read() {
        let call = read_tool_call(&serde_json::json!({
            "tool_name": "apply_patch", "tool_input": {"command": PATCH}}));
        assert_eq!(paths_to_read(&call), vec!["src/lib.rs", "old.txt"]);
        let d = card_diff(&call, &before("src/lib.rs", &numbered_file(9))).unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!((d[0].op, d[0].path.as_str()), (Op::Add, "docs/new.md"));
        assert_eq!(d[0].text(), "+# New\n+text\n");
        assert_eq!(d[1].hunks[0].header.as_deref(), Some("fn main"));
        let nums: Vec<_> = d[1].hunks[0].lines.iter().map(|l| (l.old, l.new)).collect();
        assert_eq!(
            nums,
            vec![
                (Some(4), Some(4)),
                (Some(5), None),
                (None, Some(5)),
                (Some(6), Some(6))
            ]
        );
        assert_eq!(d[2].op, Op::Delete);
        // Unread: the same lines, unnumbered.
        let d = card_diff(&call, &CardContext::default()).unwrap();
        assert!(!d[1].numbered());
        assert_eq!(
            d[1].text(),
            "@@ fn main\n line 4\n-line 5\n+five\n line 6\n"
        );
    }

    #[test]
    fn the_phone_gets_marks_numbers_and_text() {
        let c = call(Target::Write {
            path: "/p/a.txt".into(),
            content: Some("line 1\nLINE 2\n".into()),
        });
        let d = card_diff(&c, &before("/p/a.txt", &numbered_file(2))).unwrap();
        assert_eq!(
            to_json(&d),
            json!([{"path": "/p/a.txt", "op": "update", "move_to": null, "hunks": [{"header": null,
                "lines": [[" ", 1, 1, "line 1"], ["-", 2, null, "line 2"], ["+", null, 2, "LINE 2"]]}]}])
        );
    }

    /// A real OpenCode edit, as its plugin relays it: an edit of one file whose diff is the one
    /// OpenCode made, the file on the path line.
    #[test]
    fn an_opencode_edit_is_its_files_diff() {
        let payload: Value = serde_json::from_str(include_str!(
            "../../../vults-core/tests/fixtures/relay/opencode-edit-PermissionRequest.json"
        ))
        .unwrap();
        let call = vults_core::agents::read_tool_call(&payload);
        assert!(
            matches!(&call.target, Target::Edit { path, .. } if path == "/home/me/project/app.ts")
        );
        let d = card_diff(&call, &CardContext::default()).expect("its diff");
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].path.as_str(), d[0].op),
            ("/home/me/project/app.ts", Op::Update)
        );
        assert_eq!(
            d[0].text(),
            " const a = 1;\n const b = 2;\n export function f() {\n-  return a + b;\n+  // the sum\n+  return a + b + 1;\n }\n"
        );
        assert_eq!(
            d[0].hunks[0].lines[4].new,
            Some(4),
            "numbered by its @@ line"
        );
    }

    #[test]
    fn opencodes_own_unified_diff_is_shown_numbered_by_its_hunks() {
        let diff = "Index: /p/src/a.ts\n===================================================================\n--- /p/src/a.ts\n+++ /p/src/a.ts\n@@ -3,4 +3,3 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n const c = 4;\n--- x\n\\ No newline at end of file\n";
        let input = json!({"filepath": "/p/src/a.ts", "diff": diff});
        let c = ToolCall {
            session_id: None,
            cwd: None,
            tool: "edit".into(),
            kind: ToolKind::Edit,
            target: Target::Input {
                json: vults_core::agents::canonical_json(&input),
            },
            exact: None,
        };
        let d = card_diff(&c, &CardContext::default()).unwrap();
        assert_eq!(d[0].path, "/p/src/a.ts");
        let shown: Vec<_> = d[0].hunks[0]
            .lines
            .iter()
            .map(|l| (l.tag.mark(), l.line(), l.text.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (' ', Some(3), "const a = 1;"),
                ('-', Some(4), "const b = 2;"),
                ('+', Some(4), "const b = 3;"),
                (' ', Some(5), "const c = 4;"),
                ('-', Some(6), "-- x"),
            ]
        );
        assert_eq!(parse_unified("no diff here"), None);
        // Two files: the second `---` comes after the first hunk's promised lines.
        let two = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/new\n@@ -0,0 +1,2 @@\n+1\n+2\n";
        let d = parse_unified(two).unwrap();
        assert_eq!(
            (d.len(), d[1].op, d[1].path.as_str()),
            (2, Op::Add, "b/new")
        );
        assert_eq!(d[1].text(), "+1\n+2\n");
    }

    #[test]
    fn text_that_is_not_a_patch_is_not_parsed() {
        assert_eq!(parse_patch("just text"), None);
        assert_eq!(
            parse_patch("*** Begin Patch\n*** Update File: a\n+x\n"),
            None,
            "no end"
        );
        assert_eq!(
            parse_patch("*** Begin Patch\n*** Update File: a\n?x\n*** End Patch"),
            None
        );
    }

    #[test]
    fn an_edit_whose_old_text_is_not_in_the_file_falls_back_to_the_fragments() {
        let c = call(Target::Edit {
            path: "/p/a.txt".into(),
            old: Some("missing".into()),
            new: Some("x".into()),
        });
        let d = card_diff(&c, &before("/p/a.txt", "other\n")).unwrap();
        assert_eq!(d[0].text(), "-missing\n+x\n");
        assert!(!d[0].numbered());
    }
}
