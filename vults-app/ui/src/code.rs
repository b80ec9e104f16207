//! Code on a card: unified diffs, file content and shell commands with syntax colour (egui_extras'
//! built-in highlighter, by file extension), laid out once per card and kept in the card's view
//! state; each frame only paints the kept galley (again only when the card's width changes).
//!
//! Long shell commands wrap at `&&`, `||`, `;` and `|` outside quotes, with a visible
//! continuation mark; the text is otherwise exactly the command (the copy button copies the
//! original). Every line shows its hidden characters written out (`‹U+202E›`,
//! [`vults_core::text::reveal`]): a bidi control or a zero-width space never reads as nothing.

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, Galley, Rect, Shape};
use egui_extras::syntax_highlighting::{CodeTheme, TokenType, highlight};
use std::ops::Range;
use std::sync::Arc;
use vults_core::text::reveal;
use vults_engine::diff::{FileDiff, Op, Tag};

/// A line of code as it is shown: its hidden characters written out.
fn shown_code(text: &str) -> String {
    reveal(text).text.into_owned()
}

/// The mark that starts a wrapped command's continuation line.
pub const CONTINUATION: &str = "  ↳ ";
/// A command line longer than this many characters wraps at its operators.
pub const WRAP_AT: usize = 56;

const MUTED: Color32 = Color32::from_gray(125);
const REMOVED_FILL: Color32 = Color32::from_rgb(0x4A, 0x22, 0x26);
const ADDED_FILL: Color32 = Color32::from_rgb(0x1C, 0x40, 0x2A);
const REMOVED_MARK: Color32 = Color32::from_rgb(0xFF, 0x8A, 0x8F);
const ADDED_MARK: Color32 = Color32::from_rgb(0x7E, 0xE0, 0x9C);

/// What a logical line of laid-out code is, for its background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Removed,
    Added,
}

/// Lines per laid-out piece: a long diff is coloured and laid out only where it is in view.
const CHUNK_LINES: usize = 48;

/// One line to show: plain prefixes (line number, mark, continuation) and then code, coloured
/// as `language` (or in `plain` when it is not code: a file header, a gap between hunks).
#[derive(Debug, Clone)]
struct Line {
    prefix: Vec<(String, TextFormat)>,
    code: String,
    language: &'static str,
    plain: Option<TextFormat>,
    kind: Kind,
    /// The line begins a hunk or a file of a diff.
    starts: Starts,
    /// What is laid out instead of `code`, when that differs only in where a row may break
    /// (`code` stays what is read and copied).
    laid: Option<String>,
}

impl Line {
    fn laid_code(&self) -> &str {
        self.laid.as_deref().unwrap_or(&self.code)
    }
}

/// What a line of a diff begins, to count what is out of sight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Starts {
    #[default]
    Nothing,
    Hunk,
    File,
}

/// What of some laid-out code is below the bottom of its view: "12 more lines ↓ · +3 hunks".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Below {
    /// Lines of text (not wrapped rows) whose start is out of sight.
    pub lines: usize,
    /// Hunks of a diff that begin out of sight.
    pub hunks: usize,
    /// Files of a patch whose header is out of sight.
    pub files: usize,
}

impl Below {
    /// "12 more lines ↓ · +3 hunks · +1 file", or `None` when everything is in sight.
    pub fn text(&self) -> Option<String> {
        if self.lines == 0 {
            return None;
        }
        let mut parts = vec![vults_i18n::tr!("card-more-lines", count = self.lines)];
        if self.hunks > 0 {
            parts.push(vults_i18n::tr!("card-more-hunks", count = self.hunks));
        }
        if self.files > 0 {
            parts.push(vults_i18n::tr!("card-more-files", count = self.files));
        }
        Some(parts.join(" · "))
    }
}

/// Code made once per card: its lines in pieces of `CHUNK_LINES`, each coloured and laid out
/// into a galley the first time it is in view (laid out again only when the width or scale
/// changes). The lines are kept as text until then, so a long diff costs little to make.
///
/// The prefixes (line number and mark, a command's continuation mark) stand in a column of
/// their own, so a long line that wraps continues under its code, not under the numbers.
#[derive(Debug, Clone)]
pub struct Laid {
    text: String,
    font: FontId,
    /// The widest prefix, to measure the prefix column by.
    widest_prefix: String,
    chunks: Vec<Chunk>,
    /// What was below the view when last drawn.
    below: Below,
}

#[derive(Debug, Clone)]
struct Chunk {
    lines: Vec<Line>,
    /// The piece's text with its prefixes: what a screen reader (and a test) reads.
    text: String,
    job: Option<LayoutJob>,
    /// The code and prefix galleys, and the width and pixels per point they were laid out for.
    galley: Option<(f32, f32, Arc<Galley>, Arc<Galley>)>,
}

fn shown(line: &Line) -> String {
    let mut t: String = line.prefix.iter().map(|(p, _)| p.as_str()).collect();
    t.push_str(&line.code);
    t
}

impl Laid {
    fn new(lines: Vec<Line>, font: FontId) -> Laid {
        let text = lines.iter().map(shown).collect::<Vec<_>>().join("\n");
        let widest_prefix = lines
            .iter()
            .map(|l| l.prefix.iter().map(|(p, _)| p.as_str()).collect::<String>())
            .max_by_key(|p| p.chars().count())
            .unwrap_or_default();
        let chunks = lines
            .chunks(CHUNK_LINES)
            .map(|lines| Chunk {
                text: lines.iter().map(shown).collect::<Vec<_>>().join("\n"),
                lines: lines.to_vec(),
                job: None,
                galley: None,
            })
            .collect();
        Laid {
            text,
            font,
            widest_prefix,
            chunks,
            below: Below::default(),
        }
    }

    /// What was below the bottom of the view when the code was last drawn.
    pub fn below(&self) -> Below {
        self.below
    }

    /// How many lines of text it has.
    pub fn line_count(&self) -> usize {
        self.chunks.iter().map(|c| c.lines.len()).sum()
    }

    /// The whole text shown (what a reader of the screen gets, piece by piece).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How many pieces have been laid out so far.
    pub fn laid_out(&self) -> usize {
        self.chunks.iter().filter(|c| c.galley.is_some()).count()
    }

    /// Shows the code, selectable, with a full-width background on removed and added lines.
    /// A piece out of view takes its (estimated, until laid out) height and is not laid out.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let width = ui.available_width();
        let (row, gutter) = ui.fonts_mut(|f| {
            let gutter: f32 = self
                .widest_prefix
                .chars()
                .map(|c| f.glyph_width(&self.font, c))
                .sum();
            (f.row_height(&self.font), gutter.ceil())
        });
        let code_width = (width - gutter).max(80.0);
        let clip = ui.clip_rect();
        let font = self.font.clone();
        let mut below = Below::default();
        ui.scope(|ui| {
            ui.spacing_mut().item_spacing = egui::vec2(0.0, 0.0);
            for chunk in &mut self.chunks {
                let top = ui.cursor().top();
                let height = match &chunk.galley {
                    Some((w, _, g, _)) if (w - code_width).abs() < 0.5 => g.rect.height(),
                    _ => chunk.lines.len() as f32 * row,
                };
                if top > clip.bottom() || top + height < clip.top() {
                    ui.allocate_space(egui::vec2(width, height));
                } else {
                    chunk.ui(ui, width, gutter, code_width, &font);
                }
                // A line counts as out of sight when less than half of its first row shows.
                for (line, line_top) in chunk
                    .lines
                    .iter()
                    .zip(chunk.line_tops(top, row, code_width))
                {
                    if line_top + row * 0.5 > clip.bottom() {
                        below.lines += 1;
                        match line.starts {
                            Starts::Hunk => below.hunks += 1,
                            Starts::File => below.files += 1,
                            Starts::Nothing => {}
                        }
                    }
                }
            }
        });
        self.below = below;
    }
}

impl Chunk {
    /// Where each of its lines starts, on the screen, for a piece whose top is at `top`: from
    /// its galley where it was laid out at this width, else one row per line.
    fn line_tops(&self, top: f32, row: f32, width: f32) -> Vec<f32> {
        match &self.galley {
            Some((w, _, code, _)) if (w - width).abs() < 0.5 => {
                let mut tops = Vec::with_capacity(self.lines.len());
                let mut starts_line = true;
                for r in &code.rows {
                    if starts_line {
                        tops.push(top + r.rect().top());
                    }
                    starts_line = r.ends_with_newline;
                }
                tops.resize(self.lines.len(), top + code.rect.height());
                tops
            }
            _ => (0..self.lines.len())
                .map(|i| top + i as f32 * row)
                .collect(),
        }
    }

    /// Colours the piece's code (each run of lines in one language at once) into a job.
    fn job(&mut self, ctx: &egui::Context, font: &FontId) -> &LayoutJob {
        let lines = &self.lines;
        self.job.get_or_insert_with(|| {
            let mut job = LayoutJob::default();
            let mut i = 0;
            while i < lines.len() {
                let language = lines[i].language;
                let coloured = lines[i].plain.is_none();
                let run = if coloured {
                    lines[i..]
                        .iter()
                        .take_while(|l| l.plain.is_none() && l.language == language)
                        .count()
                } else {
                    1
                };
                let source = coloured.then(|| {
                    let code: Vec<&str> = lines[i..i + run].iter().map(Line::laid_code).collect();
                    highlighted_lines(ctx, &code.join("\n"), language)
                });
                for (k, line) in lines[i..i + run].iter().enumerate() {
                    if i + k > 0 {
                        job.append("\n", 0.0, plain(font, MUTED));
                    }
                    match (&line.plain, &source) {
                        (Some(format), _) => job.append(line.laid_code(), 0.0, format.clone()),
                        (None, Some((src, pieces))) => {
                            for (range, format) in pieces.get(k).into_iter().flatten() {
                                job.append(&src.text[range.clone()], 0.0, format.clone());
                            }
                        }
                        (None, None) => {}
                    }
                }
                i += run;
            }
            mark_hidden(&mut job);
            job
        })
    }

    /// The code galley at `width`, and the prefix column beside it (each line's prefix on the
    /// first row of its line).
    fn galleys(
        &mut self,
        ctx: &egui::Context,
        width: f32,
        font: &FontId,
    ) -> (Arc<Galley>, Arc<Galley>) {
        let ppp = ctx.pixels_per_point();
        match &self.galley {
            Some((w, p, code, prefixes)) if (w - width).abs() < 0.5 && *p == ppp => {
                (code.clone(), prefixes.clone())
            }
            _ => {
                let mut job = self.job(ctx, font).clone();
                job.wrap.max_width = width;
                let code = ctx.fonts_mut(|f| f.layout_job(job));
                let mut rows = vec![0usize; self.lines.len()];
                let mut line = 0;
                for row in &code.rows {
                    if let Some(n) = rows.get_mut(line) {
                        *n += 1;
                    }
                    if row.ends_with_newline {
                        line += 1;
                    }
                }
                let mut column = LayoutJob::default();
                for (i, l) in self.lines.iter().enumerate() {
                    for (text, format) in &l.prefix {
                        column.append(text, 0.0, format.clone());
                    }
                    if i + 1 < self.lines.len() {
                        column.append(&"\n".repeat(rows[i].max(1)), 0.0, plain(font, MUTED));
                    }
                }
                let prefixes = ctx.fonts_mut(|f| f.layout_job(column));
                self.galley = Some((width, ppp, code.clone(), prefixes.clone()));
                (code, prefixes)
            }
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, width: f32, gutter: f32, code_width: f32, font: &FontId) {
        let (code, prefixes) = self.galleys(ui.ctx(), code_width, font);
        let backdrop = ui.painter().add(Shape::Noop);
        let response = ui
            .horizontal_top(|ui| {
                ui.add_space(gutter);
                ui.add(egui::Label::new(code.clone()).selectable(true))
            })
            .inner;
        // Read as shown: each line with its number and mark.
        let text = self.text.clone();
        response.widget_info(move || egui::WidgetInfo::labeled(egui::Role::Label, true, &text));
        let left = response.rect.min.x - gutter;
        let origin = response.rect.min;
        let mut shapes = Vec::new();
        let mut line = 0;
        for row in &code.rows {
            let fill = match self.lines.get(line).map(|l| l.kind) {
                Some(Kind::Removed) => Some(REMOVED_FILL),
                Some(Kind::Added) => Some(ADDED_FILL),
                _ => None,
            };
            if let Some(fill) = fill {
                let r = row.rect().translate(origin.to_vec2());
                shapes.push(Shape::rect_filled(
                    Rect::from_x_y_ranges(left - 4.0..=left + width, r.y_range()),
                    0.0,
                    fill,
                ));
            }
            if row.ends_with_newline {
                line += 1;
            }
        }
        shapes.push(Shape::galley(
            egui::pos2(left, origin.y),
            prefixes,
            Color32::from_gray(200),
        ));
        ui.painter().set(backdrop, Shape::Vec(shapes));
    }
}

/// A hidden character written out (`‹U+202E›`) stands out from the code around it: amber on a
/// dark amber ground, in the job's own font.
fn mark_hidden(job: &mut LayoutJob) {
    let text = &job.text;
    let mut marks = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("‹U+") {
        let start = from + at;
        let Some(len) = text[start..].find('›') else {
            break;
        };
        let end = start + len + '›'.len_utf8();
        marks.push(start..end);
        from = end;
    }
    if marks.is_empty() {
        return;
    }
    let mut sections = Vec::with_capacity(job.sections.len() + 2 * marks.len());
    for s in job.sections.drain(..) {
        let (start, end) = (s.byte_range.start.0, s.byte_range.end.0);
        let range = |a: usize, b: usize| egui::text::ByteIndex(a)..egui::text::ByteIndex(b);
        let mut at = start;
        for m in marks.iter().filter(|m| m.start < end && m.end > start) {
            let (m_start, m_end) = (m.start.max(start), m.end.min(end));
            if m_start > at {
                sections.push(egui::text::LayoutSection {
                    byte_range: range(at, m_start),
                    ..s.clone()
                });
            }
            let mut format = s.format.clone();
            format.color = HIDDEN_MARK;
            format.background = HIDDEN_FILL;
            sections.push(egui::text::LayoutSection {
                leading_space: if m_start == start {
                    s.leading_space
                } else {
                    0.0
                },
                byte_range: range(m_start, m_end),
                format,
            });
            at = m_end;
        }
        if at < end {
            sections.push(egui::text::LayoutSection {
                leading_space: if at == start { s.leading_space } else { 0.0 },
                byte_range: range(at, end),
                ..s
            });
        }
    }
    job.sections = sections;
}

const HIDDEN_MARK: Color32 = Color32::from_rgb(0xF5, 0xA5, 0x24);
const HIDDEN_FILL: Color32 = Color32::from_rgb(0x4A, 0x36, 0x10);

/// The highlighter's language for a path, by its extension (`None`: plain text).
pub fn language_of(path: &str) -> &'static str {
    let ext = path
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "rs" => "rs",
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => "js",
        "json" | "jsonc" | "json5" => "json",
        "py" | "pyi" => "py",
        "sh" | "bash" | "zsh" => "sh",
        "sql" => "sql",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        _ => "",
    }
}

fn theme(font: &FontId) -> CodeTheme {
    let mut t = CodeTheme::dark(font.size);
    // Keywords red would read as "removed": violet; names light, as plain text.
    t.format_mut(TokenType::Keyword).color = Color32::from_rgb(0xC6, 0x8C, 0xF0);
    t.format_mut(TokenType::Literal).color = Color32::from_gray(225);
    t.format_mut(TokenType::Punctuation).color = Color32::from_gray(200);
    t.format_mut(TokenType::Comment).color = Color32::from_gray(140);
    t
}

fn mono(ctx: &egui::Context) -> FontId {
    egui::TextStyle::Monospace.resolve(&ctx.global_style())
}

/// A line of highlighted code: byte ranges of the highlighted job's text, and their format.
type Pieces = Vec<(Range<usize>, TextFormat)>;

/// Highlights `code` as `language` and returns, per line, the formatted byte ranges of it.
fn highlighted_lines(ctx: &egui::Context, code: &str, language: &str) -> (LayoutJob, Vec<Pieces>) {
    let font = mono(ctx);
    let job = if language.is_empty() {
        LayoutJob::simple(
            code.to_string(),
            font.clone(),
            Color32::from_gray(230),
            f32::INFINITY,
        )
    } else {
        highlight(ctx, &ctx.global_style(), &theme(&font), code, language)
    };
    let lines = split_lines(&job);
    (job, lines)
}

/// A job's text per line (without the `\n`), as formatted byte ranges of it.
fn split_lines(job: &LayoutJob) -> Vec<Pieces> {
    let mut lines = vec![Vec::new()];
    for s in &job.sections {
        let (from, to) = (s.byte_range.start.0, s.byte_range.end.0);
        let mut start = from;
        for (i, _) in job.text[from..to].match_indices('\n') {
            let end = from + i;
            if end > start {
                lines
                    .last_mut()
                    .expect("one line")
                    .push((start..end, s.format.clone()));
            }
            lines.push(Vec::new());
            start = end + 1;
        }
        if to > start {
            lines
                .last_mut()
                .expect("one line")
                .push((start..to, s.format.clone()));
        }
    }
    lines
}

fn plain(font: &FontId, color: Color32) -> TextFormat {
    TextFormat::simple(font.clone(), color)
}

/// A card's diff: for a patch (`headers`), a line per file saying what happens to it; `⋯`
/// between hunks; per line its numbers in the old and the new file (where the file was read;
/// a removed line has only the old, an added one only the new), `-`/`+` and the code.
pub fn diff(ctx: &egui::Context, files: &[FileDiff], headers: bool) -> Laid {
    let font = mono(ctx);
    let mut lines = Vec::new();
    // Two number columns, old and new, the same for every file (an added file's lines are in
    // the new one), each only where some line has a number in it.
    let column = |n: fn(&vults_engine::diff::Line) -> Option<usize>| {
        files
            .iter()
            .flat_map(|f| &f.hunks)
            .flat_map(|h| &h.lines)
            .filter_map(n)
            .max()
            .map(|n| n.to_string().len())
    };
    let (old_width, new_width) = (column(|l| l.old), column(|l| l.new));
    for f in files {
        let language = language_of(f.move_to.as_deref().unwrap_or(&f.path));
        if headers {
            let path = shown_code(&f.path);
            let mut what = match f.op {
                Op::Update => vults_i18n::tr!("card-diff-update", path = path),
                Op::Add => vults_i18n::tr!("card-diff-add", path = path),
                Op::Delete => vults_i18n::tr!("card-diff-delete", path = path),
            };
            if let Some(to) = &f.move_to {
                what.push_str(&format!(" → {}", shown_code(to)));
            }
            let color = match f.op {
                Op::Add => ADDED_MARK,
                Op::Delete => REMOVED_MARK,
                Op::Update => Color32::from_gray(235),
            };
            lines.push(Line {
                prefix: Vec::new(),
                code: what,
                language,
                plain: Some(TextFormat {
                    underline: egui::Stroke::new(1.0, MUTED),
                    ..plain(&font, color)
                }),
                kind: Kind::Plain,
                starts: Starts::File,
                laid: None,
            });
        }

        for (hi, h) in f.hunks.iter().enumerate() {
            // A file's first hunk comes with the file (its header, or the diff's first line).
            let mut starts = if hi > 0 {
                Starts::Hunk
            } else {
                Starts::Nothing
            };
            if hi > 0 || h.header.is_some() {
                lines.push(Line {
                    prefix: Vec::new(),
                    code: match &h.header {
                        Some(header) => format!("⋯ {}", shown_code(header)),
                        None => "⋯".to_string(),
                    },
                    language,
                    plain: Some(plain(&font, MUTED)),
                    kind: Kind::Plain,
                    starts: std::mem::take(&mut starts),
                    laid: None,
                });
            }
            for l in &h.lines {
                let (kind, mark_color) = match l.tag {
                    Tag::Context => (Kind::Plain, MUTED),
                    Tag::Removed => (Kind::Removed, REMOVED_MARK),
                    Tag::Added => (Kind::Added, ADDED_MARK),
                };
                let mut prefix = Vec::new();
                for (width, n) in [(old_width, l.old), (new_width, l.new)] {
                    if let Some(w) = width {
                        let n = n.map(|n| n.to_string()).unwrap_or_default();
                        prefix.push((format!("{n:>w$} "), plain(&font, MUTED)));
                    }
                }
                prefix.push((format!("{} ", l.tag.mark()), plain(&font, mark_color)));
                lines.push(Line {
                    prefix,
                    code: shown_code(&l.text),
                    language,
                    plain: None,
                    kind,
                    starts: std::mem::take(&mut starts),
                    laid: None,
                });
            }
        }
    }
    Laid::new(lines, font)
}

/// Text (file content, old or new text) with colour for `language`.
pub fn text(ctx: &egui::Context, code: &str, language: &'static str) -> Laid {
    let lines = code
        .split('\n')
        .map(|l| Line {
            prefix: Vec::new(),
            // A Windows line end ends the line; a carriage return elsewhere is shown.
            code: shown_code(l.strip_suffix('\r').unwrap_or(l)),
            language,
            plain: None,
            kind: Kind::Plain,
            starts: Starts::Nothing,
            laid: None,
        })
        .collect();
    Laid::new(lines, mono(ctx))
}

/// A shell command: coloured, its long lines wrapped at operators with [`CONTINUATION`] marks.
pub fn command(ctx: &egui::Context, command: &str) -> Laid {
    let font = mono(ctx);
    let lines = command_lines(command)
        .into_iter()
        .map(|(continued, line)| Line {
            prefix: if continued {
                vec![(
                    CONTINUATION.to_string(),
                    plain(&font, Color32::from_rgb(0x7C, 0xA8, 0xE0)),
                )]
            } else {
                Vec::new()
            },
            laid: glued_operator(&shown_code(&line)),
            code: shown_code(&line),
            language: "sh",
            plain: None,
            kind: Kind::Plain,
            starts: Starts::Nothing,
        })
        .collect();
    Laid::new(lines, font)
}

/// A command line that ends with an operator (`&&`, `||`, `|`, `;` …) with the blank before it
/// made non-breaking, so a row that wraps never leaves the operator alone on a row of its own.
fn glued_operator(line: &str) -> Option<String> {
    let body = line.trim_end();
    let op = ["&&", "||", "|&", ";;", "|", ";"]
        .into_iter()
        .find(|op| body.ends_with(op))?;
    let before = &body[..body.len() - op.len()];
    let word = before.strip_suffix(' ')?;
    Some(format!("{word}\u{a0}{}", &line[before.len()..]))
}

/// The lines a command is shown as: each line of it, and a line longer than [`WRAP_AT`]
/// characters cut after each `&&`, `||`, `;` and `|` outside quotes, `$(…)` and `(…)` (the
/// following blanks dropped at the cut). `true` marks a continuation. Joining the pieces of a
/// cut line with the dropped blanks gives the line back exactly.
pub fn command_lines(command: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    for line in command.split('\n') {
        let long = line.chars().count() > WRAP_AT;
        let mut piece_start = 0;
        let mut cuts = Vec::new();
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            let (at, c) = chars[i];
            match (quote, c) {
                (Some('\''), '\'') => quote = None,
                (Some('\''), _) => {}
                (_, '\\') => i += 1,
                (Some('"'), '"') => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(') => depth += 1,
                (None, ')') => depth = depth.saturating_sub(1),
                (None, '&' | '|' | ';') if depth == 0 => {
                    let next = chars.get(i + 1).map(|(_, c)| *c);
                    let op_len = match (c, next) {
                        ('&', Some('&')) | ('|', Some('|')) | (';', Some(';')) => 2,
                        ('&', _) => 0, // a background `&` or a redirection `>&`
                        ('|', Some('&')) => 2,
                        _ => 1,
                    };
                    let prev = i.checked_sub(1).map(|p| chars[p].1);
                    if op_len > 0 && prev != Some('>') && prev != Some('<') {
                        cuts.push(at + op_len);
                        i += op_len - 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        if !long || cuts.is_empty() {
            out.push((false, line.to_string()));
            continue;
        }
        for cut in cuts {
            if line[cut..].trim().is_empty() {
                break;
            }
            out.push((piece_start > 0, line[piece_start..cut].to_string()));
            piece_start = cut + (line[cut..].len() - line[cut..].trim_start().len());
        }
        out.push((piece_start > 0, line[piece_start..].to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(command: &str) -> Vec<String> {
        command_lines(command)
            .into_iter()
            .map(|(c, l)| if c { format!("↳{l}") } else { l })
            .collect()
    }

    #[test]
    fn a_long_chain_wraps_at_each_operator_outside_quotes() {
        let cmd = "cargo build --release && cargo test --workspace || echo 'a && b; c | d' ; git push origin main | tee log";
        assert_eq!(
            shown(cmd),
            vec![
                "cargo build --release &&",
                "↳cargo test --workspace ||",
                "↳echo 'a && b; c | d' ;",
                "↳git push origin main |",
                "↳tee log",
            ]
        );
    }

    #[test]
    fn short_commands_subshells_and_redirections_stay_whole() {
        assert_eq!(shown("make && make test"), vec!["make && make test"]);
        let cmd = "x=$(git rev-parse HEAD && git describe --tags) ; cargo run 2>&1 >/dev/null &";
        assert_eq!(
            shown(cmd),
            vec![
                "x=$(git rev-parse HEAD && git describe --tags) ;",
                "↳cargo run 2>&1 >/dev/null &"
            ]
        );
        let escaped = "echo \"a \\\" && b is one string that goes on and on and on and on\" && ls";
        assert_eq!(shown(escaped).len(), 2);
    }

    #[test]
    fn the_pieces_rejoin_to_the_exact_command() {
        let cmd = "a   &&   b --with-a-long-flag-name-here --and-another-one-here ||c;d|e";
        let lines = command_lines(cmd);
        let rebuilt: String = lines
            .iter()
            .map(|(_, l)| l.as_str())
            .collect::<Vec<_>>()
            .join("");
        assert_eq!(rebuilt.replace(' ', ""), cmd.replace(' ', ""));
        assert!(lines.iter().all(|(_, l)| cmd.contains(l.as_str())));
    }

    #[test]
    fn a_long_diff_is_laid_out_only_where_it_is_in_view() {
        let before: String = (1..=2000).map(|i| format!("let a{i} = {i};\n")).collect();
        let after: String = (1..=2000).map(|i| format!("let b{i} = {i};\n")).collect();
        let files = vec![FileDiff {
            path: "a.rs".into(),
            op: Op::Update,
            move_to: None,
            hunks: vults_engine::diff::file_hunks(&before, &after),
        }];
        let ctx = egui::Context::default();
        let mut laid = None;
        for _ in 0..2 {
            let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
                let l = laid.get_or_insert_with(|| diff(ui.ctx(), &files, false));
                egui::ScrollArea::vertical()
                    .max_height(220.0)
                    .show(ui, |ui| l.ui(ui));
            });
            out.textures_delta.clear();
        }
        let laid = laid.expect("laid out");
        assert_eq!(laid.chunks.len(), 4000 / CHUNK_LINES + 1);
        assert!(
            laid.chunks.iter().filter(|c| c.job.is_some()).count() <= 2,
            "coloured only in view"
        );
        assert!(laid.laid_out() <= 2, "{} pieces laid out", laid.laid_out());
        // Every line is in the text all the same.
        for i in [1, 1000, 2000] {
            assert!(laid.text().contains(&format!("- let a{i} = {i};")));
            assert!(laid.text().contains(&format!("+ let b{i} = {i};")));
        }
    }

    /// Issue 21: a lone `&&` wrapped onto a row of its own.
    #[test]
    fn an_operator_at_the_end_of_a_line_stays_with_its_last_word() {
        assert_eq!(
            glued_operator("cargo clippy -- -D warnings &&").as_deref(),
            Some("cargo clippy -- -D warnings\u{a0}&&")
        );
        assert_eq!(
            glued_operator("tee log |").as_deref(),
            Some("tee log\u{a0}|")
        );
        assert_eq!(glued_operator("a;"), None, "no blank before it");
        assert_eq!(glued_operator("echo done"), None);
        // Laid out where the operator would just not fit, it ends the row of its word.
        let ctx = egui::Context::default();
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            let line = "cargo clippy --workspace --all-targets -- -D warnings &&";
            let mut laid = command(ui.ctx(), &format!("{line} cargo test --workspace"));
            let font = mono(ui.ctx());
            let width = ui.fonts_mut(|f| f.glyph_width(&font, 'x')) * 54.5;
            let (code, _) = laid.chunks[0].galleys(ui.ctx(), width, &font);
            let rows: Vec<String> = code.rows.iter().map(|r| r.text()).collect();
            assert!(rows.len() > 2, "{rows:?}");
            assert!(rows.iter().all(|r| r.trim() != "&&"), "{rows:?}");
            // What is read and copied has the plain blank.
            assert!(laid.text().contains("warnings &&"));
        });
        out.textures_delta.clear();
    }

    #[test]
    fn languages_by_extension() {
        assert_eq!(language_of("/a/b.RS"), "rs");
        assert_eq!(language_of("x.tsx"), "js");
        assert_eq!(language_of("Makefile"), "");
    }
}
