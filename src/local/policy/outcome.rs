//! From the verdicts of a call's parts to its decision: the maximum wins, and the reason names
//! the rule that decided, with its alternative.

use crate::decision::{CommandReport, Decision, RuleRef, Verdict};
use crate::shell::{self};
use std::fmt::Write as _;

/// The command's verdict is the maximum of its parts; the first part at that level explains it.
pub(in crate::local) fn combine(tool: &str, reports: Vec<CommandReport>) -> Decision {
    let worst = reports
        .iter()
        .map(|r| r.verdict)
        .max()
        .unwrap_or(Verdict::Uncertain);
    let decider = reports.iter().find(|r| r.verdict == worst);
    let (reason, rule) = match (worst, decider) {
        (Verdict::Allow, _) => {
            // `allowed by RULE (TEXT), …; runs …; …`, written in place: it is every allow's
            // reason.
            let mut reason = String::with_capacity(128);
            reason.push_str("sentinel[local]: allowed");
            let rules = reports
                .iter()
                .filter_map(|r| Some((r.rule.as_ref()?, &r.text)));
            let mut by_rule = false;
            for (rule, text) in rules {
                let _ = write!(reason, "{}", if by_rule { ", " } else { " by " });
                // The bundled rules allow most calls: only a person's or a project's is named so.
                if rule.origin != "bundled" {
                    let _ = write!(reason, "{} ", rule.owner());
                }
                let _ = write!(reason, "{rule} (");
                crate::text::push_excerpt(&mut reason, text, crate::text::EXCERPT);
                reason.push(')');
                by_rule = true;
            }
            let mut files = reports
                .iter()
                .filter(|r| r.rule.is_none() && r.reason.starts_with("runs "));
            match files.next() {
                Some(first) => {
                    reason.push_str(if by_rule { "; " } else { ": " });
                    reason.push_str(&first.reason);
                    for r in files {
                        reason.push_str("; ");
                        reason.push_str(&r.reason);
                    }
                }
                None if !by_rule => {
                    reason.push_str(": nothing in it runs a command");
                }
                None => {}
            }
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
pub(in crate::local) fn deny_reason(
    rule: Option<&RuleRef>,
    detail: &str,
    shown: &str,
    person_only: bool,
) -> String {
    let Some(rule) = rule else {
        // The detail may already say what to do instead.
        let instead = if person_only || detail.contains("instead:") || detail.contains("Instead:") {
            String::new()
        } else {
            " Instead: ask the person to run it themselves.".to_string()
        };
        return format!("sentinel[local]: blocked `{shown}`: {detail}.{instead}");
    };
    let (why, instead) = advice(rule);
    let mut out = String::with_capacity(160 + shown.len() + detail.len());
    let _ = write!(
        out,
        "sentinel[local]: blocked by {} {rule} ({shown})",
        rule.owner()
    );
    let mut sep = ": ";
    if !detail.is_empty() && Some(detail) != rule.why.as_deref() && Some(detail) != why {
        out.push_str(sep);
        out.push_str(detail);
        sep = "; ";
    }
    if let Some(why) = why {
        out.push_str(sep);
        out.push_str(why);
    }
    let _ = write!(out, ". Instead: {instead}.");
    out
}

/// A rule's comment split into why it blocks and what to do instead (`…; instead: …`), with a
/// default alternative for each rule file when the comment names none.
pub(in crate::local) fn advice(rule: &RuleRef) -> (Option<&str>, &str) {
    let comment = rule.why.as_deref().unwrap_or("");
    let (why, instead) = match comment.split_once("; instead:") {
        Some((w, i)) => (w.trim(), Some(i.trim().trim_end_matches('.'))),
        None => (comment.trim(), None),
    };
    let default = || match rule.file.rsplit('/').next().unwrap_or("") {
        "conditional_block_commands.txt" => {
            "keep it inside the project, naming each path, or ask the person to run it"
        }
        "excluded_paths.txt" => "write inside the project, or ask the person to make this change",
        _ => {
            "do not look for another way to do the same; if it is needed, ask the person to run it themselves"
        }
    };
    (
        (!why.is_empty()).then_some(why),
        instead.unwrap_or_else(default),
    )
}
