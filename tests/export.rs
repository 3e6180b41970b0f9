//! The export (docs/teams.md) against a real OTLP receiver: `tests/otlp/receiver.py`, built on
//! the official protocol definitions (`opentelemetry-proto` from PyPI), which parses every
//! request into ExportLogsServiceRequest / ExportMetricsServiceRequest and refuses a body that
//! does not parse. The hooks run as the agent runs them (the built binary, one process per
//! event), in sessions, with commands carrying credentials from tests/corpus/credentials.jsonl.
//!
//! The receiver needs python3 with opentelemetry-proto: `SENTINEL_OTLP_PYTHON` names the
//! interpreter (.ci/run makes a venv and sets it), else `python3` is tried. Without one these
//! tests say so and pass, unless `SENTINEL_REQUIRE_OTLP=1` (CI), where they fail.
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn python() -> Option<String> {
    let candidates = std::env::var("SENTINEL_OTLP_PYTHON")
        .ok()
        .into_iter()
        .chain(["python3".to_string()]);
    for p in candidates {
        let ok = Command::new(&p)
            .args(["-c", "import opentelemetry.proto.collector.logs.v1.logs_service_pb2, google.protobuf.json_format"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(p);
        }
    }
    let required = std::env::var("SENTINEL_REQUIRE_OTLP").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "SENTINEL_REQUIRE_OTLP=1 but no python3 with opentelemetry-proto (set SENTINEL_OTLP_PYTHON)"
    );
    eprintln!(
        "export tests skipped: no python3 with opentelemetry-proto (pip install opentelemetry-proto, or set SENTINEL_OTLP_PYTHON)"
    );
    None
}

/// The receiver: a python process on 127.0.0.1, stopped (refusing) and started again on the
/// same port; what it took is in its folder.
struct Receiver {
    python: String,
    dir: PathBuf,
    port: u16,
    child: Option<Child>,
}

impl Receiver {
    fn start(python: &str, dir: &Path) -> Receiver {
        std::fs::create_dir_all(dir).unwrap();
        let mut r = Receiver {
            python: python.to_string(),
            dir: dir.to_path_buf(),
            port: 0,
            child: None,
        };
        r.up();
        r
    }

    fn up(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/otlp/receiver.py");
        let mut child = Command::new(&self.python)
            .args([script, &self.port.to_string(), self.dir.to_str().unwrap()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        self.port = line.trim().parse().expect("the receiver's port");
        self.child = Some(child);
    }

    fn down(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn mode(&self, mode: &str) {
        std::fs::write(self.dir.join("mode"), mode).unwrap();
    }

    fn lines(&self, name: &str) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join(name))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn logs(&self) -> Vec<Value> {
        self.lines("logs.jsonl")
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.down();
    }
}

struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    /// Variables every hook gets.
    env: Vec<(String, String)>,
}

impl Machine {
    fn new(endpoint: &str, extra: &str) -> Machine {
        let dir = tempfile::Builder::new()
            .prefix("export-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            home.join("sentinel.toml"),
            format!(
                "[export]\nendpoint = \"{endpoint}\"\ninterval_secs = 1\nmax_backoff_secs = 1\nbatch = 100\n{extra}"
            ),
        )
        .unwrap();
        Machine {
            _dir: dir,
            home,
            project,
            env: Vec::new(),
        }
    }

    /// One PreToolUse of `command` in `session`: the verdict the agent got.
    fn call(&self, session: &str, command: &str) -> String {
        let event = json!({"hook_event_name": "PreToolUse", "session_id": session,
            "cwd": self.project,
            "tool_name": "Bash", "tool_input": {"command": command}});
        let out = common::feed(
            {
                let mut c = common::sentinel(&self.home);
                c.arg("hook").envs(self.env.clone());
                c
            },
            event.to_string().as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("export"), "{stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stdout.trim().is_empty() {
            return "defer".into();
        }
        let v: Value = serde_json::from_str(stdout.trim()).unwrap();
        v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn session_end(&self, session: &str) {
        let event = json!({"hook_event_name": "SessionEnd", "session_id": session,
            "cwd": self.project, "reason": "exit"});
        let mut c = common::sentinel(&self.home);
        c.arg("hook").envs(self.env.clone());
        let out = common::feed(c, event.to_string().as_bytes());
        assert!(matches!(out.status.code(), Some(0 | 2)));
    }

    /// The spool's record count (its lock line).
    fn spooled(&self) -> u64 {
        std::fs::read_to_string(self.home.join("export/spool.lock"))
            .ok()
            .and_then(|t| t.split(' ').next()?.parse().ok())
            .unwrap_or(0)
    }

    /// SessionEnds until the spool is empty and the receiver holds `want` log lines (a bound
    /// on the rounds, not a time limit: each round waits for a sender's backoff at most).
    fn flush(&self, receiver: &Receiver, want: usize) {
        for _ in 0..400 {
            if self.spooled() == 0 && receiver.logs().len() >= want {
                return;
            }
            self.session_end("flush");
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "the spool did not empty: {} left, {} received",
            self.spooled(),
            receiver.logs().len()
        );
    }
}

fn corpus() -> Vec<(String, String)> {
    include_str!("corpus/credentials.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["command"].as_str().unwrap().to_string(),
                v["secret"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The i-th call's command: a plain allow, a deny or an ask, or a corpus command carrying a
/// credential.
fn command(i: usize, corpus: &[(String, String)]) -> String {
    match i % 5 {
        0 => format!("git log -n {i}"),
        1 => "rm -rf ~".to_string(),
        2 => format!("frobnicate --n {i}"),
        _ => corpus[i % corpus.len()].0.clone(),
    }
}

fn attr<'a>(record: &'a Value, key: &str) -> &'a Value {
    &record["attributes"][key]
}

/// The last metrics the receiver took: decisions per tier/verdict, and dropped.
fn last_metrics(receiver: &Receiver) -> (BTreeMap<String, i64>, i64) {
    let Some(last) = receiver.lines("metrics.jsonl").pop() else {
        return (BTreeMap::new(), 0);
    };
    let mut decisions = BTreeMap::new();
    let mut dropped = 0;
    for p in last["points"].as_array().unwrap() {
        let n = p["value"].as_i64().unwrap();
        match p["name"].as_str().unwrap() {
            "sentinel.decisions" => {
                let a = &p["attributes"];
                decisions.insert(
                    format!(
                        "{}/{}",
                        a["sentinel.tier"].as_str().unwrap(),
                        a["sentinel.verdict"].as_str().unwrap()
                    ),
                    n,
                );
            }
            _ => dropped = n,
        }
    }
    (decisions, dropped)
}

#[test]
fn a_thousand_calls_arrive_once_in_order_per_session_with_no_secret() {
    let Some(python) = python() else { return };
    let scratch = tempfile::Builder::new()
        .prefix("receiver-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let receiver = Receiver::start(&python, scratch.path());
    let m = Machine::new(&receiver.endpoint(), "");
    let corpus = corpus();
    let sessions = ["s-alpha", "s-beta", "s-gamma", "s-delta"];
    let mut sent: Vec<(String, String, String)> = Vec::new();
    for i in 0..1000 {
        let session = sessions[(i / 7) % sessions.len()];
        let cmd = command(i, &corpus);
        let verdict = m.call(session, &cmd);
        sent.push((session.to_string(), cmd, verdict));
        if i % 250 == 249 {
            m.session_end(session);
        }
    }
    m.flush(&receiver, 1000);
    let logs = receiver.logs();
    assert!(
        receiver.lines("errors.jsonl").is_empty(),
        "{:?}",
        receiver.lines("errors.jsonl")
    );
    // Exactly once: 1000 records, 1000 ids, seqs 1..=1000.
    assert_eq!(logs.len(), 1000);
    let ids: BTreeSet<&str> = logs
        .iter()
        .map(|r| attr(r, "sentinel.record_id").as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1000);
    let seqs: BTreeSet<i64> = logs
        .iter()
        .map(|r| attr(r, "sentinel.seq").as_i64().unwrap())
        .collect();
    assert_eq!(seqs, (1..=1000).collect());
    // In order per session, and each record is the call made: session, verdict, command.
    let mut last: BTreeMap<&str, i64> = BTreeMap::new();
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    for r in &logs {
        let seq = attr(r, "sentinel.seq").as_i64().unwrap();
        let (session, cmd, verdict) = &sent[seq as usize - 1];
        let s = attr(r, "session.id").as_str().unwrap();
        assert_eq!(s, session);
        assert!(
            last.get(s).is_none_or(|&l| l < seq),
            "{s}: {seq} after {:?}",
            last.get(s)
        );
        last.insert(s, seq);
        assert_eq!(attr(r, "sentinel.verdict"), verdict.as_str());
        let shown = attr(r, "sentinel.command").as_str().unwrap();
        if !cmd.contains('\n') && !corpus.iter().any(|(c, _)| c == cmd) {
            assert_eq!(shown, cmd);
        }
        assert_eq!(r["resource"]["service.name"], "sentinel");
        assert!(
            r["resource"]["host.name"]
                .as_str()
                .is_some_and(|h| !h.is_empty())
        );
        assert_eq!(attr(r, "sentinel.project"), m.project.to_str().unwrap());
        *verdicts.entry(verdict.clone()).or_default() += 1;
    }
    assert!(
        ["allow", "deny", "ask"]
            .iter()
            .all(|v| verdicts.get(*v).is_some_and(|n| *n >= 100)),
        "{verdicts:?}"
    );
    // No secret in any field the collector received, and what carried one says it was taken out.
    let everything = std::fs::read_to_string(scratch.path().join("logs.jsonl")).unwrap();
    for (cmd, secret) in &corpus {
        assert!(
            !everything.contains(secret.as_str()),
            "{secret} of `{cmd}` reached the collector"
        );
    }
    assert!(everything.contains("[REDACTED]"));
    // The counters: cumulative sums that add up to the records.
    let mut want: BTreeMap<String, i64> = BTreeMap::new();
    for r in &logs {
        *want
            .entry(format!(
                "{}/{}",
                attr(r, "sentinel.tier").as_str().unwrap(),
                attr(r, "sentinel.verdict").as_str().unwrap()
            ))
            .or_default() += 1;
    }
    for _ in 0..100 {
        if last_metrics(&receiver).0 == want {
            break;
        }
        m.session_end("flush");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(last_metrics(&receiver), (want, 0));
    // The team view reads what the collector wrote: the same decisions, once each.
    let out = common::run(
        &m.home,
        &[
            "report",
            "--json",
            "--otlp",
            scratch.path().join("requests.jsonl").to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let team: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(team["decisions"], 1000);
    assert_eq!(team["rows"].as_array().unwrap().len(), 1);
    assert_eq!(team["rows"][0]["project"], m.project.to_str().unwrap());
    let denied = team["by_tier_verdict"]["local/deny"].as_u64().unwrap();
    assert_eq!(
        denied as usize,
        sent.iter().filter(|s| s.2 == "deny").count()
    );
    assert!(
        team["top_denied"][0]["rule"]
            .as_str()
            .unwrap()
            .contains("hard_block_commands.txt")
    );
}

#[test]
fn a_receiver_down_loses_nothing_within_the_bound_and_counts_what_it_dropped() {
    let Some(python) = python() else { return };
    let scratch = tempfile::Builder::new()
        .prefix("receiver-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let mut receiver = Receiver::start(&python, scratch.path());
    let m = Machine::new(&receiver.endpoint(), "max_records = 200\n");
    let corpus = corpus();
    let mut made = 0usize;
    let mut call = |m: &Machine, n: usize| {
        for _ in 0..n {
            let session = ["down-1", "down-2"][made % 2];
            m.call(session, &command(made, &corpus));
            made += 1;
        }
    };
    // Down (refusing), then answering 500, then taking requests but losing the answers.
    receiver.down();
    call(&m, 120);
    m.session_end("down-1");
    receiver.up();
    receiver.mode("500");
    call(&m, 40);
    m.session_end("down-2");
    assert!(receiver.logs().is_empty());
    let status: Value =
        serde_json::from_str(&std::fs::read_to_string(m.home.join("export/status.json")).unwrap())
            .unwrap();
    assert!(status["failures"].as_u64().unwrap() >= 1, "{status}");
    receiver.mode("lost");
    for _ in 0..20 {
        if !receiver.logs().is_empty() {
            break;
        }
        m.session_end("flush");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(!receiver.logs().is_empty(), "a lost answer was never sent");
    receiver.mode("ok");
    m.flush(&receiver, 160);
    // Nothing lost: every one of the 160 decisions, in order; a batch whose answer was lost
    // came again with the same ids (exactly once for a receiver that drops ids it has).
    let logs = receiver.logs();
    let mut seen: BTreeMap<String, Value> = BTreeMap::new();
    let mut order = Vec::new();
    for r in &logs {
        let id = attr(r, "sentinel.record_id").as_str().unwrap().to_string();
        match seen.get(&id) {
            Some(first) => assert_eq!(first, r, "a resent record differs"),
            None => {
                order.push(attr(r, "sentinel.seq").as_i64().unwrap());
                seen.insert(id, r.clone());
            }
        }
    }
    assert!(
        logs.len() > order.len(),
        "no batch was resent after its lost answer"
    );
    assert_eq!(order, (1..=160).collect::<Vec<i64>>());
    // Down again for more than the bound holds: the oldest are dropped, and counted.
    receiver.down();
    call(&m, 350);
    receiver.up();
    receiver.mode("ok");
    let before = receiver.logs().len();
    m.flush(&receiver, before + 1);
    let after: Vec<Value> = receiver.logs().split_off(before);
    assert!(
        receiver.lines("errors.jsonl").is_empty(),
        "{:?}",
        receiver.lines("errors.jsonl")
    );
    let gaps: Vec<&Value> = after
        .iter()
        .filter(|r| attr(r, "event.name") == "sentinel.export.dropped")
        .collect();
    assert_eq!(gaps.len(), 1, "one gap where the oldest were dropped");
    let dropped = attr(gaps[0], "sentinel.dropped_count").as_i64().unwrap();
    let by_kind: i64 = attr(gaps[0], "sentinel.dropped_by_tier_verdict")
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .sum();
    assert_eq!(by_kind, dropped);
    let decisions: Vec<i64> = after
        .iter()
        .filter(|r| attr(r, "event.name") == "sentinel.decision")
        .map(|r| attr(r, "sentinel.seq").as_i64().unwrap())
        .collect();
    // What was kept is the newest, in order, and kept + dropped is every decision made.
    assert!(decisions.len() <= 200);
    assert_eq!(decisions.len() as i64 + dropped, 350);
    assert_eq!(decisions, (161 + dropped..=510).collect::<Vec<i64>>());
    assert!(
        gaps[0] == &after[0],
        "the gap comes first, where the records were"
    );
    // The counters count every decision, the dropped ones too, and the drop itself.
    for _ in 0..100 {
        let (d, x) = last_metrics(&receiver);
        if d.values().sum::<i64>() == 510 && x == dropped {
            break;
        }
        m.session_end("flush");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (d, x) = last_metrics(&receiver);
    assert_eq!((d.values().sum::<i64>(), x), (510, dropped));
}

#[test]
fn the_organisations_export_is_not_moved_by_the_person_or_a_variable() {
    let Some(python) = python() else { return };
    // SAFETY: geteuid has no failure.
    if unsafe { libc::geteuid() } != 0 || Path::new("/etc/sentinel").exists() {
        eprintln!("skipped: a test policy folder must be root's, and /etc/sentinel must not exist");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let scratch = tempfile::Builder::new()
        .prefix("receiver-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let receiver = Receiver::start(&python, scratch.path());
    // The person exports elsewhere, and so does every variable a project could set.
    let mut m = Machine::new(
        "http://127.0.0.1:9",
        "[env]\ntrust = [\"SENTINEL_MANAGED_DIR\"]\n",
    );
    let policy = m.home.parent().unwrap().join("policy");
    std::fs::create_dir_all(&policy).unwrap();
    for d in [m.home.parent().unwrap(), policy.as_path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let file = policy.join("sentinel.toml");
    std::fs::write(
        &file,
        format!(
            "[export]\nendpoint = \"{}\"\ninterval_secs = 1\nmax_backoff_secs = 1\n",
            receiver.endpoint()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    m.env = [
        ("SENTINEL_MANAGED_DIR", policy.to_str().unwrap()),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
        (
            "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
            "http://127.0.0.1:9/v1/logs",
        ),
        ("OTEL_SDK_DISABLED", "true"),
        ("OTEL_RESOURCE_ATTRIBUTES", "host.name=spoofed"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for i in 0..5 {
        m.call("org", &format!("git log -n {i}"));
    }
    m.flush(&receiver, 5);
    let logs = receiver.logs();
    assert_eq!(logs.len(), 5);
    assert!(logs.iter().all(|r| r["resource"]["host.name"] != "spoofed"));
    let mut doctor = common::sentinel(&m.home);
    doctor.arg("doctor").envs(m.env.clone());
    let out = common::feed(doctor, b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("decisions go to {}/v1/logs", receiver.endpoint())),
        "{text}"
    );
    assert!(text.contains("OTEL_EXPORTER_OTLP_ENDPOINT is ignored: the export is pinned by the organisation's policy"), "{text}");
}

#[test]
fn an_unusable_spool_changes_no_decision_and_is_said() {
    // No receiver needed: nothing is sent.
    let m = Machine::new("http://127.0.0.1:9", "");
    let elsewhere = m.home.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, m.home.join("export")).unwrap();
    for (command, verdict) in [("git status", "allow"), ("rm -rf ~", "deny")] {
        let event = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": m.project,
            "tool_name": "Bash", "tool_input": {"command": command}});
        let mut c = common::sentinel(&m.home);
        c.arg("hook");
        let out = common::feed(c, event.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], verdict);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("export spool not written"), "{stderr}");
    }
    // Nothing went through the link; the audit records say what was not kept.
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    let audit = std::fs::read_to_string(m.home.join("audit.jsonl")).unwrap();
    assert_eq!(audit.matches("export spool not written").count(), 2);
    let out = common::run(&m.home, &["doctor"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("FAIL  export") && l.contains("the spool cannot be used")),
        "{text}"
    );
}
