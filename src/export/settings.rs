//! Where decisions are exported: the `[export]` table of `sentinel.toml` (the person's or the
//! organisation's) and the standard `OTEL_*` variables, resolved into one [`Target`].
//!
//! Precedence, highest first:
//! 1. **The organisation's `[export]`** (managed layer): the whole table is the export. Every
//!    `OTEL_*` variable and the person's table are ignored (each variable said once): a variable
//!    can be set by a project's agent settings, and a project must not move, silence or relabel
//!    the organisation's stream.
//! 2. **The person's `[export]`**: its keys win over the variables (`endpoint` over
//!    `OTEL_EXPORTER_OTLP_ENDPOINT`, …); `enabled = false` switches export off whatever the
//!    variables say.
//! 3. **The variables alone**, as every OpenTelemetry SDK reads them: an endpoint named by
//!    `OTEL_EXPORTER_OTLP_ENDPOINT` (or a signal's own) turns export on.
//!
//! `OTEL_SDK_DISABLED=true` and `OTEL_LOGS_EXPORTER=none` switch export off below the managed
//! layer. Only OTLP/HTTP with JSON is spoken (`OTEL_EXPORTER_OTLP_PROTOCOL` other than
//! `http/json` is a warning, see `doctor`).

/// Default spool bound, in records.
pub const DEFAULT_MAX_RECORDS: u64 = 10_000;
/// Default spool bound, in bytes.
pub const DEFAULT_MAX_BYTES: u64 = 8 * 1024 * 1024;
/// Default records per request.
pub const DEFAULT_BATCH: u64 = 500;
/// Default seconds between sends from a later hook.
pub const DEFAULT_INTERVAL_SECS: u64 = 30;
/// Default longest wait between retries.
pub const DEFAULT_MAX_BACKOFF_SECS: u64 = 300;
/// Default timeout of one request, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;

pub use crate::config::export::Table;

/// The export in effect.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Where log records go.
    pub logs_url: String,
    /// Where metrics go.
    pub metrics_url: Option<String>,
    /// Headers for the logs' requests.
    pub logs_headers: Vec<(String, String)>,
    /// Headers for the metrics' requests.
    pub metrics_headers: Vec<(String, String)>,
    /// `service.name`.
    pub service_name: String,
    /// More resource attributes, in order.
    pub resource: Vec<(String, String)>,
    /// The spool's bounds.
    pub max_records: u64,
    pub max_bytes: u64,
    /// Records per request.
    pub batch: u64,
    pub interval_secs: u64,
    pub max_backoff_secs: u64,
    pub timeout_secs: u64,
    /// Who named it: `managed PATH:LINE`, `sentinel.toml:LINE`, or the variable.
    pub named_by: String,
    /// Variables set aside, one line each (doctor shows them).
    pub ignored: Vec<String>,
}

/// The variables read, in the order they are said.
pub const VARS: [&str; 11] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_SERVICE_NAME",
    "OTEL_SDK_DISABLED",
    "OTEL_LOGS_EXPORTER",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
];

/// Whether export is on, and the spool's bounds: what the hook needs, without the strings
/// [`resolve`] builds (it is on exactly when [`resolve`] gives a target).
pub fn spooling(
    config: &crate::config::Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<super::spool::Bounds> {
    let table = config.export.as_ref();
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    let t = match table {
        Some(t) if crate::config::is_pinned(t) => {
            let t = &t.value;
            let on =
                t.enabled != Some(false) && (t.logs_endpoint.is_some() || t.endpoint.is_some());
            return on.then(|| bounds_of(t));
        }
        Some(t) => &t.value,
        None => &Table::default(),
    };
    // Off (the usual case) is told by two variables' absence: the switches are read after.
    let on = t.enabled != Some(false)
        && (t.logs_endpoint.is_some()
            || t.endpoint.is_some()
            || set("OTEL_EXPORTER_OTLP_ENDPOINT")
            || set("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"));
    let off = || {
        env("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            || env("OTEL_LOGS_EXPORTER").is_some_and(|v| v.trim() == "none")
    };
    (on && !off()).then(|| bounds_of(t))
}

fn bounds_of(t: &Table) -> super::spool::Bounds {
    super::spool::Bounds {
        records: t.max_records.unwrap_or(DEFAULT_MAX_RECORDS),
        bytes: t.max_bytes.unwrap_or(DEFAULT_MAX_BYTES),
    }
}

/// The export of `config` under the environment `env`; None when export is off (the usual
/// case: no table, no endpoint variable).
pub fn resolve(
    config: &crate::config::Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<Target> {
    let table = config.export.as_ref();
    let managed = table.is_some_and(crate::config::is_pinned);
    let get = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    if managed {
        let t = &table?.value;
        let ignored = VARS
            .iter()
            .filter(|v| get(v).is_some())
            .map(|v| {
                format!(
                    "{v} is ignored: the export is pinned by the organisation's policy ({})",
                    table.map(|t| t.source.to_string()).unwrap_or_default()
                )
            })
            .collect();
        return build(t, &|_| None, table?.source.to_string(), ignored);
    }
    if get("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || get("OTEL_LOGS_EXPORTER").is_some_and(|v| v.trim() == "none")
    {
        return None;
    }
    match table {
        Some(t) => build(&t.value, &get, t.source.to_string(), Vec::new()),
        None => build(&Table::default(), &get, String::new(), Vec::new()),
    }
}

/// The target from a table, with the variables `env` filling what it leaves unsaid.
fn build(
    t: &Table,
    env: &dyn Fn(&str) -> Option<String>,
    table_source: String,
    ignored: Vec<String>,
) -> Option<Target> {
    if t.enabled == Some(false) {
        return None;
    }
    let base = t
        .endpoint
        .clone()
        .map(|u| (u, table_source.clone()))
        .or_else(|| {
            env("OTEL_EXPORTER_OTLP_ENDPOINT")
                .map(|u| (u, "env OTEL_EXPORTER_OTLP_ENDPOINT".into()))
        });
    let signal = |own: &Option<String>, var: &str, path: &str| {
        own.clone()
            .map(|u| (u, table_source.clone()))
            .or_else(|| env(var).map(|u| (u, format!("env {var}"))))
            .or_else(|| {
                base.as_ref()
                    .map(|(u, by)| (format!("{}/{path}", u.trim_end_matches('/')), by.clone()))
            })
    };
    let (logs_url, named_by) = signal(
        &t.logs_endpoint,
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        "v1/logs",
    )?;
    let metrics_url = signal(
        &t.metrics_endpoint,
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        "v1/metrics",
    )
    .map(|(u, _)| u);
    let headers_of = |var: &str| -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = env("OTEL_EXPORTER_OTLP_HEADERS")
            .map(|v| pairs(&v))
            .unwrap_or_default();
        for (k, v) in env(var).map(|v| pairs(&v)).unwrap_or_default() {
            out.retain(|(o, _)| !o.eq_ignore_ascii_case(&k));
            out.push((k, v));
        }
        for (k, v) in &t.headers {
            out.retain(|(o, _)| !o.eq_ignore_ascii_case(k));
            out.push((k.clone(), v.clone()));
        }
        out
    };
    let mut resource: Vec<(String, String)> = env("OTEL_RESOURCE_ATTRIBUTES")
        .map(|v| pairs(&v))
        .unwrap_or_default();
    for (k, v) in &t.resource_attributes {
        resource.retain(|(o, _)| o != k);
        resource.push((k.clone(), v.clone()));
    }
    let service_name = t
        .service_name
        .clone()
        .or_else(|| env("OTEL_SERVICE_NAME"))
        .or_else(|| {
            resource
                .iter()
                .find(|(k, _)| k == "service.name")
                .map(|(_, v)| v.clone())
        })
        .unwrap_or_else(|| "sentinel".into());
    resource.retain(|(k, _)| k != "service.name");
    Some(Target {
        logs_headers: headers_of("OTEL_EXPORTER_OTLP_LOGS_HEADERS"),
        metrics_headers: headers_of("OTEL_EXPORTER_OTLP_METRICS_HEADERS"),
        logs_url,
        metrics_url,
        service_name,
        resource,
        max_records: t.max_records.unwrap_or(DEFAULT_MAX_RECORDS),
        max_bytes: t.max_bytes.unwrap_or(DEFAULT_MAX_BYTES),
        batch: t.batch.unwrap_or(DEFAULT_BATCH),
        interval_secs: t.interval_secs.unwrap_or(DEFAULT_INTERVAL_SECS),
        max_backoff_secs: t.max_backoff_secs.unwrap_or(DEFAULT_MAX_BACKOFF_SECS),
        timeout_secs: t.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS),
        named_by,
        ignored,
    })
}

/// `key1=value1,key2=value2` as the OpenTelemetry variables write lists (values
/// percent-decoded, pairs without `=` skipped).
pub fn pairs(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), percent_decoded(v.trim())))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

/// `%XX` decoded (a `+` stays a `+`: these are not form values).
fn percent_decoded(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Setting, Source};
    use std::path::Path;

    fn config(table: Option<(Table, Source)>) -> Config {
        let mut c = Config::from_parts(Path::new("/h"), Source::Default, None, &|_| None);
        c.export = table.map(|(value, source)| Setting { value, source });
        c
    }

    /// [`resolve`], checked against the hook's [`spooling`]: on and off together.
    fn resolve(c: &Config, env: &dyn Fn(&str) -> Option<String>) -> Option<Target> {
        let t = super::resolve(c, env);
        assert_eq!(t.is_some(), spooling(c, env).is_some(), "{t:?}");
        t
    }

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |n| {
            vars.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_variables_alone_name_the_endpoint_as_an_sdk_reads_them() {
        assert_eq!(resolve(&config(None), &env(&[])), None);
        let t = resolve(
            &config(None),
            &env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/"),
                ("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b,x=1"),
                ("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "X=2"),
                ("OTEL_RESOURCE_ATTRIBUTES", "team=infra,service.name=guard"),
            ]),
        )
        .unwrap();
        assert_eq!(t.logs_url, "http://c:4318/v1/logs");
        assert_eq!(t.metrics_url.as_deref(), Some("http://c:4318/v1/metrics"));
        assert_eq!(t.logs_headers[0], ("api-key".into(), "a b".into()));
        assert_eq!(t.metrics_headers.last().unwrap(), &("X".into(), "2".into()));
        assert_eq!(t.metrics_headers.len(), 2);
        assert_eq!(t.service_name, "guard");
        assert_eq!(t.resource, vec![("team".into(), "infra".into())]);
        // A signal's own variable is the full URL.
        let t = resolve(
            &config(None),
            &env(&[("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l/logs")]),
        )
        .unwrap();
        assert_eq!(
            (t.logs_url.as_str(), t.metrics_url),
            ("http://l/logs", None)
        );
        for off in [
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_LOGS_EXPORTER", "none"),
        ] {
            let vars: &'static [(&str, &str)] =
                Box::leak(Box::new([("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), off]));
            assert_eq!(resolve(&config(None), &env(vars)), None);
        }
    }

    #[test]
    fn the_persons_table_wins_over_the_variables_and_the_organisations_over_both() {
        let vars = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://project.example"),
            ("OTEL_SDK_DISABLED", "true"),
        ]);
        let person = Table {
            endpoint: Some("http://mine".into()),
            ..Table::default()
        };
        // OTEL_SDK_DISABLED is the person's own off switch too.
        assert_eq!(
            resolve(
                &config(Some((person.clone(), Source::File { line: 3 }))),
                &vars
            ),
            None
        );
        let vars = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://project.example")]);
        let t = resolve(&config(Some((person, Source::File { line: 3 }))), &vars).unwrap();
        assert_eq!(t.logs_url, "http://mine/v1/logs");
        let off = Table {
            enabled: Some(false),
            ..Table::default()
        };
        assert_eq!(
            resolve(&config(Some((off, Source::File { line: 1 }))), &vars),
            None
        );
        let org = Table {
            endpoint: Some("https://collector.corp".into()),
            ..Table::default()
        };
        let managed = Source::Managed {
            path: "/etc/sentinel/sentinel.toml".into(),
            line: 2,
        };
        let vars = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://project.example"),
            (
                "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
                "http://project.example/l",
            ),
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_RESOURCE_ATTRIBUTES", "host.name=spoofed"),
        ]);
        let t = resolve(&config(Some((org, managed))), &vars).unwrap();
        assert_eq!(t.logs_url, "https://collector.corp/v1/logs");
        assert!(t.resource.is_empty());
        assert_eq!(t.ignored.len(), 4);
        assert!(t.ignored[0].contains("pinned by the organisation"));
    }

    #[test]
    fn bad_values_are_named() {
        let t = Table {
            endpoint: Some("collector:4318".into()),
            ..Table::default()
        };
        assert!(t.check().unwrap_err().contains("[export] endpoint"));
        let t = Table {
            max_records: Some(0),
            ..Table::default()
        };
        assert!(t.check().unwrap_err().contains("max_records"));
    }
}
