//! `sentinel report`'s kept summary: what the stats journal and the audit log hold, counted in
//! stretches of the journals (a UTC day each, in journal order), kept in SENTINEL_HOME with how
//! far into each journal it goes, so that a report reads what the journals gained since the last
//! one instead of both whole (291M instructions at 10,000 calls).
//!
//! Kept by the report, never by the hook (whose path must not grow). The journals stay the source
//! of truth: the summary is followed only while each journal begins with the bytes it read
//! ([`Position`]), and counted again from the journals when it is missing, damaged, of another
//! format, or no longer matches them. It is signed as the rule cache is (SipHash-2-4 under this
//! build's half of the key and the home's, `cache/sentinel-cache.key`, a credential no call reads
//! unseen): a summary written by anything but this home's sentinel is counted again, never read.
//! What a stretch keeps adds up exactly: stretches absorbed in journal order give what one pass
//! over their records gives (the dashboard's [`Decisions`] and [`Audited`], and `suggest`'s
//! [`Row`]s in order). A stretch that `--since` cuts is read again from its bytes in the
//! journal; the others come from the summary whole.
//!
//! `suggest` learns from a stats record with the last audit record of its time and session. A
//! record kept already matched against the audit records read then; an audit record read later
//! with the key of a kept record would change it, so it makes the summary count again (a rare
//! thing: a call's audit record is written before its stats line). A stats record read later is
//! matched with the new audit records, else with the last [`RECENT`] kept ones; one that could
//! match an older kept record makes the summary count again too.
//!
//! The summary feeds the report and `suggest`'s proposals, never a decision; `suggest` judges each
//! command under today's rules when the report runs.

use crate::ledger::audit::Brief;
use crate::ledger::journal::Journal;
use crate::ledger::journal_position::{NewLine, Position, Read};
use crate::ledger::stats::Record;
use crate::report::dashboard::{Audited, Decisions};
use crate::report::kept_stretch::{AuditStretch, StatsStretch, part_for};
use crate::report::suggest_rows::{self as suggest, Row};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

/// The key a summary is signed with.
type Key = [u8; 16];

/// The summary's file in SENTINEL_HOME.
pub const FILE: &str = "report-summary.json";
/// Its format: a summary of another is counted again.
const FORMAT: u32 = 1;
/// The largest summary read.
const MAX_BYTES: u64 = 256 << 20;
/// How many of the last keyed audit records, and of the last `suggest` rows' keys, are kept to
/// match what the next report reads.
const RECENT: usize = 64;
/// An audit record as `suggest` matches it: its key and what it reads from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Keyed {
    ts_ms: u64,
    session: String,
    subject: Option<String>,
    cwd: Option<String>,
    reason: Option<String>,
}

impl Keyed {
    fn brief(&self) -> Brief {
        Brief {
            ts_ms: Some(self.ts_ms),
            session: Some(self.session.clone()),
            subject: self.subject.clone(),
            cwd: self.cwd.clone(),
            reason: self.reason.clone(),
            ..Brief::default()
        }
    }
}

/// The summary as kept.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Kept {
    format: u32,
    stats_at: Position,
    audit_at: Position,
    stats: Vec<StatsStretch>,
    audit: Vec<AuditStretch>,
    /// The last audit records with a time and a session, oldest first.
    recent_audit: VecDeque<Keyed>,
    /// The latest time among the keyed audit records no longer in `recent_audit`.
    audit_dropped_ms: Option<u64>,
    /// The keys of the last `suggest` rows, oldest first.
    recent_rows: VecDeque<(u64, String)>,
    /// The latest time among the rows' keys no longer in `recent_rows`.
    rows_dropped_ms: Option<u64>,
}

/// Pushes onto a window of at most [`RECENT`], noting the latest time of what falls out.
fn push_recent<T>(
    window: &mut VecDeque<T>,
    item: T,
    dropped_ms: &mut Option<u64>,
    ts: impl Fn(&T) -> u64,
) {
    window.push_back(item);
    while window.len() > RECENT {
        if let Some(old) = window.pop_front() {
            *dropped_ms = Some(dropped_ms.map_or(ts(&old), |d| d.max(ts(&old))));
        }
    }
}

/// What the report shows over its time: the counts and `suggest`'s rows.
#[derive(Debug, Default)]
pub struct Gathered {
    pub decisions: Decisions,
    pub audited: Audited,
    pub rows: Vec<Row>,
}

/// Reading on from the kept summary.
enum Step {
    On(Box<Caught>),
    /// The summary no longer matches the journals: count from the start.
    Stale,
    /// The journals cannot be followed now: read them whole this time.
    Unfollowable,
}

/// What the journals gained past the summary, beyond what it now keeps.
struct Caught {
    /// Whole lines were read.
    grew: bool,
    /// The summary may be kept: nothing it holds was matched with a torn audit line.
    keepable: bool,
    /// A torn last stats line that parses, with its row: shown, not kept.
    torn_record: Option<(Record, Option<Row>)>,
    /// A torn last audit line that parses.
    torn_brief: Option<Brief>,
}

/// The report's counts since `since_ms`, from the kept summary brought up to the journals (and
/// kept again); None when the journals must be read whole this time: they rotated while read, a
/// stretch read again is not what the summary says, or there is no key to sign a summary with.
pub fn gather(
    home: &Path,
    stats: &Journal,
    audit: &Journal,
    since_ms: u64,
) -> std::io::Result<Option<Gathered>> {
    // Signed as the rule cache is: with this build's half and the home's (a credential no call
    // reads unseen). Without a key nothing is kept, and the journals are read whole.
    let Some(key) = crate::local::rules::cache::home_key(home) else {
        return Ok(None);
    };
    let path = home.join(FILE);
    let loaded = load(&path, &key);
    let mut changed = loaded.is_none();
    let mut kept = loaded.unwrap_or_default();
    let mut caught = None;
    for _ in 0..2 {
        match catch_up(&mut kept, stats, audit)? {
            Step::On(c) => {
                caught = Some(c);
                break;
            }
            Step::Stale => {
                kept = Kept::default();
                changed = true;
            }
            Step::Unfollowable => return Ok(None),
        }
    }
    let Some(caught) = caught else {
        return Ok(None);
    };
    if (changed || caught.grew) && caught.keepable {
        // A summary that cannot be kept costs the next report a count from the start, no more.
        let _ = save(&path, &key, &kept);
    }
    select(kept, *caught, since_ms, stats, audit)
}

/// The whole lines read on, and the torn last one.
type Lines = (Vec<NewLine>, Option<String>);

fn read_on(at: &mut Position, journal: &Journal) -> std::io::Result<Result<Lines, Step>> {
    Ok(match at.read_on(journal)? {
        Read::On { lines, torn } => Ok((lines, torn)),
        Read::Stale => Err(Step::Stale),
        Read::Unfollowable => Err(Step::Unfollowable),
    })
}

/// Brings `kept` up to the journals: the audit log's new lines, then the stats'.
fn catch_up(kept: &mut Kept, stats: &Journal, audit: &Journal) -> std::io::Result<Step> {
    kept.format = FORMAT;
    let (audit_lines, audit_torn) = match read_on(&mut kept.audit_at, audit)? {
        Ok(read) => read,
        Err(step) => return Ok(step),
    };
    let (stats_lines, stats_torn) = match read_on(&mut kept.stats_at, stats)? {
        Ok(read) => read,
        Err(step) => return Ok(step),
    };
    let briefs: Vec<Option<Brief>> = audit_lines
        .iter()
        .map(|l| serde_json::from_str(&l.text).ok())
        .collect();
    let torn_brief: Option<Brief> = audit_torn.and_then(|t| serde_json::from_str(&t).ok());
    let key = |b: &Brief| Some((b.ts_ms?, b.session.clone()?));
    // A new audit record with the key of a kept row would change what that row read.
    let kept_rows: HashSet<(u64, &str)> = kept
        .recent_rows
        .iter()
        .map(|(t, s)| (*t, s.as_str()))
        .collect();
    for (ts, session) in briefs.iter().chain([&torn_brief]).flatten().filter_map(key) {
        if kept.rows_dropped_ms.is_some_and(|d| ts <= d)
            || kept_rows.contains(&(ts, session.as_str()))
        {
            return Ok(Step::Stale);
        }
    }
    // The new audit records by key, the last one winning (as `suggest` matches them).
    let mut by_key: HashMap<(u64, &str), &Brief> = HashMap::new();
    for b in briefs.iter().chain([&torn_brief]).flatten() {
        if let (Some(ts), Some(session)) = (b.ts_ms, b.session.as_deref()) {
            by_key.insert((ts, session), b);
        }
    }
    let keepable = torn_brief.as_ref().and_then(key).is_none();
    // A stats record's row: matched with the new audit records, else with the kept recent ones.
    let resolve = |r: &Record| -> Result<Option<Row>, ()> {
        if !suggest::learns_from(r) {
            return Ok(None);
        }
        if let Some(b) = by_key.get(&(r.ts_ms, r.session.as_str())) {
            return Ok(suggest::row(r, Some(b)));
        }
        let recent = kept
            .recent_audit
            .iter()
            .rev()
            .find(|k| k.ts_ms == r.ts_ms && k.session == r.session);
        match recent {
            Some(k) => Ok(suggest::row(r, Some(&k.brief()))),
            None if kept.audit_dropped_ms.is_some_and(|d| r.ts_ms <= d) => Err(()),
            None => Ok(suggest::row(r, None)),
        }
    };
    let mut new_stats = Vec::new();
    for line in &stats_lines {
        let Ok(r) = serde_json::from_str::<Record>(&line.text) else {
            new_stats.push((line, None));
            continue;
        };
        let Ok(row) = resolve(&r) else {
            return Ok(Step::Stale);
        };
        new_stats.push((line, Some((r, row))));
    }
    let torn_record = match stats_torn.and_then(|t| serde_json::from_str::<Record>(&t).ok()) {
        Some(r) => match resolve(&r) {
            Ok(row) => Some((r, row)),
            Err(()) => return Ok(Step::Stale),
        },
        None => None,
    };
    drop(by_key);
    for (line, read) in new_stats {
        let Some((r, row)) = read else {
            part_for(&mut kept.stats, line, None);
            continue;
        };
        let Some(part) = part_for(&mut kept.stats, line, Some(r.ts_ms)) else {
            continue;
        };
        part.decisions.add(&r);
        if let Some(row) = row {
            part.rows.push(row);
            push_recent(
                &mut kept.recent_rows,
                (r.ts_ms, r.session),
                &mut kept.rows_dropped_ms,
                |k| k.0,
            );
        }
    }
    for (line, brief) in audit_lines.iter().zip(briefs) {
        let ts = brief.as_ref().and_then(|b| b.ts_ms);
        let Some(part) = part_for(&mut kept.audit, line, ts) else {
            continue;
        };
        let Some(b) = brief else {
            continue;
        };
        part.audited.add(&b);
        if let (Some(ts_ms), Some(session)) = (b.ts_ms, b.session) {
            let keyed = Keyed {
                ts_ms,
                session,
                subject: b.subject,
                cwd: b.cwd,
                reason: b.reason,
            };
            push_recent(
                &mut kept.recent_audit,
                keyed,
                &mut kept.audit_dropped_ms,
                |k| k.ts_ms,
            );
        }
    }
    Ok(Step::On(Box::new(Caught {
        grew: !audit_lines.is_empty() || !stats_lines.is_empty(),
        keepable,
        torn_record,
        torn_brief,
    })))
}

/// What the report shows from `since_ms` on: the stretches wholly after it from the summary, the
/// one it cuts read again from the journal, then the torn last lines. None when a stretch read
/// again is not what the summary says it was.
fn select(
    kept: Kept,
    caught: Caught,
    since_ms: u64,
    stats: &Journal,
    audit: &Journal,
) -> std::io::Result<Option<Gathered>> {
    let mut out = Gathered::default();
    for mut part in kept.stats {
        if part.at.first_ms >= since_ms {
            out.decisions.absorb(&part.decisions);
            out.rows.append(&mut part.rows);
            continue;
        }
        if part.at.last_ms < since_ms {
            continue;
        }
        let Some(lines) = kept
            .stats_at
            .reread(stats, part.at.file, part.at.start, part.at.end)?
        else {
            return Ok(None);
        };
        let records: Vec<Record> = lines
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if records.len() != part.at.records {
            return Ok(None);
        }
        let mut rows = part.rows.into_iter();
        for r in &records {
            let row = match suggest::learns_from(r) {
                true => match rows.next() {
                    Some(row) => Some(row),
                    None => return Ok(None),
                },
                false => None,
            };
            if r.ts_ms >= since_ms {
                out.decisions.add(r);
                out.rows.extend(row);
            }
        }
        if rows.next().is_some() {
            return Ok(None);
        }
    }
    for part in kept.audit {
        if part.at.first_ms >= since_ms {
            out.audited.absorb(&part.audited);
            continue;
        }
        if part.at.last_ms < since_ms {
            continue;
        }
        let Some(lines) = kept
            .audit_at
            .reread(audit, part.at.file, part.at.start, part.at.end)?
        else {
            return Ok(None);
        };
        let briefs: Vec<Brief> = lines
            .iter()
            .filter_map(|l| serde_json::from_str::<Brief>(l).ok())
            .filter(|b| b.ts_ms.is_some())
            .collect();
        if briefs.len() != part.at.records {
            return Ok(None);
        }
        for b in briefs
            .iter()
            .filter(|b| b.ts_ms.is_some_and(|t| t >= since_ms))
        {
            out.audited.add(b);
        }
    }
    if let Some((r, row)) = caught.torn_record
        && r.ts_ms >= since_ms
    {
        out.decisions.add(&r);
        out.rows.extend(row);
    }
    if let Some(b) = caught.torn_brief
        && b.ts_ms.is_some_and(|t| t >= since_ms)
    {
        out.audited.add(&b);
    }
    Ok(Some(out))
}

/// The kept summary; None when missing, damaged or not signed with `key`, or of another format.
fn load(path: &Path, key: &Key) -> Option<Kept> {
    let bytes = crate::config::kept::read(path, MAX_BYTES).ok()?;
    let at = bytes.iter().position(|&b| b == b'\n')?;
    let (signature, body) = (&bytes[..at], &bytes[at + 1..]);
    if signature != sign(key, body).as_bytes() {
        return None;
    }
    let kept: Kept = serde_json::from_slice(body).ok()?;
    (kept.format == FORMAT).then_some(kept)
}

/// SipHash-2-4 of the body under the home's key, in hex.
fn sign(key: &Key, body: &[u8]) -> String {
    format!("{:016x}", crate::digest::siphash24(key, &[body]))
}

/// Keeps the summary: its signature on the first line, then its JSON; written whole.
fn save(path: &Path, key: &Key, kept: &Kept) -> std::io::Result<()> {
    let body = serde_json::to_vec(kept)?;
    let mut bytes = sign(key, &body).into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(&body);
    crate::config::kept::write_whole(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Tier, Verdict};
    use crate::report::dashboard;

    fn record(n: u64, session: &str, verdict: &str) -> Record {
        Record {
            ts_ms: 1_795_000_000_000 + n * 3_600_000,
            session: session.into(),
            agent: "claude".into(),
            tool: "Bash".into(),
            subject: format!("tool{} run", n % 5),
            tier: if n.is_multiple_of(7) {
                Tier::Api
            } else {
                Tier::Local
            },
            verdict: verdict.into(),
            local: Verdict::Uncertain,
            rule: (n.is_multiple_of(3)).then(|| format!("tasks.txt:{n}")),
            latency_us: n * 37 % 101,
            api_ms: (n.is_multiple_of(7)).then_some(900),
            tokens: (n.is_multiple_of(7)).then_some((700 + n, 60)),
            cache_tokens: None,
            shadow: false,
            scope: None,
            seq: None,
            rebuilt: false,
            unkept: Vec::new(),
            spared: n.is_multiple_of(4),
        }
    }

    /// Appends calls `from..to`: each call's audit record, then (unless `no_stats`) its stats
    /// line, as `sentinel hook` writes them.
    fn calls(stats: &Journal, audit: &Journal, from: u64, to: u64) {
        for n in from..to {
            let session = ["a", "b", "c"][n as usize % 3];
            let verdict = ["defer", "deny", "ask", "allow", "defer"][n as usize % 5];
            let r = record(n, session, verdict);
            let entry = serde_json::json!({
                "ts_ms": r.ts_ms, "session": session, "verdict": verdict,
                "subject": format!("cd x && {}", r.subject), "cwd": format!("/p{}", n % 2),
                "reason": format!("sentinel[api]: allowed: reason {}", n % 4),
            });
            audit.lock().unwrap().append(&entry.to_string()).unwrap();
            stats
                .lock()
                .unwrap()
                .append(&serde_json::to_string(&r).unwrap())
                .unwrap();
        }
    }

    /// What the whole read gives: the dashboard and suggest's rows.
    fn whole(stats: &Journal, audit: &Journal, since: u64) -> (String, Vec<Row>) {
        let records: Vec<Record> = crate::ledger::stats::load(stats)
            .unwrap()
            .records
            .into_iter()
            .filter(|r| r.ts_ms >= since)
            .collect();
        let briefs: Vec<Brief> = crate::ledger::audit::briefs(audit)
            .unwrap()
            .into_iter()
            .filter(|b| b.ts_ms.is_some_and(|t| t >= since))
            .collect();
        let by_key: HashMap<(u64, &str), &Brief> = briefs
            .iter()
            .filter_map(|b| Some(((b.ts_ms?, b.session.as_deref()?), b)))
            .collect();
        let rows = records
            .iter()
            .filter_map(|r| suggest::row(r, by_key.get(&(r.ts_ms, r.session.as_str())).copied()))
            .collect();
        let d = dashboard::build(&records, &briefs, &[]);
        (serde_json::to_string(&d).unwrap(), rows)
    }

    fn kept(home: &Path, stats: &Journal, audit: &Journal, since: u64) -> (String, Vec<Row>) {
        let g = gather(home, stats, audit, since)
            .unwrap()
            .expect("the summary is followed");
        let d = dashboard::assemble(&g.decisions, &g.audited, &[]);
        (serde_json::to_string(&d).unwrap(), g.rows)
    }

    #[test]
    fn the_summary_equals_the_whole_read_across_runs_days_and_cuts() {
        let home = tempfile::tempdir().unwrap();
        let stats = crate::ledger::stats::journal(home.path(), 6000);
        let audit = crate::ledger::audit::journal(home.path(), 6000);
        let mut n = 0;
        for step in [5, 0, 1, 30, 2, 60] {
            calls(&stats, &audit, n, n + step);
            n += step;
            for since in [0, record(n / 2, "", "").ts_ms + 1, u64::MAX] {
                assert_eq!(
                    kept(home.path(), &stats, &audit, since),
                    whole(&stats, &audit, since),
                    "{n} calls, since {since}"
                );
                // Followed, not counted again.
                let key = crate::local::rules::cache::home_key(home.path()).unwrap();
                let mut saved = load(&home.path().join(FILE), &key).unwrap();
                assert!(matches!(
                    catch_up(&mut saved, &stats, &audit).unwrap(),
                    Step::On(_)
                ));
            }
        }
        assert!(stats.files().len() > 2, "the journals rotated");
        let key = crate::local::rules::cache::home_key(home.path()).unwrap();
        let saved = load(&home.path().join(FILE), &key).unwrap();
        assert!(saved.stats.len() > 3, "a stretch a day");
        assert!(saved.stats.iter().any(|s| !s.rows.is_empty()));
    }

    /// A stats line read after its audit record was kept is matched with it; an audit record
    /// read after a kept row with its key makes the summary count again.
    #[test]
    fn rows_read_later_match_the_kept_audit_records_and_late_ones_count_again() {
        let home = tempfile::tempdir().unwrap();
        let stats = crate::ledger::stats::journal(home.path(), 1 << 20);
        let audit = crate::ledger::audit::journal(home.path(), 1 << 20);
        calls(&stats, &audit, 0, 10);
        // The 10th call's audit record, its stats line not yet written.
        let r = record(10, "b", "defer");
        let entry = serde_json::json!({"ts_ms": r.ts_ms, "session": "b", "subject": "late one", "cwd": "/q"});
        audit.lock().unwrap().append(&entry.to_string()).unwrap();
        assert_eq!(
            kept(home.path(), &stats, &audit, 0),
            whole(&stats, &audit, 0)
        );
        stats
            .lock()
            .unwrap()
            .append(&serde_json::to_string(&r).unwrap())
            .unwrap();
        let (_, rows) = kept(home.path(), &stats, &audit, 0);
        assert_eq!(rows.last().unwrap().command, "late one");
        assert_eq!(
            kept(home.path(), &stats, &audit, 0),
            whole(&stats, &audit, 0)
        );
        // Another audit record with the key of a kept row: the last one wins.
        let again = serde_json::json!({"ts_ms": r.ts_ms, "session": "b", "subject": "later one", "cwd": "/q"});
        audit.lock().unwrap().append(&again.to_string()).unwrap();
        let (_, rows) = kept(home.path(), &stats, &audit, 0);
        assert_eq!(rows.last().unwrap().command, "later one");
        assert_eq!(
            kept(home.path(), &stats, &audit, 0),
            whole(&stats, &audit, 0)
        );
    }
}
