//! `sentinel report --otlp FILE…`: the team view, from the decisions many machines exported
//! (docs/teams.md), as a collector's file exporter writes them: one `ExportLogsServiceRequest`
//! in the OTLP JSON encoding per line (other lines, metrics among them, are skipped). Pure:
//! the lines in, one serializable value out.
//!
//! A record is counted once however many times it arrived (its `sentinel.record_id`: a batch
//! resent after a lost answer, or the same file given twice); a gap record (records a machine's
//! spool dropped at its bound) is counted as dropped, per host.

use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// How many rules each top list shows.
pub const TOP: usize = 10;

/// One host, user and project.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Row {
    pub host: String,
    pub user: String,
    pub project: String,
    /// Decisions.
    pub calls: u64,
    /// Per `tier/verdict`.
    pub by_tier_verdict: BTreeMap<String, u64>,
}

/// A rule that denied or asked, over the whole team.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TopRule {
    pub rule: String,
    pub count: u64,
    /// On how many hosts.
    pub hosts: usize,
}

/// The team view.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Team {
    /// Decisions, each counted once.
    pub decisions: u64,
    /// Records that arrived more than once (counted once).
    pub duplicates: u64,
    /// Records machines' spools dropped before sending (their gap records).
    pub dropped: u64,
    /// Lines that are not an OTLP logs request.
    pub skipped_lines: u64,
    pub hosts: usize,
    pub users: usize,
    pub projects: usize,
    /// First and last decision, ms since the epoch.
    pub from_ms: Option<u64>,
    pub to_ms: Option<u64>,
    /// Totals per `tier/verdict`.
    pub by_tier_verdict: BTreeMap<String, u64>,
    /// Per host, user and project, most calls first.
    pub rows: Vec<Row>,
    pub top_denied: Vec<TopRule>,
    pub top_asked: Vec<TopRule>,
}

/// An AnyValue as text (a string, or an integer written either way).
fn text(v: &Value) -> Option<String> {
    if let Some(s) = v.get("stringValue").and_then(Value::as_str) {
        return Some(s.to_string());
    }
    match v.get("intValue")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn attributes(v: &Value) -> BTreeMap<String, &Value> {
    v.get("attributes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|kv| Some((kv.get("key")?.as_str()?.to_string(), kv.get("value")?)))
                .collect()
        })
        .unwrap_or_default()
}

fn int(v: &Value) -> u64 {
    text(v).and_then(|t| t.parse().ok()).unwrap_or(0)
}

/// Builds the team view from the lines of the files, decisions at or after `since_ms`.
pub fn build<S: AsRef<str>>(lines: impl IntoIterator<Item = S>, since_ms: u64) -> Team {
    let mut team = Team::default();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut rows: BTreeMap<(String, String, String), Row> = BTreeMap::new();
    let mut denied: BTreeMap<String, (u64, BTreeSet<String>)> = BTreeMap::new();
    let mut asked: BTreeMap<String, (u64, BTreeSet<String>)> = BTreeMap::new();
    for line in lines {
        let line = line.as_ref();
        if line.trim().is_empty() {
            continue;
        }
        let Some(request) = serde_json::from_str::<Value>(line)
            .ok()
            .filter(|v| v.get("resourceLogs").is_some())
        else {
            team.skipped_lines += 1;
            continue;
        };
        for rl in request["resourceLogs"].as_array().into_iter().flatten() {
            let resource = attributes(&rl["resource"]);
            let of = |k: &str| {
                resource
                    .get(k)
                    .and_then(|v| text(v))
                    .unwrap_or_else(|| "?".into())
            };
            let (host, user) = (of("host.name"), of("user.name"));
            for sl in rl["scopeLogs"].as_array().into_iter().flatten() {
                for r in sl["logRecords"].as_array().into_iter().flatten() {
                    let a = attributes(r);
                    let get = |k: &str| a.get(k).and_then(|v| text(v)).unwrap_or_default();
                    let event = get("event.name");
                    if !event.starts_with("sentinel.") {
                        continue;
                    }
                    let id = get("sentinel.record_id");
                    if !id.is_empty() && !seen.insert(format!("{host}\0{id}")) {
                        team.duplicates += 1;
                        continue;
                    }
                    if event == crate::export::otlp::GAP_EVENT {
                        team.dropped +=
                            a.get("sentinel.dropped_count").map(|v| int(v)).unwrap_or(0);
                        continue;
                    }
                    let ts_ms = r
                        .get("timeUnixNano")
                        .and_then(|t| match t {
                            Value::String(s) => s.parse::<u128>().ok(),
                            Value::Number(n) => n.as_u64().map(u128::from),
                            _ => None,
                        })
                        .map(|ns| (ns / 1_000_000) as u64)
                        .unwrap_or(0);
                    if ts_ms < since_ms {
                        continue;
                    }
                    team.from_ms = Some(team.from_ms.map_or(ts_ms, |f| f.min(ts_ms)));
                    team.to_ms = Some(team.to_ms.map_or(ts_ms, |t| t.max(ts_ms)));
                    let key = format!("{}/{}", get("sentinel.tier"), get("sentinel.verdict"));
                    let project = get("sentinel.project");
                    let row = rows
                        .entry((host.clone(), user.clone(), project.clone()))
                        .or_insert_with(|| Row {
                            host: host.clone(),
                            user: user.clone(),
                            project,
                            ..Row::default()
                        });
                    row.calls += 1;
                    *row.by_tier_verdict.entry(key.clone()).or_default() += 1;
                    team.decisions += 1;
                    *team.by_tier_verdict.entry(key).or_default() += 1;
                    let rule = get("sentinel.rule");
                    let list = match get("sentinel.verdict").as_str() {
                        "deny" => Some(&mut denied),
                        "ask" => Some(&mut asked),
                        _ => None,
                    };
                    if let Some(list) = list {
                        let rule = if rule.is_empty() {
                            format!("({} without a rule)", get("sentinel.tier"))
                        } else {
                            rule
                        };
                        let e = list.entry(rule).or_default();
                        e.0 += 1;
                        e.1.insert(host.clone());
                    }
                }
            }
        }
    }
    let mut rows: Vec<Row> = rows.into_values().collect();
    rows.sort_by(|a, b| {
        b.calls
            .cmp(&a.calls)
            .then_with(|| (&a.host, &a.user, &a.project).cmp(&(&b.host, &b.user, &b.project)))
    });
    team.hosts = rows.iter().map(|r| &r.host).collect::<BTreeSet<_>>().len();
    team.users = rows
        .iter()
        .map(|r| (&r.host, &r.user))
        .map(|(_, u)| u)
        .collect::<BTreeSet<_>>()
        .len();
    team.projects = rows
        .iter()
        .map(|r| (&r.host, &r.project))
        .collect::<BTreeSet<_>>()
        .len();
    team.rows = rows;
    team.top_denied = top(denied);
    team.top_asked = top(asked);
    team
}

fn top(counts: BTreeMap<String, (u64, BTreeSet<String>)>) -> Vec<TopRule> {
    let mut out: Vec<TopRule> = counts
        .into_iter()
        .map(|(rule, (count, hosts))| TopRule {
            rule,
            count,
            hosts: hosts.len(),
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.rule.cmp(&b.rule)));
    out.truncate(TOP);
    out
}

/// The team view as text: a summary line, a table per host, user and project, the top rules.
pub fn render(t: &Team) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let span = match (t.from_ms, t.to_ms) {
        (Some(f), Some(l)) => format!(" from {} to {}", crate::clock::utc(f), crate::clock::utc(l)),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "team view: {} decisions on {} host(s), {} user(s), {} project(s){span}",
        t.decisions, t.hosts, t.users, t.projects
    );
    if t.duplicates + t.dropped + t.skipped_lines > 0 {
        let _ = writeln!(
            out,
            "  {} record(s) arrived twice (counted once); {} dropped by a full spool before sending; {} line(s) not OTLP logs",
            t.duplicates, t.dropped, t.skipped_lines
        );
    }
    let keys: Vec<&String> = t.by_tier_verdict.keys().collect();
    let project_width = t
        .rows
        .iter()
        .map(|r| r.project.chars().count())
        .max()
        .unwrap_or(7)
        .clamp(7, 40);
    let _ = write!(
        out,
        "\n{:<16} {:<12} {:<pw$} {:>6}",
        "host",
        "user",
        "project",
        "calls",
        pw = project_width
    );
    for k in &keys {
        let _ = write!(out, " {:>12}", k);
    }
    out.push('\n');
    for r in &t.rows {
        let project = crate::text::excerpt_to(&r.project, project_width);
        let _ = write!(
            out,
            "{:<16} {:<12} {:<pw$} {:>6}",
            crate::text::excerpt_to(&r.host, 16),
            crate::text::excerpt_to(&r.user, 12),
            project,
            r.calls,
            pw = project_width
        );
        for k in &keys {
            let _ = write!(
                out,
                " {:>12}",
                r.by_tier_verdict.get(*k).copied().unwrap_or(0)
            );
        }
        out.push('\n');
    }
    for (title, list) in [("denied", &t.top_denied), ("asked", &t.top_asked)] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\ntop rules that {title}:");
        for r in list {
            let _ = writeln!(out, "  {:>6}  {}  ({} host(s))", r.count, r.rule, r.hosts);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::otlp::{Resource, logs_request};
    use crate::export::spool::Spooled;

    fn request(host: &str, records: &[Spooled]) -> String {
        let res = Resource {
            service_name: "sentinel".into(),
            version: "0".into(),
            host: host.into(),
            user: "dev".into(),
            extra: vec![],
        };
        let refs: Vec<&Spooled> = records.iter().collect();
        logs_request(&res, &refs).to_string()
    }

    fn rec(id: &str, verdict: &str, rule: Option<&str>, project: &str) -> Spooled {
        Spooled {
            id: id.into(),
            ts_ms: 1_700_000_000_000,
            tier: "local".into(),
            verdict: verdict.into(),
            rule: rule.map(String::from),
            project: project.into(),
            subject: "x".into(),
            ..Spooled::default()
        }
    }

    #[test]
    fn many_machines_make_one_view_each_record_once() {
        let a = request(
            "laptop-a",
            &[
                rec("1", "deny", Some("hard_block_commands.txt:10"), "/p/web"),
                rec("2", "ask", Some("commands/curl.toml:3"), "/p/web"),
                rec("3", "allow", None, "/p/api"),
            ],
        );
        let b = request(
            "laptop-b",
            &[rec(
                "1",
                "deny",
                Some("hard_block_commands.txt:10"),
                "/p/web",
            )],
        );
        let gap = Spooled {
            id: "g".into(),
            dropped: 4,
            ..Spooled::default()
        };
        let lines = [
            a.as_str(),
            a.as_str(),
            b.as_str(),
            &request("laptop-b", &[gap]),
            "{\"resourceMetrics\":[]}",
        ];
        let t = build(lines, 0);
        assert_eq!(
            (t.decisions, t.duplicates, t.dropped, t.skipped_lines),
            (4, 3, 4, 1)
        );
        assert_eq!((t.hosts, t.projects), (2, 3));
        assert_eq!(
            t.top_denied[0],
            TopRule {
                rule: "hard_block_commands.txt:10".into(),
                count: 2,
                hosts: 2
            }
        );
        assert_eq!(t.by_tier_verdict["local/deny"], 2);
        let text = render(&t);
        assert!(text.contains("4 decisions on 2 host(s)"), "{text}");
        assert!(text.contains("laptop-a"));
    }
}
