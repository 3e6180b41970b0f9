//! The audit trail: `audit.jsonl` (rotating), one record per decision, each carrying the SHA-256
//! of the previous one, so an edited, deleted, inserted or reordered record breaks the chain.
//!
//! `hash = SHA-256(prev_hash + "\n" + the record's JSON without its hash field)`, in hex; the
//! first record's `prev_hash` is 64 zeros. `audit.head` keeps the last sequence number and hash,
//! updated under the same lock, so cutting records off the end is detected too.

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
}

#[derive(Serialize, Deserialize)]
struct Head {
    seq: u64,
    hash: String,
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
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Appends one chained record. Returns a warning when a torn line had to be terminated.
pub fn append(journal: &Journal, entry: &Entry) -> std::io::Result<Option<String>> {
    let mut locked = journal.lock()?;
    let head_path = journal.sibling("head");
    let head = match std::fs::read(&head_path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Head>(&b).ok())
    {
        Some(h) => h,
        None => last_valid(journal)?,
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
    locked.append(&line)?;
    write_head(&head_path, &Head { seq, hash })?;
    Ok(locked.repaired.take())
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
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    file.write_all(&bytes)?;
    // Longer only when written by hand or by an older sentinel: cut to this head (never to
    // zero, which ext4 treats as a rewrite too).
    if file.metadata()?.len() > bytes.len() as u64 {
        file.set_len(bytes.len() as u64)?;
    }
    Ok(())
}

/// The last intact record, when the head file is missing (a fresh log, or a lost head).
fn last_valid(journal: &Journal) -> std::io::Result<Head> {
    let mut head = Head {
        seq: 0,
        hash: GENESIS.into(),
    };
    for line in journal.lines()? {
        if let Ok(v) = serde_json::from_str::<Value>(&line.text)
            && let (Some(seq), Some(hash)) = (v["seq"].as_u64(), v["hash"].as_str())
        {
            head = Head {
                seq,
                hash: hash.into(),
            };
        }
    }
    Ok(head)
}

/// The outcome of `audit verify`.
#[derive(Debug, PartialEq, Eq)]
pub enum Verification {
    /// Every record chains to the one before, and the head agrees: (records checked).
    Intact(u64),
    /// The first broken record and what is wrong with it.
    Broken(String),
}

/// Walks the whole chain, across rotated files.
pub fn verify(journal: &Journal) -> std::io::Result<Verification> {
    let mut prev = GENESIS.to_string();
    let mut seq = 0u64;
    let mut count = 0u64;
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
        if stated_prev != prev || this_seq != Some(seq + 1) {
            return Ok(Verification::Broken(format!(
                "{at} (seq {}): it does not follow seq {seq}: a record was deleted, inserted or reordered before it",
                this_seq.map(|s| s.to_string()).unwrap_or("?".into())
            )));
        }
        prev = stated;
        seq += 1;
        count += 1;
    }
    match std::fs::read(journal.sibling("head"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Head>(&b).ok())
    {
        Some(head) if head.seq != seq || head.hash != prev => Ok(Verification::Broken(format!(
            "the log ends at seq {seq} but {} records seq {}: records were cut off the end",
            journal.sibling("head").display(),
            head.seq
        ))),
        None if count > 0 => Ok(Verification::Broken(format!(
            "{} is missing: the end of the log cannot be checked",
            journal.sibling("head").display()
        ))),
        _ => Ok(Verification::Intact(count)),
    }
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

#[cfg(test)]
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
            Verification::Intact(n) => panic!("intact with {n} records"),
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

    #[test]
    fn a_lost_head_is_rebuilt_from_the_log() {
        let (_d, j) = log(3, 1 << 20);
        std::fs::remove_file(j.sibling("head")).unwrap();
        append(&j, &entry(4)).unwrap();
        assert_eq!(verify(&j).unwrap(), Verification::Intact(4));
    }
}
