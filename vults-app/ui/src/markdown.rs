//! Markdown as a plan card reads it: headings, paragraphs, lists (nested, numbered, task
//! boxes), block quotes, code blocks and inline code, emphasis, strike-through, tables as rows
//! of cells. Parsed once ([`Blocks::parse`], pulldown-cmark) into laid-out blocks drawn each
//! frame ([`Blocks::ui`]).
//!
//! It only ever draws text: HTML shows as its source, a link as its words with the address
//! after them (never clickable: a plan is an agent's text), an image as `[image: alt]` and its
//! address (nothing is loaded). The caller reveals hidden characters first.

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, RichText};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

const TEXT: Color32 = Color32::from_gray(225);
const MUTED: Color32 = Color32::from_gray(150);
const CODE_TEXT: Color32 = Color32::from_gray(235);
const CODE_BG: Color32 = Color32::from_gray(14);
const INLINE_CODE_BG: Color32 = Color32::from_gray(48);
const BODY: f32 = 13.5;
/// How far each list level and quote is indented, in points.
const INDENT: f32 = 16.0;

/// One drawn block.
#[derive(Debug, Clone)]
enum Block {
    /// A heading, a paragraph, a list item or a table row: styled runs of text.
    Text {
        job: LayoutJob,
        indent: f32,
        /// Space above it (a heading gets more).
        above: f32,
    },
    /// A fenced or indented code block, as written.
    Code { text: String, indent: f32 },
    /// A thematic break.
    Rule,
}

/// A markdown text laid out for drawing.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    blocks: Vec<Block>,
}

/// The inline style in force.
#[derive(Debug, Default)]
struct Style {
    strong: u32,
    emphasis: u32,
    strike: u32,
    link: u32,
    heading: Option<HeadingLevel>,
    quote: u32,
}

/// What the parser's events are turned into, as they come.
struct Builder {
    out: Vec<Block>,
    job: LayoutJob,
    style: Style,
    /// Each open list: the next number of a numbered one.
    lists: Vec<Option<u64>>,
    /// The text of the code block being read.
    code: Option<String>,
    /// The addresses of the links and images being read, shown after their words.
    links: Vec<String>,
    /// The next block follows a heading or starts the text.
    above: f32,
    /// A table cell was written on this row already.
    cell_open: bool,
}

impl Blocks {
    /// Lays `markdown` out.
    pub fn parse(markdown: &str) -> Blocks {
        let options =
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
        let mut b = Builder {
            out: Vec::new(),
            job: LayoutJob::default(),
            style: Style::default(),
            lists: Vec::new(),
            code: None,
            links: Vec::new(),
            above: 0.0,
            cell_open: false,
        };
        for event in Parser::new_ext(markdown, options) {
            b.event(event);
        }
        b.flush();
        Blocks { blocks: b.out }
    }

    /// Draws the blocks, one under the other, each wrapped to the width there is.
    pub fn ui(&self, ui: &mut egui::Ui) {
        for block in &self.blocks {
            match block {
                Block::Text { job, indent, above } => {
                    ui.add_space(*above);
                    indented(ui, *indent, |ui| {
                        let mut job = job.clone();
                        job.wrap.max_width = ui.available_width();
                        ui.add(egui::Label::new(job).wrap().selectable(true));
                    });
                }
                Block::Code { text, indent } => {
                    ui.add_space(2.0);
                    indented(ui, *indent, |ui| {
                        egui::Frame::new()
                            .fill(CODE_BG)
                            .corner_radius(4)
                            .inner_margin(egui::Margin::same(6))
                            .show(ui, |ui| {
                                ui.set_width(ui.available_width());
                                ui.add(
                                    egui::Label::new(
                                        RichText::new(text).monospace().color(CODE_TEXT),
                                    )
                                    .wrap()
                                    .selectable(true),
                                );
                            });
                    });
                    ui.add_space(2.0);
                }
                Block::Rule => {
                    ui.separator();
                }
            }
        }
    }
}

fn indented(ui: &mut egui::Ui, indent: f32, add: impl FnOnce(&mut egui::Ui)) {
    if indent <= 0.0 {
        add(ui);
        return;
    }
    egui::Frame::new()
        .inner_margin(egui::Margin {
            left: indent as i8,
            ..Default::default()
        })
        .show(ui, add);
}

impl Builder {
    fn indent(&self) -> f32 {
        (self.lists.len().saturating_sub(1) as f32 + self.style.quote as f32) * INDENT
    }

    /// Ends the block being written, if it has any text.
    fn flush(&mut self) {
        let job = std::mem::take(&mut self.job);
        if job.text.trim().is_empty() {
            return;
        }
        self.out.push(Block::Text {
            job,
            indent: self.indent(),
            above: std::mem::take(&mut self.above),
        });
    }

    fn format(&self, code: bool) -> TextFormat {
        let size = match self.style.heading {
            Some(HeadingLevel::H1) => 19.0,
            Some(HeadingLevel::H2) => 16.5,
            Some(_) => 14.5,
            None => BODY,
        };
        let font = if code {
            FontId::monospace(size - 1.0)
        } else {
            FontId::proportional(size)
        };
        let bold = self.style.strong > 0 || self.style.heading.is_some();
        let color = if self.style.quote > 0 {
            MUTED
        } else if bold {
            Color32::WHITE
        } else {
            TEXT
        };
        let line = egui::Stroke::new(1.0, color);
        TextFormat {
            font_id: font,
            color,
            italics: self.style.emphasis > 0,
            underline: if self.style.link > 0 {
                line
            } else {
                egui::Stroke::NONE
            },
            strikethrough: if self.style.strike > 0 {
                line
            } else {
                egui::Stroke::NONE
            },
            background: if code {
                INLINE_CODE_BG
            } else {
                Color32::TRANSPARENT
            },
            ..Default::default()
        }
    }

    fn text(&mut self, text: &str, code: bool) {
        let format = self.format(code);
        self.job.append(text, 0.0, format);
    }

    fn muted(&mut self, text: &str) {
        let mut format = self.format(false);
        format.color = MUTED;
        format.underline = egui::Stroke::NONE;
        self.job.append(text, 0.0, format);
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some(code) = &mut self.code {
            match event {
                Event::Text(t) => code.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let text = self.code.take().unwrap_or_default();
                    let text = text.trim_end_matches('\n').to_string();
                    let indent = self.indent();
                    self.out.push(Block::Code { text, indent });
                }
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t, false),
            Event::Code(t) => self.text(&t, true),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t, true),
            // Shown as written, never interpreted.
            Event::Html(t) | Event::InlineHtml(t) => self.text(&t, true),
            Event::FootnoteReference(t) => self.muted(&format!("[{t}]")),
            Event::SoftBreak => self.text(" ", false),
            Event::HardBreak => self.text("\n", false),
            Event::Rule => {
                self.flush();
                self.out.push(Block::Rule);
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }, true),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                // A paragraph inside a list item goes on with the item's marker.
                if !self.lists.is_empty() && !self.job.text.is_empty() && self.ends_in_marker() {
                    return;
                }
                self.flush();
            }
            Tag::Heading { level, .. } => {
                self.flush();
                self.style.heading = Some(level);
                self.above = if self.out.is_empty() { 0.0 } else { 8.0 };
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.style.quote += 1;
            }
            Tag::CodeBlock(_) => {
                self.flush();
                self.code = Some(String::new());
            }
            Tag::HtmlBlock => self.flush(),
            Tag::List(first) => {
                self.flush();
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ if depth > 1 => "- ".to_string(),
                    _ => "• ".to_string(),
                };
                self.text(&marker, false);
            }
            Tag::Table(_) | Tag::TableHead | Tag::TableRow => {
                self.flush();
                self.cell_open = false;
            }
            Tag::TableCell => {
                if self.cell_open {
                    self.muted(" │ ");
                }
                self.cell_open = true;
            }
            Tag::Emphasis => self.style.emphasis += 1,
            Tag::Strong => self.style.strong += 1,
            Tag::Strikethrough => self.style.strike += 1,
            Tag::Link { dest_url, .. } => {
                self.style.link += 1;
                self.links.push(dest_url.to_string());
            }
            Tag::Image { dest_url, .. } => {
                self.muted("[image: ");
                self.links.push(dest_url.to_string());
            }
            Tag::FootnoteDefinition(name) => {
                self.flush();
                self.muted(&format!("[{name}] "));
            }
            Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.flush(),
            Tag::Superscript | Tag::Subscript => {}
        }
    }

    /// Whether the text so far is only a list item's marker.
    fn ends_in_marker(&self) -> bool {
        let t = self.job.text.trim_end();
        t == "•"
            || t == "-"
            || (t.ends_with('.') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit()))
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Item | TagEnd::TableHead | TagEnd::TableRow => self.flush(),
            TagEnd::Heading(_) => {
                self.flush();
                self.style.heading = None;
                self.above = 2.0;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.style.quote = self.style.quote.saturating_sub(1);
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
            }
            TagEnd::Emphasis => self.style.emphasis = self.style.emphasis.saturating_sub(1),
            TagEnd::Strong => self.style.strong = self.style.strong.saturating_sub(1),
            TagEnd::Strikethrough => self.style.strike = self.style.strike.saturating_sub(1),
            TagEnd::Link => {
                self.style.link = self.style.link.saturating_sub(1);
                if let Some(url) = self.links.pop() {
                    self.muted(&format!(" ({url})"));
                }
            }
            TagEnd::Image => {
                let url = self.links.pop().unwrap_or_default();
                self.muted(&format!("] ({url})"));
            }
            TagEnd::TableCell | TagEnd::Superscript | TagEnd::Subscript => {}
            _ => self.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(md: &str) -> Vec<String> {
        Blocks::parse(md)
            .blocks
            .iter()
            .map(|b| match b {
                Block::Text { job, indent, .. } => format!("{}|{}", indent, job.text),
                Block::Code { text, indent } => format!("{indent}|code:{text}"),
                Block::Rule => "rule".into(),
            })
            .collect()
    }

    #[test]
    fn headings_lists_and_code_are_drawn_not_shown_as_source() {
        let md = "# Plan\n\nWrite **it**, then `check`.\n\n1. one\n2. two\n   - a\n   - b\n\n```sh\ntest -s m && echo ok\n```\n\n---\n> quoted\n";
        assert_eq!(
            texts(md),
            [
                "0|Plan",
                "0|Write it, then check.",
                "0|1. one",
                "0|2. two",
                "16|- a",
                "16|- b",
                "0|code:test -s m && echo ok",
                "rule",
                "16|quoted",
            ]
        );
    }

    #[test]
    fn links_images_and_html_show_what_they_are_and_load_nothing() {
        assert_eq!(
            texts("See [the docs](https://evil.example/x) ![logo](file:///etc/passwd) <b>hi</b>"),
            [
                "0|See the docs (https://evil.example/x) [image: logo] (file:///etc/passwd) <b>hi</b>"
            ]
        );
        assert_eq!(
            texts("- [x] done\n- [ ] not yet\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
            ["0|• [x] done", "0|• [ ] not yet", "0|a │ b", "0|1 │ 2"]
        );
    }

    #[test]
    fn a_loose_list_keeps_its_marker_on_the_item_text() {
        assert_eq!(
            texts("1. first\n\n2. second\n"),
            ["0|1. first", "0|2. second"]
        );
    }
}
