//! A send's claim on the spool's first records, and how it ends.
//!
//! A send takes the spool's first records ([`first`]) and, when the collector has them,
//! removes them by id ([`taken`]). Meanwhile hooks keep appending, and one of them may pass the
//! bound and fold the oldest records into a gap (`spool::compact`): records the send carries
//! among them. The collector would then get them twice over, once as themselves and once in
//! the gap's count. So the claim is written down (`export/claim`: an id and the last seq it
//! carries); a gap made while it is out counts apart what it folded of the claimed records
//! (`in_flight`), and when the send is taken that part comes off the gap (a gap left with
//! nothing is removed). A send that fails leaves the gap whole: those records were not sent and
//! now never will be. Only one send is out at a time (`next` is pushed past its end under the
//! lock), so one claim file is enough; a stale one (a killed sender) only makes a later gap
//! count apart what no send will take off.

use super::in_flight::{self, Claim};
use super::spool::{self, Paths, Spooled};
use crate::config::kept;

/// A line of the spool and its record (None: the line does not read as one).
pub type Line = (String, Option<Spooled>);

/// The first `n` records of the spool, claimed for one send (unreadable lines are returned as
/// None, to be removed with the batch they sit in).
pub fn first(paths: &Paths, n: usize) -> std::io::Result<(Claim, Vec<Line>)> {
    let _held = spool::lock(paths)?;
    let lines: Vec<Line> = spool::read_lines(paths)?
        .into_iter()
        .take(n)
        .map(|l| {
            let r = serde_json::from_str::<Spooled>(&l).ok();
            (l, r)
        })
        .collect();
    let claim = Claim {
        id: spool::fresh_id()?,
        last_seq: lines
            .iter()
            .filter_map(|(_, r)| r.as_ref().map(|r| r.seq))
            .max()
            .unwrap_or(0),
    };
    in_flight::write(&paths.dir, &claim)?;
    Ok((claim, lines))
}

/// The collector has the records of `claim` whose ids are in `ids`: they, and the unreadable
/// lines sent with them, are removed, and a gap made meanwhile loses what it counted of them.
/// The rest keep their order. Returns how many records are left.
pub fn taken(
    paths: &Paths,
    claim: &Claim,
    ids: &[&str],
    unreadable: &[String],
) -> std::io::Result<u64> {
    let mut held = spool::lock(paths)?;
    let lines = spool::read_lines(paths)?;
    let mut out = String::new();
    let mut left = 0u64;
    for line in &lines {
        let mut record = serde_json::from_str::<Spooled>(line).ok();
        let keep = match &record {
            Some(r) => !ids.contains(&r.id.as_str()),
            None => !unreadable.contains(line),
        };
        if !keep {
            continue;
        }
        if let Some(r) = record
            .as_mut()
            .filter(|r| r.claim == claim.id && r.in_flight > 0)
        {
            r.dropped = r.dropped.saturating_sub(r.in_flight);
            for (k, n) in std::mem::take(&mut r.in_flight_counts) {
                if let Some(c) = r.dropped_counts.get_mut(&k) {
                    *c = c.saturating_sub(n);
                    if *c == 0 {
                        r.dropped_counts.remove(&k);
                    }
                }
            }
            r.in_flight = 0;
            r.claim.clear();
            if r.dropped == 0 {
                continue;
            }
            out.push_str(&serde_json::to_string(r).map_err(std::io::Error::other)?);
        } else {
            out.push_str(line);
        }
        out.push('\n');
        left += 1;
    }
    kept::write_whole(&paths.spool, out.as_bytes())?;
    in_flight::clear(&paths.dir);
    held.records = left;
    held.save()?;
    Ok(held.records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::spool::{Bounds, Fresh};

    fn add(paths: &Paths, verdict: &str, keep: u64) {
        let fresh = Fresh {
            ts_ms: 1,
            session: "s",
            agent: "",
            tool: "",
            tier: "local",
            verdict,
            rule: None,
            reason: "",
            subject: "git status",
            cwd: "",
            project: "",
            shadow: false,
        };
        let bounds = Bounds {
            records: keep,
            bytes: 1 << 20,
        };
        spool::append(paths, &fresh, bounds, 5).unwrap();
    }

    fn records(paths: &Paths) -> Vec<Spooled> {
        spool::read_lines(paths)
            .unwrap()
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Records a send carries and a gap folds meanwhile are counted once: by the collector
    /// when the send is taken, in the gap when it fails.
    #[test]
    fn what_a_send_carries_is_not_also_counted_as_dropped() {
        for send_taken in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let paths = Paths::of(dir.path());
            for _ in 0..10 {
                add(&paths, "allow", 1000);
            }
            // The send claims the first 6 (seq 1..=6); meanwhile 40 more arrive with a bound
            // of 20, twice folding the oldest into the gap, the claimed ones among them.
            let (claim, batch) = first(&paths, 6).unwrap();
            assert_eq!(claim.last_seq, 6);
            for i in 0..40 {
                add(&paths, if i % 2 == 0 { "deny" } else { "ask" }, 20);
            }
            let gap = records(&paths)[0].clone();
            assert_eq!(gap.in_flight, 6, "{gap:?}");
            let kept_before = records(&paths).len() as u64 - 1;
            assert_eq!(gap.dropped + kept_before, 50);
            if send_taken {
                let ids: Vec<&str> = batch
                    .iter()
                    .filter_map(|(_, r)| r.as_ref().map(|r| r.id.as_str()))
                    .collect();
                taken(&paths, &claim, &ids, &[]).unwrap();
                let after = records(&paths);
                let gap = &after[0];
                // 50 decisions: 6 sent, the rest kept or counted in the gap, none twice.
                assert_eq!(6 + gap.dropped + after.len() as u64 - 1, 50, "{gap:?}");
                assert_eq!(gap.dropped_counts.values().sum::<u64>(), gap.dropped);
                assert_eq!(gap.dropped_counts.get("local/allow"), Some(&4));
                assert_eq!((gap.in_flight, gap.claim.as_str()), (0, ""));
                assert_eq!(in_flight::current(&paths.dir), None);
            } else {
                // The send failed: the gap stands for all it folded, the claimed ones too.
                assert_eq!(gap.dropped_counts.get("local/allow"), Some(&10));
            }
        }
    }

    /// A gap made while a send is out, whose every record the send carries, is removed whole
    /// when the send is taken.
    #[test]
    fn a_gap_of_only_carried_records_goes_when_the_send_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::of(dir.path());
        for _ in 0..30 {
            add(&paths, "allow", 1000);
        }
        let (claim, batch) = first(&paths, 30).unwrap();
        add(&paths, "deny", 20);
        assert!(records(&paths)[0].dropped > 0);
        let ids: Vec<&str> = batch
            .iter()
            .filter_map(|(_, r)| r.as_ref().map(|r| r.id.as_str()))
            .collect();
        assert_eq!(taken(&paths, &claim, &ids, &[]).unwrap(), 1);
        assert_eq!(records(&paths)[0].verdict, "deny");
    }
}
