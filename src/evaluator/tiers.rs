//! After Tier 1: Tier 2 (the LLM evaluator) for what the rules cannot decide, Tier 3 (the fail
//! path) when Tier 2 cannot answer, and what the configuration makes of each verdict. The final
//! answer is allow, ask, deny, or none at all (defer to the agent's own permission flow).
//!
//! This is part of the imperative shell: it reads `evaluator_policy.md`, takes from the budget
//! file and talks HTTP. The decisions it combines are Tier 1's (pure) and the evaluator's.

use crate::call::ToolCall;
use crate::config::{Config, FailMode, OnBlock, OnUncertain};
use crate::decision::tier2::ApiVerdict;
use crate::decision::{ApiOutcome, Decision, Tier, Verdict};
use crate::evaluator::api::{self, Action, Endpoint};
use crate::evaluator::budget::{self, Grant};
use std::path::Path;
use std::time::Duration;

/// What the agent's session says beyond the call itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct Session<'a> {
    /// The session id; None for `sentinel check`, which has no session and so no breaker.
    pub id: Option<&'a str>,
    /// Claude Code's `permission_mode`, when the agent sent one.
    pub permission_mode: Option<&'a str>,
    /// The session transcript, where the person's own words are.
    pub transcript: Option<&'a Path>,
}

/// The permission modes in which Claude Code has a gate of its own: the person's allow and deny
/// rules, its prompt, or its auto-mode classifier. Deferring there keeps them in force; an
/// `ask` from a hook would override them (it forces the prompt).
pub const MODES_WITH_A_GATE: &[&str] = &["default", "acceptEdits", "plan", "auto", "dontAsk"];

/// Whether `on_uncertain = auto` defers in this permission mode.
pub fn agent_has_gate(permission_mode: Option<&str>) -> bool {
    permission_mode.is_some_and(|m| MODES_WITH_A_GATE.contains(&m))
}

/// Whether deferring `d` to the agent would let a write into a protected place through unseen:
/// the mode accepts edits (and, in Claude Code, common file commands such as `cp` and `mv`) with
/// no prompt, and what left the call uncertain includes such a write (a line of
/// `protected_paths.txt`). SPEC 2.3: protected places are never written without the person, in
/// any mode; under `default` and `plan` the agent's own prompt shows the write.
pub fn protected_write_unprompted(d: &Decision, permission_mode: Option<&str>) -> bool {
    let accepts_edits = permission_mode
        .is_some_and(|m| crate::evaluator::edits::MODES_THAT_ACCEPT_EDITS.contains(&m));
    let protected = |r: &Option<crate::decision::RuleRef>| {
        r.as_ref()
            .is_some_and(|r| r.file.ends_with("protected_paths.txt"))
    };
    accepts_edits
        && d.verdict == Verdict::Uncertain
        && (protected(&d.rule)
            || d.commands
                .iter()
                .any(|c| c.verdict == Verdict::Uncertain && protected(&c.rule)))
}

/// The user's prose policy for the evaluator, in SENTINEL_HOME.
pub const POLICY_FILE: &str = "evaluator_policy.md";
/// The largest policy sent (the rest is cut, with a note).
const MAX_POLICY_BYTES: usize = 16 * 1024;

/// True when a Tier-1 verdict goes on to Tier 2: uncertain, or (with `paranoid`) a high-risk
/// allow.
pub fn wants_tier2(verdict: Verdict, call: &ToolCall, config: &Config) -> bool {
    verdict == Verdict::Uncertain
        || (config.paranoid.value && call.is_high_risk() && verdict == Verdict::Allow)
}

/// Turns Tier 1's decision into the answer to give. None means: say nothing, the agent decides.
pub fn resolve(
    local: Option<Decision>,
    call: &ToolCall,
    config: &Config,
    session: &Session,
) -> Option<Decision> {
    let mut d = local?;
    let wants_tier2 = wants_tier2(d.verdict, call, config);
    let endpoint = config.api_key.as_ref().map(|key| Endpoint {
        url: config.api_url.value.clone(),
        key: key.value.clone(),
        model: config.api_model.value.clone(),
        timeout: Duration::from_secs_f64(config.api_timeout_secs.value),
    });
    match (d.verdict, wants_tier2, endpoint) {
        (Verdict::Deny, _, _) if config.on_block.value == OnBlock::Ask => {
            d.verdict = Verdict::Ask;
            d.reason = format!("{} (on_block = ask: the person decides)", d.reason);
        }
        (_, true, Some(endpoint)) => match breaker_open(config, session) {
            Some(why) => {
                d.verdict = Verdict::Ask;
                d.reason = format!(
                    "{}; the person decides: {why} (the breaker hands every further uncertain call of this session to the person)",
                    d.reason
                );
            }
            None => tier2_and_3(&mut d, call, config, &endpoint, session),
        },
        (Verdict::Uncertain, _, None) => match config.on_uncertain.value {
            OnUncertain::Auto
                if agent_has_gate(session.permission_mode)
                    && !protected_write_unprompted(&d, session.permission_mode) =>
            {
                return None;
            }
            OnUncertain::Auto if agent_has_gate(session.permission_mode) => {
                d.verdict = Verdict::Ask;
                d.reason = format!(
                    "{}; permission_mode {} lets edits through without a prompt, and a protected place is never written without the person",
                    d.reason,
                    session.permission_mode.unwrap_or("not sent")
                );
            }
            OnUncertain::Auto => {
                d.verdict = Verdict::Ask;
                d.reason = format!(
                    "{}; no Tier 2 and no permission gate of the agent's own (permission_mode {}), so the person decides",
                    d.reason,
                    session.permission_mode.unwrap_or("not sent")
                );
            }
            OnUncertain::Ask => {
                d.verdict = Verdict::Ask;
                d.reason = format!("{}; no Tier 2, so the person decides", d.reason);
            }
            OnUncertain::Deny => {
                d.verdict = Verdict::Deny;
                d.reason = format!(
                    "{}; refused by on_uncertain = deny, ask the person to run it",
                    d.reason
                );
            }
            OnUncertain::Allow => {
                d.verdict = Verdict::Allow;
                d.reason = format!("{}; allowed by on_uncertain = allow", d.reason);
                d.warning = Some(format!(
                    "sentinel let an unchecked call through (on_uncertain = allow): {}",
                    d.reason
                ));
            }
            OnUncertain::Defer => return None,
        },
        _ => {}
    }
    if d.verdict == Verdict::Allow && !config.errors.is_empty() {
        d.verdict = Verdict::Ask;
        d.reason = format!(
            "sentinel: would allow, but the configuration has {} error(s), first {}; run `sentinel config`",
            config.errors.len(),
            config.errors[0]
        );
    }
    Some(d)
}

/// Why the session's breaker is open, when it is. A count that cannot be read counts as open:
/// it may be one that has tripped.
fn breaker_open(config: &Config, session: &Session) -> Option<String> {
    let id = session.id?;
    match crate::evaluator::breaker::read(&config.home.value, id) {
        Ok(count) => count.tripped(),
        Err(e) => Some(format!("the breaker's count cannot be read ({e})")),
    }
}

/// Tier 2, and Tier 3 when Tier 2 gives no answer.
fn tier2_and_3(
    d: &mut Decision,
    call: &ToolCall,
    config: &Config,
    endpoint: &Endpoint,
    session: &Session,
) {
    let home = &config.home.value;
    let outcome = match budget::take(
        home,
        session.id.unwrap_or(""),
        config.calls_per_minute.value,
        config.calls_per_day.value,
        crate::clock::now_ms(),
    ) {
        Ok(Grant::Granted) => {
            let policy = read_policy(home);
            let words = session
                .transcript
                .map(|t| {
                    crate::evaluator::transcript::person_words(
                        t,
                        crate::evaluator::transcript::Limits::default(),
                    )
                })
                .unwrap_or_default();
            let context = api::Context {
                policy: policy.as_deref(),
                person_words: &words,
            };
            match api::evaluate(endpoint, &action(d, call), &context) {
                Ok(answer) => {
                    if let Some(id) = session.id {
                        // Bookkeeping: a count that cannot be written is one warning, not a verdict.
                        if let Err(e) = crate::evaluator::breaker::note(home, id, answer.verdict) {
                            d.warning = Some(format!(
                                "sentinel: the breaker's count was not recorded ({e})"
                            ));
                        }
                    }
                    ApiOutcome::Answer(answer)
                }
                Err(e) => ApiOutcome::Error(e),
            }
        }
        Ok(Grant::MinuteSpent(n)) => {
            ApiOutcome::Budget(format!("budget exhausted: {n} calls per minute"))
        }
        Ok(Grant::DaySpent(n)) => {
            ApiOutcome::Budget(format!("budget exhausted: {n} calls per day"))
        }
        Err(e) => ApiOutcome::Budget(format!(
            "budget exhausted: cannot read the budget file ({e})"
        )),
    };
    let local_reason = d.reason.clone();
    // `open` means "as if sentinel were absent": where the agent has a gate of its own, the call
    // goes to it (SPEC 2.6).
    let gate = config.on_uncertain.value == OnUncertain::Auto
        && agent_has_gate(session.permission_mode)
        && d.verdict == Verdict::Uncertain
        && !protected_write_unprompted(d, session.permission_mode);
    match &outcome {
        ApiOutcome::Answer(a) => {
            d.tier = Tier::Api;
            d.rule = None;
            let (verdict, word) = match a.verdict {
                ApiVerdict::Allow => (Verdict::Allow, "allowed"),
                ApiVerdict::Block => (Verdict::Deny, "blocked"),
                ApiVerdict::Escalate => (Verdict::Ask, "escalated to the person"),
            };
            d.verdict = verdict;
            d.reason = format!("sentinel[api]: {word}: {}", a.reason);
        }
        ApiOutcome::Error(e) => fail_path(
            d,
            call,
            config.fail_mode.value,
            gate,
            &format!("Tier 2 unavailable: {}", e.message),
        ),
        // A spent budget is not an outage (SPEC 2.6): under fail_mode = open it never turns into
        // an unchecked allow. Where the agent has a gate of its own the call is deferred to it
        // (as open does); without one the person decides; ask and closed stand as they are.
        ApiOutcome::Budget(why) if config.fail_mode.value == FailMode::Open && !gate => {
            d.tier = Tier::Fail;
            d.rule = None;
            d.verdict = Verdict::Ask;
            d.reason = format!(
                "sentinel[fail]: the person decides: {why} (a spent budget is not an outage)"
            );
        }
        ApiOutcome::Budget(why) => fail_path(d, call, config.fail_mode.value, gate, why),
    }
    if d.tier != Tier::Local {
        d.reason = format!("{} (local: {local_reason})", d.reason);
    }
    d.api = Some(outcome);
}

/// Tier 3: the configured answer when Tier 2 cannot give one. `open` is "as if sentinel were
/// absent": where the agent has a gate of its own (`gate`), the call is deferred to it (the
/// answer's verdict stays `Uncertain`, which [`crate::question`] turns into no answer); without
/// one, it lets through, with a warning, only what it was made for — a harmless unknown
/// (`frobnicate --check`) — and never a call whose effects delete, write, send data out, run
/// code given as text or another program, or act as another user, nor an unknown program whose
/// words name any of those (SPEC 2.6): those go to the person.
fn fail_path(d: &mut Decision, call: &ToolCall, mode: FailMode, gate: bool, why: &str) {
    d.tier = Tier::Fail;
    d.rule = None;
    if mode == FailMode::Open && gate {
        d.verdict = Verdict::Uncertain;
        d.reason = format!(
            "sentinel[fail]: deferred to the agent's own permission prompt (fail_mode = open): {why}"
        );
        return;
    }
    match mode {
        FailMode::Open => match too_risky_unchecked(d, call) {
            None => {
                d.verdict = Verdict::Allow;
                d.reason = format!("sentinel[fail]: allowed unchecked (fail_mode = open): {why}");
                d.warning = Some(format!(
                    "sentinel: {why}; the call was allowed without a check (fail_mode = open)"
                ));
            }
            Some(risk) => {
                d.verdict = Verdict::Ask;
                d.reason = format!(
                    "sentinel[fail]: the person decides: {why}, and fail_mode = open never allows unchecked a call that {risk}"
                );
            }
        },
        FailMode::Closed => {
            d.verdict = Verdict::Deny;
            d.reason = format!(
                "sentinel[fail]: refused (fail_mode = closed): {why}; ask the person to run it"
            );
        }
        FailMode::Ask => {
            d.verdict = Verdict::Ask;
            d.reason = format!("sentinel[fail]: the person decides (fail_mode = ask): {why}");
        }
    }
}

/// What makes a call too risky to allow without Tier 2's answer, from the effects Tier 1 found.
fn too_risky_unchecked(d: &Decision, call: &ToolCall) -> Option<String> {
    use crate::decision::effect::Effect;
    if !d.signs.is_empty() {
        return Some("shows signs of acting on untrusted content".into());
    }
    // An uncertain file write is outside the project or in a protected place. (PowerShell is
    // read as Bash is: its commands and their effects, below.)
    if let ToolCall::Write { .. } | ToolCall::Patch { .. } = call {
        return Some("writes outside the project".into());
    }
    for report in d.commands.iter().filter(|r| r.verdict != Verdict::Allow) {
        for e in &report.effects {
            let risk = match e {
                Effect::Delete { .. } | Effect::DeleteBelow { .. } | Effect::Destroy { .. } => {
                    "deletes"
                }
                Effect::Write { .. }
                | Effect::WriteInto { .. }
                | Effect::Mode { .. }
                | Effect::Creates { .. } => "writes files",
                Effect::LogsInWith { .. } => "logs in with a credential file",
                Effect::Send { .. } => "sends data out",
                Effect::FetchFrom { .. } => {
                    "fetches from a repository that is not the project's remote"
                }
                Effect::RunCode { .. } => "runs code given as text",
                Effect::RunProgram { .. } => "runs another program",
                Effect::RunFile { .. } => "runs a file sentinel could not read in full",
                // What the project's tooling runs (scripts, recipes, hooks, tests) was not read
                // in full when this part is not an allow: fenced it would have been allowed.
                Effect::RunProject | Effect::Task { .. } => {
                    "runs the project's code, which sentinel could not read in full"
                }
                Effect::UsesRepository => {
                    "runs what a repository config the agent could have written names"
                }
                Effect::Install { .. } => "installs a package by name",
                Effect::AsUser { .. } => "acts as another user",
                Effect::Review { .. } => "is never allowed locally (a spec says why)",
                Effect::Unknown { .. } => "does something sentinel cannot read",
                _ => continue,
            };
            return Some(format!("{risk} (`{}`)", crate::text::excerpt(&report.text)));
        }
        if report.via.iter().any(|v| v == "sudo" || v == "doas") || report.text.starts_with("sudo")
        {
            return Some("acts as another user".into());
        }
    }
    None
}

/// The action as the evaluator sees it: data, with what Tier 1 found.
fn action(d: &Decision, call: &ToolCall) -> Action {
    let (command, path) = match call {
        ToolCall::Shell { command } | ToolCall::PowerShell { command } => {
            (Some(command.clone()), None)
        }
        ToolCall::Write { path, .. } => {
            (None, Some(d.path.clone().unwrap_or_else(|| path.clone())))
        }
        ToolCall::Patch { patch, .. } => {
            (Some(crate::text::excerpt_to(patch, 4000)), d.path.clone())
        }
        ToolCall::Read { paths, .. } => (None, paths.first().cloned()),
        ToolCall::Agent { prompt, .. } => (Some(prompt.clone()), None),
        ToolCall::McpShell { command, dir, .. } => (
            Some(match dir {
                Some(d) => format!("{command}    # run by an MCP server in {d}"),
                None => command.clone(),
            }),
            None,
        ),
        ToolCall::Fetch { text, .. } => (Some(text.clone()), None),
        ToolCall::Mcp { input, .. } => (
            Some(crate::text::excerpt_to(&input.to_string(), 4000)),
            None,
        ),
        ToolCall::Other { .. } => (None, None),
    };
    Action {
        tool: d.tool.clone(),
        command,
        path,
        cwd: d.cwd.clone(),
        simple_commands: d
            .commands
            .iter()
            .map(|c| c.text.replace('\t', " "))
            .collect(),
        local_reason: d.reason.clone(),
        signs: d
            .signs
            .iter()
            .map(|s| format!("{}: {}", s.kind.describe(), s.evidence))
            .collect(),
        untrusted_content: d.taint.as_ref().map(|t| {
            t.marks
                .iter()
                .map(|m| format!("{} at {} UTC", m.tool, crate::clock::utc(m.ts_ms)))
                .collect()
        }),
        files_run: crate::evaluator::files_run::of(d, crate::config::user_home().as_deref()),
    }
}

fn read_policy(home: &std::path::Path) -> Option<String> {
    let links = crate::config::files::Links::Follow;
    let bytes = crate::config::files::read(&home.join(POLICY_FILE), 16 << 20, links).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if text.len() <= MAX_POLICY_BYTES {
        return Some(text.to_string());
    }
    let mut cut = MAX_POLICY_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Some(format!(
        "{}\n[policy cut at {MAX_POLICY_BYTES} bytes]",
        &text[..cut]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::RuleRef;
    use std::borrow::Cow;

    fn rule(file: &'static str) -> RuleRef {
        RuleRef {
            file: Cow::Borrowed(file),
            line: 1,
            origin: Cow::Borrowed("bundled"),
            pattern: Cow::Borrowed("lefthook.yml"),
            why: None,
        }
    }

    #[test]
    fn a_protected_write_is_asked_where_the_mode_lets_edits_through() {
        let protected = Decision::local(
            "Write",
            Verdict::Uncertain,
            "protected",
            Some(rule("protected_paths.txt")),
        );
        let outside = Decision::local("Write", Verdict::Uncertain, "outside", None);
        for (mode, asks) in [
            (Some("acceptEdits"), true),
            (Some("auto"), true),
            (Some("dontAsk"), true),
            (Some("default"), false),
            (Some("plan"), false),
            (None, false),
        ] {
            assert_eq!(
                protected_write_unprompted(&protected, mode),
                asks,
                "{mode:?}"
            );
            assert!(!protected_write_unprompted(&outside, mode), "{mode:?}");
        }
    }
}
