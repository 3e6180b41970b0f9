//! `sentinel audit verify` and `audit tail`: the audit log's chain checked, and its latest records.

use super::load_config;
use anyhow::{Context as _, Result};
use sentinel::ledger::audit;

pub fn verify(json: bool) -> Result<u8> {
    let config = load_config()?;
    let journal = audit::journal(&config.home.value, config.log_max_bytes.value);
    let files = journal.files().len();
    let verdict = audit::verify(&journal).context("cannot read the audit log")?;
    if json {
        let v = match &verdict {
            audit::Verification::Intact(n) => {
                serde_json::json!({ "ok": true, "status": "intact", "records": n, "files": files })
            }
            audit::Verification::Crashed(n, crashes) => serde_json::json!({
                "ok": true, "status": "intact-after-crash", "records": n, "files": files,
                "crashes": crashes.iter().map(ToString::to_string).collect::<Vec<_>>(),
            }),
            audit::Verification::Broken(why) => {
                serde_json::json!({ "ok": false, "status": "broken", "files": files, "broken": why.to_string() })
            }
        };
        outln!("{v}");
        return Ok(u8::from(matches!(verdict, audit::Verification::Broken(_))));
    }
    match verdict {
        audit::Verification::Intact(n) => {
            outln!("intact: {n} records in {files} file(s), chain and head agree");
            Ok(0)
        }
        audit::Verification::Crashed(n, crashes) => {
            outln!("intact after a crash: {n} records in {files} file(s) chain; not tampering:");
            for c in crashes {
                outln!("  {c}");
            }
            Ok(0)
        }
        audit::Verification::Broken(why) => {
            outln!("broken: {why}");
            Ok(1)
        }
    }
}

pub fn tail(n: usize, json: bool) -> Result<u8> {
    let config = load_config()?;
    let journal = audit::journal(&config.home.value, config.log_max_bytes.value);
    for r in audit::tail(&journal, n).context("cannot read the audit log")? {
        if json {
            outln!("{r}");
            continue;
        }
        if let Some(damaged) = r.get("damaged") {
            outln!("(damaged line) {damaged}");
            continue;
        }
        let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
        let rule = r["rule"]
            .as_str()
            .map(|x| format!("  [{x}]"))
            .unwrap_or_default();
        let shadow = if r["shadow"] == true { " (shadow)" } else { "" };
        outln!(
            "#{:<5} {}  {:<5} {:<6} {:<10} {}{rule}{shadow}",
            r["seq"].as_u64().unwrap_or(0),
            sentinel::clock::utc(r["ts_ms"].as_u64().unwrap_or(0)),
            s("verdict"),
            s("tier"),
            s("tool"),
            sentinel::text::excerpt(&s("subject")),
        );
        outln!("        session {}  {}", s("session"), s("reason"));
    }
    Ok(0)
}
