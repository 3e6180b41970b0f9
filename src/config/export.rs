//! The `[export]` table of `sentinel.toml` as written (what it means: `crate::export::settings`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `[export]` table as written.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// false: no export; true or absent: export when an endpoint is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The collector's base URL (`/v1/logs` and `/v1/metrics` are appended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The logs' full URL (as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs_endpoint: Option<String>,
    /// The metrics' full URL (as `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_endpoint: Option<String>,
    /// Headers sent with every request (an API key for the collector).
    #[serde(default, skip_serializing)]
    pub headers: BTreeMap<String, String>,
    /// `service.name` of the resource [default: sentinel].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    /// More resource attributes (`deployment.environment = "corp"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_attributes: BTreeMap<String, String>,
    /// The spool's bound in records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_records: Option<u64>,
    /// The spool's bound in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// Records per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// Seconds between sends from a later hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_secs: Option<u64>,
    /// Longest wait between retries, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff_secs: Option<u64>,
    /// One request's timeout, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

impl Table {
    /// What is wrong with the table's values, if anything (a URL that is not http(s), a bound
    /// of 0).
    pub fn check(&self) -> Result<(), String> {
        for (key, url) in [
            ("endpoint", &self.endpoint),
            ("logs_endpoint", &self.logs_endpoint),
            ("metrics_endpoint", &self.metrics_endpoint),
        ] {
            if let Some(u) = url
                && let Err(why) = crate::config::check_url(u)
            {
                return Err(format!("[export] {key} `{u}` {why}"));
            }
        }
        for (key, v) in [
            ("max_records", self.max_records),
            ("max_bytes", self.max_bytes),
            ("batch", self.batch),
            ("timeout_secs", self.timeout_secs),
        ] {
            if v == Some(0) {
                return Err(format!("[export] {key} must be at least 1"));
            }
        }
        if self.max_bytes.is_some_and(|b| b < 4096) {
            return Err("[export] max_bytes must be at least 4096".into());
        }
        Ok(())
    }
}
