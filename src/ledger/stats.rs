//! Per-decision stats: one JSON line per decision in `stats.jsonl` (rotating), the counters, the
//! session summary, and what `sentinel stats` prints.

use crate::decision::{Tier, Verdict};
use crate::ledger::journal::{Journal, Line};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The journal's name in SENTINEL_HOME: `stats.jsonl`.
pub const NAME: &str = "stats";

/// One decision as recorded.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// Milliseconds since the Unix epoch.
    pub ts_ms: u64,
    /// The agent's session id ("" when it sent none).
    pub session: String,
    /// The agent protocol (claude, gemini, cursor, copilot) or "check".
    pub agent: String,
    /// The tool.
    pub tool: String,
    /// The command or path, cut to 300 characters.
    pub subject: String,
    /// The tier that decided.
    pub tier: Tier,
    /// The final answer: allow, deny, ask, or defer (no answer).
    pub verdict: String,
    /// Tier 1's own verdict.
    pub local: Verdict,
    /// The rule that decided, `file:line`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// From reading the event to the answer, in µs.
    pub latency_us: u64,
    /// Time spent calling the API, in ms, when it was called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_ms: Option<u64>,
    /// Tokens the API reported, over the evaluation's requests: input, output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<(u64, u64)>,
    /// Input tokens read from and written to the prompt cache, when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_tokens: Option<(u64, u64)>,
    /// Decided in shadow mode: computed and recorded, not enforced.
    pub shadow: bool,
    /// What tells this session from another with the same id in another project
    /// ([`crate::ledger::state::session_scope`]; absent in an older sentinel's lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The seq of the decision's audit record (written first; absent when it could not be
    /// written, and in an older sentinel's lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// Written from the audit record by a later call: the call that decided was killed between
    /// its audit record and this line.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rebuilt: bool,
    /// What could not be kept for this call (its audit record, the written-file ledger), one
    /// line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unkept: Vec<String>,
    /// An enforced allow of a call the agent would have asked the person about (its permission
    /// mode says so): a prompt spared.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spared: bool,
}

impl Record {
    /// The stats line of a decision's audit record (None for a record that is not a decision:
    /// a taint mark, the person's own action).
    pub fn from_audit(v: &serde_json::Value) -> Option<Record> {
        let counted: crate::ledger::audit::Counted = serde_json::from_value(v.clone()).ok()?;
        let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        Some(Record {
            ts_ms: v["ts_ms"].as_u64()?,
            session: text("session"),
            agent: text("agent"),
            tool: text("tool"),
            subject: subject(v["subject"].as_str().unwrap_or_default()),
            tier: serde_json::from_value(v["tier"].clone()).ok()?,
            verdict: text("verdict"),
            local: counted.local,
            rule: v["rule"].as_str().map(String::from),
            latency_us: counted.latency_us,
            api_ms: counted.api_ms,
            tokens: counted.tokens,
            cache_tokens: counted.cache_tokens,
            shadow: v["shadow"].as_bool().unwrap_or(false),
            scope: counted.scope,
            seq: v["seq"].as_u64(),
            rebuilt: true,
            unkept: Vec::new(),
            spared: counted.spared,
        })
    }
}

/// The stats journal of a SENTINEL_HOME.
pub fn journal(home: &Path, max_bytes: u64) -> Journal {
    Journal::new(home, NAME, max_bytes)
}

/// Records read back, and the lines that were not records.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The records, oldest first.
    pub records: Vec<Record>,
    /// `file:line` of every damaged line (torn or garbage).
    pub damaged: Vec<String>,
}

/// Reads every record of every file; damaged lines are listed, not fatal.
pub fn load(journal: &Journal) -> std::io::Result<Loaded> {
    let mut out = Loaded::default();
    for Line {
        file, number, text, ..
    } in journal.lines()?
    {
        match serde_json::from_str::<Record>(&text) {
            Ok(r) => out.records.push(r),
            Err(_) => out.damaged.push(format!("{}:{number}", file.display())),
        }
    }
    Ok(out)
}

/// Latency figures for one tier, in µs.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Latency {
    /// Decisions.
    pub count: usize,
    /// Mean.
    pub mean_us: u64,
    /// Median.
    pub p50_us: u64,
    /// 95th percentile.
    pub p95_us: u64,
}

impl Latency {
    /// The figures of `values` (latency in µs → how many calls took it).
    fn of(values: &BTreeMap<u64, u64>) -> Latency {
        let count: u64 = values.values().sum();
        if count == 0 {
            return Latency::default();
        }
        // The value at a rank of the sorted list, walking the counts.
        let at = |rank: u64| {
            let mut seen = 0;
            for (value, n) in values {
                seen += n;
                if rank < seen {
                    return *value;
                }
            }
            0
        };
        let pick = |q: f64| at(((count - 1) as f64 * q).round() as u64);
        let sum: u64 = values.iter().map(|(v, n)| v * n).sum();
        Latency {
            count: count as usize,
            mean_us: sum / count,
            p50_us: pick(0.5),
            p95_us: pick(0.95),
        }
    }
}

/// The counters over a set of records.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Decisions.
    pub checks: usize,
    /// Tier 1 allowed, and sentinel answered allow (an allow left to the agent's own permission
    /// flow, e.g. an edit under `default`, is `deferred`).
    pub local_allow: usize,
    /// Tier 1 blocked, and sentinel answered deny.
    pub local_block: usize,
    /// Tier 1 was uncertain and Tier 2 was off: `on_uncertain` asked or refused.
    pub uncertain: usize,
    /// Left to the agent's own permission flow (no answer): an uncertain call where the agent
    /// has a gate of its own, an edit under a mode that shows edits, an allow in guard mode.
    pub deferred: usize,
    /// Enforced allows of calls the agent would have asked the person about (its permission
    /// mode says so): prompts spared. Not every allow: under `bypassPermissions` nothing was
    /// going to be asked.
    pub prompts_avoided: usize,
    /// Tier 1 asked the person (credential reads).
    pub local_ask: usize,
    /// Tier 2 allowed.
    pub api_allow: usize,
    /// Tier 2 blocked.
    pub api_block: usize,
    /// Tier 2 escalated to the person.
    pub api_ask: usize,
    /// Tier 2 failed or its budget was spent: Tier 3 answered.
    pub api_error: usize,
    /// Requests to the API (answers and failures).
    pub api_calls: usize,
    /// Total time spent in the API, in ms.
    pub api_ms: u64,
    /// Tokens over every evaluation: input, output, read from and written to the cache.
    pub api_tokens: crate::decision::tier2::Usage,
    /// Estimated API cost in US dollars, at Haiku 4.5 prices.
    pub api_cost_usd: f64,
    /// Shadow decisions that would have allowed.
    pub shadow_would_allow: usize,
    /// Shadow decisions that would have blocked.
    pub shadow_would_block: usize,
    /// Shadow decisions that would have asked.
    pub shadow_would_ask: usize,
    /// Share of decisions Tier 1 settled alone (allow, block or ask), in percent.
    pub local_resolution_pct: f64,
    /// Latency per tier.
    pub latency: BTreeMap<String, Latency>,
    /// The commands that reached Tier 2 most often, with their counts.
    pub top_tier2: Vec<(String, usize)>,
}

/// Counts a set of records.
pub fn summarize<'a>(records: impl IntoIterator<Item = &'a Record>) -> Summary {
    let mut sums = Sums::default();
    for r in records {
        sums.add(r);
    }
    sums.summary()
}

/// What a [`Summary`] is made of, in a form that adds up: stretches of the journal counted apart
/// and absorbed in journal order give the same summary as counting their records in one pass
/// (`report` keeps one per stretch). The latencies are kept by value (the percentiles are of the
/// values) and each call's cost apart, in order (a float sum's last digits depend on its order).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sums {
    checks: usize,
    local_allow: usize,
    local_block: usize,
    uncertain: usize,
    deferred: usize,
    prompts_avoided: usize,
    local_ask: usize,
    api_allow: usize,
    api_block: usize,
    api_ask: usize,
    api_error: usize,
    api_calls: usize,
    api_ms: u64,
    api_tokens: crate::decision::tier2::Usage,
    /// Each costed call's cost, as the bits of the f64 (exact through JSON).
    costs: Vec<u64>,
    shadow_would_allow: usize,
    shadow_would_block: usize,
    shadow_would_ask: usize,
    /// Per tier: latency in µs → how many calls took it.
    latencies: BTreeMap<String, BTreeMap<u64, u64>>,
    /// Per subject that reached Tier 2: how many times.
    tier2: BTreeMap<String, usize>,
}

impl Sums {
    /// Counts one record.
    pub fn add(&mut self, r: &Record) {
        let s = self;
        s.checks += 1;
        // By what sentinel answered: a call left to the agent is not an allow.
        match (r.tier, r.local, r.verdict.as_str()) {
            (Tier::Local, _, "defer") => s.deferred += 1,
            (Tier::Local, _, "allow") => s.local_allow += 1,
            (Tier::Local, _, "deny") => s.local_block += 1,
            (Tier::Local, Verdict::Ask, _) => s.local_ask += 1,
            (Tier::Local, _, _) => s.uncertain += 1,
            (Tier::Api, _, "allow") => s.api_allow += 1,
            (Tier::Api, _, "deny") => s.api_block += 1,
            (Tier::Api, _, _) => s.api_ask += 1,
            (Tier::Fail, _, _) => s.api_error += 1,
        }
        if r.spared {
            s.prompts_avoided += 1;
        }
        if r.tier != Tier::Local {
            *s.tier2.entry(r.subject.clone()).or_default() += 1;
        }
        if let Some(ms) = r.api_ms {
            s.api_calls += 1;
            s.api_ms += ms;
        }
        if let Some((input, output)) = r.tokens {
            let (cache_read, cache_write) = r.cache_tokens.unwrap_or_default();
            let u = crate::decision::tier2::Usage {
                input,
                output,
                cache_read,
                cache_write,
            };
            s.costs.push(u.cost_usd().to_bits());
            s.api_tokens.add(u);
        }
        if r.shadow {
            match r.verdict.as_str() {
                "allow" => s.shadow_would_allow += 1,
                "deny" => s.shadow_would_block += 1,
                _ => s.shadow_would_ask += 1,
            }
        }
        match s.latencies.get_mut(r.tier.as_str()) {
            Some(by_value) => *by_value.entry(r.latency_us).or_default() += 1,
            None => {
                let by_value = BTreeMap::from([(r.latency_us, 1)]);
                s.latencies.insert(r.tier.as_str().to_string(), by_value);
            }
        }
    }

    /// Adds the sums of a later stretch of the journal.
    pub fn absorb(&mut self, o: &Sums) {
        self.checks += o.checks;
        self.local_allow += o.local_allow;
        self.local_block += o.local_block;
        self.uncertain += o.uncertain;
        self.deferred += o.deferred;
        self.prompts_avoided += o.prompts_avoided;
        self.local_ask += o.local_ask;
        self.api_allow += o.api_allow;
        self.api_block += o.api_block;
        self.api_ask += o.api_ask;
        self.api_error += o.api_error;
        self.api_calls += o.api_calls;
        self.api_ms += o.api_ms;
        self.api_tokens.add(o.api_tokens);
        self.costs.extend_from_slice(&o.costs);
        self.shadow_would_allow += o.shadow_would_allow;
        self.shadow_would_block += o.shadow_would_block;
        self.shadow_would_ask += o.shadow_would_ask;
        for (tier, values) in &o.latencies {
            let mine = self.latencies.entry(tier.clone()).or_default();
            for (value, n) in values {
                *mine.entry(*value).or_default() += n;
            }
        }
        for (subject, n) in &o.tier2 {
            match self.tier2.get_mut(subject) {
                Some(mine) => *mine += n,
                None => {
                    self.tier2.insert(subject.clone(), *n);
                }
            }
        }
    }

    /// The summary these sums make.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            checks: self.checks,
            local_allow: self.local_allow,
            local_block: self.local_block,
            uncertain: self.uncertain,
            deferred: self.deferred,
            prompts_avoided: self.prompts_avoided,
            local_ask: self.local_ask,
            api_allow: self.api_allow,
            api_block: self.api_block,
            api_ask: self.api_ask,
            api_error: self.api_error,
            api_calls: self.api_calls,
            api_ms: self.api_ms,
            api_tokens: self.api_tokens,
            // Added one by one from 0.0, in journal order, as the calls came.
            api_cost_usd: self
                .costs
                .iter()
                .fold(0.0, |sum, c| sum + f64::from_bits(*c)),
            shadow_would_allow: self.shadow_would_allow,
            shadow_would_block: self.shadow_would_block,
            shadow_would_ask: self.shadow_would_ask,
            ..Summary::default()
        };
        if s.checks > 0 {
            s.local_resolution_pct =
                100.0 * (s.local_allow + s.local_block + s.local_ask) as f64 / s.checks as f64;
        }
        s.latency = self
            .latencies
            .iter()
            .map(|(k, v)| (k.clone(), Latency::of(v)))
            .collect();
        let mut top: Vec<(String, usize)> =
            self.tier2.iter().map(|(k, v)| (k.clone(), *v)).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(10);
        s.top_tier2 = top;
        s
    }
}

impl Summary {
    /// The one-line session summary.
    pub fn line(&self) -> String {
        let mut line = format!(
            "sentinel: {} check{} — local {} (allow {}, block {}) · api {} (allow {}, block {}",
            self.checks,
            if self.checks == 1 { "" } else { "s" },
            self.local_allow + self.local_block,
            self.local_allow,
            self.local_block,
            self.api_allow + self.api_block + self.api_ask,
            self.api_allow,
            self.api_block,
        );
        if self.api_ask > 0 {
            line.push_str(&format!(", ask {}", self.api_ask));
        }
        line.push(')');
        if self.uncertain + self.local_ask > 0 {
            line.push_str(&format!(" · asked {}", self.uncertain + self.local_ask));
        }
        if self.deferred > 0 {
            line.push_str(&format!(" · left to the agent {}", self.deferred));
        }
        if self.prompts_avoided > 0 {
            line.push_str(&format!(" · prompts avoided {}", self.prompts_avoided));
        }
        line.push_str(&format!(
            " · errors {} · api time {:.1} s",
            self.api_error,
            self.api_ms as f64 / 1000.0
        ));
        if self.api_cost_usd > 0.0 {
            line.push_str(&format!(" · ~${:.4}", self.api_cost_usd));
        }
        if self.shadow_would_allow + self.shadow_would_block + self.shadow_would_ask > 0 {
            line.push_str(&format!(
                " · shadow: would allow {}, block {}, ask {}",
                self.shadow_would_allow, self.shadow_would_block, self.shadow_would_ask
            ));
        }
        line
    }
}

/// The records of one session, from every file: other sessions may have filled whole files
/// between two of this one's records (stopping at the first file without any undercounted the
/// summary after a rotation), and may rotate a file while it is read ([`Journal::scan`] follows
/// it). Only the lines that name the session are parsed, so a SessionEnd stays fast however long
/// the history. With `scope`, only the records of that session's project
/// ([`crate::ledger::state::session_scope`]; an older sentinel's lines, which have none, count).
pub fn session_records(
    journal: &Journal,
    session: &str,
    scope: Option<&str>,
) -> std::io::Result<(Vec<Record>, Vec<String>)> {
    let mut found = Vec::new();
    let mut damaged = Vec::new();
    let needle = serde_json::to_string(session)?;
    journal.scan(|file, number, line, _| {
        if !line.contains(&needle) {
            return;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(r)
                if r.session == session
                    && scope.is_none_or(|s| r.scope.as_deref().is_none_or(|r| r == s)) =>
            {
                found.push(r)
            }
            Ok(_) => {}
            Err(_) => damaged.push(format!("{}:{number}", file.display())),
        }
    })?;
    Ok((found, damaged))
}

/// Cuts a subject to 300 characters.
pub fn subject(text: &str) -> String {
    crate::text::excerpt_to(text, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(tier: Tier, local: Verdict, verdict: &str, shadow: bool) -> Record {
        Record {
            ts_ms: 1,
            session: "s".into(),
            agent: "claude".into(),
            tool: "Bash".into(),
            subject: "npm install".into(),
            tier,
            verdict: verdict.into(),
            local,
            rule: None,
            latency_us: 100,
            api_ms: (tier != Tier::Local).then_some(1200),
            tokens: (tier == Tier::Api).then_some((700, 60)),
            cache_tokens: None,
            shadow,
            scope: None,
            seq: None,
            rebuilt: false,
            unkept: Vec::new(),
            spared: false,
        }
    }

    #[test]
    fn the_summary_line_counts_each_tier() {
        let records = vec![
            rec(Tier::Local, Verdict::Allow, "allow", false),
            rec(Tier::Local, Verdict::Allow, "allow", false),
            rec(Tier::Local, Verdict::Deny, "deny", false),
            rec(Tier::Api, Verdict::Uncertain, "allow", false),
            rec(Tier::Api, Verdict::Uncertain, "deny", false),
            rec(Tier::Fail, Verdict::Uncertain, "allow", false),
            rec(Tier::Local, Verdict::Uncertain, "ask", false),
        ];
        let s = summarize(&records);
        assert_eq!(
            s.line(),
            "sentinel: 7 checks — local 3 (allow 2, block 1) · api 2 (allow 1, block 1) · asked 1 · errors 1 · api time 3.6 s · ~$0.0020"
        );
        assert_eq!(s.api_calls, 3);
        assert!((s.local_resolution_pct - 300.0 / 7.0).abs() < 1e-9);
        assert_eq!(s.top_tier2, vec![("npm install".to_string(), 3)]);
    }

    #[test]
    fn shadow_counts_what_would_have_happened() {
        let s = summarize(&[
            rec(Tier::Local, Verdict::Deny, "deny", true),
            rec(Tier::Local, Verdict::Allow, "allow", true),
        ]);
        assert!(
            s.line().ends_with("shadow: would allow 1, block 1, ask 0"),
            "{}",
            s.line()
        );
    }
}
