//! The Tier-2 budget: API calls per minute for each session and per UTC day for all of them,
//! kept for every hook process in a state file in SENTINEL_HOME that is read, updated and
//! written under one exclusive lock. The minute is per session, so a session that spends its
//! own (an agent probing with harmless uncertain calls) leaves the others theirs; and a spent
//! budget is not an outage: the caller asks the person (SPEC 2.6).

use crate::config::files;
use fs2::FileExt;
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, Write};
use std::path::Path;

/// The state file's name in SENTINEL_HOME.
pub const FILE_NAME: &str = "budget.json";

#[derive(Default, Serialize, Deserialize)]
struct State {
    /// The UTC day (days since the epoch) `day_calls` counts.
    day: u64,
    /// Calls made that day.
    day_calls: u32,
    /// When each session's calls of the last minute were made (ms since the epoch).
    #[serde(default)]
    sessions: std::collections::BTreeMap<String, Vec<u64>>,
}

/// Whether a Tier-2 call may be made now.
#[derive(Debug, PartialEq, Eq)]
pub enum Grant {
    /// Yes, and it has been counted.
    Granted,
    /// No: the per-minute rate limit is spent.
    MinuteSpent(u32),
    /// No: the daily budget is spent.
    DaySpent(u32),
}

/// Takes one call of `session`'s from the budget at `now_ms`, or says which limit is spent.
pub fn take(
    home: &Path,
    session: &str,
    per_minute: u32,
    per_day: u32,
    now_ms: u64,
) -> std::io::Result<Grant> {
    let mut file =
        crate::config::kept::open(&home.join(FILE_NAME), crate::config::kept::Access::Update)?;
    file.lock_exclusive()?;
    let result = take_locked(&mut file, session, per_minute, per_day, now_ms);
    let _ = FileExt::unlock(&file);
    result
}

fn take_locked(
    file: &mut std::fs::File,
    session: &str,
    per_minute: u32,
    per_day: u32,
    now_ms: u64,
) -> std::io::Result<Grant> {
    let mut text = String::new();
    (&*file)
        .take(files::MAX_STATE_BYTES)
        .read_to_string(&mut text)?;
    // A damaged state file starts the count afresh: it costs at most one budget's worth of
    // calls, and never changes a decision.
    let mut state: State = serde_json::from_str(&text).unwrap_or_default();
    let today = now_ms / 86_400_000;
    if state.day != today {
        state.day = today;
        state.day_calls = 0;
    }
    for times in state.sessions.values_mut() {
        times.retain(|&t| t + 60_000 > now_ms && t <= now_ms);
    }
    state.sessions.retain(|_, times| !times.is_empty());
    let recent = state.sessions.get(session).map_or(0, Vec::len);
    let grant = if state.day_calls >= per_day {
        Grant::DaySpent(per_day)
    } else if recent as u32 >= per_minute {
        Grant::MinuteSpent(per_minute)
    } else {
        state.day_calls += 1;
        state
            .sessions
            .entry(session.to_string())
            .or_default()
            .push(now_ms);
        Grant::Granted
    };
    let bytes = serde_json::to_vec(&state).map_err(std::io::Error::other)?;
    file.set_len(0)?;
    file.rewind()?;
    file.write_all(&bytes)?;
    file.flush()?;
    Ok(grant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minute_and_day_limits() {
        let dir = tempfile::tempdir().unwrap();
        let t0 = 1_800_000_000_000;
        assert_eq!(take(dir.path(), "s", 2, 3, t0).unwrap(), Grant::Granted);
        assert_eq!(take(dir.path(), "s", 2, 3, t0 + 1).unwrap(), Grant::Granted);
        assert_eq!(
            take(dir.path(), "s", 2, 3, t0 + 2).unwrap(),
            Grant::MinuteSpent(2)
        );
        assert_eq!(
            take(dir.path(), "s", 2, 3, t0 + 60_001).unwrap(),
            Grant::Granted
        );
        assert_eq!(
            take(dir.path(), "s", 2, 3, t0 + 200_000).unwrap(),
            Grant::DaySpent(3)
        );
        // Another session's minute is its own; the day is shared.
        let t1 = t0 + 300_000;
        assert_eq!(take(dir.path(), "s", 2, 9, t1).unwrap(), Grant::Granted);
        assert_eq!(take(dir.path(), "s", 2, 9, t1).unwrap(), Grant::Granted);
        assert_eq!(
            take(dir.path(), "s", 2, 9, t1).unwrap(),
            Grant::MinuteSpent(2)
        );
        assert_eq!(take(dir.path(), "other", 2, 9, t1).unwrap(), Grant::Granted);
        // The next UTC day starts afresh.
        let tomorrow = (t0 / 86_400_000 + 1) * 86_400_000;
        assert_eq!(
            take(dir.path(), "s", 2, 3, tomorrow).unwrap(),
            Grant::Granted
        );
    }

    #[test]
    fn concurrent_takers_never_exceed_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let now = crate::clock::now_ms();
        let granted: u32 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| {
                    s.spawn(|| {
                        (0..5)
                            .filter(|_| {
                                take(dir.path(), "s", 1000, 37, now).unwrap() == Grant::Granted
                            })
                            .count() as u32
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(granted, 37);
    }

    #[test]
    fn a_damaged_state_file_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "{garbage").unwrap();
        assert_eq!(
            take(dir.path(), "s", 1, 1, crate::clock::now_ms()).unwrap(),
            Grant::Granted
        );
    }
}
