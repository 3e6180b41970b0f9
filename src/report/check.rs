//! `sentinel check`: one decision by hand, printed for people or as JSON.

use crate::decision::{ApiOutcome, Decision, Verdict};
use std::fmt::Write as _;

/// The exit status `sentinel check` gives a verdict: 0 allow, 2 block, 3 uncertain or ask.
pub fn exit_code(verdict: Option<Verdict>) -> i32 {
    match verdict {
        Some(Verdict::Allow) => 0,
        Some(Verdict::Deny) => 2,
        Some(Verdict::Uncertain) | Some(Verdict::Ask) | None => 3,
    }
}

/// What a deferred call becomes.
pub const DEFERRED: &str = "deferred: sentinel prints nothing and the agent's own permission flow decides (on_uncertain = auto where the agent has a gate of its own, or defer)";

/// What the `uncertain:` line says: Tier 1 could not decide the call itself.
pub const UNCERTAIN: &str = "yes: Tier 1 could not decide it (the reason says why); the verdict is what the hook answers then";

/// The report of a call Tier 1 could not decide and sentinel deferred: what Tier 1 said, and
/// that the agent decides.
pub fn render_deferred(local: &Decision) -> String {
    let mut out = render_as(local, "defer", local.verdict == Verdict::Uncertain);
    let _ = writeln!(out, "answer:  {DEFERRED}");
    out
}

/// The human-readable report: the hook's answer (allow, ask, deny; `defer` is
/// [`render_deferred`]), whether Tier 1 was uncertain, tier, reason, deciding rule, then each
/// simple command.
pub fn render(decision: &Decision, uncertain: bool) -> String {
    render_as(decision, decision.verdict.as_str(), uncertain)
}

/// The JSON of `check`: the decision record, its `verdict` the hook's answer, and `uncertain`.
pub fn json(decision: &Decision, uncertain: bool) -> serde_json::Value {
    let mut v = serde_json::to_value(decision).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("uncertain".into(), uncertain.into());
    }
    v
}

/// [`render`], with `verdict` as the answer's word.
fn render_as(decision: &Decision, verdict: &str, uncertain: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "verdict: {verdict}");
    if uncertain {
        let _ = writeln!(out, "uncertain: {UNCERTAIN}");
    }
    let _ = writeln!(out, "tier:    {}", decision.tier.as_str());
    let _ = writeln!(out, "reason:  {}", decision.reason);
    if let Some(rule) = &decision.rule {
        let _ = writeln!(out, "rule:    {rule} [{}] {}", rule.origin, rule.pattern);
    }
    if let Some(c) = &decision.contained {
        let _ = writeln!(out, "runs:    {}", c.command);
    }
    match &decision.api {
        Some(ApiOutcome::Answer(a)) => {
            let canary = if a.canary_ok {
                "canary ok"
            } else {
                "CANARY FAILED"
            };
            let _ = writeln!(
                out,
                "api:     {:?} ({canary}, {} request(s), {} ms): {}",
                a.verdict, a.attempts, a.elapsed_ms, a.reason
            );
        }
        Some(ApiOutcome::Error(e)) => {
            let _ = writeln!(
                out,
                "api:     error after {} ms: {}",
                e.elapsed_ms, e.message
            );
        }
        Some(ApiOutcome::Budget(why)) => {
            let _ = writeln!(out, "api:     not called: {why}");
        }
        None => {}
    }
    if let Some(path) = &decision.path {
        let _ = writeln!(out, "path:    {path}");
    }
    if !decision.commands.is_empty() {
        let _ = writeln!(out, "parts:");
        for c in &decision.commands {
            let rule = c
                .rule
                .as_ref()
                .map(|r| format!("  [{r}]"))
                .unwrap_or_default();
            let via = if c.via.is_empty() {
                String::new()
            } else {
                format!("  (via {})", c.via.join(" → "))
            };
            let _ = writeln!(
                out,
                "  {:<9} {}{via}{rule}",
                c.verdict.as_str(),
                crate::text::excerpt(&c.text)
            );
            if c.verdict != Verdict::Allow {
                let _ = writeln!(out, "            {}", c.reason);
            }
        }
    }
    out
}
