//! `sentinel report`: one self-contained HTML page (or `--json`) of what sentinel decided.

use super::load_config;
use anyhow::{Context as _, Result};
use sentinel::rules::Rules;
use sentinel::{config, ledger::audit, ledger::stats, report};
use std::path::PathBuf;

pub fn run(out: Option<PathBuf>, since: Option<String>, json: bool, whole: bool) -> Result<u8> {
    let config = load_config()?;
    let home = &config.home.value;
    let since_ms = match since.as_deref() {
        Some("all") => 0,
        Some(s) => super::stats::parse_since(s)?,
        None => super::stats::parse_since("7d")?,
    };
    super::stats::catch_up(&config);
    let max = config.log_max_bytes.value;
    let (stats_journal, audit_journal) = (stats::journal(home, max), audit::journal(home, max));
    let user_home = config::user_home();
    let rules = Rules::load(home, user_home.as_deref());
    // The kept summary brought up to the journals; the journals read whole when asked, or when
    // they cannot be followed this time (an error reading on is the whole read's to report).
    let kept = match whole {
        true => None,
        false => report::kept_summary::gather(home, &stats_journal, &audit_journal, since_ms)
            .ok()
            .flatten(),
    };
    let dashboard = match kept {
        Some(kept) => {
            let suggestions = report::suggest::from_rows(
                &kept.rows,
                &rules,
                user_home.as_deref(),
                home,
                usize::MAX,
            );
            report::dashboard::assemble(&kept.decisions, &kept.audited, &suggestions)
        }
        None => {
            let loaded = stats::load(&stats_journal).context("cannot read the stats")?;
            let records: Vec<stats::Record> = loaded
                .records
                .into_iter()
                .filter(|r| r.ts_ms >= since_ms)
                .collect();
            let audit: Vec<audit::Brief> = audit::briefs(&audit_journal)
                .context("cannot read the audit log")?
                .into_iter()
                .filter(|v| v.ts_ms.is_some_and(|t| t >= since_ms))
                .collect();
            let suggestions = report::suggest::suggest(
                &records,
                &audit,
                &rules,
                user_home.as_deref(),
                home,
                usize::MAX,
            );
            report::dashboard::build(&records, &audit, &suggestions)
        }
    };
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

/// `sentinel report --otlp FILE…`: the team view of what many machines exported.
pub fn team(files: &[PathBuf], since: Option<String>, json: bool) -> Result<u8> {
    use std::io::BufRead;
    let since_ms = match since.as_deref() {
        None | Some("all") => 0,
        Some(s) => super::stats::parse_since(s)?,
    };
    let mut readers = Vec::new();
    for path in files {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        readers.push((path, std::io::BufReader::new(file)));
    }
    // Streamed: a collector's file may be larger than memory.
    let mut failed = None;
    let lines = readers
        .into_iter()
        .flat_map(|(path, r)| r.lines().map(move |l| (path, l)));
    let lines = lines.map_while(|(path, l)| match l {
        Ok(l) => Some(l),
        Err(e) => {
            failed = Some(format!("cannot read {}: {e}", path.display()));
            None
        }
    });
    let team = report::team::build(lines, since_ms);
    if let Some(e) = failed {
        anyhow::bail!(e);
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&team)?);
    } else {
        out!("{}", report::team::render(&team));
    }
    Ok(0)
}
