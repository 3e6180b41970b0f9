//! `SessionEnd`: the session's books closed (its taint, breaker, secrets, written files and
//! status tally forgotten) and its summary shown on the channel each agent shows the person.

use crate::agents::event::{Agent, HookEvent};
use crate::agents::hook::HookOutput;
use crate::config::Config;
use crate::ledger::{secrets, stats, taint};
use serde_json::json;
use std::time::Instant;

/// The session's summary, on the channel each agent shows the user at the end of a session, and
/// in `SENTINEL_HOME/sessions/ID.txt`, since a closing terminal may not show it. Claude Code:
/// the person's terminal when there is one, else stderr with exit 2 (the one channel it shows
/// for SessionEnd, labelled as a failed hook; it discards JSON). Gemini CLI: a `systemMessage`.
/// Cursor and Copilot: stderr, exit 0. Shadow mode always exits 0. A session with no checks
/// says nothing.
pub(crate) fn session_end(
    agent: Agent,
    shadow: bool,
    config: &Config,
    event: &HookEvent,
    started: Instant,
) -> HookOutput {
    let mut out = session_summary(agent, shadow, config, event);
    // The export sends what fits in the time SessionEnd has left; the rest waits in the spool.
    let budget = crate::export::SESSION_END_SEND.saturating_sub(started.elapsed());
    if let Some(warning) = crate::export::at_session_end(config, budget) {
        out.stderr.push_str(&warning);
        out.stderr.push('\n');
    }
    out
}

/// The session's books closed and its summary ([`session_end`]).
fn session_summary(agent: Agent, shadow: bool, config: &Config, event: &HookEvent) -> HookOutput {
    let session = event.session_id.clone().unwrap_or_default();
    let max_age_ms = config.taint_max_age_hours.value.saturating_mul(3_600_000);
    // What the session kept ends with it: its taint, the breaker's count, the secret values
    // it saw, the files it wrote (read before they run) and the status line's tally.
    let now = crate::clock::now_ms();
    let clears: [fn(&std::path::Path, &str, u64, u64); 5] = [
        taint::clear,
        crate::evaluator::breaker::clear,
        secrets::clear,
        crate::ledger::written::clear,
        crate::ledger::status_tally::clear,
    ];
    for clear in clears {
        clear(&config.home.value, &session, max_age_ms, now);
    }
    // A call of the session killed between its audit record and its stats line is counted.
    let _ = crate::ledger::record::catch_up(&config.home.value, config.log_max_bytes.value);
    let journal = stats::journal(&config.home.value, config.log_max_bytes.value);
    let scope = crate::ledger::state::session_scope(&session);
    let (records, damaged) = match stats::session_records(&journal, &session, Some(&scope)) {
        Ok(found) => found,
        Err(e) => {
            return HookOutput {
                stderr: format!("sentinel: warning: cannot read the stats: {e}\n"),
                ..HookOutput::default()
            };
        }
    };
    if records.is_empty() && damaged.is_empty() {
        return HookOutput::default();
    }
    let line = format!(
        "{} · {}",
        stats::summarize(&records).line(),
        config.tier2_state()
    );
    let mut stderr = format!("{line}\n");
    // 0600 in a 0700 folder, never through a link (crate::config::kept), bounded in number.
    if let Err(e) = crate::ledger::sessions::keep(&config.home.value, &session, &line) {
        stderr.push_str(&format!(
            "sentinel: warning: the session's summary was not kept: {e}\n"
        ));
    }
    if !damaged.is_empty() {
        stderr.push_str(&format!(
            "sentinel: warning: {} damaged stats line(s) skipped, first {}\n",
            damaged.len(),
            damaged[0]
        ));
    }
    match agent {
        Agent::Claude if !shadow => HookOutput {
            stdout: String::new(),
            stderr,
            exit: 2,
            for_terminal: true,
        },
        Agent::Gemini if !shadow => HookOutput {
            stdout: format!("{}\n", json!({ "systemMessage": line })),
            stderr,
            exit: 0,
            for_terminal: false,
        },
        _ => HookOutput {
            stdout: String::new(),
            stderr,
            exit: 0,
            for_terminal: false,
        },
    }
}
