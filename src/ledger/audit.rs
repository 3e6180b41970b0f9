//! The audit trail: `audit.jsonl` (rotating), one record per decision, each carrying the SHA-256
//! of the previous one, so an edited, deleted, inserted or reordered record breaks the chain.
//!
//! `hash = SHA-256(prev_hash + "\n" + the record's JSON without its hash field)`, in hex; the
//! first record's `prev_hash` is 64 zeros. `audit.head` keeps the last sequence number and hash,
//! updated under the same lock, so cutting records off the end is detected too.
//!
//! A hook killed between writing its record and the head leaves the log one record ahead. The
//! head records the log's length, so the next append sees the log grew without it and brings
//! the head up to the log's last record (only when the log still holds the head's record: a log
//! cut shorter keeps its old head, and `verify` reports the cut). `verify` tells that crash (the
//! head behind by whole records that chain) from tampering; a fork an older sentinel left after
//! such a crash (one seq written twice on the same predecessor) is reported as a crash too.

use crate::config::kept::{self, Access};
use crate::decision::Verdict;
use crate::ledger::journal::Journal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The journal's name in SENTINEL_HOME: `audit.jsonl`.
pub const NAME: &str = "audit";
/// The `prev_hash` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What one audit record says, before it is chained.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    /// Milliseconds since the Unix epoch.
    pub ts_ms: u64,
    /// The agent's session id.
    pub session: String,
    /// The agent protocol, or "check".
    pub agent: String,
    /// The tool.
    pub tool: String,
    /// The command or path asked about.
    pub subject: String,
    /// The directory it was judged in.
    pub cwd: String,
    /// The tier that decided.
    pub tier: String,
    /// The answer: allow, deny, ask, or defer.
    pub verdict: String,
    /// The reason given.
    pub reason: String,
    /// The rule that decided, `file:line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Decided in shadow mode.
    pub shadow: bool,
    /// A decision's stats fields (none for a taint mark or the person's own action): the stats
    /// line is written after this record, and rebuilt from it when a killed call left none.
    #[serde(flatten)]
    pub counted: Option<Counted>,
    /// What could not be kept for this call (the session's ledger of written files), one line
    /// each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unkept: Vec<String>,
}

/// What a decision's stats line holds that its audit record does not say otherwise.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Counted {
    /// An enforced allow of a call the agent would have asked the person about.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spared: bool,
    /// Tier 1's own verdict.
    pub local: Verdict,
    /// From reading the event to the answer, in µs.
    pub latency_us: u64,
    /// Time spent calling the API, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_ms: Option<u64>,
    /// Tokens the API reported: input, output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<(u64, u64)>,
    /// Input tokens read from and written to the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_tokens: Option<(u64, u64)>,
    /// What tells this session from another with the same id in another project
    /// ([`crate::ledger::state::session_scope`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Head {
    seq: u64,
    hash: String,
    /// The length of `audit.jsonl` after this record (absent in an older sentinel's head).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    len: Option<u64>,
}

/// The most of a command or path one audit record keeps: a longer one (an event may carry a
/// megabyte) is cut there, and the record says how long it was and its SHA-256.
pub const MAX_SUBJECT_BYTES: usize = 64 * 1024;

/// The subject as a record keeps it: whole up to [`MAX_SUBJECT_BYTES`], else cut with its length
/// and SHA-256, so one call cannot add megabytes to the log and the whole is still identified.
pub fn subject(text: &str) -> String {
    if text.len() <= MAX_SUBJECT_BYTES {
        return text.to_string();
    }
    let mut cut = MAX_SUBJECT_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}… [cut: {} bytes in all, sha256 {}]",
        &text[..cut],
        text.len(),
        crate::digest::sha256_hex(text.as_bytes())
    )
}

/// The audit journal of a SENTINEL_HOME.
pub fn journal(home: &Path, max_bytes: u64) -> Journal {
    Journal::new(home, NAME, max_bytes)
}

/// SHA-256 over the previous hash and the record's canonical bytes, in hex.
fn chain_hash(prev: &str, record_without_hash: &str) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(record_without_hash.as_bytes());
    crate::digest::hex(&h.finalize())
}

/// Appends one chained record. Returns a warning when a torn line had to be terminated.
pub fn append(journal: &Journal, entry: &Entry) -> std::io::Result<Option<String>> {
    append_then(journal, entry, |_| ()).map(|(repaired, ())| repaired)
}

/// Appends one chained record, then, still under the log's lock, runs `then` with the record's
/// seq (the stats line is written there, so the two logs keep one order). Returns a warning when
/// a torn line had to be terminated, and what `then` returned.
pub fn append_then<R>(
    journal: &Journal,
    entry: &Entry,
    then: impl FnOnce(u64) -> R,
) -> std::io::Result<(Option<String>, R)> {
    let mut locked = journal.lock()?;
    let head_path = journal.sibling("head");
    let head = match read_head(&head_path)? {
        // In step: the log is as long as it was after the head's record.
        Some(h) if h.len == Some(locked.len) && locked.repaired.is_none() => h,
        // A log cut shorter keeps its head, so the cut stays visible to `verify`.
        Some(h) if h.len.is_some_and(|len| len > locked.len) => h,
        // The log grew without its head (a hook killed between the two), or an older head.
        Some(h) => catch_up(journal, Some(h))?,
        None => catch_up(journal, None)?,
    };
    let seq = head.seq + 1;
    // seq and prev_hash lead, so a record reads in order of what chains it; the entry's fields
    // follow in their order, then the hash. Written as text at once (no serde_json::Value), the
    // same bytes `verify` rebuilds from the parsed line.
    let fields = serde_json::to_string(entry)?;
    let fields = fields
        .strip_prefix('{')
        .and_then(|f| f.strip_suffix('}'))
        .unwrap_or("");
    let canonical = format!(
        "{{\"seq\":{seq},\"prev_hash\":{}{}{fields}}}",
        serde_json::to_string(&head.hash)?,
        if fields.is_empty() { "" } else { "," }
    );
    let hash = chain_hash(&head.hash, &canonical);
    let line = format!(
        "{},\"hash\":\"{hash}\"}}",
        &canonical[..canonical.len() - 1]
    );
    let len = locked.append(&line)?;
    write_head(
        &head_path,
        &Head {
            seq,
            hash,
            len: Some(len),
        },
    )?;
    let after = then(seq);
    Ok((locked.repaired.take(), after))
}

/// The records with a seq above `after` at the end of the log, oldest first, read from its end
/// and no further back than `max_bytes`: what a stats log that stopped at `after` is missing.
/// None when the log does not reach back that far within the bound.
pub fn records_after(
    journal: &Journal,
    after: u64,
    max_bytes: u64,
) -> std::io::Result<Option<Vec<Value>>> {
    let mut found = Vec::new();
    for text in journal.last_lines(max_bytes)? {
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        match v["seq"].as_u64() {
            Some(seq) if seq <= after => {
                found.reverse();
                return Ok(Some(found));
            }
            Some(_) => found.push(v),
            None => {}
        }
    }
    // The whole log is after it (a fresh one), or the bound was reached first.
    let whole = journal.files().len() <= 1
        && journal
            .current()
            .metadata()
            .is_ok_and(|m| m.len() <= max_bytes);
    found.reverse();
    Ok(whole.then_some(found))
}

/// The head's bytes on disk: its JSON padded with spaces to a fixed length, so each write covers
/// the one before.
const HEAD_LEN: usize = 128;

/// Writes the head over the old one, in place, under the journal's lock. Not a temporary file
/// renamed over it: on ext4 a rename over an existing file starts writeback of the new one
/// (`auto_da_alloc`), which measured 0.4–0.6 ms, half a hook's whole wall time. A crash in the
/// middle leaves a head that does not parse, which the next append rebuilds from the log
/// (`last_valid`) and `audit verify` reports until then.
fn write_head(path: &Path, head: &Head) -> std::io::Result<()> {
    use std::io::Write;
    let mut bytes = serde_json::to_vec(head)?;
    if bytes.len() < HEAD_LEN {
        bytes.resize(HEAD_LEN - 1, b' ');
        bytes.push(b'\n');
    }
    let mut file = kept::open(path, Access::Write)?;
    file.write_all(&bytes)?;
    // Longer only when written by hand or by an older sentinel: cut to this head (never to
    // zero, which ext4 treats as a rewrite too).
    if file.metadata()?.len() > bytes.len() as u64 {
        file.set_len(bytes.len() as u64)?;
    }
    Ok(())
}

/// The head as written; None when it is missing or does not parse (a link or a FIFO there is
/// an error: refused, never read or written through).
fn read_head(path: &Path) -> std::io::Result<Option<Head>> {
    match kept::read(path, 4096) {
        Ok(bytes) => Ok(serde_json::from_slice::<Head>(&bytes).ok()),
        Err(e) if kept::refused(&e) => Err(e),
        Err(_) => Ok(None),
    }
}

/// The log's last intact record, as the head to chain onto: when there is no head (a fresh log,
/// a lost head), or when the log holds the head's record and has more after it (a crash). When
/// the log does not hold the head's record, the head stays, and `verify` says what broke.
fn catch_up(journal: &Journal, head: Option<Head>) -> std::io::Result<Head> {
    let mut last = Head {
        seq: 0,
        hash: GENESIS.into(),
        len: None,
    };
    let mut seen = head.is_none();
    for line in journal.lines()? {
        if let Ok(v) = serde_json::from_str::<Value>(&line.text)
            && let (Some(seq), Some(hash)) = (v["seq"].as_u64(), v["hash"].as_str())
        {
            seen |= head
                .as_ref()
                .is_some_and(|h| h.seq == seq && h.hash == hash);
            last = Head {
                seq,
                hash: hash.into(),
                len: None,
            };
        }
    }
    Ok(match head {
        Some(h) if !seen => h,
        _ => last,
    })
}

/// The outcome of `audit verify`.
#[derive(Debug, PartialEq, Eq)]
pub enum Verification {
    /// Every record chains to the one before, and the head agrees: (records checked).
    Intact(u64),
    /// Every record chains, but a hook was killed mid-write (not tampering): (records checked,
    /// what the crash left, one line each).
    Crashed(u64, Vec<String>),
    /// The first broken record and what is wrong with it.
    Broken(String),
}

/// Walks the whole chain, across rotated files.
pub fn verify(journal: &Journal) -> std::io::Result<Verification> {
    let head_path = journal.sibling("head");
    let head = read_head(&head_path)?;
    let mut prev = GENESIS.to_string();
    // The record before the last one's hash: a record that chains onto it again is a fork.
    let mut before = GENESIS.to_string();
    let mut seq = 0u64;
    let mut count = 0u64;
    let mut crashes = Vec::new();
    // Whether the head's record is in the log (the head may lag behind it after a crash).
    let mut head_seen = false;
    for line in journal.lines()? {
        let at = format!("{}:{}", line.file.display(), line.number);
        let Ok(Value::Object(mut record)) = serde_json::from_str::<Value>(&line.text) else {
            let what = if line.complete {
                "is not a JSON record (edited or damaged)"
            } else {
                "is torn (cut off mid-record)"
            };
            return Ok(Verification::Broken(format!(
                "{at}: the record after seq {seq} {what}"
            )));
        };
        let Some(Value::String(stated)) = record.remove("hash") else {
            return Ok(Verification::Broken(format!(
                "{at}: the record after seq {seq} has no hash"
            )));
        };
        let this_seq = record.get("seq").and_then(Value::as_u64);
        let stated_prev = record
            .get("prev_hash")
            .and_then(Value::as_str)
            .unwrap_or("");
        let canonical = serde_json::to_string(&Value::Object(record.clone()))?;
        if chain_hash(stated_prev, &canonical) != stated {
            return Ok(Verification::Broken(format!(
                "{at} (seq {}): its hash does not match its content: the record was edited",
                this_seq.map(|s| s.to_string()).unwrap_or("?".into())
            )));
        }
        if seq > 0 && this_seq == Some(seq) && stated_prev == before && stated_prev != prev {
            // seq written twice on the same predecessor: an older sentinel, killed between a
            // record and its head, chained the next record to the stale head. The chain goes on
            // from the second.
            crashes.push(format!(
                "{at}: seq {seq} was written twice on the same predecessor: a hook was killed between a record and its head (a crash, not an edit); the chain continues from this record"
            ));
            head_seen |= head
                .as_ref()
                .is_some_and(|h| h.seq == seq && h.hash == stated);
            prev = stated;
            count += 1;
            continue;
        }
        if stated_prev != prev || this_seq != Some(seq + 1) {
            return Ok(Verification::Broken(format!(
                "{at} (seq {}): it does not follow seq {seq}: a record was deleted, inserted or reordered before it",
                this_seq.map(|s| s.to_string()).unwrap_or("?".into())
            )));
        }
        head_seen |= head
            .as_ref()
            .is_some_and(|h| h.seq == seq + 1 && h.hash == stated);
        before = std::mem::replace(&mut prev, stated);
        seq += 1;
        count += 1;
    }
    match head {
        Some(h) if h.seq < seq && head_seen => crashes.push(format!(
            "{} records seq {} and the log goes on, chained, to seq {seq}: a hook was killed between writing a record and its head (a crash, not tampering); the next decision brings the head up to date",
            head_path.display(),
            h.seq
        )),
        Some(h) if h.seq != seq || h.hash != prev => {
            return Ok(Verification::Broken(format!(
                "the log ends at seq {seq} but {} records seq {}: records were cut off the end",
                head_path.display(),
                h.seq
            )));
        }
        None if count > 0 => {
            return Ok(Verification::Broken(format!(
                "{} is missing: the end of the log cannot be checked",
                head_path.display()
            )));
        }
        _ => {}
    }
    Ok(match crashes.is_empty() {
        true => Verification::Intact(count),
        false => Verification::Crashed(count, crashes),
    })
}

/// The fields of an audit record that `report` and `suggest` read. The others are skipped
/// unparsed: read whole as `Value`s, the records cost a report at 10,000 calls nearly half its
/// instructions. A field of the wrong type is absent, as `Value`'s accessors would say.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Brief {
    #[serde(default, deserialize_with = "lenient_u64")]
    pub ts_ms: Option<u64>,
    #[serde(default, deserialize_with = "lenient_string")]
    pub session: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    pub verdict: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    pub subject: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    pub cwd: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    pub reason: Option<String>,
}

fn lenient_u64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Value::deserialize(d)?.as_u64())
}

fn lenient_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// Every record's [`Brief`], oldest first; a line that is not a JSON object is skipped.
pub fn briefs(journal: &Journal) -> std::io::Result<Vec<Brief>> {
    Ok(journal
        .lines()?
        .iter()
        .filter_map(|l| serde_json::from_str(&l.text).ok())
        .collect())
}

/// The last `n` records, for `audit tail`.
pub fn tail(journal: &Journal, n: usize) -> std::io::Result<Vec<Value>> {
    let lines = journal.lines()?;
    let start = lines.len().saturating_sub(n);
    Ok(lines[start..]
        .iter()
        .map(|l| {
            serde_json::from_str(&l.text)
                .unwrap_or_else(|_| serde_json::json!({ "damaged": l.text }))
        })
        .collect())
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn entry(n: u64) -> Entry {
        Entry {
            ts_ms: n,
            session: "s".into(),
            agent: "claude".into(),
            tool: "Bash".into(),
            subject: format!("ls {n}"),
            cwd: "/p".into(),
            tier: "local".into(),
            verdict: "allow".into(),
            reason: "r".into(),
            rule: None,
            shadow: false,
            counted: None,
            unkept: Vec::new(),
        }
    }

    fn log(n: u64, max_bytes: u64) -> (tempfile::TempDir, Journal) {
        let dir = tempfile::tempdir().unwrap();
        let j = journal(dir.path(), max_bytes);
        for i in 1..=n {
            append(&j, &entry(i)).unwrap();
        }
        (dir, j)
    }

    fn rewrite(j: &Journal, f: impl FnOnce(&mut Vec<String>)) {
        let path = j.current();
        let mut lines: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        f(&mut lines);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }

    fn broken(j: &Journal) -> String {
        match verify(j).unwrap() {
            Verification::Broken(why) => why,
            other => panic!("not broken: {other:?}"),
        }
    }

    #[test]
    fn an_intact_log_verifies_across_rotations() {
        let (_d, j) = log(30, 2000);
        assert!(j.files().len() > 1);
        assert_eq!(verify(&j).unwrap(), Verification::Intact(30));
    }

    #[test]
    fn every_kind_of_tampering_names_the_first_broken_record() {
        let (_d, j) = log(5, 1 << 20);
        rewrite(&j, |l| l[2] = l[2].replace("ls 3", "rm 3"));
        assert!(
            broken(&j).contains(":3 (seq 3): its hash does not match"),
            "{}",
            broken(&j)
        );

        let (_d, j) = log(5, 1 << 20);
        rewrite(&j, |l| {
            l.remove(1);
        });
        assert!(
            broken(&j).contains(":2 (seq 3): it does not follow seq 1"),
            "{}",
            broken(&j)
        );

        let (_d, j) = log(5, 1 << 20);
        rewrite(&j, |l| l.swap(1, 2));
        assert!(broken(&j).contains(":2 (seq 3)"), "{}", broken(&j));

        let (_d, j) = log(5, 1 << 20);
        rewrite(&j, |l| {
            let copy = l[1].clone();
            l.insert(3, copy);
        });
        assert!(broken(&j).contains(":4 (seq 2)"), "{}", broken(&j));

        let (_d, j) = log(5, 1 << 20);
        rewrite(&j, |l| {
            l.pop();
        });
        assert!(
            broken(&j).contains("ends at seq 4") && broken(&j).contains("seq 5"),
            "{}",
            broken(&j)
        );

        let (_d, j) = log(5, 1 << 20);
        rewrite(&j, |l| l[4] = l[4][..20].to_string());
        assert!(
            broken(&j).contains(":5: the record after seq 4 is not a JSON record"),
            "{}",
            broken(&j)
        );
    }

    #[test]
    fn the_head_is_written_in_place_and_a_damaged_one_is_rebuilt() {
        // An older sentinel's head (renamed into place, no padding) is overwritten in place.
        let (_d, j) = log(2, 1 << 20);
        let old = std::fs::read(j.sibling("head")).unwrap();
        let head: Head = serde_json::from_slice(&old).unwrap();
        std::fs::write(j.sibling("head"), serde_json::to_vec(&head).unwrap()).unwrap();
        append(&j, &entry(3)).unwrap();
        assert_eq!(std::fs::read(j.sibling("head")).unwrap().len(), HEAD_LEN);
        assert_eq!(verify(&j).unwrap(), Verification::Intact(3));
        // A longer one (by hand) is cut to the head; a torn one is rebuilt from the log.
        let mut long = std::fs::read(j.sibling("head")).unwrap();
        long.extend([b' '; 300]);
        std::fs::write(j.sibling("head"), long).unwrap();
        append(&j, &entry(4)).unwrap();
        assert_eq!(std::fs::read(j.sibling("head")).unwrap().len(), HEAD_LEN);
        std::fs::write(j.sibling("head"), b"{\"seq\":4,\"ha").unwrap();
        assert!(matches!(verify(&j).unwrap(), Verification::Broken(_)));
        append(&j, &entry(5)).unwrap();
        assert_eq!(verify(&j).unwrap(), Verification::Intact(5));
    }

    /// What a hook killed between its record and its head leaves: the log one record ahead.
    fn crash_after_record(j: &Journal, n: u64) {
        let head = std::fs::read(j.sibling("head")).unwrap();
        append(j, &entry(n)).unwrap();
        std::fs::write(j.sibling("head"), head).unwrap();
    }

    #[test]
    fn a_crash_between_record_and_head_is_caught_up_and_named() {
        let (_d, j) = log(3, 1 << 20);
        crash_after_record(&j, 4);
        match verify(&j).unwrap() {
            Verification::Crashed(4, c) => {
                assert!(c[0].contains("a crash, not tampering"), "{c:?}")
            }
            other => panic!("{other:?}"),
        }
        // The next append chains onto the log's last record, not the stale head: no fork.
        append(&j, &entry(5)).unwrap();
        assert_eq!(verify(&j).unwrap(), Verification::Intact(5));
        // Across a rotation too.
        let (_d, j) = log(8, 1500);
        crash_after_record(&j, 9);
        for i in 10..30 {
            append(&j, &entry(i)).unwrap();
        }
        assert!(j.files().len() > 2);
        assert_eq!(verify(&j).unwrap(), Verification::Intact(29));
    }

    #[test]
    fn an_older_sentinels_fork_after_a_crash_is_named_as_a_crash() {
        let (_d, j) = log(3, 1 << 20);
        // Before the head recorded the log's length: seq 4 written, the head left at 3, and the
        // next record chained onto the head, as seq 4 again.
        let old = |seq: u64, hash: &str| {
            let h = Head {
                seq,
                hash: hash.into(),
                len: None,
            };
            let mut b = serde_json::to_vec(&h).unwrap();
            b.resize(HEAD_LEN, b' ');
            b
        };
        let three: Head =
            serde_json::from_slice(&std::fs::read(j.sibling("head")).unwrap()).unwrap();
        append(&j, &entry(4)).unwrap();
        std::fs::write(j.sibling("head"), old(3, &three.hash)).unwrap();
        // What the older sentinel did next: chain onto the head it read.
        let lines = std::fs::read_to_string(j.current()).unwrap();
        let fourth = lines.lines().nth(3).unwrap().to_string();
        let forked = fourth.replace("\"ls 4\"", "\"ls 4b\"");
        let mut v: serde_json::Map<String, Value> = serde_json::from_str(&forked).unwrap();
        v.remove("hash");
        let canonical = serde_json::to_string(&Value::Object(v.clone())).unwrap();
        let hash = chain_hash(&three.hash, &canonical);
        v.insert("hash".into(), Value::String(hash.clone()));
        std::fs::write(
            j.current(),
            format!(
                "{lines}{}\n",
                serde_json::to_string(&Value::Object(v)).unwrap()
            ),
        )
        .unwrap();
        std::fs::write(j.sibling("head"), old(4, &hash)).unwrap();
        append(&j, &entry(5)).unwrap();
        match verify(&j).unwrap() {
            Verification::Crashed(6, c) => {
                assert!(c[0].contains(":5: seq 4 was written twice"), "{c:?}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_link_at_the_head_is_refused_not_written_through() {
        let (d, j) = log(1, 1 << 20);
        let target = d.path().join("bashrc");
        std::fs::write(&target, "export PATH=/usr/bin\n").unwrap();
        std::fs::remove_file(j.sibling("head")).unwrap();
        std::os::unix::fs::symlink(&target, j.sibling("head")).unwrap();
        let e = append(&j, &entry(2)).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "export PATH=/usr/bin\n"
        );
    }

    #[test]
    fn a_lost_head_is_rebuilt_from_the_log() {
        let (_d, j) = log(3, 1 << 20);
        std::fs::remove_file(j.sibling("head")).unwrap();
        append(&j, &entry(4)).unwrap();
        assert_eq!(verify(&j).unwrap(), Verification::Intact(4));
    }

    #[test]
    fn briefs_read_what_the_whole_records_say() {
        let (_dir, j) = log(3, 1 << 20);
        // A torn line, a line that is not an object, a field of the wrong type.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(j.current())
            .unwrap();
        std::io::Write::write_all(
            &mut f,
            b"{\"ts_ms\": 9, \"sess\n5\n{\"ts_ms\": \"7\", \"session\": 3, \"verdict\": \"tainted\"}\n",
        )
        .unwrap();
        let whole = tail(&j, usize::MAX).unwrap();
        let briefs = briefs(&j).unwrap();
        let with_ts: Vec<&Value> = whole
            .iter()
            .filter(|v| v["ts_ms"].as_u64().is_some())
            .collect();
        let brief_ts: Vec<&Brief> = briefs.iter().filter(|b| b.ts_ms.is_some()).collect();
        assert_eq!(with_ts.len(), brief_ts.len());
        for (v, b) in with_ts.iter().zip(&brief_ts) {
            assert_eq!(v["ts_ms"].as_u64(), b.ts_ms);
            assert_eq!(v["session"].as_str(), b.session.as_deref());
            assert_eq!(v["subject"].as_str(), b.subject.as_deref());
            assert_eq!(v["cwd"].as_str(), b.cwd.as_deref());
            assert_eq!(v["reason"].as_str(), b.reason.as_deref());
            assert_eq!(v["verdict"].as_str(), b.verdict.as_deref());
        }
        let last = briefs.last().unwrap();
        assert_eq!((last.ts_ms, last.session.as_deref()), (None, None));
        assert_eq!(last.verdict.as_deref(), Some("tainted"));
    }
}
