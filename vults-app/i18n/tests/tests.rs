//! vults-i18n's tests, in one binary: the bundles (every language says everything English says)
//! and docs/translating.md's "Adding a language", followed on a copy of the folders.

mod adding_a_language;
mod bundles;
mod check;

#[allow(dead_code)] // reason: only `table` is used; the build script's own main is not run here.
#[path = "../build.rs"]
mod build_script;
