//! The spool: decisions waiting to be exported, in `SENTINEL_HOME/export/`, written by every
//! hook and emptied by the sender (`super::send`). Every file goes through
//! [`crate::config::kept`] (no link followed, 0600 in 0700 folders).
//!
//! - `spool.jsonl`: one record a line, oldest first, as the audit log keeps the decision (its
//!   text redacted already, `ledger::redact::kept`; it is redacted again when sent).
//! - `spool.lock`: the lock every writer takes (fs2, exclusive), holding the spool's record
//!   count and the last sequence number given, as one short line of text (a damaged one is
//!   rebuilt from the spool).
//! - `next`: its modification time is when the next send may start (a send in progress pushes
//!   it past its own end; a failure past the backoff): a hook learns whether a send is due
//!   with one `stat`.
//!
//! **Bounded**: past `max_records` or `max_bytes`, the oldest records are dropped (down to 90%
//! of the bounds, so this happens once per many calls, not on every one) and replaced by one
//! *gap* record at the spool's head that says how many were dropped and their tiers and
//! verdicts; a later gap merges into it. The collector receives the gap in its place in the
//! stream.
//!
//! **Identified**: each record has a 128-bit id (a random 64-bit stream id kept in the lock
//! line, and its sequence number), kept across retries; the sequence number grows with every
//! record of this SENTINEL_HOME: a batch resent after a lost
//! response carries the same ids (the receiver drops what it has), and the order of the
//! records is the order of the decisions.

use crate::config::kept::{self, Access};
use fs2::FileExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
#[cfg(unix)]
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

/// The folder in SENTINEL_HOME.
pub const DIR: &str = "export";
/// The most of a command or reason one record keeps (longer ones are cut, with their length).
pub const MAX_TEXT_BYTES: usize = 4096;

/// One record of the spool: a decision, or a gap where records were dropped.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Spooled {
    /// 32 hex digits, random, the same on every attempt to send it.
    pub id: String,
    /// Grows by one with every record of this SENTINEL_HOME (a gap: the last one it stands for).
    pub seq: u64,
    /// When it was decided (a gap: when the records were dropped).
    pub ts_ms: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub session: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub agent: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tier: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub verdict: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The command or path asked about.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subject: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cwd: String,
    /// The project the agent named (its folder), else the cwd.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub project: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
    /// A gap: how many records were dropped here.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped: u64,
    /// A gap: the dropped decisions per `tier/verdict`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dropped_counts: BTreeMap<String, u64>,
    /// A gap made while a send was out: of `dropped`, those that send carries
    /// ([`super::claim`]), taken off again when it is taken.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub in_flight: u64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub in_flight_counts: BTreeMap<String, u64>,
    /// A gap made while a send was out: that send's claim.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub claim: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Spooled {
    /// `tier/verdict`, the key of the counters.
    pub fn key(&self) -> String {
        format!("{}/{}", self.tier, self.verdict)
    }
}

/// The paths of a SENTINEL_HOME's spool.
pub struct Paths {
    pub dir: PathBuf,
    pub spool: PathBuf,
    pub lock: PathBuf,
    pub next: PathBuf,
    pub status: PathBuf,
    pub metrics: PathBuf,
}

impl Paths {
    pub fn of(home: &Path) -> Paths {
        // Joined by hand from one buffer: six `join`s cost the hook ~1.5k instructions.
        let dir = home.join(DIR);
        let file = |name: &str| {
            let mut p = std::ffi::OsString::with_capacity(dir.as_os_str().len() + 1 + name.len());
            p.push(dir.as_os_str());
            p.push("/");
            p.push(name);
            PathBuf::from(p)
        };
        Paths {
            spool: file("spool.jsonl"),
            lock: file("spool.lock"),
            next: file("next"),
            status: file("status.json"),
            metrics: file("metrics.json"),
            dir,
        }
    }
}

/// The lock, held; it carries the record count and the last sequence number.
pub struct Held {
    file: File,
    pub records: u64,
    pub seq: u64,
    /// 16 hex digits, random, chosen when the counters were (re)started: a record's id is this
    /// and its seq, so the hook needs no randomness per record, and a sequence restarted (a
    /// damaged lock line) cannot repeat an id.
    pub stream: [u8; 16],
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.file);
    }
}

/// Writes `n` in decimal, right-aligned, into `out` (zero-filled).
fn digits(out: &mut [u8], mut n: u64) {
    out.fill(b'0');
    let mut i = out.len();
    while n > 0 && i > 0 {
        i -= 1;
        out[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Held {
    pub(super) fn save(&self) -> std::io::Result<()> {
        // `RECORDS SEQ STREAM\n`, fixed width, so the line is rewritten in place and never
        // shorter; by hand (a `format!` of it cost the hook ~2k instructions).
        let mut line = [b' '; 59];
        digits(&mut line[..20], self.records);
        digits(&mut line[21..41], self.seq);
        line[42..58].copy_from_slice(&self.stream);
        line[58] = b'\n';
        write_at_start(&self.file, &line)
    }

    /// The id of the record numbered `seq`: the stream and the seq in hex, 32 digits.
    pub fn id(&self, seq: u64) -> String {
        let mut id = String::with_capacity(32);
        id.push_str(std::str::from_utf8(&self.stream).unwrap_or("0000000000000000"));
        for shift in (0..16).rev() {
            id.push(HEX[((seq >> (shift * 4)) & 15) as usize] as char);
        }
        id
    }
}

/// Writes `bytes` at the start of `file` (pwrite on Unix: the file's offset is not moved).
#[cfg(unix)]
fn write_at_start(file: &File, bytes: &[u8]) -> std::io::Result<()> {
    file.write_all_at(bytes, 0)
}

#[cfg(not(unix))]
fn write_at_start(mut file: &File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    file.write_all(bytes)
}

/// Reads what fits in `buf` from the start of `file`.
#[cfg(unix)]
fn read_at_start(file: &File, buf: &mut [u8]) -> std::io::Result<usize> {
    file.read_at(buf, 0)
}

#[cfg(not(unix))]
fn read_at_start(mut file: &File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    file.read(buf)
}

/// Takes the spool's lock, reading its counters (rebuilt from the spool when damaged, with a
/// new stream).
pub fn lock(paths: &Paths) -> std::io::Result<Held> {
    let file = kept::open(&paths.lock, Access::Update)?;
    file.lock_exclusive()?;
    let mut buf = [0u8; 64];
    let n = read_at_start(&file, &mut buf)?;
    let counters = std::str::from_utf8(&buf[..n]).ok().and_then(|t| {
        let mut it = t.trim_end().split(' ');
        let records = it.next()?.parse().ok()?;
        let seq = it.next()?.parse().ok()?;
        let stream: [u8; 16] = it.next()?.as_bytes().try_into().ok()?;
        stream
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some((records, seq, stream))
    });
    let (records, seq, stream) = match counters {
        Some(c) => c,
        None => {
            let (records, seq) = recount(paths)?;
            let mut stream = [0u8; 16];
            stream.copy_from_slice(&fresh_id()?.as_bytes()[..16]);
            (records, seq, stream)
        }
    };
    Ok(Held {
        file,
        records,
        seq,
        stream,
    })
}

/// The count and last seq of the spool as it is (an absent one: none).
fn recount(paths: &Paths) -> std::io::Result<(u64, u64)> {
    let lines = read_lines(paths)?;
    let seq = lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Spooled>(l).ok())
        .map(|r| r.seq)
        .max()
        .unwrap_or(0);
    Ok((lines.len() as u64, seq))
}

/// The spool's lines (none when it is absent).
pub fn read_lines(paths: &Paths) -> std::io::Result<Vec<String>> {
    match kept::read(&paths.spool, u64::MAX / 2) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()),
        Err(e) if crate::config::is_absent(&e) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// A fresh record id: 32 hex digits from the OS's randomness.
pub fn fresh_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(HEX[usize::from(b >> 4)] as char);
        id.push(HEX[usize::from(b & 15)] as char);
    }
    Ok(id)
}

/// A decision as the hook appends it: [`Spooled`]'s fields, borrowed (written with the same
/// names and omissions, so it reads back as one).
pub struct Fresh<'a> {
    pub ts_ms: u64,
    pub session: &'a str,
    pub agent: &'a str,
    pub tool: &'a str,
    pub tier: &'a str,
    pub verdict: &'a str,
    pub rule: Option<&'a str>,
    pub reason: &'a str,
    pub subject: &'a str,
    pub cwd: &'a str,
    pub project: &'a str,
    pub shadow: bool,
}

/// `text` cut to [`MAX_TEXT_BYTES`], saying how long it was.
pub fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_TEXT_BYTES {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = MAX_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!(
        "{}… [cut: {} bytes in all]",
        &text[..end],
        text.len()
    ))
}

/// The bounds a spool is held to.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub records: u64,
    pub bytes: u64,
}

/// Appends one decision (its `id` and `seq` are given here). Returns whether a send is due.
pub fn append(paths: &Paths, record: &Fresh, bounds: Bounds, now_ms: u64) -> std::io::Result<bool> {
    // The record's fields after its id and seq, each borrowed (no `flatten`: it serializes
    // through a map, twice the instructions on the hook's path).
    #[derive(Serialize)]
    struct Numbered<'a> {
        id: &'a str,
        seq: u64,
        ts_ms: u64,
        #[serde(skip_serializing_if = "str::is_empty")]
        session: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        agent: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        tool: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        tier: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        verdict: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<&'a str>,
        #[serde(skip_serializing_if = "str::is_empty")]
        reason: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        subject: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        cwd: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        project: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        shadow: bool,
    }
    let mut held = lock(paths)?;
    let seq = held.seq + 1;
    let id = held.id(seq);
    let r = record;
    let numbered = Numbered {
        id: &id,
        seq,
        ts_ms: r.ts_ms,
        session: r.session,
        agent: r.agent,
        tool: r.tool,
        tier: r.tier,
        verdict: r.verdict,
        rule: r.rule,
        reason: r.reason,
        subject: r.subject,
        cwd: r.cwd,
        project: r.project,
        shadow: r.shadow,
    };
    let mut line = serde_json::to_string(&numbered).map_err(std::io::Error::other)?;
    line.push('\n');
    let (mut file, mut len) = kept::open_with_len(&paths.spool, Access::Append)?;
    if held.records + 1 > bounds.records || len + line.len() as u64 > bounds.bytes {
        let keep = Bounds {
            records: (bounds.records * 9 / 10).max(2) - 1,
            bytes: (bounds.bytes * 9 / 10).saturating_sub(line.len() as u64),
        };
        let (records, bytes) = compact(paths, keep, now_ms)?;
        held.records = records;
        len = bytes;
        file = kept::open(&paths.spool, Access::Append)?;
    }
    if let Err(e) = file.write_all(line.as_bytes()) {
        let _ = file.set_len(len);
        return Err(e);
    }
    held.records += 1;
    held.seq = seq;
    held.save()?;
    Ok(due(paths, now_ms))
}

/// Whether a send may start now: `next`'s time has passed (or there is none).
pub fn due(paths: &Paths, now_ms: u64) -> bool {
    next_at(paths).is_none_or(|at| at <= now_ms)
}

/// When the next send may start (from `next`'s modification time).
pub fn next_at(paths: &Paths) -> Option<u64> {
    let meta = std::fs::symlink_metadata(&paths.next).ok()?;
    let t = meta.modified().ok()?;
    Some(
        t.duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0),
    )
}

/// Sets when the next send may start.
pub fn set_next(paths: &Paths, at_ms: u64) -> std::io::Result<()> {
    let f = kept::open(&paths.next, Access::Write)?;
    set_mtime(&f, at_ms)
}

/// Sets `f`'s access and modification times to `at_ms`.
#[cfg(not(unix))]
fn set_mtime(f: &File, at_ms: u64) -> std::io::Result<()> {
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_millis(at_ms))
}

#[cfg(unix)]
fn set_mtime(f: &File, at_ms: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let t = libc::timespec {
        // `as _`: libc marks musl's `time_t` alias deprecated (it is to become 64-bit there).
        tv_sec: (at_ms / 1000) as _,
        tv_nsec: ((at_ms % 1000) * 1_000_000) as libc::c_long,
    };
    let times = [t, t];
    // Through `syscall` on Linux: each libc function the binary imports costs every hook's
    // start a symbol lookup, export on or off (futimens is utimensat on an fd, no path).
    // SAFETY: sets the times of our own open file from a live array.
    #[cfg(target_os = "linux")]
    let done = unsafe {
        libc::syscall(
            libc::SYS_utimensat,
            f.as_raw_fd(),
            std::ptr::null::<libc::c_char>(),
            times.as_ptr(),
            0,
        )
    };
    // SAFETY: as above.
    #[cfg(not(target_os = "linux"))]
    let done = unsafe { libc::futimens(f.as_raw_fd(), times.as_ptr()) };
    if done != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Drops the oldest records until the spool is within `keep` (a gap record at its head says
/// how many, merged with a gap already there). Run under the lock. Returns the records and
/// bytes left.
fn compact(paths: &Paths, keep: Bounds, now_ms: u64) -> std::io::Result<(u64, u64)> {
    let lines = read_lines(paths)?;
    // A send out now carries the first records: what it carries and is dropped here is
    // counted apart, so that it is not counted as lost once the send is taken.
    let out_now = super::in_flight::current(&paths.dir);
    let mut gap = Spooled {
        id: fresh_id()?,
        ts_ms: now_ms,
        claim: out_now.as_ref().map(|c| c.id.clone()).unwrap_or_default(),
        ..Spooled::default()
    };
    // From the newest back: what fits stays.
    let mut kept_lines: Vec<&String> = Vec::new();
    let mut bytes = 0u64;
    let budget_gap = 512u64;
    for line in lines.iter().rev() {
        let more = bytes + line.len() as u64 + 1;
        if (kept_lines.len() as u64) < keep.records && more + budget_gap <= keep.bytes {
            bytes = more;
            kept_lines.push(line);
        } else {
            break;
        }
    }
    let dropped = &lines[..lines.len() - kept_lines.len()];
    for line in dropped {
        match serde_json::from_str::<Spooled>(line) {
            Ok(r) if r.dropped > 0 => {
                match &out_now {
                    // Made during this send: only what it counted as carried is carried.
                    Some(c) if r.claim == c.id => {
                        gap.in_flight += r.in_flight;
                        for (k, n) in &r.in_flight_counts {
                            *gap.in_flight_counts.entry(k.clone()).or_default() += n;
                        }
                    }
                    // Older, and claimed: the send carries the whole gap.
                    Some(c) if r.seq <= c.last_seq => {
                        gap.in_flight += r.dropped;
                        for (k, n) in &r.dropped_counts {
                            *gap.in_flight_counts.entry(k.clone()).or_default() += n;
                        }
                    }
                    _ => {}
                }
                gap.dropped += r.dropped;
                for (k, n) in r.dropped_counts {
                    *gap.dropped_counts.entry(k).or_default() += n;
                }
                gap.seq = gap.seq.max(r.seq);
            }
            Ok(r) => {
                gap.dropped += 1;
                *gap.dropped_counts.entry(r.key()).or_default() += 1;
                if out_now.as_ref().is_some_and(|c| r.seq <= c.last_seq) {
                    gap.in_flight += 1;
                    *gap.in_flight_counts.entry(r.key()).or_default() += 1;
                }
                gap.seq = gap.seq.max(r.seq);
            }
            Err(_) => {
                gap.dropped += 1;
                *gap.dropped_counts.entry("unreadable".into()).or_default() += 1;
            }
        }
    }
    let mut out = String::new();
    if gap.dropped > 0 {
        out.push_str(&serde_json::to_string(&gap).map_err(std::io::Error::other)?);
        out.push('\n');
    }
    for line in kept_lines.iter().rev() {
        out.push_str(line);
        out.push('\n');
    }
    kept::write_whole(&paths.spool, out.as_bytes())?;
    let records = kept_lines.len() as u64 + u64::from(gap.dropped > 0);
    Ok((records, out.len() as u64))
}

/// What the spool holds now: records, bytes, and the oldest record's time.
pub fn size(paths: &Paths) -> std::io::Result<(u64, u64, Option<u64>)> {
    let bytes = match kept::open_with_len(&paths.spool, Access::Read) {
        Ok((_, len)) => len,
        Err(e) if crate::config::is_absent(&e) => return Ok((0, 0, None)),
        Err(e) => return Err(e),
    };
    let (records, oldest) = {
        let _held = lock(paths)?;
        let lines = read_lines(paths)?;
        let oldest = lines
            .first()
            .and_then(|l| serde_json::from_str::<Spooled>(l).ok())
            .map(|r| r.ts_ms);
        (lines.len() as u64, oldest)
    };
    Ok((records, bytes, oldest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(session: &str, verdict: &str) -> Spooled {
        Spooled {
            ts_ms: 1,
            session: session.into(),
            tier: "local".into(),
            verdict: verdict.into(),
            subject: "git status".into(),
            ..Spooled::default()
        }
    }

    #[test]
    fn the_spool_keeps_order_and_drops_the_oldest_into_one_counted_gap() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::of(dir.path());
        let bounds = Bounds {
            records: 10,
            bytes: 1 << 20,
        };
        for i in 0..25 {
            let v = if i % 2 == 0 { "allow" } else { "deny" };
            let d = decision("s", v);
            let fresh = Fresh {
                ts_ms: d.ts_ms,
                session: &d.session,
                agent: "",
                tool: "",
                tier: &d.tier,
                verdict: &d.verdict,
                rule: None,
                reason: "",
                subject: &d.subject,
                cwd: "",
                project: "",
                shadow: false,
            };
            append(&paths, &fresh, bounds, 5).unwrap();
        }
        let lines = read_lines(&paths).unwrap();
        let records: Vec<Spooled> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(records.len() <= 10);
        let gap = &records[0];
        let kept = records.len() as u64 - 1;
        assert_eq!(gap.dropped + kept, 25);
        assert_eq!(gap.dropped_counts.values().sum::<u64>(), gap.dropped);
        // The seqs go up, the last is the 25th, the gap stands for those before the first kept.
        let seqs: Vec<u64> = records.iter().map(|r| r.seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        assert_eq!(*seqs.last().unwrap(), 25);
        assert_eq!(gap.seq + 1, records[1].seq);
        // The counters agree with the file; a damaged lock line is rebuilt from it.
        assert_eq!(lock(&paths).unwrap().records, records.len() as u64);
        std::fs::write(&paths.lock, "garbage").unwrap();
        let held = lock(&paths).unwrap();
        assert_eq!((held.records, held.seq), (records.len() as u64, 25));
        drop(held);
        // Removing a batch by id leaves the rest in order.
        let (claim, _) = super::super::claim::first(&paths, 3).unwrap();
        let ids: Vec<&str> = records[..3].iter().map(|r| r.id.as_str()).collect();
        let left = super::super::claim::taken(&paths, &claim, &ids, &[]).unwrap();
        assert_eq!(left, records.len() as u64 - 3);
        let (_, first) = super::super::claim::first(&paths, 1).unwrap();
        assert_eq!(first[0].1.as_ref().unwrap().seq, records[3].seq);
    }

    #[test]
    fn a_send_is_due_when_next_has_passed() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::of(dir.path());
        assert!(due(&paths, 1000));
        kept::create_dir(&paths.dir).unwrap();
        set_next(&paths, 5_000_000).unwrap();
        assert!(!due(&paths, 4_999_999));
        assert!(due(&paths, 5_000_000));
    }
}
