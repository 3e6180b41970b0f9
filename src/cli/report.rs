//! `sentinel report`: one self-contained HTML page (or `--json`) of what sentinel decided.

use super::load_config;
use anyhow::{Context as _, Result};
use sentinel::rules::Rules;
use sentinel::{config, ledger::audit, ledger::stats, report};
use std::path::PathBuf;

pub fn run(out: Option<PathBuf>, since: Option<String>, json: bool) -> Result<u8> {
    let config = load_config()?;
    let home = &config.home.value;
    let since_ms = match since.as_deref() {
        Some("all") => 0,
        Some(s) => super::stats::parse_since(s)?,
        None => super::stats::parse_since("7d")?,
    };
    super::stats::catch_up(&config);
    let loaded = stats::load(&stats::journal(home, config.log_max_bytes.value))
        .context("cannot read the stats")?;
    let records: Vec<stats::Record> = loaded
        .records
        .into_iter()
        .filter(|r| r.ts_ms >= since_ms)
        .collect();
    let audit: Vec<audit::Brief> = audit::briefs(&audit::journal(home, config.log_max_bytes.value))
        .context("cannot read the audit log")?
        .into_iter()
        .filter(|v| v.ts_ms.is_some_and(|t| t >= since_ms))
        .collect();
    let user_home = config::user_home();
    let rules = Rules::load(home, user_home.as_deref());
    let suggestions = report::suggest::suggest(
        &records,
        &audit,
        &rules,
        user_home.as_deref(),
        home,
        usize::MAX,
    );
    let dashboard = report::dashboard::build(&records, &audit, &suggestions);
    if json {
        outln!("{}", serde_json::to_string_pretty(&dashboard)?);
        return Ok(0);
    }
    let path = out.unwrap_or_else(|| home.join("report.html"));
    let page = report::html::render(&dashboard, &sentinel::clock::utc(sentinel::clock::now_ms()));
    // 0600, written whole, never through a link (in SENTINEL_HOME: no link below it either).
    sentinel::config::kept::write_whole(&path, page.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    outln!(
        "wrote {} ({} decisions over {} days; open it in a browser)",
        path.display(),
        dashboard.summary.checks,
        dashboard.days.len()
    );
    Ok(0)
}
