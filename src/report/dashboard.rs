//! `sentinel report`'s numbers: what was decided over a stretch of time, from the stats and the
//! audit log, with the rule `suggest` would propose for what keeps being deferred. Pure: the
//! records in, one serializable value out (`report --json`, and the HTML page's only input).

use crate::decision::{Tier, Verdict};
use crate::ledger::audit::Brief;
use crate::ledger::stats::{self, Record, Summary};
use crate::report::suggest::Suggestion;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How many commands each top list shows.
pub const TOP: usize = 10;

/// One UTC day's decisions, by tier and answer.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Day {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    /// Tier 1 allowed.
    pub local_allow: usize,
    /// Tier 1 denied.
    pub local_deny: usize,
    /// Tier 1 asked the person (a rule that says ask).
    pub local_ask: usize,
    /// Tier 1 could not decide and Tier 2 was off: the agent's own flow or the person decided.
    pub local_uncertain: usize,
    /// Tier 2 allowed.
    pub api_allow: usize,
    /// Tier 2 denied.
    pub api_deny: usize,
    /// Tier 2 asked the person.
    pub api_ask: usize,
    /// Tier 2 failed; the fail path answered.
    pub fail: usize,
}

/// A command that came up again and again.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Top {
    /// The command or path.
    pub subject: String,
    /// How many times.
    pub count: usize,
    /// The rule that decided it (`file:line`), the latest time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The rule `sentinel suggest` proposes to settle it: the file and the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<(String, String)>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Dashboard {
    /// The first and last decision shown, `YYYY-MM-DD HH:MM:SS` UTC.
    pub from: Option<String>,
    /// The last decision shown.
    pub to: Option<String>,
    /// The sessions seen.
    pub sessions: usize,
    /// What `sentinel stats --json --all` counts over the same records.
    pub summary: Summary,
    /// Calls sentinel allowed itself, enforced (not in shadow mode), that the agent would have
    /// asked the person about (its permission mode said so): prompts spared.
    pub prompts_avoided: usize,
    /// Calls where the person was asked (or the agent's own flow decided).
    pub prompts_left: usize,
    /// Per day, oldest first, every day in between included.
    pub days: Vec<Day>,
    /// The commands denied most often.
    pub top_denied: Vec<Top>,
    /// The commands deferred (asked or left to the agent) most often.
    pub top_deferred: Vec<Top>,
    /// Sessions that took in outside text (audit log `tainted` records).
    pub tainted_sessions: usize,
    /// Records in the audit log over the same time.
    pub audit_records: usize,
}

/// Builds the report from `records` and `audit`, both already cut to the time shown.
pub fn build(records: &[Record], audit: &[Brief], suggestions: &[Suggestion]) -> Dashboard {
    let mut decisions = Decisions::default();
    for r in records {
        decisions.add(r);
    }
    let mut audited = Audited::default();
    for v in audit {
        audited.add(v);
    }
    assemble(&decisions, &audited, suggestions)
}

/// What the stats records of a stretch of time add to the report, in a form that adds up: two
/// stretches counted apart and absorbed in journal order give what one pass over both gives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Decisions {
    sums: stats::Sums,
    days: BTreeMap<String, Day>,
    /// Subject → how many times, and the last rule named.
    denied: BTreeMap<String, (usize, Option<String>)>,
    deferred: BTreeMap<String, (usize, Option<String>)>,
    avoided: usize,
    left: usize,
    first_ms: Option<u64>,
    last_ms: Option<u64>,
    sessions: BTreeSet<String>,
    /// The date of the last day seen: formatted once a day, not once a record (a sixth of a
    /// report's instructions).
    #[serde(skip)]
    date: Option<(u64, String)>,
}

impl Decisions {
    /// Counts one record.
    pub fn add(&mut self, r: &Record) {
        self.sums.add(r);
        let day_number = r.ts_ms / 86_400_000;
        let date = match &self.date {
            Some((n, date)) if *n == day_number => date,
            _ => {
                let date = crate::clock::utc(r.ts_ms)[..10].to_string();
                &self.date.insert((day_number, date)).1
            }
        };
        if !self.days.contains_key(date) {
            let day = Day {
                date: date.clone(),
                ..Day::default()
            };
            self.days.insert(date.clone(), day);
        }
        let Some(day) = self.days.get_mut(date) else {
            return;
        };
        match (r.tier, r.local, r.verdict.as_str()) {
            (Tier::Local, _, "allow") => day.local_allow += 1,
            (Tier::Local, _, "deny") => day.local_deny += 1,
            (Tier::Local, Verdict::Ask, _) => day.local_ask += 1,
            (Tier::Local, _, _) => day.local_uncertain += 1,
            (Tier::Api, _, "allow") => day.api_allow += 1,
            (Tier::Api, _, "deny") => day.api_deny += 1,
            (Tier::Api, _, _) => day.api_ask += 1,
            (Tier::Fail, _, _) => day.fail += 1,
        }
        let bucket = match r.verdict.as_str() {
            "allow" => {
                if r.spared {
                    self.avoided += 1;
                }
                None
            }
            "deny" => Some(&mut self.denied),
            _ => {
                self.left += 1;
                Some(&mut self.deferred)
            }
        };
        if let Some(bucket) = bucket {
            count(bucket, &r.subject, 1, r.rule.as_deref());
        }
        self.first_ms = Some(self.first_ms.map_or(r.ts_ms, |t| t.min(r.ts_ms)));
        self.last_ms = Some(self.last_ms.map_or(r.ts_ms, |t| t.max(r.ts_ms)));
        if !self.sessions.contains(&r.session) {
            self.sessions.insert(r.session.clone());
        }
    }

    /// Adds what a later stretch of the journal counted.
    pub fn absorb(&mut self, o: &Decisions) {
        self.sums.absorb(&o.sums);
        for (date, d) in &o.days {
            let day = self.days.entry(date.clone()).or_insert_with(|| Day {
                date: date.clone(),
                ..Day::default()
            });
            day.local_allow += d.local_allow;
            day.local_deny += d.local_deny;
            day.local_ask += d.local_ask;
            day.local_uncertain += d.local_uncertain;
            day.api_allow += d.api_allow;
            day.api_deny += d.api_deny;
            day.api_ask += d.api_ask;
            day.fail += d.fail;
        }
        for (subject, (n, rule)) in &o.denied {
            count(&mut self.denied, subject, *n, rule.as_deref());
        }
        for (subject, (n, rule)) in &o.deferred {
            count(&mut self.deferred, subject, *n, rule.as_deref());
        }
        self.avoided += o.avoided;
        self.left += o.left;
        self.first_ms = self.first_ms.into_iter().chain(o.first_ms).min();
        self.last_ms = self.last_ms.into_iter().chain(o.last_ms).max();
        self.sessions.extend(o.sessions.iter().cloned());
    }
}

/// Adds `n` to a subject's count; a rule named later replaces the one named before.
fn count(
    bucket: &mut BTreeMap<String, (usize, Option<String>)>,
    subject: &str,
    n: usize,
    rule: Option<&str>,
) {
    let e = match bucket.get_mut(subject) {
        Some(e) => e,
        None => bucket.entry(subject.to_string()).or_default(),
    };
    e.0 += n;
    if let Some(rule) = rule
        && e.1.as_deref() != Some(rule)
    {
        e.1 = Some(rule.to_string());
    }
}

/// What the audit log's records of a stretch of time add to the report (adds up as
/// [`Decisions`] does).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Audited {
    records: usize,
    /// Sessions that took in outside text (`tainted` records).
    tainted: BTreeSet<String>,
}

impl Audited {
    /// Counts one audit record.
    pub fn add(&mut self, v: &Brief) {
        self.records += 1;
        if v.verdict.as_deref() == Some("tainted")
            && let Some(session) = v.session.as_deref()
            && !self.tainted.contains(session)
        {
            self.tainted.insert(session.to_string());
        }
    }

    /// Adds what a later stretch of the log counted.
    pub fn absorb(&mut self, o: &Audited) {
        self.records += o.records;
        self.tainted.extend(o.tainted.iter().cloned());
    }
}

/// The report from what the stats and the audit log counted over the time shown.
pub fn assemble(d: &Decisions, audited: &Audited, suggestions: &[Suggestion]) -> Dashboard {
    Dashboard {
        from: d.first_ms.map(crate::clock::utc),
        to: d.last_ms.map(crate::clock::utc),
        sessions: d.sessions.len(),
        summary: d.sums.summary(),
        prompts_avoided: d.avoided,
        prompts_left: d.left,
        days: fill_days(d.days.clone()),
        top_denied: top(&d.denied, &[]),
        top_deferred: top(&d.deferred, suggestions),
        tainted_sessions: audited.tainted.len(),
        audit_records: audited.records,
    }
}

/// The days in order, with the quiet days between them as zeroes (a gap is still a day).
fn fill_days(days: BTreeMap<String, Day>) -> Vec<Day> {
    let mut out: Vec<Day> = Vec::new();
    for (date, day) in days {
        if let Some(last) = out.last() {
            let mut next = next_date(&last.date);
            // At most a year of blank days: a stray old record does not make a huge page.
            let mut n = 0;
            while next < date && n < 366 {
                out.push(Day {
                    date: next.clone(),
                    ..Day::default()
                });
                next = next_date(&next);
                n += 1;
            }
        }
        out.push(day);
    }
    out
}

fn next_date(date: &str) -> String {
    let days = days_from_civil(date);
    crate::clock::utc((days + 1) * 86_400_000)[..10].to_string()
}

/// `YYYY-MM-DD` → days since 1970-01-01 (the inverse of the clock's civil date).
fn days_from_civil(date: &str) -> u64 {
    let part = |r: std::ops::Range<usize>| date.get(r).and_then(|s| s.parse::<i64>().ok());
    let (Some(y), Some(m), Some(d)) = (part(0..4), part(5..7), part(8..10)) else {
        return 0;
    };
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468).max(0) as u64
}

fn top(counts: &BTreeMap<String, (usize, Option<String>)>, suggestions: &[Suggestion]) -> Vec<Top> {
    let mut list: Vec<Top> = counts
        .iter()
        .map(|(subject, (count, rule))| Top {
            subject: subject.clone(),
            count: *count,
            rule: rule.clone(),
            suggestion: suggestions
                .iter()
                .find(|s| {
                    s.evidence.examples.iter().any(|e| e == subject)
                        || s.commands.iter().any(|c| c == subject)
                })
                .map(|s| (s.kind.file().name().to_string(), s.pattern.clone())),
        })
        .collect();
    list.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.subject.cmp(&b.subject))
    });
    list.truncate(TOP);
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_round_trip_and_quiet_days_are_filled() {
        for date in ["1970-01-01", "2024-02-29", "2026-11-23", "2026-12-31"] {
            let days = days_from_civil(date);
            assert_eq!(&crate::clock::utc(days * 86_400_000)[..10], date);
        }
        assert_eq!(next_date("2026-12-31"), "2027-01-01");
        let mut days = BTreeMap::new();
        for d in ["2026-11-20", "2026-11-23"] {
            days.insert(
                d.to_string(),
                Day {
                    date: d.into(),
                    local_allow: 1,
                    ..Day::default()
                },
            );
        }
        let filled = fill_days(days);
        let dates: Vec<&str> = filled.iter().map(|d| d.date.as_str()).collect();
        assert_eq!(
            dates,
            ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23"]
        );
        assert_eq!(filled[1].local_allow, 0);
    }
}
