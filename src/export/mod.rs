//! Decisions exported with OpenTelemetry (docs/teams.md): each decision an OTLP log record,
//! the counts per tier and verdict OTLP metrics, sent over OTLP/HTTP (JSON) to the collector
//! the `[export]` table or the standard `OTEL_EXPORTER_OTLP_*` variables name
//! ([`settings`]).
//!
//! A hook never talks to the network for it: it appends the decision to a bounded [`spool`]
//! in SENTINEL_HOME, after its answer was given, and when a send is due starts a detached
//! sender ([`send::detached`]) that the hook's exit does not wait for. A SessionEnd sends what
//! fits in its own budget. Text is redacted when it leaves ([`crate::ledger::redact`]).
//! Export never changes a decision: every failure is a warning, a line of the audit record
//! (`unkept`) and `doctor`'s business.

pub mod claim;
pub mod in_flight;
pub mod otlp;
pub mod send;
pub mod settings;
pub mod spool;

use crate::config::Config;
use crate::ledger::audit::Entry;
use settings::Target;
use std::time::Duration;

/// How long after a SessionEnd hook starts its send must be done: the watchdog answers for
/// it at 1.2 s (Claude Code gives SessionEnd hooks 1.5 s); the rest of its work takes
/// milliseconds.
pub const SESSION_END_SEND: Duration = Duration::from_millis(1000);

/// The process environment, as [`settings::resolve`] reads it.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Spools the decision `e` when export is on. Ok(Some(target)) when a send is due (the caller
/// starts one once its books are kept: [`send::detached`]); Err says why the spool could not
/// take it. With export off this is one look at the configuration and two variables.
pub fn spool_decision(config: &Config, e: &Entry) -> Result<Option<Target>, String> {
    if e.agent == "check" {
        return Ok(None);
    }
    // The hook's path: on or off and the bounds, without building the whole target.
    let Some(bounds) = settings::spooling(config, &env_var) else {
        return Ok(None);
    };
    let paths = spool::Paths::of(&config.home.value);
    let named = crate::config::named_by_agent();
    let (reason, subject) = (spool::cut(&e.reason), spool::cut(&e.subject));
    let record = spool::Fresh {
        ts_ms: e.ts_ms,
        session: &e.session,
        agent: &e.agent,
        tool: &e.tool,
        tier: &e.tier,
        verdict: &e.verdict,
        rule: e.rule.as_deref(),
        reason: &reason,
        subject: &subject,
        cwd: &e.cwd,
        // The cwd stands for the project when the agent named none (written once, not twice).
        project: named.as_deref().filter(|p| *p != e.cwd).unwrap_or(""),
        shadow: e.shadow,
    };
    match spool::append(&paths, &record, bounds, e.ts_ms) {
        Ok(true) => Ok(settings::resolve(config, &env_var)),
        Ok(false) => Ok(None),
        Err(err) => Err(format!("export spool not written ({err})")),
    }
}

/// The export's part in one decision's bookkeeping: the spool taken as the books are kept
/// ([`Exporting::spool`], given to `ledger::record` as its `also`), then a due send started
/// once they are ([`Exporting::send_if_due`]).
#[derive(Default)]
pub struct Exporting {
    due: std::cell::RefCell<Option<Target>>,
}

impl Exporting {
    /// Spools the decision; a line for the audit record's `unkept` when it could not.
    pub fn spool(&self, config: &Config, e: &Entry) -> Option<String> {
        match spool_decision(config, e) {
            Ok(due) => {
                *self.due.borrow_mut() = due;
                None
            }
            Err(why) => Some(why),
        }
    }

    /// Starts the detached sender when the spool said a send is due.
    pub fn send_if_due(&self, config: &Config) {
        if let Some(target) = self.due.borrow_mut().take() {
            send::detached(&config.home.value, &target);
        }
    }
}

/// A SessionEnd's send: what fits in `budget`, the rest left for a later hook. Returns a
/// warning line when the send failed.
pub fn at_session_end(config: &Config, budget: Duration) -> Option<String> {
    let target = settings::resolve(config, &env_var)?;
    let sent = send::run(&config.home.value, &target, budget);
    sent.error
        .map(|e| format!("sentinel: warning: export: {e} (kept in the spool, sent later)"))
}
