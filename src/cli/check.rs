//! `sentinel check`: decide a call as if the agent proposed it; with `--record`, record the
//! decision too (a what-if is not a record: the stats and the audit log are the agent's calls).

use super::ask::{Question, evaluate};
use anyhow::Result;
use sentinel::{ledger::record, report::check};

pub fn run(q: Question, json: bool, record: bool) -> Result<u8> {
    let started = std::time::Instant::now();
    let tool = q.tool.clone();
    let e = evaluate(q)?;
    for err in &e.layered.rules.errors {
        sentinel::errln!("sentinel: rule error: {err}");
    }
    for err in &e.layered.config.errors {
        sentinel::errln!("sentinel: config error: {err}");
    }
    if record && let Some(local) = &e.local {
        let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let meta = record::Meta {
            session: "check",
            agent: "check",
            latency_us,
            shadow: false,
            unkept: &[],
            prompted: false,
            also: None,
        };
        if let Some(warning) = record::record(
            &e.layered.config,
            &e.call,
            local,
            e.decision.as_ref(),
            &meta,
        ) {
            sentinel::errln!("{warning}");
        }
    }
    // The verdict is the hook's answer (allow, ask, deny, or defer: no answer); whether Tier 1
    // could decide the call itself is its own field.
    let uncertain = e
        .local
        .as_ref()
        .is_some_and(|l| l.verdict == sentinel::decision::Verdict::Uncertain);
    match (&e.decision, json) {
        (Some(d), true) => outln!(
            "{}",
            serde_json::to_string_pretty(&check::json(d, uncertain))?
        ),
        (Some(d), false) => out!("{}", check::render(d, uncertain)),
        (None, true) if e.local.is_some() => outln!(
            "{}",
            serde_json::json!({ "verdict": "defer", "uncertain": uncertain, "tool": tool, "reason": check::DEFERRED, "local": e.local })
        ),
        (None, false) if e.local.is_some() => out!(
            "{}",
            check::render_deferred(e.local.as_ref().expect("checked"))
        ),
        (None, true) => outln!(
            "{}",
            serde_json::json!({ "verdict": "defer", "uncertain": false, "tool": tool, "reason": "sentinel has no opinion on this tool; the agent's own permission flow decides" })
        ),
        (None, false) => outln!(
            "verdict: defer\nreason:  sentinel has no opinion on {tool}; the agent's own permission flow decides"
        ),
    }
    Ok(check::exit_code(e.decision.map(|d| d.verdict)) as u8)
}
