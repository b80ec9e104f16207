//! The shell parser the destructive-call classifier reads commands with.
//!
//! [`parse`] reads a command line as a POSIX shell would split it — quotes, escapes, `&&`,
//! `||`, `;`, `|`, `&`, newlines, redirections, here-documents and here-strings, `$(…)`,
//! backticks and process substitution, `( … )` subshells — into a [`Script`] of pipelines of
//! [`Simple`] commands. It does not expand anything: `$HOME` stays `$HOME`, and a word that
//! starts with an expansion is marked so. What it cannot read (`case`, functions, unbalanced
//! quotes, nesting deeper than [`MAX_DEPTH`]) is an error, never a guess.
//!
//! [`head`] then finds the program a simple command runs behind its wrappers (`env VAR=…`,
//! `timeout N`, `nohup`, `nice`, `xargs`, `command`, `exec`, `time`, `npx`, absolute program
//! paths), or the script it hands to another shell (`eval`, `env -S`, `watch`, `ssh host …`,
//! `powershell -Command`, `cmd /c`).
//!
//! Nothing here decides anything; [`crate::destructive`] does.

/// Commands nest deeper than this (`bash -c "sh -c '…'"`, `$( $( … ) )`) are not read.
pub(crate) const MAX_DEPTH: usize = 12;
/// Wrappers stacked deeper than this on one command (`nice nohup env timeout …`) are not read.
const MAX_WRAPPERS: usize = 32;

/// One shell word after quote removal. Expansions stay as written (`$HOME`), since their
/// values are not known; command substitutions inside the word are parsed into `substs`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Word {
    pub(crate) text: String,
    /// Any part was quoted or escaped (a quoted here-document delimiter disables expansion).
    pub(crate) quoted: bool,
    /// The word starts with an expansion: its value is only known at run time.
    pub(crate) leading_expansion: bool,
    /// `$(…)`, backticks, `<(…)`, `>(…)` inside the word.
    pub(crate) substs: Vec<Script>,
}

impl Word {
    /// Whether the word is exactly `s` after quote removal.
    pub(crate) fn is(&self, s: &str) -> bool {
        self.text == s
    }
}

/// A simple command: words, redirections, here-documents; or a `( … )` subshell.
#[derive(Debug, Default, Clone)]
pub(crate) struct Simple {
    pub(crate) words: Vec<Word>,
    /// Targets of output redirections (`>`, `>>`, `&>`, `>|`, `<>`, `>& file`).
    pub(crate) out_targets: Vec<Word>,
    /// The texts of the output targets that are emptied first (`>`, `>|`, `&>`, `>& file`;
    /// not `>>`, `&>>` or `<>`). Also in `out_targets`.
    pub(crate) truncated: Vec<String>,
    /// Targets of input redirections (their substitutions still run).
    pub(crate) in_targets: Vec<Word>,
    /// What the command reads on stdin from here-documents and here-strings.
    pub(crate) stdin: Vec<Word>,
    /// Indexes into the parser's here-documents, filled when their bodies are read.
    pub(crate) heredoc_ids: Vec<usize>,
    /// A `( … )` subshell in place of words.
    pub(crate) subshell: Option<Box<Script>>,
}

impl Simple {
    fn is_empty(&self) -> bool {
        self.words.is_empty()
            && self.out_targets.is_empty()
            && self.in_targets.is_empty()
            && self.heredoc_ids.is_empty()
            && self.stdin.is_empty()
            && self.subshell.is_none()
    }
}

/// Pipelines (commands joined by `|`) separated by `;`, `&&`, `||`, `&` or newlines.
#[derive(Debug, Default, Clone)]
pub(crate) struct Script {
    pub(crate) pipelines: Vec<Vec<Simple>>,
}

struct HereDoc {
    delimiter: String,
    strip_tabs: bool,
    expand: bool,
    body: Option<Word>,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    heredocs: Vec<HereDoc>,
    /// Here-documents whose bodies start at the next newline.
    pending: Vec<usize>,
    depth: usize,
}

/// A parse error carries nothing: the command is simply not readable.
pub(crate) type PResult<T> = Result<T, ()>;

/// Reads a whole command line.
pub(crate) fn parse(text: &str) -> PResult<Script> {
    parse_nested(text, 0)
}

/// Reads a command line found `depth` levels inside another one.
pub(crate) fn parse_nested(text: &str, depth: usize) -> PResult<Script> {
    if depth > MAX_DEPTH {
        return Err(());
    }
    let mut p = Parser {
        chars: text.chars().collect(),
        pos: 0,
        heredocs: Vec::new(),
        pending: Vec::new(),
        depth,
    };
    let mut script = p.script(None)?;
    if !p.pending.is_empty() {
        // A here-document whose body never came.
        return Err(());
    }
    let mut bodies: Vec<Option<Word>> = p.heredocs.into_iter().map(|h| h.body).collect();
    attach_heredocs(&mut script, &mut bodies)?;
    Ok(script)
}

fn attach_heredocs(script: &mut Script, bodies: &mut [Option<Word>]) -> PResult<()> {
    for pipeline in &mut script.pipelines {
        for simple in pipeline {
            for &id in &simple.heredoc_ids {
                let body = bodies.get_mut(id).and_then(Option::take).ok_or(())?;
                simple.stdin.push(body);
            }
            simple.heredoc_ids.clear();
            if let Some(sub) = simple.subshell.as_mut() {
                attach_heredocs(sub, bodies)?;
            }
            for word in simple
                .words
                .iter_mut()
                .chain(simple.out_targets.iter_mut())
                .chain(simple.in_targets.iter_mut())
                .chain(simple.stdin.iter_mut())
            {
                for sub in &mut word.substs {
                    attach_heredocs(sub, bodies)?;
                }
            }
        }
    }
    Ok(())
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\r'
}

fn ends_word(c: char) -> bool {
    is_blank(c) || matches!(c, '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')')
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }

    fn eat(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        if self.chars.len() >= self.pos + n
            && s.chars().zip(&self.chars[self.pos..]).all(|(a, b)| a == *b)
        {
            self.pos += n;
            true
        } else {
            false
        }
    }

    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(c) if is_blank(c) => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    /// Reads commands until the end of input, or until the `)` closing a `$(` / `(` when
    /// `closing` is set.
    fn script(&mut self, closing: Option<char>) -> PResult<Script> {
        let mut script = Script::default();
        let mut pipeline: Vec<Simple> = Vec::new();
        let mut cmd = Simple::default();
        // After `|`, `&&` or `||` a command must follow (a newline may come first).
        let mut dangling = false;

        fn end_command(pipeline: &mut Vec<Simple>, cmd: &mut Simple) {
            let c = std::mem::take(cmd);
            if !c.is_empty() {
                pipeline.push(c);
            }
        }
        fn end_pipeline(script: &mut Script, pipeline: &mut Vec<Simple>, cmd: &mut Simple) {
            end_command(pipeline, cmd);
            let p = std::mem::take(pipeline);
            if !p.is_empty() {
                script.pipelines.push(p);
            }
        }

        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else {
                if closing.is_some() || dangling {
                    return Err(());
                }
                end_pipeline(&mut script, &mut pipeline, &mut cmd);
                return Ok(script);
            };
            match c {
                '#' => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                '\n' => {
                    self.pos += 1;
                    self.read_heredoc_bodies()?;
                    // A newline after `|`, `&&` or `||` continues the pipeline or list.
                    if !dangling {
                        end_pipeline(&mut script, &mut pipeline, &mut cmd);
                    }
                }
                ';' | '&' | '|' | ')' if dangling => return Err(()),
                ';' => {
                    if self.peek_at(1) == Some(';') {
                        // `;;` only appears in `case`, which this parser does not read.
                        return Err(());
                    }
                    self.pos += 1;
                    end_pipeline(&mut script, &mut pipeline, &mut cmd);
                }
                '&' => {
                    if self.eat("&&") {
                        if cmd.is_empty() {
                            return Err(());
                        }
                        end_pipeline(&mut script, &mut pipeline, &mut cmd);
                        dangling = true;
                    } else if self.peek_at(1) == Some('>') {
                        self.pos += 1;
                        let append = self.eat(">>");
                        if !append {
                            self.pos += 1;
                        }
                        let target = self.redirect_target()?;
                        if !append {
                            cmd.truncated.push(target.text.clone());
                        }
                        cmd.out_targets.push(target);
                    } else {
                        self.pos += 1;
                        end_pipeline(&mut script, &mut pipeline, &mut cmd);
                    }
                }
                '|' => {
                    if self.eat("||") {
                        if cmd.is_empty() {
                            return Err(());
                        }
                        end_pipeline(&mut script, &mut pipeline, &mut cmd);
                    } else {
                        self.pos += 1;
                        self.eat("&");
                        if cmd.is_empty() {
                            return Err(());
                        }
                        end_command(&mut pipeline, &mut cmd);
                    }
                    dangling = true;
                }
                ')' => {
                    if closing == Some(')') {
                        self.pos += 1;
                        end_pipeline(&mut script, &mut pipeline, &mut cmd);
                        return Ok(script);
                    }
                    return Err(());
                }
                '(' => {
                    // A subshell at the start of a command; anywhere else (`f() {…}`, `a(b`)
                    // it is syntax this parser does not read.
                    if !cmd.is_empty() || self.depth >= MAX_DEPTH {
                        return Err(());
                    }
                    self.pos += 1;
                    self.depth += 1;
                    let inner = self.script(Some(')'))?;
                    self.depth -= 1;
                    cmd.subshell = Some(Box::new(inner));
                }
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    let w = self.word()?;
                    cmd.words.push(w);
                }
                '<' | '>' => self.redirect(&mut cmd)?,
                d if d.is_ascii_digit() && self.fd_redirect_follows() => {
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.pos += 1;
                    }
                    self.redirect(&mut cmd)?;
                }
                _ => {
                    if cmd.subshell.is_some() {
                        // `( … ) word` is a syntax error in sh.
                        return Err(());
                    }
                    let w = self.word()?;
                    cmd.words.push(w);
                }
            }
            if !cmd.is_empty() {
                dangling = false;
            }
        }
    }

    fn fd_redirect_follows(&self) -> bool {
        let mut i = self.pos;
        while self.chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        matches!(self.chars.get(i), Some('<' | '>')) && self.chars.get(i + 1) != Some(&'(')
    }

    /// A redirection operator at `pos` (its fd already read) and its target.
    fn redirect(&mut self, cmd: &mut Simple) -> PResult<()> {
        if self.eat("<<<") {
            let w = self.redirect_target()?;
            cmd.stdin.push(w);
        } else if self.eat("<<") {
            let strip_tabs = self.eat("-");
            let delim = self.redirect_target()?;
            if !delim.substs.is_empty() {
                return Err(());
            }
            let id = self.heredocs.len();
            self.heredocs.push(HereDoc {
                delimiter: delim.text,
                strip_tabs,
                expand: !delim.quoted,
                body: None,
            });
            self.pending.push(id);
            cmd.heredoc_ids.push(id);
        } else if self.eat("<>") {
            let w = self.redirect_target()?;
            cmd.out_targets.push(w);
        } else if self.eat("<&") || self.eat("<") {
            let w = self.redirect_target()?;
            cmd.in_targets.push(w);
        } else if self.eat(">&") {
            let w = self.redirect_target()?;
            // `2>&1`, `>&-`: a descriptor, not a file.
            if !(w.text == "-" || w.text.chars().all(|c| c.is_ascii_digit())) {
                cmd.truncated.push(w.text.clone());
                cmd.out_targets.push(w);
            }
        } else if self.eat(">>") {
            let w = self.redirect_target()?;
            cmd.out_targets.push(w);
        } else if self.eat(">|") || self.eat(">") {
            let w = self.redirect_target()?;
            cmd.truncated.push(w.text.clone());
            cmd.out_targets.push(w);
        } else {
            return Err(());
        }
        Ok(())
    }

    fn redirect_target(&mut self) -> PResult<Word> {
        self.skip_blanks();
        match self.peek() {
            Some(c) if !ends_word(c) => self.word(),
            Some('<' | '>') if self.peek_at(1) == Some('(') => self.word(),
            _ => Err(()),
        }
    }

    /// Bodies of pending here-documents, right after the newline that ends their command.
    fn read_heredoc_bodies(&mut self) -> PResult<()> {
        for id in std::mem::take(&mut self.pending) {
            let (delimiter, strip_tabs, expand) = {
                let h = &self.heredocs[id];
                (h.delimiter.clone(), h.strip_tabs, h.expand)
            };
            let mut body = String::new();
            let mut closed = false;
            while self.pos < self.chars.len() {
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                self.eat("\n");
                let line = if strip_tabs {
                    line.trim_start_matches('\t').to_string()
                } else {
                    line
                };
                if line == delimiter || line.trim_end_matches('\r') == delimiter {
                    closed = true;
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if !closed {
                return Err(());
            }
            let word = if expand {
                // An unquoted delimiter: `$(…)` and backticks in the body run.
                let mut inner = Parser {
                    chars: body.chars().collect(),
                    pos: 0,
                    heredocs: Vec::new(),
                    pending: Vec::new(),
                    depth: self.depth + 1,
                };
                let mut w = Word::default();
                inner.double_quoted(&mut w, None)?;
                if !inner.pending.is_empty() {
                    return Err(());
                }
                let mut bodies: Vec<Option<Word>> =
                    inner.heredocs.into_iter().map(|h| h.body).collect();
                for sub in &mut w.substs {
                    attach_heredocs(sub, &mut bodies)?;
                }
                w
            } else {
                Word {
                    text: body,
                    quoted: true,
                    ..Word::default()
                }
            };
            self.heredocs[id].body = Some(word);
        }
        Ok(())
    }

    /// One word, up to a blank or an operator.
    fn word(&mut self) -> PResult<Word> {
        let mut w = Word::default();
        while let Some(c) = self.peek() {
            match c {
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    self.pos += 2;
                    let sub = self.nested_script()?;
                    self.expansion(&mut w, "<(…)");
                    w.substs.push(sub);
                }
                c if ends_word(c) => break,
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(c) => {
                            w.text.push(c);
                            w.quoted = true;
                            self.pos += 1;
                        }
                        None => w.text.push('\\'),
                    }
                }
                '\'' => {
                    self.pos += 1;
                    w.quoted = true;
                    loop {
                        match self.peek() {
                            None => return Err(()),
                            Some('\'') => {
                                self.pos += 1;
                                break;
                            }
                            Some(c) => {
                                w.text.push(c);
                                self.pos += 1;
                            }
                        }
                    }
                }
                '"' => {
                    self.pos += 1;
                    w.quoted = true;
                    self.double_quoted(&mut w, Some('"'))?;
                }
                '$' if self.peek_at(1) == Some('\'') => {
                    self.pos += 2;
                    w.quoted = true;
                    self.ansi_c(&mut w)?;
                }
                '$' if self.peek_at(1) == Some('"') => {
                    self.pos += 2;
                    w.quoted = true;
                    self.double_quoted(&mut w, Some('"'))?;
                }
                '$' => self.dollar(&mut w)?,
                '`' => self.backtick(&mut w)?,
                _ => {
                    w.text.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(w)
    }

    /// An expansion in `w`: with nothing literal before it, the word's start (a program's
    /// name, say) is only known at run time.
    fn expansion(&self, w: &mut Word, shown: &str) {
        if w.text.is_empty() {
            w.leading_expansion = true;
        }
        w.text.push_str(shown);
    }

    /// `$…` at `pos`: a substitution, arithmetic, a parameter, or a plain `$`.
    fn dollar(&mut self, w: &mut Word) -> PResult<()> {
        if self.eat("$((") {
            // Arithmetic: read to the matching `))`; it runs no command of its own.
            let mut depth = 2usize;
            while depth > 0 {
                match self.peek() {
                    None => return Err(()),
                    Some('(') => depth += 1,
                    Some(')') => depth -= 1,
                    _ => {}
                }
                self.pos += 1;
            }
            self.expansion(w, "$((…))");
        } else if self.eat("$(") {
            let sub = self.nested_script()?;
            self.expansion(w, "$(…)");
            w.substs.push(sub);
        } else if self.eat("${") {
            if self.depth >= MAX_DEPTH {
                return Err(());
            }
            self.depth += 1;
            let mut inner = Word::default();
            let read = self.double_quoted(&mut inner, Some('}'));
            self.depth -= 1;
            read?;
            w.substs.extend(inner.substs);
            self.expansion(w, &format!("${{{}}}", inner.text));
        } else {
            self.pos += 1;
            let name_start = self.pos;
            match self.peek() {
                Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        self.pos += 1;
                    }
                }
                Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => self.pos += 1,
                _ => {
                    w.text.push('$');
                    return Ok(());
                }
            }
            let name: String = self.chars[name_start..self.pos].iter().collect();
            self.expansion(w, &format!("${name}"));
        }
        Ok(())
    }

    /// The script inside `$(…)` / `<(…)`, up to its `)`.
    fn nested_script(&mut self) -> PResult<Script> {
        if self.depth >= MAX_DEPTH {
            return Err(());
        }
        self.depth += 1;
        let s = self.script(Some(')'));
        self.depth -= 1;
        s
    }

    fn backtick(&mut self, w: &mut Word) -> PResult<()> {
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.peek() {
                None => return Err(()),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') if matches!(self.peek_at(1), Some('`' | '\\' | '$')) => {
                    inner.push(self.chars[self.pos + 1]);
                    self.pos += 2;
                }
                Some(c) => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
        let sub = parse_nested(&inner, self.depth + 1)?;
        self.expansion(w, "`…`");
        w.substs.push(sub);
        Ok(())
    }

    /// Double-quoted text up to `end` (or the end of input when `None`: a here-document's
    /// body). `$…` and backticks are live; `\` escapes only `$ \` " newline` (and `end`).
    fn double_quoted(&mut self, w: &mut Word, end: Option<char>) -> PResult<()> {
        let mut brace_depth = 0usize;
        loop {
            let Some(c) = self.peek() else {
                return if end.is_none() { Ok(()) } else { Err(()) };
            };
            if Some(c) == end && brace_depth == 0 {
                self.pos += 1;
                return Ok(());
            }
            match c {
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(n) if "$`\"\\".contains(n) || Some(n) == end => {
                        w.text.push(n);
                        self.pos += 2;
                    }
                    _ => {
                        w.text.push('\\');
                        self.pos += 1;
                    }
                },
                '$' => {
                    self.dollar(w)?;
                }
                '`' => {
                    self.backtick(w)?;
                }
                '\'' if end == Some('}') => {
                    // `${x:-'…'}`: quotes inside a parameter expansion.
                    self.pos += 1;
                    while let Some(c) = self.peek() {
                        self.pos += 1;
                        if c == '\'' {
                            break;
                        }
                        w.text.push(c);
                    }
                }
                '"' if end == Some('}') => {
                    self.pos += 1;
                    self.double_quoted(w, Some('"'))?;
                }
                '{' if end == Some('}') => {
                    brace_depth += 1;
                    w.text.push(c);
                    self.pos += 1;
                }
                '}' if end == Some('}') => {
                    brace_depth = brace_depth.saturating_sub(1);
                    w.text.push(c);
                    self.pos += 1;
                }
                _ => {
                    w.text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$'…'` (bash's ANSI-C quoting) after its opening quote.
    fn ansi_c(&mut self, w: &mut Word) -> PResult<()> {
        loop {
            match self.peek() {
                None => return Err(()),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    let Some(n) = self.peek_at(1) else {
                        return Err(());
                    };
                    self.pos += 2;
                    match n {
                        'n' => w.text.push('\n'),
                        't' => w.text.push('\t'),
                        'r' => w.text.push('\r'),
                        'e' | 'E' => w.text.push('\u{1b}'),
                        'a' => w.text.push('\u{7}'),
                        'b' => w.text.push('\u{8}'),
                        'f' => w.text.push('\u{c}'),
                        'v' => w.text.push('\u{b}'),
                        'x' | 'u' | 'U' | '0'..='7' => {
                            let (radix, max) = match n {
                                'x' => (16, 2),
                                'u' => (16, 4),
                                'U' => (16, 8),
                                _ => (8, 2),
                            };
                            let mut digits = String::new();
                            if radix == 8 {
                                digits.push(n);
                            }
                            while digits.len() < max + usize::from(radix == 8)
                                && self.peek().is_some_and(|c| c.is_digit(radix))
                            {
                                digits.push(self.chars[self.pos]);
                                self.pos += 1;
                            }
                            let ch = u32::from_str_radix(&digits, radix)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or(())?;
                            w.text.push(ch);
                        }
                        other => w.text.push(other),
                    }
                }
                Some(c) => {
                    w.text.push(c);
                    self.pos += 1;
                }
            }
        }
    }
}

// =============================================================================================
// Wrappers
// =============================================================================================

/// The program a command runs, seen through its wrappers.
pub(crate) enum Head {
    /// Nothing runs (an empty command, assignments only, a loop header, `command -v`).
    Nothing,
    /// `words[i]` is the program.
    Program(usize),
    /// A script given as text to run (`eval …`, `env -S …`, `watch …`), with the command
    /// substitutions found in its words (what runs is then their output).
    Script(String, Vec<Script>),
    /// Runs as another user (`sudo`, `doas`, `su` …): the wrapper's name.
    Elevated(String),
    /// Wrappers stacked deeper than allowed, or a script that cannot be read (base64).
    Unreadable,
    /// The program is only known when the command runs (`$CMD …`, `"$(which rm)" …`, a glob).
    RuntimeProgram,
}

/// The program's name as a command: the last path component, lower-cased (macOS and Windows
/// file systems ignore case), without `.exe`.
pub(crate) fn program_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let lower = base.to_ascii_lowercase();
    lower
        .strip_suffix(".exe")
        .map(str::to_string)
        .unwrap_or(lower)
}

/// `NAME=value` (or `NAME+=value`): an assignment, not a program.
pub(crate) fn is_assignment(w: &Word) -> bool {
    match w.text.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name
                    .trim_end_matches('+')
                    .chars()
                    .enumerate()
                    .all(|(i, c)| {
                        c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())
                    })
                && !name.trim_end_matches('+').is_empty()
        }
        None => false,
    }
}

/// Skips a wrapper's options; `with_arg` lists those taking a separate value.
pub(crate) fn skip_options(words: &[Word], mut i: usize, with_arg: &[&str]) -> usize {
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            return i + 1;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        i += 1;
        if with_arg.contains(&t) {
            i += 1;
        }
    }
    i
}

/// The program `words` runs, seen through its wrappers.
pub(crate) fn head(words: &[Word]) -> Head {
    let mut i = 0;
    let mut hops = 0;
    loop {
        hops += 1;
        if hops > MAX_WRAPPERS {
            return Head::Unreadable;
        }
        // Reserved words at command position, and leading assignments.
        while let Some(w) = words.get(i) {
            let reserved = !w.quoted
                && matches!(
                    w.text.as_str(),
                    "!" | "{"
                        | "}"
                        | "if"
                        | "then"
                        | "else"
                        | "elif"
                        | "fi"
                        | "do"
                        | "done"
                        | "while"
                        | "until"
                );
            if reserved || is_assignment(w) {
                i += 1;
            } else {
                break;
            }
        }
        let Some(w) = words.get(i) else {
            return Head::Nothing;
        };
        if !w.quoted && matches!(w.text.as_str(), "for" | "select" | "case" | "function") {
            // A loop header or a function's name; its body's commands are read on their own.
            // `case` never gets here: `;;` and `)` are refused by the parser.
            return Head::Nothing;
        }
        let prog = program_name(&w.text);
        // `$CMD …`, `"$(which rm)" …`, `/bin/r? …`: the program is only known when it runs.
        let globbed =
            !matches!(prog.as_str(), "[" | "[[") && !w.quoted && prog.contains(['*', '?', '[']);
        if w.leading_expansion || globbed {
            return Head::RuntimeProgram;
        }
        let next = i + 1;
        i = match prog.as_str() {
            "sudo" | "doas" | "pkexec" | "run0" | "su" | "gosu" | "runas" => {
                return Head::Elevated(prog);
            }
            "nohup" | "setsid" | "builtin" | "caffeinate" | "unbuffer" | "chronic" => {
                skip_options(words, next, &[])
            }
            "time" => skip_options(words, next, &["-f", "-o", "--format", "--output"]),
            "nice" => skip_options(words, next, &["-n", "--adjustment"]),
            "ionice" => skip_options(
                words,
                next,
                &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
            ),
            "stdbuf" => skip_options(words, next, &["-i", "-o", "-e"]),
            "exec" => skip_options(words, next, &["-a"]),
            "command" => {
                if words[next..]
                    .iter()
                    .take_while(|w| w.text.starts_with('-'))
                    .any(|w| w.text.contains('v') || w.text.contains('V'))
                {
                    return Head::Nothing;
                }
                skip_options(words, next, &[])
            }
            "timeout" => {
                let j = skip_options(words, next, &["-s", "-k", "--signal", "--kill-after"]);
                j + 1 // the duration
            }
            "env" => {
                let mut j = next;
                while let Some(w) = words.get(j) {
                    let t = w.text.as_str();
                    if t == "--" {
                        j += 1;
                        break;
                    }
                    if t == "-S"
                        || t == "--split-string"
                        || t.starts_with("--split-string=")
                        || (t.starts_with("-S") && t.len() > 2)
                    {
                        let (script, rest_from) = if t == "-S" || t == "--split-string" {
                            (
                                words.get(j + 1).map(|w| w.text.clone()).unwrap_or_default(),
                                j + 2,
                            )
                        } else if let Some(s) = t.strip_prefix("--split-string=") {
                            (s.to_string(), j + 1)
                        } else {
                            (t[2..].to_string(), j + 1)
                        };
                        let rest = quote_all(
                            words
                                .get(rest_from..)
                                .unwrap_or_default()
                                .iter()
                                .map(|w| w.text.as_str()),
                        );
                        return Head::Script(format!("{script} {rest}"), Vec::new());
                    }
                    if t.starts_with('-') && t != "-" {
                        j += 1;
                        if matches!(t, "-u" | "-C" | "--unset" | "--chdir") {
                            j += 1;
                        }
                        continue;
                    }
                    if is_assignment(w) || t == "-" {
                        j += 1;
                        continue;
                    }
                    break;
                }
                j
            }
            "xargs" => skip_options(
                words,
                next,
                &[
                    "-I",
                    "-i",
                    "-n",
                    "-P",
                    "-d",
                    "-L",
                    "-l",
                    "-s",
                    "-E",
                    "-e",
                    "-a",
                    "--max-args",
                    "--max-procs",
                    "--delimiter",
                    "--arg-file",
                    "--replace",
                    "--max-lines",
                    "--max-chars",
                    "--eof",
                    "--process-slot-var",
                ],
            ),
            "eval" => {
                let rest = &words[next..];
                let substs = rest.iter().flat_map(|w| w.substs.iter().cloned()).collect();
                let text = rest
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                return Head::Script(text, substs);
            }
            "watch" => {
                let j = skip_options(words, next, &["-n", "--interval", "-d", "-q", "--equexit"]);
                let rest = words.get(j..).unwrap_or_default();
                let text = rest
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                return Head::Script(text, Vec::new());
            }
            "npx" | "bunx" => skip_options(words, next, &["-p", "--package", "-c", "--call"]),
            "ssh" => {
                // `ssh host command…`: the remote shell runs the rest as one script.
                let j = skip_options(
                    words,
                    next,
                    &[
                        "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m",
                        "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w",
                    ],
                );
                let rest = words.get(j + 1..).unwrap_or_default();
                return script_of(rest);
            }
            "powershell" | "pwsh" | "cmd" => {
                let at = words[next..].iter().position(|w| {
                    let t = w.text.to_ascii_lowercase();
                    matches!(t.as_str(), "-command" | "-c" | "/c" | "/k" | "/s" | "-file")
                        || t.starts_with("-enc")
                        || t == "-e"
                });
                let Some(at) = at.map(|p| next + p) else {
                    return Head::Nothing;
                };
                let flag = words[at].text.to_ascii_lowercase();
                if flag.starts_with("-enc") || flag == "-e" {
                    // A base64 script: not readable here.
                    return Head::Unreadable;
                }
                if flag == "-file" {
                    return Head::Nothing;
                }
                return script_of(words.get(at + 1..).unwrap_or_default());
            }
            _ => return Head::Program(i),
        };
    }
}

/// Words that a shell will read again as one script (`ssh host …`, `cmd /c …`).
fn script_of(words: &[Word]) -> Head {
    if words.is_empty() {
        return Head::Nothing;
    }
    let substs = words
        .iter()
        .flat_map(|w| w.substs.iter().cloned())
        .collect();
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Head::Script(text, substs)
}

/// Words joined back into a command line, each quoted so it stays one word.
pub(crate) fn quote_all<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words
        .map(|w| {
            if !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b))
            {
                w.to_string()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &Simple) -> Vec<&str> {
        s.words.iter().map(|w| w.text.as_str()).collect()
    }

    /// The words of each simple command, pipeline by pipeline.
    fn shape(text: &str) -> Vec<Vec<Vec<String>>> {
        parse(text)
            .expect("parses")
            .pipelines
            .iter()
            .map(|p| {
                p.iter()
                    .map(|s| words(s).iter().map(|w| w.to_string()).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        assert_eq!(
            shape(r#"r"m" -r'f' a\ b $'c\'d' "e $(x) f""#),
            vec![vec![vec!["rm", "-rf", "a b", "c'd", "e $(…) f"]]]
        );
    }

    #[test]
    fn lists_and_pipes_split_commands() {
        assert_eq!(
            shape("a 1 && b || c; d | e |& f & g\nh"),
            vec![
                vec![vec!["a", "1"]],
                vec![vec!["b"]],
                vec![vec!["c"]],
                vec![vec!["d"], vec!["e"], vec!["f"]],
                vec![vec!["g"]],
                vec![vec!["h"]],
            ]
        );
        // A newline after an operator continues the list; a comment is not a command.
        assert_eq!(
            shape("a &&\n  b # c; d"),
            vec![vec![vec!["a"]], vec![vec!["b"]]]
        );
    }

    #[test]
    fn redirections_and_here_documents() {
        let script = parse("cat <in >out 2>&1 >>log <<'EOF' <<< here\nbody $(x)\nEOF").unwrap();
        let s = &script.pipelines[0][0];
        assert_eq!(words(s), ["cat"]);
        let outs: Vec<&str> = s.out_targets.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(outs, ["out", "log"]);
        assert_eq!(s.truncated, ["out"]);
        // Which redirections empty their file first.
        let script = parse("a >| b &> c &>> d <> e >> f 3> g >&h 2>&1").unwrap();
        assert_eq!(script.pipelines[0][0].truncated, ["b", "c", "g", "h"]);
        assert_eq!(s.in_targets[0].text, "in");
        let stdin: Vec<&str> = s.stdin.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(stdin, ["here", "body $(x)\n"]);
        // An unquoted delimiter: the body's substitutions run, so they are parsed.
        let script = parse("cat <<EOF\n$(rm x)\nEOF").unwrap();
        assert_eq!(script.pipelines[0][0].stdin[0].substs.len(), 1);
    }

    #[test]
    fn substitutions_and_subshells_are_parsed_where_they_stand() {
        let script = parse("echo $(a `b`) <(c) && (d; e)").unwrap();
        let echo = &script.pipelines[0][0];
        assert_eq!(echo.words[1].substs.len(), 1);
        assert!(echo.words[1].leading_expansion);
        assert_eq!(echo.words[2].substs.len(), 1);
        let sub = script.pipelines[1][0].subshell.as_ref().expect("subshell");
        assert_eq!(sub.pipelines.len(), 2);
    }

    #[test]
    fn what_it_cannot_read_is_an_error() {
        for bad in [
            "echo 'x",
            "echo \"x",
            "echo $(x",
            "echo `x",
            "cat <<EOF\nno end",
            "case $x in a) y;; esac",
            "f() { x; }",
            "a |",
            "&& a",
            "a &&",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert!(parse(&"$(".repeat(MAX_DEPTH + 2)).is_err());
    }

    fn program(text: &str) -> Option<String> {
        let script = parse(text).unwrap();
        let s = &script.pipelines[0][0];
        match head(&s.words) {
            Head::Program(i) => Some(program_name(&s.words[i].text)),
            _ => None,
        }
    }

    #[test]
    fn head_sees_through_wrappers() {
        for (cmd, prog) in [
            ("rm x", "rm"),
            ("/usr/bin/RM.exe x", "rm"),
            (
                "A=1 env -i B=2 timeout -s KILL 5 nohup nice -n 3 rm x",
                "rm",
            ),
            ("xargs -I{} -n 1 rm {}", "rm"),
            ("command rm x", "rm"),
            ("time -f %e exec -a y rm x", "rm"),
            ("npx -y rimraf dist", "rimraf"),
        ] {
            assert_eq!(program(cmd).as_deref(), Some(prog), "{cmd}");
        }
        let s = parse("sudo rm x").unwrap();
        assert!(matches!(head(&s.pipelines[0][0].words), Head::Elevated(p) if p == "sudo"));
        let s = parse("$CMD x").unwrap();
        assert!(matches!(
            head(&s.pipelines[0][0].words),
            Head::RuntimeProgram
        ));
        let s = parse("eval 'rm -rf x'").unwrap();
        assert!(matches!(head(&s.pipelines[0][0].words), Head::Script(t, _) if t == "rm -rf x"));
        let s = parse("ssh -p 22 host rm -rf x").unwrap();
        assert!(matches!(head(&s.pipelines[0][0].words), Head::Script(t, _) if t == "rm -rf x"));
        let s = parse("command -v rm").unwrap();
        assert!(matches!(head(&s.pipelines[0][0].words), Head::Nothing));
        let s = parse(&("nice ".repeat(40) + "ls")).unwrap();
        assert!(matches!(head(&s.pipelines[0][0].words), Head::Unreadable));
    }

    #[test]
    fn quote_all_round_trips_through_parse() {
        let words = ["rm", "-rf", "a b", "it's", "", "$HOME"];
        let line = quote_all(words.iter().copied());
        assert_eq!(
            shape(&line),
            vec![vec![
                words.iter().map(|w| w.to_string()).collect::<Vec<_>>()
            ]]
        );
    }
}
