//! Codex's `apply_patch` (`call::patch`): each path the patch names is judged as a write of that
//! path would be (a delete as a write: the same places are off limits), with the text it adds
//! read for injection signs and credential imports into instruction files; the patch gets the
//! worst of its files' verdicts, explained by the first file at that level.

use crate::call::patch::{PatchOp, PatchedFile};
use crate::decision::{CommandReport, Decision, Verdict};
use crate::local::context::Context;
use crate::local::policy::signs;
use crate::local::scripts;
use crate::local::tool_calls::write_decision;
use crate::rules::Rules;

/// Tier 1's decision on a patch of `files`.
pub fn patch_decision(tool: &str, files: &[PatchedFile], rules: &Rules, ctx: &Context) -> Decision {
    let decided: Vec<(&PatchedFile, Decision)> = files
        .iter()
        .map(|f| {
            let mut d = write_decision(tool, &f.path, rules, ctx);
            if f.op != PatchOp::Delete {
                d.signs = signs::text_signs(&f.added, &rules.known);
                scripts::instruction_imports(&mut d, &f.added, rules, ctx);
                scripts::instruction_write(&mut d, ctx);
            }
            (f, d)
        })
        .collect();
    let worst = decided
        .iter()
        .map(|(_, d)| d.verdict)
        .max()
        .unwrap_or(Verdict::Uncertain);
    let reports = decided
        .iter()
        .map(|(f, d)| CommandReport {
            text: format!(
                "*** {}: {}",
                f.op.header(),
                d.path.as_deref().unwrap_or(&f.path)
            ),
            via: Vec::new(),
            verdict: d.verdict,
            reason: d.reason.clone(),
            rule: d.rule.clone(),
            person_only: d.person_only,
            cwd: None,
            effects: Vec::new(),
        })
        .collect();
    let mut all_signs = Vec::new();
    for (_, d) in &decided {
        for s in &d.signs {
            if !all_signs
                .iter()
                .any(|o: &crate::decision::sign::Sign| o.kind == s.kind)
            {
                all_signs.push(s.clone());
            }
        }
    }
    let mut out = match decided.iter().find(|(_, d)| d.verdict == worst) {
        Some((_, d)) if worst != Verdict::Allow => {
            let mut d = d.clone();
            if files.len() > 1 {
                d.reason = format!(
                    "{} (one of the {} files this patch touches)",
                    d.reason,
                    files.len()
                );
            }
            d
        }
        _ => {
            let shown: Vec<String> = decided
                .iter()
                .map(|(f, d)| d.path.clone().unwrap_or_else(|| f.path.clone()))
                .collect();
            let mut d = Decision::local(
                tool,
                Verdict::Allow,
                format!(
                    "sentinel[local]: allowed: every file this patch touches is inside the project or a safe path ({})",
                    crate::text::excerpt(&shown.join(", "))
                ),
                None,
            );
            d.path = decided.first().and_then(|(_, d)| d.path.clone());
            d
        }
    };
    out.commands = reports;
    out.signs = all_signs;
    out
}
