//! `sentinel allow-once CODE`: the person lets exactly one refused call through.

use super::load_config;
use super::person::{audit_person, person_only};
use anyhow::Result;
use sentinel::ledger::allow_once;

pub fn run(code: &str, json: bool) -> Result<u8> {
    person_only("allow-once")?;
    let config = load_config()?;
    let now = sentinel::clock::now_ms();
    match allow_once::grant(&config.home.value, code, now) {
        Ok(granted) => {
            audit_person(
                &config,
                &granted.tool,
                &granted.subject,
                "allow-once",
                &format!(
                    "the person granted allow-once {} for this call in {}, valid until {} UTC",
                    granted.code,
                    granted.cwd,
                    sentinel::clock::utc(now + allow_once::TTL_MS)
                ),
            );
            if json {
                outln!(
                    "{}",
                    serde_json::json!({
                        "ok": true,
                        "tool": granted.tool,
                        "subject": granted.subject,
                        "subject_bytes": granted.subject_bytes,
                        "cwd": granted.cwd,
                        "until_ms": now + allow_once::TTL_MS,
                        "refused": granted.reason,
                    })
                );
                return Ok(0);
            }
            outln!(
                "allowed once, until {} UTC:",
                sentinel::clock::utc(now + allow_once::TTL_MS)
            );
            outln!("  tool     {}", granted.tool);
            outln!(
                "  {:<8} {}{}",
                if granted.tool == "Bash" || granted.tool == "PowerShell" {
                    "command"
                } else {
                    "path"
                },
                granted.subject,
                granted
                    .subject_bytes
                    .map(|n| format!(
                        "… ({n} bytes in all: only the call that is exactly this runs)"
                    ))
                    .unwrap_or_default()
            );
            outln!("  cwd      {}", granted.cwd);
            outln!("  refused  {}", granted.reason);
            outln!("the agent's next identical call runs; any other call is decided as usual");
            Ok(0)
        }
        Err(e) => {
            sentinel::errln!("sentinel: {e}");
            Ok(1)
        }
    }
}
