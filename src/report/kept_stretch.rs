//! A stretch of a journal as `report`'s kept summary holds it ([`super::kept_summary`]): whole
//! lines of one file, their records of one UTC day, and what they add to the report in a form
//! that adds up (stretches absorbed in journal order give what one pass over their records gives).

use crate::ledger::journal_position::NewLine;
use crate::report::dashboard::{Audited, Decisions};
use crate::report::suggest_rows::Row;
use serde::{Deserialize, Serialize};

/// Past this many stretches a journal's new records join the last one (days interleaved in a
/// journal would otherwise make a stretch a record).
const MAX_STRETCHES: usize = 20_000;
const DAY_MS: u64 = 86_400_000;

/// A stretch of one journal file: whole lines from `start` to `end`, their records all of one
/// UTC day (the day of the first), with the first and last time among them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Stretch {
    pub(super) file: usize,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) day: u64,
    pub(super) first_ms: u64,
    pub(super) last_ms: u64,
    /// The records counted (lines that do not parse, or carry no time, are not).
    pub(super) records: usize,
}

/// What a stretch of the stats journal adds to the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct StatsStretch {
    pub(super) at: Stretch,
    pub(super) decisions: Decisions,
    /// `suggest`'s rows, in journal order.
    #[serde(with = "interned")]
    pub(super) rows: Vec<Row>,
}

/// A stretch's rows kept with each text once (a journal repeats its commands, folders and
/// sessions): the texts, and each row as their indices.
mod interned {
    use crate::report::suggest_rows::{Answer, Row};
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::HashMap;

    type Compact = (u32, Answer, u32, u32, Option<u32>);

    pub fn serialize<S: Serializer>(rows: &[Row], s: S) -> Result<S::Ok, S::Error> {
        let mut texts: Vec<&str> = Vec::new();
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut compact: Vec<Compact> = Vec::with_capacity(rows.len());
        for r in rows {
            let [session, command, cwd, reason] = [
                r.session.as_str(),
                r.command.as_str(),
                r.cwd.as_str(),
                r.reason.as_deref().unwrap_or(""),
            ]
            .map(|text| {
                *index.entry(text).or_insert_with(|| {
                    texts.push(text);
                    texts.len() as u32 - 1
                })
            });
            let reason = r.reason.is_some().then_some(reason);
            compact.push((session, r.answer, command, cwd, reason));
        }
        (texts, compact).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Row>, D::Error> {
        let (texts, compact): (Vec<String>, Vec<Compact>) = Deserialize::deserialize(d)?;
        let text = |i: u32| {
            texts
                .get(i as usize)
                .cloned()
                .ok_or_else(|| D::Error::custom("a row names no kept text"))
        };
        compact
            .into_iter()
            .map(|(session, answer, command, cwd, reason)| {
                Ok(Row {
                    session: text(session)?,
                    answer,
                    command: text(command)?,
                    cwd: text(cwd)?,
                    reason: reason.map(text).transpose()?,
                })
            })
            .collect()
    }
}

/// What a stretch of the audit log adds to the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct AuditStretch {
    pub(super) at: Stretch,
    pub(super) audited: Audited,
}

pub(super) trait Part {
    fn at(&mut self) -> &mut Stretch;
    fn starting(at: Stretch) -> Self;
}

impl Part for StatsStretch {
    fn at(&mut self) -> &mut Stretch {
        &mut self.at
    }
    fn starting(at: Stretch) -> Self {
        StatsStretch {
            at,
            decisions: Decisions::default(),
            rows: Vec::new(),
        }
    }
}

impl Part for AuditStretch {
    fn at(&mut self) -> &mut Stretch {
        &mut self.at
    }
    fn starting(at: Stretch) -> Self {
        AuditStretch {
            at,
            audited: Audited::default(),
        }
    }
}

/// The stretch a line read on belongs to: the last one when the line follows it in the same file
/// (and, for a record, is of its day), else a new one. A line without a record (damaged, or
/// without a time) only lengthens the stretch it follows.
pub(super) fn part_for<'a, P: Part>(
    parts: &'a mut Vec<P>,
    line: &NewLine,
    ts: Option<u64>,
) -> Option<&'a mut P> {
    let follows = parts.last_mut().is_some_and(|p| {
        let at = p.at();
        at.file == line.file && at.end == line.start
    });
    let Some(ts) = ts else {
        if follows {
            parts.last_mut()?.at().end = line.end;
        }
        return None;
    };
    let same_day = follows && parts.last_mut().is_some_and(|p| p.at().day == ts / DAY_MS);
    if !(same_day || (follows && parts.len() >= MAX_STRETCHES)) {
        parts.push(P::starting(Stretch {
            file: line.file,
            start: line.start,
            end: line.start,
            day: ts / DAY_MS,
            first_ms: ts,
            last_ms: ts,
            records: 0,
        }));
    }
    let part = parts.last_mut()?;
    let at = part.at();
    at.end = line.end;
    at.first_ms = at.first_ms.min(ts);
    at.last_ms = at.last_ms.max(ts);
    at.records += 1;
    Some(part)
}
