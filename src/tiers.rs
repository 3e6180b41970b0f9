//! After Tier 1: what the configuration makes of a local verdict. The final answer is one of
//! allow, ask, deny, or none at all (defer to the agent's own permission flow).
//!
//! Tier 2 (the LLM evaluator) and Tier 3 (its fail path) will sit between the local UNCERTAIN and
//! `on_uncertain`; until they exist, an uncertain call goes straight to `on_uncertain`.

use crate::config::{Config, OnBlock, OnUncertain};
use crate::decision::{Decision, Verdict};

/// Turns Tier 1's decision into the answer to give, applying `on_block`, `on_uncertain` and
/// configuration errors. None means: say nothing, the agent decides.
pub fn resolve(local: Option<Decision>, config: &Config) -> Option<Decision> {
    let mut d = local?;
    match d.verdict {
        Verdict::Deny if config.on_block.value == OnBlock::Ask => {
            d.verdict = Verdict::Ask;
            d.reason = format!("{} (on_block = ask: the person decides)", d.reason);
        }
        Verdict::Uncertain => match config.on_uncertain.value {
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
