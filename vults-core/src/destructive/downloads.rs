//! Downloads run as code: `curl … | sh`, `bash <(curl …)`, `eval "$(wget -O- …)"`. Whether a
//! command or script fetches something, for [`super::shells`] and [`super::interpreters`].

use crate::shell::{Head, Script, Simple, head, program_name};

pub(super) const CURL_SH: &str = "curl | sh";

const FETCHERS: [&str; 5] = ["curl", "wget", "fetch", "invoke-webrequest", "iwr"];

pub(super) fn simple_fetches(simple: &Simple) -> bool {
    if let Head::Program(i) = head(&simple.words)
        && FETCHERS.contains(&program_name(&simple.words[i].text).as_str())
    {
        return true;
    }
    simple.subshell.as_deref().is_some_and(fetches)
}

/// Whether a script downloads something (curl, wget …) anywhere in it.
pub(super) fn fetches(script: &Script) -> bool {
    script
        .pipelines
        .iter()
        .flatten()
        .any(|s| simple_fetches(s) || s.words.iter().any(|w| w.substs.iter().any(fetches)))
}
