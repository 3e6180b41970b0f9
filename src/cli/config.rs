//! `sentinel config`: the effective configuration and where each value came from.

use anyhow::Result;

pub fn run(json: bool) -> Result<u8> {
    let config = super::load_config()?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&config)?);
    } else {
        let rows = config.rows();
        let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let vwidth = rows
            .iter()
            .map(|r| r.1.chars().count())
            .max()
            .unwrap_or(0)
            .min(44);
        for (key, value, source) in rows {
            outln!("{key:<width$}  {value:<vwidth$}  {source}");
        }
        for e in &config.errors {
            outln!("error: {e}");
        }
        for w in &config.warnings {
            outln!("warning: {w}");
        }
    }
    Ok(if config.errors.is_empty() { 0 } else { 1 })
}
