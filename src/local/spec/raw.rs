//! One spec section as its TOML reads, before sentinel checks it (`spec::check`), and the lines
//! its keys are on. Shared by `build.rs` (which checks each bundled section at build time) and
//! the runtime (which reads a person's sections), so both read a section with the same code.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The raw TOML of one section.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub about: Option<String>,
    pub syntax: Option<String>,
    pub flags: Option<String>,
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    pub operands: Option<String>,
    pub extra: Option<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub inherit: bool,
    #[serde(default)]
    pub interspersed: bool,
    #[serde(default)]
    pub dashless: bool,
    #[serde(default)]
    pub bins: bool,
    pub abbreviations: Option<String>,
    #[serde(default)]
    pub requests: bool,
    pub input: Option<String>,
    pub input_flags: Option<String>,
    pub runs: Option<String>,
    pub network: Option<String>,
    pub logs_in_with: Option<String>,
    pub creates: Option<String>,
    pub repository: Option<String>,
    pub deny: Option<String>,
    pub review: Option<String>,
    pub bare: Option<String>,
    pub no_operands: Option<String>,
    pub dashdash: Option<String>,
    pub default_operand: Option<String>,
}

/// The line of the first line of `text` (a section whose header is on line `header`) that
/// contains `needle`; the header's when none does.
pub fn line_of(text: &str, header: usize, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|n| header + n)
        .unwrap_or(header)
}
