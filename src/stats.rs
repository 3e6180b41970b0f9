//! Decision records: one JSON line per decision in `stats.jsonl`, appended under an exclusive
//! lock so that parallel hook processes lose nothing and never interleave a line.

use crate::decision::{Decision, Tier, Verdict};
use fs2::FileExt;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// The stats file's name in SENTINEL_HOME.
pub const FILE_NAME: &str = "stats.jsonl";

/// One decision as recorded.
#[derive(Clone, Debug, Serialize)]
pub struct Record<'a> {
    /// Milliseconds since the Unix epoch.
    pub ts_ms: u128,
    /// The agent's session id ("" when it sent none).
    pub session: &'a str,
    /// The agent protocol (claude, gemini, cursor, copilot) or "check".
    pub agent: &'a str,
    /// The tool.
    pub tool: &'a str,
    /// The tier that decided.
    pub tier: Tier,
    /// The final verdict ("defer" when sentinel gave no answer).
    pub verdict: &'a str,
    /// Tier 1's own verdict.
    pub local: Verdict,
    /// The rule that decided, `file:line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Time from reading the event to the decision, in µs.
    pub latency_us: u128,
    /// Decided in shadow mode: computed and recorded, not enforced.
    pub shadow: bool,
}

impl<'a> Record<'a> {
    /// A record for a decision (`answer` None: sentinel deferred to the agent).
    pub fn new(
        local: &'a Decision,
        answer: Option<&'a Decision>,
        session: &'a str,
        agent: &'a str,
        latency_us: u128,
        shadow: bool,
    ) -> Self {
        let decided = answer.unwrap_or(local);
        Record {
            ts_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0),
            session,
            agent,
            tool: &local.tool,
            tier: decided.tier,
            verdict: answer.map(|a| a.verdict.as_str()).unwrap_or("defer"),
            local: local.verdict,
            rule: decided.rule.as_ref().map(ToString::to_string),
            latency_us,
            shadow,
        }
    }
}

/// Appends one record as a single line, whole or not at all, under an exclusive lock.
pub fn append(home: &Path, record: &Record) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    line.push(b'\n');
    std::fs::create_dir_all(home)?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(home.join(FILE_NAME))?;
    file.lock_exclusive()?;
    // One write of the whole line: with O_APPEND and the lock held, no other writer interleaves.
    let result = file.write_all(&line).and_then(|()| file.flush());
    let _ = FileExt::unlock(&file);
    result
}
