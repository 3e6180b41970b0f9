//! One spec section as its TOML reads, before sentinel checks it, and the lines its keys are on.
//! Shared by `build.rs` (which turns each bundled section into this form at build time, as JSON
//! that costs a fraction of the TOML to read) and the runtime (which reads a person's sections
//! from TOML), so both check a section with the same code.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The raw TOML of one section.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operands: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_flags: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bare: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dashdash: Option<String>,
}

/// The fields whose line a check may cite.
pub const FIELDS: [&str; 10] = [
    "syntax", "operands", "extra", "bare", "dashdash", "input", "runs", "network", "deny", "review",
];

/// The line of the first line of `text` (a section whose header is on line `header`) that
/// contains `needle`; the header's when none does.
pub fn line_of(text: &str, header: usize, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|n| header + n)
        .unwrap_or(header)
}

/// Every needle a check of `raw` looks a line up by: its flags, its option keys (quoted, as they
/// are written) and its fields.
pub fn needles(raw: &RawSpec) -> Vec<String> {
    let mut out: Vec<String> = FIELDS.iter().map(|f| f.to_string()).collect();
    if let Some(flags) = &raw.flags {
        out.extend(flags.split_whitespace().map(str::to_string));
    }
    out.extend(raw.options.keys().map(|k| format!("\"{k}\"")));
    out.sort();
    out.dedup();
    out
}

/// A section as the build compiles it: the raw spec and the line of each needle.
#[derive(Deserialize, Serialize)]
pub struct Compiled {
    pub raw: RawSpec,
    pub lines: Vec<(String, usize)>,
}
