//! What only the person may do: the guard against being run inside an agent, and the audit
//! record of what the person did.

use anyhow::{Result, bail};
use sentinel::config::Config;

/// The commands that loosen the guard refuse to run inside an agent's own shell: the hook stops
/// the agent from running them by name, and this stops a renamed copy.
pub fn person_only(what: &str) -> Result<()> {
    for var in ["CLAUDECODE", "GEMINI_CLI"] {
        if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
            bail!(
                "`sentinel {what}` must be run by the person in their own terminal, not inside an agent session ({var} is set)"
            );
        }
    }
    Ok(())
}

/// One audit record of something the person did (trust, allow-once), chained like decisions.
pub fn audit_person(config: &Config, tool: &str, subject: &str, verdict: &str, reason: &str) {
    let entry = sentinel::ledger::audit::Entry {
        ts_ms: sentinel::clock::now_ms(),
        session: String::new(),
        agent: "person".into(),
        tool: tool.to_string(),
        subject: subject.to_string(),
        cwd: std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        tier: "person".into(),
        verdict: verdict.to_string(),
        reason: reason.to_string(),
        rule: None,
        shadow: false,
        counted: None,
        unkept: Vec::new(),
    };
    let journal = sentinel::ledger::audit::journal(&config.home.value, config.log_max_bytes.value);
    if let Err(e) = sentinel::ledger::audit::append(&journal, &entry) {
        sentinel::errln!("sentinel: warning: not in the audit log ({e})");
    }
}
