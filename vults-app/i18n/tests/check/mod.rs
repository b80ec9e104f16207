//! Reads the language folders as Fluent source (fluent-syntax), for the bundles test and the
//! adding-a-language test.

use fluent_syntax::ast;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub type Messages = BTreeMap<String, BTreeSet<String>>;

/// The languages Vults ships.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/i18n")
}

/// Each language folder's messages under `root`, each with the names of the arguments it uses.
pub fn languages(root: &Path) -> BTreeMap<String, Messages> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let tag = path.file_name().unwrap().to_str().unwrap().to_string();
        let mut messages = Messages::new();
        for file in std::fs::read_dir(&path).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_none_or(|x| x != "ftl") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let resource = match fluent_syntax::parser::parse(text.as_str()) {
                Ok(r) => r,
                Err((_, errors)) => panic!("{}: {errors:?}", file.display()),
            };
            for entry in resource.body {
                if let ast::Entry::Message(m) = entry {
                    let mut args = BTreeSet::new();
                    if let Some(value) = &m.value {
                        pattern_args(value, &mut args);
                    }
                    for attribute in &m.attributes {
                        pattern_args(&attribute.value, &mut args);
                    }
                    let id = m.id.name.to_string();
                    assert!(
                        messages.insert(id.clone(), args).is_none(),
                        "{tag}: {id} is defined twice"
                    );
                }
            }
        }
        all.insert(tag, messages);
    }
    all
}

fn pattern_args(pattern: &ast::Pattern<&str>, args: &mut BTreeSet<String>) {
    for element in &pattern.elements {
        if let ast::PatternElement::Placeable { expression } = element {
            expression_args(expression, args);
        }
    }
}

fn expression_args(expression: &ast::Expression<&str>, args: &mut BTreeSet<String>) {
    match expression {
        ast::Expression::Inline(inline) => inline_args(inline, args),
        ast::Expression::Select { selector, variants } => {
            inline_args(selector, args);
            for variant in variants {
                pattern_args(&variant.value, args);
            }
        }
    }
}

fn inline_args(inline: &ast::InlineExpression<&str>, args: &mut BTreeSet<String>) {
    match inline {
        ast::InlineExpression::VariableReference { id } => {
            args.insert(id.name.to_string());
        }
        ast::InlineExpression::FunctionReference { arguments, .. }
        | ast::InlineExpression::TermReference {
            arguments: Some(arguments),
            ..
        } => {
            for a in &arguments.positional {
                inline_args(a, args);
            }
            for a in &arguments.named {
                inline_args(&a.value, args);
            }
        }
        ast::InlineExpression::Placeable { expression } => expression_args(expression, args),
        _ => {}
    }
}

/// What is wrong with the languages under `root`: a message missing, extra, or taking other
/// arguments than English's.
pub fn parity(root: &Path) -> Vec<String> {
    let all = languages(root);
    let english = all.get("en").expect("English ships");
    let mut wrong = Vec::new();
    for (tag, messages) in &all {
        for (id, args) in english {
            match messages.get(id) {
                None => wrong.push(format!("{tag}: {id} is missing")),
                Some(theirs) if theirs != args => wrong.push(format!(
                    "{tag}: {id} takes {theirs:?}, English takes {args:?}"
                )),
                Some(_) => {}
            }
        }
        for id in messages.keys().filter(|id| !english.contains_key(*id)) {
            wrong.push(format!("{tag}: {id} is not an English message"));
        }
    }
    wrong
}
