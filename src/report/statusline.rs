//! `sentinel statusline`: one short line for Claude Code's status bar — how sentinel stands
//! (enforce, guard or shadow; Tier 2 on or off) and what it did this session.

use crate::ledger::status_tally::Tally;
use crate::text::excerpt_to;

/// The status line: `sentinel enforce · tier2 off · 12 allowed · 1 denied · 3 asked · 4 deferred
/// · last deny: rm -rf ~`. Parts with nothing to count are left out.
pub fn line(mode: &str, tier2: bool, tally: &Tally) -> String {
    let mut out = format!(
        "sentinel {mode} · tier2 {}",
        if tier2 { "on" } else { "off" }
    );
    for (n, word) in [
        (tally.allowed, "allowed"),
        (tally.denied, "denied"),
        (tally.asked, "asked"),
        (tally.deferred, "deferred"),
    ] {
        if n > 0 {
            out.push_str(&format!(" · {n} {word}"));
        }
    }
    if let Some(last) = &tally.last_deny {
        out.push_str(&format!(" · last deny: {}", excerpt_to(last, 40)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Tier, Verdict};
    use crate::ledger::stats::Record;

    fn record(verdict: &str, subject: &str) -> Record {
        Record {
            ts_ms: 0,
            session: "s".into(),
            agent: "claude".into(),
            tool: "Bash".into(),
            subject: subject.into(),
            tier: Tier::Local,
            verdict: verdict.into(),
            local: Verdict::Allow,
            rule: None,
            latency_us: 1,
            api_ms: None,
            tokens: None,
            cache_tokens: None,
            shadow: false,
            scope: None,
            seq: None,
            rebuilt: false,
            unkept: Vec::new(),
            spared: false,
        }
    }

    #[test]
    fn the_line_counts_each_answer_and_names_the_last_deny() {
        let records = [
            record("allow", "git status"),
            record("deny", "rm -rf ~"),
            record("allow", "cargo test"),
            record("defer", "frobnicate"),
            record("deny", "git push --force origin main"),
        ];
        assert_eq!(
            line("enforce", false, &Tally::of(&records)),
            "sentinel enforce · tier2 off · 2 allowed · 2 denied · 1 deferred · last deny: git push --force origin main"
        );
        assert_eq!(
            line("guard", true, &Tally::default()),
            "sentinel guard · tier2 on"
        );
    }
}
