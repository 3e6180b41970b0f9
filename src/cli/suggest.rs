//! `sentinel suggest`: rules proposed from what Tier 2 and the person decided; `--apply` adds them.

use super::load_config;
use super::person::{audit_person, person_only};
use anyhow::{Context as _, Result, bail};
use sentinel::rules::Rules;
use sentinel::{config, ledger::audit, ledger::stats, report::suggest};

pub fn run(apply: &[usize], limit: usize, json: bool) -> Result<u8> {
    if !apply.is_empty() {
        person_only("suggest --apply")?;
    }
    let config = load_config()?;
    let home = &config.home.value;
    let user_home = config::user_home();
    super::stats::catch_up(&config);
    let loaded = stats::load(&stats::journal(home, config.log_max_bytes.value))
        .context("cannot read the stats")?;
    let audit_records = audit::briefs(&audit::journal(home, config.log_max_bytes.value))
        .context("cannot read the audit log")?;
    let rules = Rules::load(home, user_home.as_deref());
    let limit = limit.max(apply.iter().copied().max().unwrap_or(0));
    let found = suggest::suggest(
        &loaded.records,
        &audit_records,
        &rules,
        user_home.as_deref(),
        home,
        limit,
    );
    if apply.is_empty() {
        if json {
            // An object, as every command's JSON is: room for more keys without a break.
            outln!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "decisions": loaded.records.len(),
                    "suggestions": found,
                }))?
            );
            return Ok(0);
        }
        if found.is_empty() {
            outln!(
                "nothing to suggest: no command reached Tier 2, ask or the agent's prompt often enough for a rule to settle it ({} decisions read)",
                loaded.records.len()
            );
            return Ok(0);
        }
        for s in &found {
            let file = s.kind.file().name();
            outln!(
                "{:>3}. {:<5} {}   → {file}",
                s.number,
                format!("{:?}", s.kind).to_lowercase(),
                s.pattern
            );
            outln!("       evidence: {}", s.evidence.line());
            for said in &s.evidence.evaluator_said {
                outln!("       evaluator: \"{said}\"");
            }
            for e in &s.evidence.examples {
                outln!("       e.g. {}", sentinel::text::excerpt(e));
            }
        }
        outln!();
        outln!(
            "apply with: sentinel suggest --apply N [N…] (appends to the rule files in {})",
            home.display()
        );
        return Ok(0);
    }
    let mut chosen = Vec::new();
    for n in apply {
        match found.iter().find(|s| s.number == *n) {
            Some(s) => chosen.push(s),
            None => bail!("no suggestion {n}: run `sentinel suggest` to see the list"),
        }
    }
    let date = sentinel::clock::utc(sentinel::clock::now_ms());
    let date = date.split(' ').next().unwrap_or(&date).to_string();
    match suggest::apply(home, &chosen, &date, user_home.as_deref()) {
        Ok(applied) => {
            for (path, n) in &applied.files {
                outln!("appended {n} rule(s) to {}", path.display());
            }
            for s in &chosen {
                outln!("  {}  {}  ({})", s.number, s.pattern, s.evidence.line());
                audit_person(
                    &config,
                    "suggest --apply",
                    &s.pattern,
                    "rule added",
                    &format!(
                        "the person added a {} rule to {}: {}",
                        format!("{:?}", s.kind).to_lowercase(),
                        s.kind.file().name(),
                        s.evidence.line()
                    ),
                );
            }
            outln!("`sentinel rules lint` passes; the next decision uses them");
            Ok(0)
        }
        Err(e) => {
            sentinel::errln!("sentinel: {e}");
            Ok(1)
        }
    }
}
