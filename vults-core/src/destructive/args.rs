//! Reading a program's arguments: its positional ones, and its flags.

use crate::shell::Word;

/// The arguments that are not options, skipping the value of each option in `with_arg`;
/// everything after `--` counts.
pub(super) fn positionals<'w>(args: &'w [Word], with_arg: &[&str]) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let t = a.text.as_str();
        k += 1;
        if t == "--" {
            out.extend(args[k..].iter().map(|w| w.text.as_str()));
            break;
        }
        if t.starts_with('-') && t.len() > 1 {
            if with_arg.contains(&t) {
                k += 1;
            }
            continue;
        }
        out.push(t);
    }
    out
}

/// A short option cluster (`-fv`) among `args` holding `letter`, or the long option `long`.
pub(super) fn flag(args: &[Word], letter: char, long: &str) -> bool {
    args.iter().any(|a| {
        let t = a.text.as_str();
        t == long
            || (t.len() > 1
                && t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].chars().all(|c| c.is_ascii_alphanumeric())
                && t[1..].contains(letter))
    })
}

/// Whether the argument `s` is there.
pub(super) fn has(args: &[Word], s: &str) -> bool {
    args.iter().any(|a| a.is(s))
}

/// A short option cluster (`-rf`) holding `letter` among the arguments before `--`.
pub(super) fn short_has(args: &[Word], letter: char) -> bool {
    args.iter().take_while(|a| !a.is("--")).any(|a| {
        a.text.len() > 1
            && a.text.starts_with('-')
            && !a.text.starts_with("--")
            && a.text[1..].chars().all(|c| c.is_ascii_alphanumeric())
            && a.text[1..].contains(letter)
    })
}
