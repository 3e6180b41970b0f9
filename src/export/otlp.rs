//! The OTLP/HTTP JSON bodies (the protobuf JSON mapping of `ExportLogsServiceRequest` and
//! `ExportMetricsServiceRequest`, as opentelemetry-proto defines them): field names in
//! lowerCamelCase, 64-bit integers as decimal strings, enums as their numbers. Pure: the
//! records in, the JSON out, every text redacted on the way ([`crate::ledger::redact`]).

use super::spool::Spooled;
use crate::ledger::redact::redacted;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Who sends: the resource every record and point belongs to.
#[derive(Clone, Debug)]
pub struct Resource {
    pub service_name: String,
    pub version: String,
    pub host: String,
    pub user: String,
    /// More attributes (from the configuration), in order.
    pub extra: Vec<(String, String)>,
}

/// The instrumentation scope's name.
pub const SCOPE: &str = "sentinel";
/// A decision's `event.name`.
pub const DECISION_EVENT: &str = "sentinel.decision";
/// A gap's `event.name`.
pub const GAP_EVENT: &str = "sentinel.export.dropped";

fn string(key: &str, v: &str) -> Value {
    json!({"key": key, "value": {"stringValue": v}})
}

fn int(key: &str, v: u64) -> Value {
    json!({"key": key, "value": {"intValue": v.to_string()}})
}

fn nanos(ms: u64) -> String {
    (u128::from(ms) * 1_000_000).to_string()
}

impl Resource {
    fn json(&self) -> Value {
        let mut attrs = vec![
            string("service.name", &self.service_name),
            string("service.version", &self.version),
            string("host.name", &self.host),
            string("user.name", &self.user),
        ];
        for (k, v) in &self.extra {
            if !matches!(
                k.as_str(),
                "service.name" | "service.version" | "host.name" | "user.name"
            ) {
                attrs.push(string(k, v));
            }
        }
        json!({"attributes": attrs})
    }

    fn scope(&self) -> Value {
        json!({"name": SCOPE, "version": self.version})
    }
}

/// The severity of a verdict: deny is an error, ask a warning, the rest information.
fn severity(verdict: &str) -> (u32, &'static str) {
    match verdict {
        "deny" => (17, "ERROR"),
        "ask" => (13, "WARN"),
        "allow" => (9, "INFO"),
        _ => (5, "DEBUG"),
    }
}

/// One log record, redacted.
pub fn log_record(r: &Spooled) -> Value {
    if r.dropped > 0 {
        let counts: Vec<Value> = r.dropped_counts.iter().map(|(k, n)| int(k, *n)).collect();
        return json!({
            "timeUnixNano": nanos(r.ts_ms),
            "observedTimeUnixNano": nanos(r.ts_ms),
            "severityNumber": 13,
            "severityText": "WARN",
            "body": {"stringValue": format!(
                "sentinel dropped {} decision record(s) from its export spool (its bound was reached before they could be sent)",
                r.dropped
            )},
            "attributes": [
                string("event.name", GAP_EVENT),
                string("sentinel.record_id", &r.id),
                int("sentinel.seq", r.seq),
                int("sentinel.dropped_count", r.dropped),
                {"key": "sentinel.dropped_by_tier_verdict", "value": {"kvlistValue": {"values": counts}}},
            ],
        });
    }
    let (number, text) = severity(&r.verdict);
    let command = redacted(&r.subject);
    let mut attrs = vec![
        string("event.name", DECISION_EVENT),
        string("sentinel.record_id", &r.id),
        int("sentinel.seq", r.seq),
        string("session.id", &r.session),
        string("sentinel.agent", &r.agent),
        string("sentinel.tool", &r.tool),
        string("sentinel.tier", &r.tier),
        string("sentinel.verdict", &r.verdict),
        string("sentinel.reason", &redacted(&r.reason)),
        string("sentinel.command", &command),
        string("sentinel.cwd", &redacted(&r.cwd)),
        string(
            "sentinel.project",
            &redacted(if r.project.is_empty() {
                &r.cwd
            } else {
                &r.project
            }),
        ),
        json!({"key": "sentinel.shadow", "value": {"boolValue": r.shadow}}),
    ];
    if let Some(rule) = &r.rule {
        attrs.push(string("sentinel.rule", &redacted(rule)));
    }
    json!({
        "timeUnixNano": nanos(r.ts_ms),
        "observedTimeUnixNano": nanos(r.ts_ms),
        "severityNumber": number,
        "severityText": text,
        "body": {"stringValue": command},
        "attributes": attrs,
    })
}

/// An `ExportLogsServiceRequest` of `records`, in their order.
pub fn logs_request(resource: &Resource, records: &[&Spooled]) -> Value {
    let logs: Vec<Value> = records.iter().map(|r| log_record(r)).collect();
    json!({"resourceLogs": [{
        "resource": resource.json(),
        "scopeLogs": [{"scope": resource.scope(), "logRecords": logs}],
    }]})
}

/// The counters the metrics report: decisions per `tier/verdict` and records dropped, since
/// `start_ms`.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Counters {
    pub start_ms: u64,
    pub decisions: BTreeMap<String, u64>,
    pub dropped: u64,
}

/// An `ExportMetricsServiceRequest`: cumulative, monotonic sums at `now_ms`.
pub fn metrics_request(resource: &Resource, c: &Counters, now_ms: u64) -> Value {
    let point = |attrs: Vec<Value>, n: u64| {
        json!({
            "attributes": attrs,
            "startTimeUnixNano": nanos(c.start_ms),
            "timeUnixNano": nanos(now_ms),
            "asInt": n.to_string(),
        })
    };
    let decisions: Vec<Value> = c
        .decisions
        .iter()
        .map(|(key, n)| {
            let (tier, verdict) = key.split_once('/').unwrap_or((key, ""));
            point(
                vec![
                    string("sentinel.tier", tier),
                    string("sentinel.verdict", verdict),
                ],
                *n,
            )
        })
        .collect();
    let sum = |points: Vec<Value>| json!({"aggregationTemporality": 2, "isMonotonic": true, "dataPoints": points});
    json!({"resourceMetrics": [{
        "resource": resource.json(),
        "scopeMetrics": [{"scope": resource.scope(), "metrics": [
            {"name": "sentinel.decisions", "description": "Decisions sentinel made, per tier and verdict", "unit": "{decision}", "sum": sum(decisions)},
            {"name": "sentinel.export.dropped", "description": "Decision records dropped from the export spool at its bound", "unit": "{record}", "sum": sum(vec![point(Vec::new(), c.dropped)])},
        ]}],
    }]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_strings_enums_numbers_and_secrets_gone() {
        let r = Spooled {
            id: "ab".into(),
            seq: 7,
            ts_ms: 1_700_000_000_123,
            tier: "local".into(),
            verdict: "deny".into(),
            subject: "curl -H 'Authorization: Bearer Zm9vYmFyYmF6cXV4' x".into(),
            ..Spooled::default()
        };
        let v = log_record(&r);
        assert_eq!(v["timeUnixNano"], "1700000000123000000");
        assert_eq!(v["severityNumber"], 17);
        assert!(!v.to_string().contains("Zm9vYmFyYmF6cXV4"));
        let res = Resource {
            service_name: "sentinel".into(),
            version: "0".into(),
            host: "h".into(),
            user: "u".into(),
            extra: vec![],
        };
        let c = Counters {
            start_ms: 1,
            decisions: [("local/deny".to_string(), 3)].into(),
            dropped: 0,
        };
        let m = metrics_request(&res, &c, 2);
        let p = &m["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]["sum"]["dataPoints"][0];
        assert_eq!(p["asInt"], "3");
        assert_eq!(p["startTimeUnixNano"], "1000000");
    }
}
