//! Bookkeeping of one decision: its audit record, then its stats line. Bookkeeping never decides
//! anything: when it fails (a read-only or missing SENTINEL_HOME), the caller gets one warning
//! line and answers all the same.
//!
//! **The two logs agree after any kill.** The audit record is written first and is what makes a
//! decision recorded; its stats line follows under the audit log's lock, carrying the record's
//! seq, and every decision's audit record carries what its stats line holds. A call killed
//! between the two leaves a record with no stats line: the next decision (or `sentinel stats`,
//! or a SessionEnd), under the same lock, finds the stats log's last seq behind the audit log's
//! and writes the missing lines from the audit records (`"rebuilt": true`). A stats line is
//! never written for a decision the audit log does not have, unless the audit record itself
//! could not be written (the line then says so in `unkept`).

use crate::call::ToolCall;
use crate::config::Config;
use crate::decision::{ApiOutcome, Decision, Verdict};
use crate::ledger::audit::{self, Counted, Entry};
use crate::ledger::journal::Journal;
use crate::ledger::stats::{self, Record};

/// What was asked about: the command, or the path.
pub fn subject(call: &ToolCall, decision: &Decision) -> String {
    match call {
        ToolCall::Shell { command } | ToolCall::PowerShell { command } => command.clone(),
        ToolCall::Write { path, .. } => decision.path.clone().unwrap_or_else(|| path.clone()),
        ToolCall::Patch { patch, .. } => patch.clone(),
        ToolCall::Read { paths, .. } => decision.path.clone().unwrap_or_else(|| paths.join(" ")),
        ToolCall::Agent { prompt, .. } => prompt.clone(),
        ToolCall::McpShell { command, dir, .. } => match dir {
            Some(d) => format!("(in {d}) {command}"),
            None => command.clone(),
        },
        ToolCall::Fetch { text, .. } => text.clone(),
        ToolCall::Mcp { tool, input, .. } => format!("{tool} {input}"),
        ToolCall::Other { tool } => tool.clone(),
    }
}

/// Who asked, and how the decision was made, besides the decision itself.
pub struct Meta<'a> {
    /// The agent's session id ("check" for `sentinel check`).
    pub session: &'a str,
    /// The agent protocol, or "check".
    pub agent: &'a str,
    /// From reading the event to the answer, in µs.
    pub latency_us: u64,
    /// Decided in shadow mode.
    pub shadow: bool,
    /// What could not be kept while answering (the written-file ledger), one line each.
    pub unkept: &'a [String],
    /// The agent would have asked the person about this call (its permission mode says so):
    /// an allow spared a prompt (`agents::prompts`).
    pub prompted: bool,
    /// Something more kept for each decision (the export's spool), given the audit entry before
    /// it is written; the line it returns goes into `unkept` (it could not keep it).
    pub also: Option<Also<'a>>,
}

/// Keeps more of a decision, given its audit entry: None, or what could not be kept.
pub type Also<'a> = &'a dyn Fn(&Entry) -> Option<String>;

/// How far back the audit log is read for decisions a killed call left without a stats line.
const CATCH_UP_BYTES: u64 = 256 * 1024;
/// How far back the stats log is read for its last line (one page; a line is rarely 2 KB).
const LAST_SEQ_BYTES: u64 = 4096;

/// Appends the decision to the stats and the audit log. `answer` None means sentinel deferred.
/// Returns one warning line when anything could not be recorded or a damaged file was repaired.
pub fn record(
    config: &Config,
    call: &ToolCall,
    local: &Decision,
    answer: Option<&Decision>,
    meta: &Meta,
) -> Option<String> {
    let Meta {
        session,
        agent,
        latency_us,
        shadow,
        unkept,
        prompted,
        also,
    } = *meta;
    let decided = answer.unwrap_or(local);
    let verdict = answer.map(|a| a.verdict.as_str()).unwrap_or("defer");
    let verdict = if verdict == Verdict::Uncertain.as_str() {
        "ask"
    } else {
        verdict
    };
    // Sentinel's own records keep no secret the agent typed (`redact::kept`): any later
    // session can read them, and the export's spool is built from them.
    let subject = subject(call, decided);
    let subject = crate::ledger::redact::kept(&subject);
    let reason = crate::ledger::redact::kept(&decided.reason).into_owned();
    let (api_ms, usage) = match &decided.api {
        Some(ApiOutcome::Answer(a)) => (Some(a.elapsed_ms as u64), a.usage),
        Some(ApiOutcome::Error(e)) => (Some(e.elapsed_ms as u64), None),
        _ => (None, None),
    };
    let ts_ms = crate::clock::now_ms();
    let rule = decided.rule.as_ref().map(ToString::to_string);
    let home = &config.home.value;
    let max = config.log_max_bytes.value;
    let scope = (!session.is_empty()).then(|| crate::ledger::state::session_scope(session));
    // A prompt spared: an enforced allow of a call the agent would have asked about.
    let spared = prompted && !shadow && verdict == "allow";
    let counted = Counted {
        spared,
        scope: scope.clone(),
        local: local.verdict,
        latency_us,
        api_ms,
        tokens: usage.map(|u| (u.input, u.output)),
        cache_tokens: usage
            .filter(|u| u.cache_read + u.cache_write > 0)
            .map(|u| (u.cache_read, u.cache_write)),
    };
    let mut stat = Record {
        ts_ms,
        session: session.to_string(),
        agent: agent.to_string(),
        tool: local.tool.clone(),
        subject: stats::subject(&subject),
        tier: decided.tier,
        verdict: verdict.to_string(),
        local: local.verdict,
        rule: rule.clone(),
        latency_us,
        api_ms: counted.api_ms,
        tokens: counted.tokens,
        cache_tokens: counted.cache_tokens,
        shadow,
        scope,
        seq: None,
        rebuilt: false,
        unkept: unkept.to_vec(),
        spared,
    };
    let mut entry = Entry {
        ts_ms,
        session: session.to_string(),
        agent: agent.to_string(),
        tool: local.tool.clone(),
        subject: audit::subject(&subject),
        cwd: local.cwd.clone(),
        tier: decided.tier.as_str().to_string(),
        verdict: verdict.to_string(),
        reason,
        rule,
        shadow,
        counted: Some(counted),
        unkept: unkept.to_vec(),
    };
    let mut problems = Vec::new();
    // Before the audit record, so that what could not be kept is in it.
    if let Some(why) = also.and_then(|keep| keep(&entry)) {
        entry.unkept.push(why.clone());
        stat.unkept.push(why);
    }
    let stats_journal = stats::journal(home, max);
    let audit_journal = audit::journal(home, max);
    let written = audit::append_then(&audit_journal, &entry, |seq| {
        let mut stat = stat.clone();
        stat.seq = Some(seq);
        append_stats(&stats_journal, &audit_journal, &stat)
    });
    let stats_written = match written {
        Ok((repaired, stats_written)) => {
            problems.extend(repaired);
            stats_written
        }
        Err(e) => {
            // No audit record: the stats line still counts the decision, and says why the
            // audit log does not have it.
            let why = format!("audit not recorded ({e})");
            stat.unkept.push(why.clone());
            problems.push(why);
            append_stats(&stats_journal, &audit_journal, &stat)
        }
    };
    match stats_written {
        Ok(Some(repaired)) => problems.push(repaired),
        Ok(None) => {}
        Err(e) => problems.push(format!("stats not recorded ({e})")),
    }
    problems.extend(entry.unkept.iter().cloned());
    (!problems.is_empty()).then(|| {
        format!(
            "sentinel: warning: in {}: {}",
            home.display(),
            problems.join("; ")
        )
    })
}

/// Appends `stat` to the stats log, after the lines of any decision the audit log has that the
/// stats log is missing (a call killed between the two). Run under the audit log's lock.
fn append_stats(
    stats_journal: &Journal,
    audit_journal: &Journal,
    stat: &Record,
) -> std::io::Result<Option<String>> {
    let line = serde_json::to_string(stat).map_err(std::io::Error::other)?;
    let mut locked = stats_journal.lock()?;
    if let Some(seq) = stat.seq {
        for missing in missing_lines(stats_journal, audit_journal, seq)? {
            locked.append(&missing)?;
        }
    }
    locked.append(&line)?;
    Ok(locked.repaired.take())
}

/// The stats lines of the decisions between the stats log's last seq and `before` (the audit
/// record being counted now, or the log's end), rebuilt from their audit records.
fn missing_lines(
    stats_journal: &Journal,
    audit_journal: &Journal,
    before: u64,
) -> std::io::Result<Vec<String>> {
    let last = stats_journal
        .last_line(LAST_SEQ_BYTES)?
        .as_deref()
        .and_then(seq_of);
    let Some(last) = last else {
        // No seq to go from (a fresh log, or an older sentinel's): nothing to catch up.
        return Ok(Vec::new());
    };
    if last.saturating_add(1) >= before {
        return Ok(Vec::new());
    }
    let Some(records) = audit::records_after(audit_journal, last, CATCH_UP_BYTES)? else {
        return Ok(Vec::new());
    };
    records
        .iter()
        .filter(|v| v["seq"].as_u64().is_some_and(|s| s < before))
        .filter_map(Record::from_audit)
        .map(|r| serde_json::to_string(&r).map_err(std::io::Error::other))
        .collect()
}

/// The `seq` of a stats line, read without parsing the line: the field as serde writes it (a
/// `"seq":` inside a string is escaped, `\"seq\":`, so it cannot be taken for it).
fn seq_of(line: &str) -> Option<u64> {
    let at = line.rfind(",\"seq\":")? + ",\"seq\":".len();
    let digits: &str = &line[at..];
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().ok()
}

/// Brings the stats log up to the audit log: the decisions a killed call recorded in the audit
/// log only get their stats lines (what `sentinel stats` and a SessionEnd do before counting).
pub fn catch_up(home: &std::path::Path, max_bytes: u64) -> std::io::Result<usize> {
    let stats_journal = stats::journal(home, max_bytes);
    let audit_journal = audit::journal(home, max_bytes);
    if !audit_journal.current().exists() {
        return Ok(0);
    }
    let _held = audit_journal.lock()?;
    let missing = missing_lines(&stats_journal, &audit_journal, u64::MAX)?;
    if !missing.is_empty() {
        let mut locked = stats_journal.lock()?;
        for line in &missing {
            locked.append(line)?;
        }
    }
    Ok(missing.len())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lines_seq_is_read_without_parsing_it() {
        assert_eq!(
            super::seq_of(r#"{"ts_ms":1,"subject":"x","seq":42,"rebuilt":true}"#),
            Some(42)
        );
        assert_eq!(
            super::seq_of(r#"{"ts_ms":1,"subject":"a \",\"seq\":9"}"#),
            None
        );
        assert_eq!(super::seq_of(r#"{"ts_ms":1}"#), None);
    }
}
