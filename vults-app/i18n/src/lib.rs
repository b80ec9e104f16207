//! What Vults says, in the person's language.
//!
//! Every word a person reads comes from a Fluent bundle under `assets/i18n/<tag>/`, compiled into
//! the binary (`build.rs` finds every folder, so a new language is a new folder:
//! docs/translating.md). One language is active for the whole process: English until the app
//! starts and [`choose`]s the person's choice (the system's language by default); [`choose`]
//! changes it at once (Settings → General), and the next frame draws in it. A message missing from the active
//! language falls back to English, message by message.
//!
//! ```
//! use vults_i18n::tr;
//! vults_i18n::choose(&vults_i18n::Choice::Language("en".into()));
//! assert_eq!(tr!("cards-waiting", count = 3), "3 cards wait");
//! ```
//!
//! What is never translated: the log, the audit file's fields, the hook protocol and the command
//! line's `--help`. Words that are the same in every language (an agent's own text, commands,
//! paths, tool names) are arguments, never part of a message.
//!
//! Fluent's bidi isolation marks (U+2068/U+2069 around each argument) are off: Vults shows
//! hidden characters as `‹U+2068›`, and its own words must never carry one.

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use std::borrow::Cow;
use std::sync::{Arc, LazyLock, RwLock};
use unic_langid::LanguageIdentifier;

include!(concat!(env!("OUT_DIR"), "/sources.rs"));

/// The language every other one falls back to, message by message.
pub const ENGLISH: &str = "en";

/// The test-only pseudo-language (feature `pseudo`): English, each message wrapped in `«…»`,
/// its letters accented and its length grown by 40 %, so a view drawn in it shows any word
/// that skipped the bundles (no markers) and any widget too narrow for a longer language.
#[cfg(feature = "pseudo")]
pub const PSEUDO: &str = "x-pseudo";

/// Which language the person chose: the system's, or one by its tag.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Choice {
    /// The operating system's language ([`system_tags`]), English when none is offered.
    #[default]
    System,
    /// A language folder's tag (`en`, `pt-BR`).
    Language(String),
}

impl Choice {
    /// The choice as settings.json keeps it: `"system"` or a tag.
    pub fn setting(&self) -> &str {
        match self {
            Choice::System => "system",
            Choice::Language(tag) => tag,
        }
    }

    /// The choice settings.json keeps; anything unknown reads as the system's language.
    pub fn from_setting(value: &str) -> Choice {
        if value == "system" || value.is_empty() {
            return Choice::System;
        }
        match find(value) {
            Some(loaded) => Choice::Language(loaded.tag.to_string()),
            None => Choice::System,
        }
    }
}

/// One language Vults speaks: its tag and its own name for itself (the bundle's
/// `language-name`), as the chooser lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Language {
    pub tag: &'static str,
    pub name: String,
}

/// A value a message is formatted with.
#[derive(Clone, Debug)]
pub enum Arg<'a> {
    Text(Cow<'a, str>),
    Number(f64),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(s: &'a str) -> Self {
        Arg::Text(Cow::Borrowed(s))
    }
}
impl<'a> From<&'a String> for Arg<'a> {
    fn from(s: &'a String) -> Self {
        Arg::Text(Cow::Borrowed(s))
    }
}
impl From<String> for Arg<'_> {
    fn from(s: String) -> Self {
        Arg::Text(Cow::Owned(s))
    }
}
macro_rules! number_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg<'_> {
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)] // reason: counts and percentages, far below 2^52.
            fn from(n: $t) -> Self {
                Arg::Number(n as f64)
            }
        }
    )*};
}
number_arg!(u8, u16, u32, u64, usize, i32, i64, f32, f64);

/// A sentence one part of Vults hands another to show later (an installer's note on an agent,
/// what Show terminal found): its message id and arguments, worded when it is drawn, so a
/// language chosen meanwhile applies. Its `Display` is the English, for the log and the
/// command line.
///
/// ```
/// use vults_i18n::Message;
/// let note = Message::new("cards-waiting").arg("count", 2u32);
/// assert_eq!(note.to_string(), "2 cards wait");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    id: &'static str,
    args: Vec<(&'static str, MessageArg)>,
}

/// A value of a [`Message`]: text said as it is, a whole number (plurals select on it), or
/// another message worded in the same language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageArg {
    Text(String),
    Number(i64),
    Message(Box<Message>),
}

impl From<&str> for MessageArg {
    fn from(s: &str) -> Self {
        MessageArg::Text(s.to_string())
    }
}
impl From<String> for MessageArg {
    fn from(s: String) -> Self {
        MessageArg::Text(s)
    }
}
impl From<&String> for MessageArg {
    fn from(s: &String) -> Self {
        MessageArg::Text(s.clone())
    }
}
impl From<Message> for MessageArg {
    fn from(m: Message) -> Self {
        MessageArg::Message(Box::new(m))
    }
}
macro_rules! whole_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for MessageArg {
            #[allow(clippy::cast_possible_wrap, clippy::cast_lossless)] // reason: counts, ports and pids, far below 2^63.
            fn from(n: $t) -> Self {
                MessageArg::Number(n as i64)
            }
        }
    )*};
}
whole_arg!(u8, u16, u32, u64, usize, i32, i64);

impl Message {
    /// The message `id` with no arguments yet.
    pub fn new(id: &'static str) -> Message {
        Message {
            id,
            args: Vec::new(),
        }
    }

    /// The same message with the argument `name` set to `value`.
    #[must_use]
    pub fn arg(mut self, name: &'static str, value: impl Into<MessageArg>) -> Message {
        self.args.push((name, value.into()));
        self
    }

    /// Its message id.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The argument `name` as given, if any (tests, and callers that match on data).
    pub fn get(&self, name: &str) -> Option<&MessageArg> {
        self.args.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Worded in the active language (English where it lacks the message).
    pub fn text(&self) -> String {
        text_with(self.id, &self.fluent(Message::text))
    }

    /// Worded in English, whatever the active language: the log's and the command line's.
    pub fn english(&self) -> String {
        let args = self.fluent(Message::english);
        format_chain(find(ENGLISH), self.id, &args)
    }

    fn fluent(&self, word: fn(&Message) -> String) -> Vec<(&'static str, Arg<'_>)> {
        self.args
            .iter()
            .map(|(name, value)| {
                let value = match value {
                    MessageArg::Text(s) => Arg::Text(Cow::Borrowed(s.as_str())),
                    #[allow(clippy::cast_precision_loss)] // reason: counts, far below 2^52.
                    MessageArg::Number(n) => Arg::Number(*n as f64),
                    MessageArg::Message(m) => Arg::Text(Cow::Owned(word(m))),
                };
                (*name, value)
            })
            .collect()
    }
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.english())
    }
}

/// `tr!("id")` or `tr!("id", name = value, …)`: the message in the active language.
#[macro_export]
macro_rules! tr {
    ($id:expr) => {
        $crate::text($id)
    };
    ($id:expr, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::text_with($id, &[$((stringify!($name), $crate::Arg::from($value))),+])
    };
}

struct Loaded {
    tag: &'static str,
    bundle: FluentBundle<FluentResource>,
}

/// Every language, parsed once. A file that does not parse is a build of ours that must not
/// ship: the bundles test (`tests/bundles.rs`) fails on it, and here its good messages are kept.
static LOADED: LazyLock<Vec<Loaded>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|(tag, files)| {
            let id: LanguageIdentifier = tag.parse().unwrap_or_default();
            let mut bundle = FluentBundle::new_concurrent(vec![id]);
            bundle.set_use_isolating(false);
            for (_, text) in files.iter() {
                let resource = match FluentResource::try_new((*text).to_string()) {
                    Ok(r) | Err((r, _)) => r,
                };
                // A message defined twice keeps its first definition.
                let _ = bundle.add_resource(resource);
            }
            Loaded { tag, bundle }
        })
        .collect()
});

fn find(tag: &str) -> Option<&'static Loaded> {
    LOADED.iter().find(|l| l.tag.eq_ignore_ascii_case(tag))
}

struct Active {
    /// The language messages come from first; English after it.
    tag: &'static str,
    pseudo: bool,
}

/// English until the app calls [`choose`] with the person's choice as it starts: a test or a
/// tool that never chooses reads English whatever the machine's locale.
static ACTIVE: LazyLock<RwLock<Arc<Active>>> = LazyLock::new(|| {
    RwLock::new(Arc::new(Active {
        tag: ENGLISH,
        pseudo: false,
    }))
});

fn resolve(choice: &Choice) -> Active {
    #[cfg(feature = "pseudo")]
    if matches!(choice, Choice::Language(t) if t == PSEUDO) {
        return Active {
            tag: ENGLISH,
            pseudo: true,
        };
    }
    let tag = match choice {
        Choice::Language(tag) => find(tag).map(|l| l.tag),
        Choice::System => system_language(),
    };
    Active {
        tag: tag.unwrap_or(ENGLISH),
        pseudo: false,
    }
}

/// The first of the system's languages that Vults speaks ([`negotiate`] of [`system_tags`]),
/// read once: the process's locale does not change while it runs, and Settings → General names
/// it on every frame it is shown.
pub fn system_language() -> Option<&'static str> {
    static SYSTEM: LazyLock<Option<&'static str>> = LazyLock::new(|| negotiate(&system_tags()));
    *SYSTEM
}

/// The system's preferred languages, as BCP 47 tags (`pt_BR.UTF-8` reads as `pt-BR`; `C` and
/// `POSIX` are none).
pub fn system_tags() -> Vec<String> {
    sys_locale::get_locales()
        .filter_map(|l| normalise(&l))
        .collect()
}

fn normalise(locale: &str) -> Option<String> {
    let base = locale.split(['.', '@']).next().unwrap_or_default();
    if base.is_empty() || base == "C" || base == "POSIX" {
        return None;
    }
    Some(base.replace('_', "-"))
}

/// The first of `wanted` that Vults speaks: the exact tag, else the same language in another
/// region (`pt-PT` reads Brazilian Portuguese rather than English).
pub fn negotiate(wanted: &[String]) -> Option<&'static str> {
    for want in wanted {
        if let Some(l) = find(want) {
            return Some(l.tag);
        }
        let lang = want.split('-').next().unwrap_or_default();
        if let Some(l) = LOADED.iter().find(|l| {
            l.tag
                .split('-')
                .next()
                .is_some_and(|t| t.eq_ignore_ascii_case(lang))
        }) {
            return Some(l.tag);
        }
    }
    None
}

/// Makes `choice` the active language at once; returns the tag now spoken.
pub fn choose(choice: &Choice) -> &'static str {
    let active = resolve(choice);
    let tag = active.tag;
    *ACTIVE.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(active);
    tag
}

/// The tag of the language messages come from now.
pub fn active() -> &'static str {
    current().tag
}

fn current() -> Arc<Active> {
    if let Some(scoped) = SCOPED.with(|s| s.borrow().clone()) {
        return scoped;
    }
    ACTIVE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

thread_local! {
    static SCOPED: std::cell::RefCell<Option<Arc<Active>>> = const { std::cell::RefCell::new(None) };
}

/// `choice` for this thread alone until the guard drops, whatever [`choose`] says: tests that
/// draw in several languages side by side in one process (`cargo test` runs them on threads).
pub fn scoped(choice: &Choice) -> Scoped {
    let before = SCOPED.with(|s| s.replace(Some(Arc::new(resolve(choice)))));
    Scoped { before }
}

/// Undoes [`scoped`] when dropped.
#[must_use = "the language holds only while the guard lives"]
pub struct Scoped {
    before: Option<Arc<Active>>,
}

impl Drop for Scoped {
    fn drop(&mut self) {
        SCOPED.with(|s| *s.borrow_mut() = self.before.take());
    }
}

/// Every language Vults speaks, English first, each named in its own words.
pub fn languages() -> Vec<Language> {
    let mut all: Vec<Language> = LOADED
        .iter()
        .map(|l| Language {
            tag: l.tag,
            name: format_in(l, "language-name", None).unwrap_or_else(|| l.tag.to_string()),
        })
        .collect();
    all.sort_by_key(|l| (l.tag != ENGLISH, l.tag));
    all
}

/// The message `id` in the active language.
pub fn text(id: &str) -> String {
    text_with(id, &[])
}

/// The message `id` in the active language, formatted with `args`.
pub fn text_with(id: &str, args: &[(&str, Arg<'_>)]) -> String {
    let active = current();
    if active.pseudo {
        return pseudo(id, args);
    }
    let chain = [find(active.tag), find(ENGLISH)];
    format_chain(chain.iter().flatten().copied(), id, args)
}

/// `id` from the first bundle of `chain` that has it (the active language, then English);
/// the id itself when none does, which the bundles test and the pseudo-language catch.
fn format_chain<'l>(
    chain: impl IntoIterator<Item = &'l Loaded>,
    id: &str,
    args: &[(&str, Arg<'_>)],
) -> String {
    let fluent = fluent_args(args, false);
    chain
        .into_iter()
        .find_map(|l| format_in(l, id, fluent.as_ref()))
        .unwrap_or_else(|| id.to_string())
}

/// Whether `tag`'s own bundle has `id` (without falling back).
pub fn has(tag: &str, id: &str) -> bool {
    find(tag).is_some_and(|l| l.bundle.has_message(id))
}

fn fluent_args<'a>(args: &'a [(&str, Arg<'a>)], mark: bool) -> Option<FluentArgs<'a>> {
    if args.is_empty() {
        return None;
    }
    let mut out = FluentArgs::new();
    for (name, value) in args {
        let value = match value {
            Arg::Text(s) if mark => {
                FluentValue::String(Cow::Owned(format!("{ARG_START}{s}{ARG_END}")))
            }
            Arg::Text(s) => FluentValue::String(Cow::Borrowed(s.as_ref())),
            Arg::Number(n) => FluentValue::from(*n),
        };
        out.set(name.to_string(), value);
    }
    Some(out)
}

fn format_in(loaded: &Loaded, id: &str, args: Option<&FluentArgs<'_>>) -> Option<String> {
    let message = loaded.bundle.get_message(id)?;
    let pattern = message.value()?;
    let mut errors = Vec::new();
    let text = loaded.bundle.format_pattern(pattern, args, &mut errors);
    Some(text.into_owned())
}

/// Private-use marks around an argument while the pseudo-language formats a message, so its
/// letters (a path, a command) are left as they are.
const ARG_START: char = '\u{F0000}';
const ARG_END: char = '\u{F0001}';

/// The pseudo-language: English, marked, accented, 40 % longer; arguments untouched.
fn pseudo(id: &str, args: &[(&str, Arg<'_>)]) -> String {
    let fluent = fluent_args(args, true);
    let Some(english) = find(ENGLISH).and_then(|l| format_in(l, id, fluent.as_ref())) else {
        return id.to_string();
    };
    let mut out = String::from("«");
    let mut in_arg = false;
    let mut letters = 0usize;
    for c in english.chars() {
        match c {
            ARG_START => in_arg = true,
            ARG_END => in_arg = false,
            c if in_arg => out.push(c),
            c => {
                out.push(accented(c));
                if c.is_alphanumeric() {
                    letters += 1;
                }
            }
        }
    }
    // 40 % longer, counted on the message's own letters, at least one mark.
    let grow = (letters * 2).div_ceil(5).max(1);
    out.extend(std::iter::repeat_n('~', grow));
    out.push('»');
    out
}

fn accented(c: char) -> char {
    match c {
        'a' => 'á',
        'e' => 'é',
        'i' => 'í',
        'o' => 'ó',
        'u' => 'ú',
        'A' => 'Á',
        'E' => 'É',
        'I' => 'Í',
        'O' => 'Ó',
        'U' => 'Ú',
        'n' => 'ñ',
        'c' => 'ç',
        c => c,
    }
}

/// Whether `text` is one whole message of the pseudo-language (tests: a drawn text without
/// the marks skipped the bundles).
#[cfg(feature = "pseudo")]
pub fn is_pseudo(text: &str) -> bool {
    text.starts_with('«') && text.ends_with('»')
}

/// The messages whose id starts with `prefix`, in every language, as the JSON the phone page
/// formats itself (`assets/phone/words.js`, made from this and checked against it by
/// vults-phone's tests): `{"en": {"id": parts, …}, "pt-BR": {…}}`. A message's parts are an
/// array of text (a string), an argument (`{"v": name}`) and a choice on an argument
/// (`{"s": name, "k": [[key, parts], …], "d": index of the default}`), which the page resolves
/// by the exact key, then the number's plural category (`Intl.PluralRules`), then the default.
pub fn page_words(prefix: &str) -> String {
    use fluent_syntax::ast;
    fn string(out: &mut String, s: &str) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    fn inline(out: &mut String, e: &ast::InlineExpression<&str>) {
        match e {
            ast::InlineExpression::VariableReference { id } => {
                out.push_str("{\"v\":");
                string(out, id.name);
                out.push('}');
            }
            ast::InlineExpression::StringLiteral { value } => string(out, value),
            ast::InlineExpression::NumberLiteral { value } => string(out, value),
            // Nothing else is used by the page's messages; said as the id, which a test sees.
            other => string(out, &format!("{other:?}")),
        }
    }
    fn pattern(out: &mut String, p: &ast::Pattern<&str>) {
        out.push('[');
        for (i, element) in p.elements.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match element {
                ast::PatternElement::TextElement { value } => string(out, value),
                ast::PatternElement::Placeable { expression } => match expression {
                    ast::Expression::Inline(e) => inline(out, e),
                    ast::Expression::Select { selector, variants } => {
                        let name = match selector {
                            ast::InlineExpression::VariableReference { id } => id.name,
                            _ => "",
                        };
                        out.push_str("{\"s\":");
                        string(out, name);
                        out.push_str(",\"k\":[");
                        let mut default = 0;
                        for (n, v) in variants.iter().enumerate() {
                            if n > 0 {
                                out.push(',');
                            }
                            if v.default {
                                default = n;
                            }
                            out.push('[');
                            match &v.key {
                                ast::VariantKey::Identifier { name } => string(out, name),
                                ast::VariantKey::NumberLiteral { value } => string(out, value),
                            }
                            out.push(',');
                            pattern(out, &v.value);
                            out.push(']');
                        }
                        out.push_str(&format!("],\"d\":{default}}}"));
                    }
                },
            }
        }
        out.push(']');
    }
    let mut out = String::from("{");
    for (n, (tag, files)) in SOURCES.iter().enumerate() {
        if n > 0 {
            out.push_str(",\n");
        }
        string(&mut out, tag);
        out.push_str(":{");
        let mut first = true;
        for (_, text) in files.iter() {
            let resource = match fluent_syntax::parser::parse(*text) {
                Ok(r) | Err((r, _)) => r,
            };
            for entry in &resource.body {
                let ast::Entry::Message(m) = entry else {
                    continue;
                };
                let Some(value) = &m.value else { continue };
                if !m.id.name.starts_with(prefix) {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str("\n ");
                string(&mut out, m.id.name);
                out.push(':');
                pattern(&mut out, value);
            }
        }
        out.push('}');
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_worded_when_drawn_and_its_display_stays_english() {
        let note = Message::new("terminal-cannot-show")
            .arg("who", "Codex")
            .arg("reason", Message::new("terminal-not-said"));
        let count = Message::new("cards-waiting").arg("count", 3u32);
        {
            let _pt = scoped(&Choice::Language("pt-BR".into()));
            assert_eq!(
                note.text(),
                "Não foi possível mostrar o terminal de Codex: os eventos dela ainda não disseram \
                 onde ela roda"
            );
            assert_eq!(count.text(), "3 cartões esperam");
            assert_eq!(
                note.to_string(),
                "Cannot show Codex's terminal: its events have not said where it runs"
            );
        }
        let _en = scoped(&Choice::Language("en".into()));
        assert_eq!(note.text(), note.english());
        assert_eq!(count.to_string(), "3 cards wait");
        assert_eq!(note.id(), "terminal-cannot-show");
        assert_eq!(note.get("who"), Some(&MessageArg::Text("Codex".into())));
    }

    #[test]
    fn locales_read_as_tags() {
        assert_eq!(normalise("pt_BR.UTF-8").as_deref(), Some("pt-BR"));
        assert_eq!(normalise("de_DE@euro").as_deref(), Some("de-DE"));
        assert_eq!(normalise("C.UTF-8"), None);
        assert_eq!(normalise("POSIX"), None);
        assert_eq!(normalise("en-US").as_deref(), Some("en-US"));
    }

    #[test]
    fn negotiation_takes_the_exact_tag_then_the_language() {
        assert_eq!(negotiate(&["pt-BR".into()]), Some("pt-BR"));
        assert_eq!(negotiate(&["pt-PT".into()]), Some("pt-BR"));
        assert_eq!(negotiate(&["PT-br".into()]), Some("pt-BR"));
        assert_eq!(negotiate(&["en-GB".into()]), Some("en"));
        assert_eq!(negotiate(&["tlh".into(), "pt".into()]), Some("pt-BR"));
        assert_eq!(negotiate(&["tlh".into()]), None);
        assert_eq!(negotiate(&[]), None);
    }

    #[test]
    fn settings_keep_the_choice_and_read_unknown_as_the_system() {
        assert_eq!(
            Choice::from_setting("pt-BR"),
            Choice::Language("pt-BR".into())
        );
        assert_eq!(
            Choice::from_setting("pt-br"),
            Choice::Language("pt-BR".into())
        );
        assert_eq!(Choice::from_setting("system"), Choice::System);
        assert_eq!(Choice::from_setting("xx-YY"), Choice::System);
        assert_eq!(Choice::Language("en".into()).setting(), "en");
        assert_eq!(Choice::System.setting(), "system");
    }

    fn bundle(tag: &'static str, ftl: &str) -> Loaded {
        let mut bundle = FluentBundle::new_concurrent(vec![tag.parse().unwrap()]);
        bundle.set_use_isolating(false);
        bundle
            .add_resource(FluentResource::try_new(ftl.to_string()).unwrap())
            .unwrap();
        Loaded { tag, bundle }
    }

    #[test]
    fn a_message_missing_from_a_language_falls_back_to_english_alone() {
        let en = bundle("en", "a = Allow\nb = Deny { $why }\n");
        let partial = bundle("xx", "a = Permitir\n");
        let chain = || [&partial, &en];
        assert_eq!(format_chain(chain(), "a", &[]), "Permitir");
        assert_eq!(
            format_chain(chain(), "b", &[("why", Arg::from("no"))]),
            "Deny no",
            "no bidi isolation marks around the argument"
        );
        assert_eq!(format_chain(chain(), "c", &[]), "c");
    }

    #[test]
    fn plurals_and_numbers_follow_the_language() {
        let _en = scoped(&Choice::Language("en".into()));
        assert_eq!(tr!("cards-waiting", count = 1), "1 card waits");
        assert_eq!(tr!("cards-waiting", count = 3_usize), "3 cards wait");
        let _pt = scoped(&Choice::Language("pt-BR".into()));
        assert_eq!(tr!("cards-waiting", count = 1), "1 cartão espera");
        assert_eq!(tr!("cards-waiting", count = 2), "2 cartões esperam");
    }

    #[test]
    fn a_scoped_language_holds_on_its_thread_only_while_its_guard_lives() {
        {
            let _pt = scoped(&Choice::Language("pt-BR".into()));
            assert_eq!(active(), "pt-BR");
            let seen = std::thread::spawn(|| {
                let _en = scoped(&Choice::Language("en".into()));
                active()
            })
            .join()
            .unwrap();
            assert_eq!(seen, "en");
            assert_eq!(active(), "pt-BR");
        }
        let _en = scoped(&Choice::Language("en".into()));
        assert_eq!(tr!("flock-empty"), "No agents running");
    }

    #[cfg(feature = "pseudo")]
    #[test]
    fn the_pseudo_language_marks_accents_and_lengthens_but_leaves_arguments_alone() {
        let _p = scoped(&Choice::Language(PSEUDO.into()));
        let text = tr!("flock-asks-in-terminal", what = "rm -rf /tmp/a");
        assert!(is_pseudo(&text), "{text}");
        assert!(text.contains("rm -rf /tmp/a"), "{text}");
        assert!(text.contains("ásks"), "{text}");
        let plain = "asks in its terminal: rm -rf /tmp/a";
        assert!(text.chars().count() >= plain.chars().count() + 7, "{text}");
    }

    #[test]
    fn english_comes_first_and_each_language_names_itself() {
        let all = languages();
        assert_eq!(all[0].tag, ENGLISH);
        assert_eq!(all[0].name, "English");
        let pt = all.iter().find(|l| l.tag == "pt-BR").expect("pt-BR ships");
        assert_eq!(pt.name, "Português (Brasil)");
    }
}
