//! From the verdicts of a call's parts to its decision: the maximum wins, and the reason names
//! the rule that decided, with its alternative.

use crate::decision::{CommandReport, Decision, RuleRef, Verdict};
use crate::shell::{self};

/// The command's verdict is the maximum of its parts; the first part at that level explains it.
pub(super) fn combine(tool: &str, reports: Vec<CommandReport>) -> Decision {
    let worst = reports
        .iter()
        .map(|r| r.verdict)
        .max()
        .unwrap_or(Verdict::Uncertain);
    let decider = reports.iter().find(|r| r.verdict == worst);
    let (reason, rule) = match (worst, decider) {
        (Verdict::Allow, _) => {
            let rules: Vec<String> = reports
                .iter()
                .filter_map(|r| {
                    r.rule
                        .as_ref()
                        .map(|rule| format!("{rule} ({})", shell::excerpt(&r.text)))
                })
                .collect();
            let files: Vec<String> = reports
                .iter()
                .filter(|r| r.rule.is_none() && r.reason.starts_with("runs "))
                .map(|r| r.reason.clone())
                .collect();
            let reason = match (rules.is_empty(), files.is_empty()) {
                (true, true) => {
                    "sentinel[local]: allowed: nothing in it runs a command".to_string()
                }
                (false, true) => format!("sentinel[local]: allowed by {}", rules.join(", ")),
                (true, false) => format!("sentinel[local]: allowed: {}", files.join("; ")),
                (false, false) => format!(
                    "sentinel[local]: allowed by {}; {}",
                    rules.join(", "),
                    files.join("; ")
                ),
            };
            (reason, decider.and_then(|d| d.rule.clone()))
        }
        (Verdict::Deny, Some(d)) => (
            deny_reason(
                d.rule.as_ref(),
                &d.reason,
                &shell::excerpt(&d.text),
                d.person_only,
            ),
            d.rule.clone(),
        ),
        (v, Some(d)) => (
            format!("sentinel[local]: {v}: {}", d.reason),
            d.rule.clone(),
        ),
        (v, None) => (format!("sentinel[local]: {v}"), None),
    };
    Decision {
        person_only: worst == Verdict::Deny && decider.is_some_and(|d| d.person_only),
        commands: reports,
        ..Decision::local(tool, worst, reason, rule)
    }
}

/// A deny reason written for the agent: what was refused, why, and what to do instead. `detail`
/// is what Tier 1 found (the rule's comment, or e.g. which path is outside the project).
pub(super) fn deny_reason(
    rule: Option<&RuleRef>,
    detail: &str,
    shown: &str,
    person_only: bool,
) -> String {
    let Some(rule) = rule else {
        let instead = if person_only {
            String::new()
        } else {
            " Instead: ask the person to run it themselves.".to_string()
        };
        return format!("sentinel[local]: blocked `{shown}`: {detail}.{instead}");
    };
    let (why, instead) = advice(rule);
    let mut reasons: Vec<&str> = Vec::new();
    if !detail.is_empty() && Some(detail) != rule.why.as_deref() && Some(detail) != why {
        reasons.push(detail);
    }
    reasons.extend(why);
    let why = if reasons.is_empty() {
        String::new()
    } else {
        format!(": {}", reasons.join("; "))
    };
    format!("sentinel[local]: blocked by {rule} ({shown}){why}. Instead: {instead}.")
}

/// A rule's comment split into why it blocks and what to do instead (`…; instead: …`), with a
/// default alternative for each rule file when the comment names none.
pub(super) fn advice(rule: &RuleRef) -> (Option<&str>, String) {
    let comment = rule.why.as_deref().unwrap_or("");
    let (why, instead) = match comment.split_once("; instead:") {
        Some((w, i)) => (w.trim(), Some(i.trim().trim_end_matches('.').to_string())),
        None => (comment.trim(), None),
    };
    let default = || {
        match rule.file.rsplit('/').next().unwrap_or("") {
        "conditional_block_commands.txt" => {
            "keep it inside the project, naming each path, or ask the person to run it".to_string()
        }
        "excluded_paths.txt" => {
            "write inside the project, or ask the person to make this change".to_string()
        }
        _ => "do not look for another way to do the same; if it is needed, ask the person to run it themselves".to_string(),
    }
    };
    (
        (!why.is_empty()).then_some(why),
        instead.unwrap_or_else(default),
    )
}
