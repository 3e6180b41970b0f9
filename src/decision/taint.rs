//! A session's taint as a decision sees it: which tools brought outside text in, and when.
//! Kept in SENTINEL_HOME by `ledger::taint`.

use serde::{Deserialize, Serialize};

/// One tool that brought outside text into a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// The tool.
    pub tool: String,
    /// When, in ms since the epoch.
    pub ts_ms: u64,
}

/// A session's taint: every mark, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taint {
    /// The marks.
    pub marks: Vec<Mark>,
}

impl Taint {
    /// `WebFetch at 2026-11-23 00:31:23 UTC` (the first and, if several, how many more).
    pub fn describe(&self) -> String {
        match self.marks.as_slice() {
            [] => "no untrusted content".into(),
            [first, rest @ ..] => {
                let more = if rest.is_empty() {
                    String::new()
                } else {
                    format!(" and {} more", rest.len())
                };
                format!(
                    "{} at {} UTC{more}",
                    first.tool,
                    crate::clock::utc(first.ts_ms)
                )
            }
        }
    }
}
