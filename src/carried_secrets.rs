//! A shell command that reaches the network carrying a secret value the session read: `docker
//! pull registry.example.com/<the key>`, `git ls-remote https://x/<the token>.git`. (A key's shape
//! alone is not refused here: `git clone https://<token>@github.com/…` is how people use theirs.)
//! The same finding as for a fetch or an MCP call (SPEC 2.4), for Bash: looked up here, at the
//! edge, from the session's fingerprints, after Tier 1 found what the command reaches.

use crate::call::ToolCall;
use crate::decision::effect::Effect;
use crate::decision::{Decision, Verdict};
use crate::ledger::secrets;
use std::path::Path;

/// `d` refused when the Bash call it decided talks to another machine and its text carries a
/// secret value `session` read; otherwise `d` as it was.
pub fn refuse_carried_secrets(
    mut d: Decision,
    call: &ToolCall,
    sentinel_home: &Path,
    session: &str,
) -> Decision {
    let ToolCall::Shell { command } = call else {
        return d;
    };
    if d.verdict == Verdict::Deny || !reaches_another_machine(&d) {
        return d;
    }
    let found = secrets::found_in(sentinel_home, session, command);
    if found.is_empty() {
        return d;
    }
    let why = format!(
        "it sends a secret value this session read ({}) to another machine",
        found.join(", ")
    );
    d.verdict = Verdict::Deny;
    d.rule = None;
    d.person_only = false;
    d.reason = format!(
        "sentinel[local]: blocked: {why}; instead: keep secrets out of command lines that reach the network; if the person wants it sent, they send it"
    );
    d
}

/// Whether any command of `d` fetches from, receives from or sends to a host not this one.
fn reaches_another_machine(d: &Decision) -> bool {
    d.commands.iter().flat_map(|c| &c.effects).any(|e| match e {
        Effect::Fetch => true,
        Effect::Send { remote, .. } => *remote,
        Effect::Receive { from } => !from
            .known_value()
            .is_some_and(crate::local::policy::is_local_host),
        _ => false,
    })
}
