//! What a session's status line counts, kept so that a refresh reads what the stats journal
//! gained since the last one, not the whole journal (`sentinel statusline` runs after every
//! message of the agent's; at 10,000 calls a whole read was 25 ms).
//!
//! `SENTINEL_HOME/status/KEY.json` holds the session's counts and how far into the journal's
//! current file they go: that file's identity (device, inode), the byte offset, and the bytes just
//! before it. The journal stays the source of truth: a refresh reads only the lines past the
//! offset, and counts from the whole journal again when the tally is missing, damaged, for
//! another session, or no longer matches the journal (a rotation, a truncation, a file replaced
//! or rewritten: the bytes before the offset differ). The file is written whole (a temporary file
//! renamed over it) and opened as every file sentinel keeps ([`crate::config::kept`]); it feeds a
//! status bar, never a decision.

use crate::config::kept::{self, Access};
use crate::ledger::journal::Journal;
use crate::ledger::stats::Record;
use crate::platform::identity;
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Bytes before the offset kept to recognise the journal: a whole stats line's end, with its
/// `seq` and time.
const TAIL_BYTES: u64 = 64;
/// The largest tally file read.
const MAX_TALLY_BYTES: u64 = 64 * 1024;

/// A session's answers, as the status line shows them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub allowed: usize,
    pub denied: usize,
    pub asked: usize,
    pub deferred: usize,
    /// The subject of the last deny.
    pub last_deny: Option<String>,
}

impl Tally {
    /// Counts one record of the session.
    pub fn add(&mut self, r: &Record) {
        match r.verdict.as_str() {
            "allow" => self.allowed += 1,
            "deny" => {
                self.denied += 1;
                self.last_deny = Some(r.subject.clone());
            }
            "ask" => self.asked += 1,
            "defer" => self.deferred += 1,
            _ => {}
        }
    }

    /// The tally of `records`.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a Record>) -> Tally {
        let mut t = Tally::default();
        for r in records {
            t.add(r);
        }
        t
    }
}

/// The tally as kept, with where in the journal it stops.
#[derive(Debug, Serialize, Deserialize)]
struct Kept {
    session: String,
    /// The journal's current file: device and inode.
    file: (u64, u64),
    /// Bytes of it counted (up to the end of a whole line).
    done: u64,
    /// The bytes just before `done` (at most [`TAIL_BYTES`]).
    tail: Vec<u8>,
    tally: Tally,
}

fn path(home: &Path, session: &str) -> PathBuf {
    crate::ledger::state::session_file(home, "status", session)
}

/// Ends a session's tally, and removes every other one untouched for `max_age_ms`.
pub fn clear(home: &Path, session: &str, max_age_ms: u64, now_ms: u64) {
    crate::ledger::state::end_session(home, "status", session, max_age_ms, now_ms);
}

/// The session's tally, from its kept form and the lines the journal gained since, or from the
/// whole journal; kept again for the next refresh (a tally that cannot be kept is still right).
pub fn session_tally(home: &Path, journal: &Journal, session: &str) -> std::io::Result<Tally> {
    let kept_path = path(home, session);
    let kept = kept::read(&kept_path, MAX_TALLY_BYTES)
        .ok()
        .and_then(|b| serde_json::from_slice::<Kept>(&b).ok())
        .filter(|k| k.session == session);
    let next = match kept.and_then(|k| catch_up(journal, k).transpose()) {
        Some(next) => next?,
        None => recount(journal, session)?,
    };
    if let Ok(bytes) = serde_json::to_vec(&next) {
        let _ = kept::create_dir(kept_path.parent().unwrap_or(home))
            .and_then(|()| kept::write_whole(&kept_path, &bytes));
    }
    Ok(next.tally)
}

/// `kept` brought up to the journal's current file; None when it no longer matches it.
fn catch_up(journal: &Journal, mut kept: Kept) -> std::io::Result<Option<Kept>> {
    let (mut f, len) = match kept::open_with_len(&journal.current(), Access::Read) {
        Ok(opened) => opened,
        Err(e) if crate::config::is_absent(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    if identity::of_file(&f)? != kept.file || len < kept.done {
        return Ok(None);
    }
    if kept.tail.len() as u64 != kept.done.min(TAIL_BYTES) {
        return Ok(None);
    }
    let from = kept.done - kept.tail.len() as u64;
    let mut tail = vec![0; kept.tail.len()];
    f.seek(SeekFrom::Start(from))?;
    f.read_exact(&mut tail)?;
    if tail != kept.tail {
        return Ok(None);
    }
    let session = kept.session.clone();
    count_file(&mut f, len, &session, &mut kept)?;
    Ok(Some(kept))
}

/// Counts from every file of the journal: the rotated ones whole, the current one up to its last
/// whole line. The current file is opened first: a rotation after that leaves it among the
/// rotated ones, where it is not counted twice, and the tally names it, so the next refresh
/// counts again.
fn recount(journal: &Journal, session: &str) -> std::io::Result<Kept> {
    let mut kept = Kept {
        session: session.to_string(),
        file: (0, 0),
        done: 0,
        tail: Vec::new(),
        tally: Tally::default(),
    };
    let current = match kept::open_with_len(&journal.current(), Access::Read) {
        Ok((f, len)) => {
            kept.file = identity::of_file(&f)?;
            Some((f, len))
        }
        Err(e) if crate::config::is_absent(&e) => None,
        Err(e) => return Err(e),
    };
    for file in journal.files() {
        let (mut f, len) = match kept::open_with_len(&file, Access::Read) {
            Ok(opened) => opened,
            Err(e) if crate::config::is_absent(&e) => continue,
            Err(e) => return Err(e),
        };
        if identity::of_file(&f)? == kept.file {
            continue;
        }
        let mut whole = Kept {
            session: session.to_string(),
            file: (0, 0),
            done: 0,
            tail: Vec::new(),
            tally: std::mem::take(&mut kept.tally),
        };
        count_file(&mut f, len, session, &mut whole)?;
        kept.tally = whole.tally;
    }
    if let Some((mut f, len)) = current {
        count_file(&mut f, len, session, &mut kept)?;
    }
    Ok(kept)
}

/// Counts the session's records in `f` from `kept.done` to its last whole line before `len`,
/// moving `done` and `tail` there. A damaged line is not counted (as `stats` skips it).
fn count_file(
    f: &mut std::fs::File,
    len: u64,
    session: &str,
    kept: &mut Kept,
) -> std::io::Result<()> {
    if len <= kept.done {
        return Ok(());
    }
    let needle = serde_json::to_string(session)?;
    f.seek(SeekFrom::Start(kept.done))?;
    let mut reader = std::io::BufReader::new(f.take(len - kept.done));
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut buf)?;
        if n == 0 || buf.last() != Some(&b'\n') {
            break;
        }
        kept.done += n as u64;
        let keep_from = kept.tail.len() + n;
        kept.tail.extend_from_slice(&buf);
        if keep_from as u64 > TAIL_BYTES {
            kept.tail.drain(..keep_from - TAIL_BYTES as usize);
        }
        let line = String::from_utf8_lossy(&buf[..n - 1]);
        if !line.contains(&needle) {
            continue;
        }
        if let Ok(r) = serde_json::from_str::<Record>(&line)
            && r.session == session
        {
            kept.tally.add(&r);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Tier, Verdict};

    fn record(session: &str, verdict: &str, n: usize) -> Record {
        Record {
            ts_ms: n as u64,
            session: session.into(),
            agent: "claude".into(),
            tool: "Bash".into(),
            subject: format!("cmd {n}"),
            tier: Tier::Local,
            verdict: verdict.into(),
            local: Verdict::Allow,
            rule: None,
            latency_us: 1,
            api_ms: None,
            tokens: None,
            cache_tokens: None,
            shadow: false,
            scope: None,
            seq: Some(n as u64),
            rebuilt: false,
            unkept: Vec::new(),
            spared: false,
        }
    }

    /// What the whole journal says: the tally must equal it.
    fn whole(j: &Journal, session: &str) -> Tally {
        let (records, _) = crate::ledger::stats::session_records(j, session, None).unwrap();
        Tally::of(&records)
    }

    fn append(j: &Journal, from: usize, to: usize) {
        for n in from..to {
            let session = ["a", "b", "a\"b"][n % 3];
            let verdict = ["allow", "deny", "ask", "defer", "allow"][n % 5];
            let line = serde_json::to_string(&record(session, verdict, n)).unwrap();
            j.lock().unwrap().append(&line).unwrap();
        }
    }

    #[test]
    fn the_kept_tally_equals_the_whole_journal_across_refreshes_and_rotations() {
        let home = tempfile::tempdir().unwrap();
        let j = crate::ledger::stats::journal(home.path(), 4000);
        let mut n = 0;
        for step in [0, 1, 7, 40, 3, 90] {
            append(&j, n, n + step);
            n += step;
            for s in ["a", "b", "a\"b", "c"] {
                assert_eq!(
                    session_tally(home.path(), &j, s).unwrap(),
                    whole(&j, s),
                    "{s} at {n}"
                );
            }
        }
        assert!(j.files().len() > 2, "the journal rotated");
        let t = session_tally(home.path(), &j, "a").unwrap();
        assert!(
            t.allowed > 0 && t.denied > 0 && t.last_deny.is_some(),
            "{t:?}"
        );
    }

    #[test]
    fn a_damaged_or_stale_tally_is_counted_again() {
        let home = tempfile::tempdir().unwrap();
        let j = crate::ledger::stats::journal(home.path(), 1 << 20);
        append(&j, 0, 30);
        let kept_path = path(home.path(), "a");
        let right = whole(&j, "a");
        assert_eq!(session_tally(home.path(), &j, "a").unwrap(), right);
        // Damaged, another session's, or a tally that no longer matches the journal.
        let good = std::fs::read(&kept_path).unwrap();
        let as_json: serde_json::Value = serde_json::from_slice(&good).unwrap();
        let mut other = as_json.clone();
        other["session"] = "b".into();
        other["tally"]["allowed"] = 999.into();
        let mut moved = as_json.clone();
        moved["done"] = (as_json["done"].as_u64().unwrap() - 3).into();
        moved["tally"]["allowed"] = 999.into();
        let mut short_tail = as_json.clone();
        short_tail["tail"] = serde_json::json!([]);
        short_tail["tally"]["allowed"] = 999.into();
        for bad in [
            b"{not json".to_vec(),
            serde_json::to_vec(&other).unwrap(),
            serde_json::to_vec(&moved).unwrap(),
            serde_json::to_vec(&short_tail).unwrap(),
        ] {
            std::fs::write(&kept_path, &bad).unwrap();
            assert_eq!(session_tally(home.path(), &j, "a").unwrap(), right);
        }
        // The journal rewritten in place (same file, other bytes), or cut short.
        let text = std::fs::read_to_string(j.current()).unwrap();
        let rewritten = text
            .replace("\"allow\"", "\"deny\"")
            .replace(",\"seq\":2", ",\"seq\":3");
        std::fs::write(j.current(), &rewritten).unwrap();
        assert_eq!(session_tally(home.path(), &j, "a").unwrap(), whole(&j, "a"));
        let cut: String = text.lines().take(10).map(|l| format!("{l}\n")).collect();
        std::fs::write(j.current(), cut).unwrap();
        assert_eq!(session_tally(home.path(), &j, "a").unwrap(), whole(&j, "a"));
        // A torn last line is not counted until it is whole.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(j.current())
            .unwrap();
        std::io::Write::write_all(&mut f, b"{\"ts_ms\":1,\"session\":\"a\"").unwrap();
        assert_eq!(session_tally(home.path(), &j, "a").unwrap(), whole(&j, "a"));
    }
}
