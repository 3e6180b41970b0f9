//! `sentinel doctor`: where decisions are exported, and whether the spool is backing up.

use sentinel::agents::doctor::{Check, Status};
use sentinel::config::Config;
use sentinel::export::{send, settings, spool};

/// The export's checks: one `ok` line when it is off and nothing waits.
pub fn checks(config: &Config) -> Vec<Check> {
    let target = settings::resolve(config, &sentinel::export::env_var);
    let paths = spool::Paths::of(&config.home.value);
    let size = spool::size(&paths);
    let mut out = Vec::new();
    let Some(t) = target else {
        let waiting = size.as_ref().map(|s| s.0).unwrap_or(0);
        out.push(Check::new(
            "export",
            match waiting {
                0 => Status::Ok,
                _ => Status::Warn,
            },
            match waiting {
                0 => "off: no [export] table and no OTEL_EXPORTER_OTLP_ENDPOINT (decisions stay on this machine)".to_string(),
                n => format!(
                    "off, but {n} record(s) wait in {} from when it was on; they are sent when it is on again",
                    paths.spool.display()
                ),
            },
        ));
        return out;
    };
    let metrics = t
        .metrics_url
        .as_deref()
        .map(|u| format!(", metrics to {u}"))
        .unwrap_or_default();
    let (records, bytes, oldest) = match size {
        Ok(s) => s,
        Err(e) => {
            out.push(
                Check::new(
                    "export",
                    Status::Fail,
                    format!(
                        "decisions should go to {} but the spool cannot be used: {e}; every decision is kept in the audit log, none is exported",
                        t.logs_url
                    ),
                )
                .fix(format!(
                    "make {} a folder of your own (no link), or remove it: sentinel makes it again",
                    paths.dir.display()
                )),
            );
            return out;
        }
    };
    let status = send::status(&config.home.value);
    let last = match status.last_ok_ms {
        0 => "nothing sent yet".to_string(),
        ms => format!(
            "last sent {} ({} record(s) in all)",
            sentinel::clock::utc(ms),
            status.sent
        ),
    };
    out.push(Check::new(
        "export",
        Status::Ok,
        format!(
            "decisions go to {} as OTLP/HTTP JSON{metrics} (named by {}); spool: {records} record(s), {bytes} bytes of at most {} records and {} bytes; {last}",
            t.logs_url, t.named_by, t.max_records, t.max_bytes
        ),
    ));
    let now = sentinel::clock::now_ms();
    let stale =
        oldest.is_some_and(|o| now.saturating_sub(o) > 10 * t.interval_secs * 1000 + 60_000);
    if status.failures > 0 || stale || records > t.max_records / 2 {
        let next = spool::next_at(&paths)
            .filter(|&n| n > now)
            .map(|n| format!("; next try {}", sentinel::clock::utc(n)))
            .unwrap_or_default();
        out.push(
            Check::new(
                "export",
                Status::Warn,
                format!(
                    "the spool is backing up: {records} record(s) waiting{}{}; {} failure(s) in a row{}{next}",
                    oldest
                        .map(|o| format!(", the oldest from {}", sentinel::clock::utc(o)))
                        .unwrap_or_default(),
                    match records * 100 / t.max_records.max(1) {
                        0 => String::new(),
                        p => format!(" ({p}% of the bound: past it the oldest are dropped, and counted)"),
                    },
                    status.failures,
                    status
                        .last_error
                        .as_deref()
                        .map(|e| format!(", last: {e}"))
                        .unwrap_or_default(),
                ),
            )
            .fix("check that the collector is up and reachable from here (its otlphttp receiver, port 4318 by default)"),
        );
    }
    if status.rejected > 0 {
        out.push(Check::new(
            "export",
            Status::Warn,
            format!(
                "the collector refused {} record(s) for good (dropped){}",
                status.rejected,
                status
                    .last_error
                    .as_deref()
                    .map(|e| format!("; last: {e}"))
                    .unwrap_or_default()
            ),
        ));
    }
    if let Ok(p) = std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL")
        && !p.trim().is_empty()
        && p.trim() != "http/json"
        && t.ignored.is_empty()
    {
        out.push(Check::new(
            "export",
            Status::Warn,
            format!(
                "OTEL_EXPORTER_OTLP_PROTOCOL={p}: sentinel sends only OTLP/HTTP with JSON; point it at the collector's HTTP port (4318), not a gRPC one"
            ),
        ));
    }
    for i in &t.ignored {
        out.push(Check::new("export", Status::Warn, i.clone()));
    }
    out
}
