//! `sentinel stats`: what each tier decided, latency, API calls and cost.

use super::load_config;
use anyhow::{Context as _, Result, bail};
use sentinel::ledger::stats;

/// `30m`, `2h`, `7d`, `45s`, or a Unix time in seconds → ms since the epoch.
pub fn parse_since(text: &str) -> Result<u64> {
    let now = sentinel::clock::now_ms();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = number
        .parse()
        .with_context(|| format!("--since {text}: expected 30m, 2h, 7d or a Unix time"))?;
    let ms = match unit {
        "" => return Ok(n * 1000),
        "s" => n * 1000,
        "m" => n * 60_000,
        "h" => n * 3_600_000,
        "d" => n * 86_400_000,
        _ => bail!("--since {text}: the unit must be s, m, h or d"),
    };
    Ok(now.saturating_sub(ms))
}

fn duration(us: u64) -> String {
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => format!("{:.1} ms", us as f64 / 1e3),
        _ => format!("{:.2} s", us as f64 / 1e6),
    }
}

/// Writes the stats lines a killed call left out (from its audit record); a failure is said,
/// and the stats are read as they are.
pub fn catch_up(config: &sentinel::config::Config) {
    let (home, max) = (&config.home.value, config.log_max_bytes.value);
    if let Err(e) = sentinel::ledger::record::catch_up(home, max) {
        sentinel::errln!(
            "sentinel: warning: the stats could not be brought up to the audit log: {e}"
        );
    }
}

/// The stats records, newer than `since` when given.
fn load(since: Option<&str>) -> Result<Vec<stats::Record>> {
    let config = load_config()?;
    // A call killed between its audit record and its stats line is counted (ledger::record).
    catch_up(&config);
    let journal = stats::journal(&config.home.value, config.log_max_bytes.value);
    let loaded = stats::load(&journal).context("cannot read the stats")?;
    if !loaded.damaged.is_empty() {
        sentinel::errln!(
            "sentinel: warning: {} damaged stats line(s) skipped: {}",
            loaded.damaged.len(),
            loaded.damaged.join(", ")
        );
    }
    let since_ms = since.map(parse_since).transpose()?;
    Ok(loaded
        .records
        .into_iter()
        .filter(|r| since_ms.is_none_or(|s| r.ts_ms >= s))
        .collect())
}

/// `stats --sessions`: each session's id, decisions, first and last time, newest last.
pub fn sessions(since: Option<String>, json: bool) -> Result<u8> {
    let records = load(since.as_deref())?;
    // (id, decisions, first, last), in the order each session was last seen.
    let mut list: Vec<(String, usize, u64, u64)> = Vec::new();
    for r in &records {
        match list.iter().position(|s| s.0 == r.session) {
            Some(i) => {
                let mut s = list.remove(i);
                s.1 += 1;
                s.3 = r.ts_ms;
                list.push(s);
            }
            None => list.push((r.session.clone(), 1, r.ts_ms, r.ts_ms)),
        }
    }
    if json {
        let rows: Vec<_> = list
            .iter()
            .map(|(id, n, first, last)| {
                serde_json::json!({ "session": id, "decisions": n, "first_ms": first, "last_ms": last })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "sessions": rows }))?
        );
        return Ok(0);
    }
    if list.is_empty() {
        outln!("no decisions recorded yet");
    }
    for (id, n, first, last) in &list {
        let id = if id.is_empty() { "(none)" } else { id };
        outln!(
            "{id}  {n} decision{}  {} to {} UTC",
            if *n == 1 { "" } else { "s" },
            sentinel::clock::utc(*first),
            sentinel::clock::utc(*last)
        );
    }
    Ok(0)
}

pub fn run(session: Option<String>, all: bool, since: Option<String>, json: bool) -> Result<u8> {
    let loaded = load(since.as_deref())?;
    let mut records: Vec<&stats::Record> = loaded.iter().collect();
    let scope = match (&session, all) {
        (Some(id), _) => {
            records.retain(|r| &r.session == id);
            if records.is_empty() {
                bail!(
                    "no decisions recorded for session {id}{}; `sentinel stats --sessions` lists the sessions",
                    if since.is_some() { " in that time" } else { "" }
                );
            }
            format!("session {id}")
        }
        (None, true) => {
            let sessions: std::collections::BTreeSet<&str> =
                records.iter().map(|r| r.session.as_str()).collect();
            format!("all sessions ({})", sessions.len())
        }
        (None, false) => match records.last().map(|r| r.session.clone()) {
            Some(id) => {
                records.retain(|r| r.session == id);
                format!("session {id} (the most recent; --all for every session)")
            }
            None => "no decisions recorded yet".to_string(),
        },
    };
    let summary = stats::summarize(records.iter().copied());
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "scope": scope, "summary": summary })
            )?
        );
        return Ok(0);
    }
    outln!("{scope}");
    if let (Some(first), Some(last)) = (records.first(), records.last()) {
        outln!(
            "from {} to {} UTC",
            sentinel::clock::utc(first.ts_ms),
            sentinel::clock::utc(last.ts_ms)
        );
    }
    outln!("{}", summary.line());
    outln!();
    outln!(
        "{:<7} {:>9} {:>7} {:>10} {:>10} {:>10}",
        "tier",
        "decisions",
        "share",
        "mean",
        "p50",
        "p95"
    );
    for (tier, l) in &summary.latency {
        let share = 100.0 * l.count as f64 / summary.checks.max(1) as f64;
        outln!(
            "{tier:<7} {:>9} {:>6.1}% {:>10} {:>10} {:>10}",
            l.count,
            share,
            duration(l.mean_us),
            duration(l.p50_us),
            duration(l.p95_us)
        );
    }
    outln!();
    outln!(
        "resolved locally: {:.1}%   api calls: {} (errors {}, {:.1} s, ~${:.4})",
        summary.local_resolution_pct,
        summary.api_calls,
        summary.api_error,
        summary.api_ms as f64 / 1000.0,
        summary.api_cost_usd
    );
    let t = &summary.api_tokens;
    if t.input + t.output > 0 {
        let answered = summary.api_allow + summary.api_block + summary.api_ask;
        outln!(
            "api tokens: {} in, {} out, cache read {}, written {}; ~${:.4} per evaluation",
            t.input,
            t.output,
            t.cache_read,
            t.cache_write,
            summary.api_cost_usd / answered.max(1) as f64
        );
    }
    if summary.deferred > 0 {
        outln!(
            "left to the agent's own permission flow (no answer, not counted as allowed): {}",
            summary.deferred
        );
    }
    outln!(
        "prompts avoided: {} (allows of calls the agent would have asked about, by its permission mode)",
        summary.prompts_avoided
    );
    if !summary.top_tier2.is_empty() {
        outln!("reached Tier 2 most often (candidates for a local rule):");
        for (subject, n) in &summary.top_tier2 {
            outln!("{n:>6}  {subject}");
        }
    }
    Ok(0)
}
