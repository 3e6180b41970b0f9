//! What `suggest` learns from: one row per call that reached Tier 2 or the person, with what it
//! was answered and, from its audit record, the whole command, the folder and the evaluator's
//! reason. Rows are what `report` keeps of those calls between runs ([`super::kept_summary`]);
//! the rules are applied to them when the report runs.

use crate::decision::Tier;
use crate::ledger::audit::Brief;
use crate::ledger::stats::Record;
use serde::{Deserialize, Serialize};

/// What a call that reached Tier 2 or the person was answered (the evidence it gives).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    ApiAllow,
    ApiBlock,
    ApiEscalate,
    ApiFailed,
    Deferred,
    Asked,
}

/// One call `suggest` learns from: what it was answered, in which session, and from its audit
/// record the whole command, the folder and the evaluator's reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub session: String,
    pub answer: Answer,
    pub command: String,
    pub cwd: String,
    /// The evaluator's reason (Tier 2 answers only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The row `suggest` learns from for record `r`, with `entry` its audit record (the last one with
/// its time and session); None for a call that did not reach Tier 2 or the person, or that is
/// not the agent's Bash call (records of `sentinel check` and of the person are not evidence of
/// agent traffic).
pub fn row(r: &Record, entry: Option<&Brief>) -> Option<Row> {
    if !learns_from(r) {
        return None;
    }
    let answer = match (r.tier, r.verdict.as_str()) {
        (Tier::Api, "allow") => Answer::ApiAllow,
        (Tier::Api, "deny") => Answer::ApiBlock,
        (Tier::Api, _) => Answer::ApiEscalate,
        (Tier::Fail, _) => Answer::ApiFailed,
        (_, "defer") => Answer::Deferred,
        _ => Answer::Asked,
    };
    Some(Row {
        session: r.session.clone(),
        answer,
        command: entry
            .and_then(|e| e.subject.clone())
            .unwrap_or_else(|| r.subject.clone()),
        cwd: entry
            .and_then(|e| e.cwd.clone())
            .unwrap_or_else(|| "/".to_string()),
        reason: match r.tier {
            Tier::Api => entry.and_then(|e| e.reason.clone()),
            _ => None,
        },
    })
}

/// Whether `suggest` learns from record `r`: the agent's Bash call that reached Tier 2 or the
/// person.
pub fn learns_from(r: &Record) -> bool {
    // Deferred calls are every uncertain call in default and auto mode without Tier 2.
    let reached = r.tier != Tier::Local || r.verdict == "ask" || r.verdict == "defer";
    reached && r.tool == "Bash" && !matches!(r.agent.as_str(), "check" | "person")
}
