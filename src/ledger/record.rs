//! Bookkeeping of one decision: its stats line and its audit record. Bookkeeping never decides
//! anything: when it fails (a read-only or missing SENTINEL_HOME), the caller gets one warning
//! line and answers all the same.

use crate::call::ToolCall;
use crate::config::Config;
use crate::decision::{ApiOutcome, Decision, Verdict};
use crate::ledger::audit::{self, Entry};
use crate::ledger::stats::{self, Record};

/// What was asked about: the command, or the path.
pub fn subject(call: &ToolCall, decision: &Decision) -> String {
    match call {
        ToolCall::Shell { command } | ToolCall::PowerShell { command } => command.clone(),
        ToolCall::Write { path, .. } => decision.path.clone().unwrap_or_else(|| path.clone()),
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
}

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
    } = *meta;
    let decided = answer.unwrap_or(local);
    let verdict = answer.map(|a| a.verdict.as_str()).unwrap_or("defer");
    let verdict = if verdict == Verdict::Uncertain.as_str() {
        "ask"
    } else {
        verdict
    };
    let subject = subject(call, decided);
    let (api_ms, usage) = match &decided.api {
        Some(ApiOutcome::Answer(a)) => (Some(a.elapsed_ms as u64), a.usage),
        Some(ApiOutcome::Error(e)) => (Some(e.elapsed_ms as u64), None),
        _ => (None, None),
    };
    let ts_ms = crate::clock::now_ms();
    let rule = decided.rule.as_ref().map(ToString::to_string);
    let home = &config.home.value;
    let max = config.log_max_bytes.value;
    let stat = Record {
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
        api_ms,
        tokens: usage.map(|u| (u.input, u.output)),
        cache_tokens: usage
            .filter(|u| u.cache_read + u.cache_write > 0)
            .map(|u| (u.cache_read, u.cache_write)),
        shadow,
    };
    let entry = Entry {
        ts_ms,
        session: session.to_string(),
        agent: agent.to_string(),
        tool: local.tool.clone(),
        subject,
        cwd: local.cwd.clone(),
        tier: decided.tier.as_str().to_string(),
        verdict: verdict.to_string(),
        reason: decided.reason.clone(),
        rule,
        shadow,
    };
    let mut problems = Vec::new();
    let stats_journal = stats::journal(home, max);
    match serde_json::to_string(&stat)
        .map_err(std::io::Error::other)
        .and_then(|line| {
            let mut locked = stats_journal.lock()?;
            locked.append(&line)?;
            Ok(locked.repaired.take())
        }) {
        Ok(Some(repaired)) => problems.push(repaired),
        Ok(None) => {}
        Err(e) => problems.push(format!("stats not recorded ({e})")),
    }
    match audit::append(&audit::journal(home, max), &entry) {
        Ok(Some(repaired)) => problems.push(repaired),
        Ok(None) => {}
        Err(e) => problems.push(format!("audit not recorded ({e})")),
    }
    (!problems.is_empty()).then(|| {
        format!(
            "sentinel: warning: in {}: {}",
            home.display(),
            problems.join("; ")
        )
    })
}
