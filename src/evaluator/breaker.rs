//! The session circuit breaker (SPEC 2.6): after 3 Tier-2 blocks in a row, or 20 in one session,
//! every further uncertain call of that session goes to the person. An agent that keeps
//! proposing what the evaluator refuses is being steered or is probing; past that point a person
//! should look, not a model that can be argued with one more time.
//!
//! The counts live in `SENTINEL_HOME/breaker/SESSION.json`, read and rewritten under one lock so
//! parallel hooks of a session agree. An allow ends a streak; an escalation leaves it as it is.

use crate::decision::tier2::ApiVerdict;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Tier-2 blocks in a row that trip the breaker.
pub const IN_A_ROW: u32 = 3;
/// Tier-2 blocks in one session that trip the breaker.
pub const PER_SESSION: u32 = 20;
/// The folder in SENTINEL_HOME.
const DIR: &str = "breaker";

/// One session's Tier-2 blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    /// Blocks since the last allow.
    pub in_a_row: u32,
    /// Blocks in the session.
    pub total: u32,
}

impl Count {
    /// Why the breaker is open, when it is.
    pub fn tripped(&self) -> Option<String> {
        if self.in_a_row >= IN_A_ROW {
            Some(format!(
                "the evaluator blocked {} calls in a row in this session",
                self.in_a_row
            ))
        } else if self.total >= PER_SESSION {
            Some(format!(
                "the evaluator blocked {} calls in this session",
                self.total
            ))
        } else {
            None
        }
    }

    /// The count after one more Tier-2 answer.
    pub fn after(self, verdict: ApiVerdict) -> Count {
        match verdict {
            ApiVerdict::Block => Count {
                in_a_row: self.in_a_row + 1,
                total: self.total + 1,
            },
            ApiVerdict::Allow => Count {
                in_a_row: 0,
                ..self
            },
            ApiVerdict::Escalate => self,
        }
    }
}

/// The session's count. A damaged file is an error: the caller treats it as open, since a count
/// it cannot read may be one that has tripped.
pub fn read(home: &Path, session: &str) -> Result<Count, String> {
    let path = crate::ledger::state::session_file(home, DIR, session);
    crate::ledger::state::read::<Count>(&path)
        .map(Option::unwrap_or_default)
        .map_err(|e| e.to_string())
}

/// Counts one Tier-2 answer for the session.
pub fn note(home: &Path, session: &str, verdict: ApiVerdict) -> std::io::Result<Count> {
    let path = crate::ledger::state::session_file(home, DIR, session);
    crate::ledger::state::update(&path, |c: &mut Count| {
        *c = c.after(verdict);
        *c
    })
}

/// Ends the session's count, and removes counts of sessions idle for `max_age_ms`.
pub fn clear(home: &Path, session: &str, max_age_ms: u64, now_ms: u64) {
    crate::ledger::state::end_session(home, DIR, session, max_age_ms, now_ms);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ApiVerdict::*;

    #[test]
    fn three_in_a_row_or_twenty_in_all() {
        let run =
            |verdicts: &[ApiVerdict]| verdicts.iter().fold(Count::default(), |c, v| c.after(*v));
        assert!(run(&[Block, Block]).tripped().is_none());
        assert!(run(&[Block, Block, Block]).tripped().is_some());
        assert!(run(&[Block, Block, Allow, Block]).tripped().is_none());
        // An escalation neither ends a streak nor adds to it.
        assert!(run(&[Block, Escalate, Block, Block]).tripped().is_some());
        let mut many = Vec::new();
        for _ in 0..10 {
            many.extend([Block, Block, Allow]);
        }
        assert_eq!(run(&many).total, 20);
        assert!(run(&many).tripped().unwrap().contains("20 calls"));
    }

    #[test]
    fn counts_persist_per_session_and_a_damaged_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path();
        for _ in 0..3 {
            note(h, "s1", Block).unwrap();
        }
        assert!(read(h, "s1").unwrap().tripped().is_some());
        assert_eq!(read(h, "s2").unwrap(), Count::default());
        std::fs::write(crate::ledger::state::session_file(h, DIR, "s2"), "{garbage").unwrap();
        assert!(read(h, "s2").is_err());
        clear(h, "s1", 1_000, 0);
        assert_eq!(read(h, "s1").unwrap(), Count::default());
    }
}
