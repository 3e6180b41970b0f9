//! Stats and audit under load and damage: many hook processes at once, torn and garbage lines,
//! an unwritable home, rotation; and `sentinel stats` / `sentinel audit` on the results.

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

use serde_json::Value;
mod common;

use common::{run, spawn};
use std::io::Write;
use std::process::{Child, Output};

fn event(session: &str, command: &str) -> String {
    serde_json::json!({"hook_event_name": "PreToolUse", "session_id": session, "cwd": "/home/dev/demo/proj",
                       "tool_name": "Bash", "tool_input": {"command": command}})
    .to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

#[test]
fn sixty_four_hooks_at_once_lose_nothing() {
    let home = tempfile::tempdir().unwrap();
    let commands = ["git status", "rm -rf ~", "frobnicate x", "cargo test"];
    let children: Vec<Child> = (0..64)
        .map(|i| spawn(home.path(), &["hook"], &event("par", commands[i % 4])))
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let stats = common::lines(&home.path().join("stats.jsonl"));
    assert_eq!(stats.len(), 64);
    assert!(
        stats
            .iter()
            .all(|l| serde_json::from_str::<Value>(l).is_ok()),
        "every line whole"
    );
    let verify = run(home.path(), &["audit", "verify"], "");
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
    assert_eq!(
        stdout(&verify).trim(),
        "intact: 64 records in 1 file(s), chain and head agree"
    );
    let s = run(home.path(), &["stats", "--session", "par", "--json"], "");
    let v: Value = serde_json::from_slice(&s.stdout).unwrap();
    assert_eq!(v["summary"]["checks"], 64);
    assert_eq!(v["summary"]["local_allow"], 32);
    assert_eq!(v["summary"]["local_block"], 16);
    assert_eq!(v["summary"]["uncertain"], 16);
}

#[test]
fn damaged_files_are_survived_reported_once_and_lose_no_new_record() {
    let home = tempfile::tempdir().unwrap();
    for _ in 0..3 {
        run(home.path(), &["hook"], &event("d", "ls"));
    }
    // A torn last line (a crash mid-write) and garbage in the middle.
    let stats = home.path().join("stats.jsonl");
    let mut text = std::fs::read_to_string(&stats).unwrap();
    text.insert_str(text.find('\n').unwrap() + 1, "garbage in the middle\n");
    text.push_str("{\"ts_ms\":17,\"sess");
    std::fs::write(&stats, text).unwrap();
    let audit = home.path().join("audit.jsonl");
    let mut a = std::fs::OpenOptions::new()
        .append(true)
        .open(&audit)
        .unwrap();
    a.write_all(b"{\"seq\":4,\"prev").unwrap();

    let first = run(home.path(), &["hook"], &event("d", "git status"));
    assert_eq!(first.status.code(), Some(0));
    assert!(
        stdout(&first).contains("\"allow\""),
        "the decision is given: {}",
        stdout(&first)
    );
    let warning = String::from_utf8_lossy(&first.stderr).to_string();
    assert_eq!(warning.lines().count(), 1, "one warning: {warning}");
    assert!(warning.contains("torn line"), "{warning}");
    let second = run(home.path(), &["hook"], &event("d", "git status"));
    assert!(
        second.stderr.is_empty(),
        "reported once: {}",
        String::from_utf8_lossy(&second.stderr)
    );

    let s = run(home.path(), &["stats", "--session", "d", "--json"], "");
    let v: Value = serde_json::from_slice(&s.stdout).unwrap();
    assert_eq!(v["summary"]["checks"], 5, "3 before, 2 after, none lost");
    let err = String::from_utf8_lossy(&s.stderr);
    assert!(err.contains("2 damaged stats line(s) skipped"), "{err}");
    // The audit log says it was damaged, and where.
    let verify = run(home.path(), &["audit", "verify"], "");
    assert_eq!(verify.status.code(), Some(1));
    assert!(
        stdout(&verify).contains("audit.jsonl:4: the record after seq 3"),
        "{}",
        stdout(&verify)
    );
}

#[test]
fn an_unwritable_home_still_gets_its_decision_and_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    // A home that cannot be created: its parent is a file.
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let home = dir.path().join("file/agentos");
    for (command, verdict) in [("ls", "allow"), ("rm -rf ~", "deny")] {
        let out = run(&home, &["hook"], &event("ro", command));
        assert_eq!(out.status.code(), Some(0));
        assert!(
            stdout(&out).contains(&format!("\"{verdict}\"")),
            "{}",
            stdout(&out)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("sentinel: warning: ") && err.contains("not recorded"),
            "{err}"
        );
    }
    // A read-only directory (skipped as root, who may write anywhere).
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    std::fs::set_permissions(&ro, perms).unwrap();
    if std::fs::write(ro.join("probe"), "x").is_err() {
        let out = run(&ro, &["hook"], &event("ro", "git push --force"));
        assert!(stdout(&out).contains("\"deny\""));
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
}

#[test]
fn rotation_keeps_every_record_and_the_chain() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("sentinel.toml"),
        "[logs]\nmax_file_bytes = 4096\n",
    )
    .unwrap();
    for i in 0..40 {
        let out = run(
            home.path(),
            &["hook"],
            &event(&format!("r{}", i % 2), "git status"),
        );
        assert_eq!(out.status.code(), Some(0));
    }
    let rotated = std::fs::read_dir(home.path())
        .unwrap()
        .filter(|e| {
            let n = e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .to_string();
            n.starts_with("audit.") && n.ends_with(".jsonl") && n != "audit.jsonl"
        })
        .count();
    assert!(rotated >= 2, "{rotated} rotated audit files");
    let verify = run(home.path(), &["audit", "verify"], "");
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
    assert!(stdout(&verify).starts_with("intact: 40 records in"));
    let s = run(home.path(), &["stats", "--all", "--json"], "");
    let v: Value = serde_json::from_slice(&s.stdout).unwrap();
    assert_eq!(v["summary"]["checks"], 40);
    assert_eq!(v["scope"], "all sessions (2)");
    // Another session fills whole files, then r0 goes on: its summary still counts every check.
    for _ in 0..24 {
        run(home.path(), &["hook"], &event("busy", "git status"));
    }
    for _ in 0..2 {
        run(home.path(), &["hook"], &event("r0", "git status"));
    }
    // A session summary across the rotation.
    let end = run(
        home.path(),
        &["hook"],
        r#"{"hook_event_name":"SessionEnd","session_id":"r0","reason":"other"}"#,
    );
    assert_eq!(end.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&end.stderr)
            .starts_with("sentinel: 22 checks — local 22 (allow 22, block 0)"),
        "{}",
        String::from_utf8_lossy(&end.stderr)
    );
    // Kept as `sessions/r0-KEY.txt` (the id, then what tells it from another project's r0).
    let kept: Vec<std::path::PathBuf> = std::fs::read_dir(home.path().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        kept[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("r0-")
    );
    assert_eq!(
        std::fs::read_to_string(&kept[0]).unwrap().trim(),
        String::from_utf8_lossy(&end.stderr).lines().next().unwrap()
    );
}

#[test]
fn stats_and_audit_read_back_what_was_decided() {
    let home = tempfile::tempdir().unwrap();
    for c in [
        "git status",
        "cargo test",
        "rm -rf ~",
        "frobnicate install",
        "frobnicate install",
        "frobnicate x.py",
    ] {
        run(home.path(), &["hook"], &event("s1", c));
    }
    run(
        home.path(),
        &["hook", "--shadow"],
        &event("s2", "git push --force"),
    );
    let out = run(home.path(), &["stats", "--session", "s1"], "");
    let text = stdout(&out);
    assert!(text.contains("sentinel: 6 checks — local 3 (allow 2, block 1) · api 0 (allow 0, block 0) · asked 3 · errors 0"), "{text}");
    assert!(text.contains("resolved locally: 50.0%"), "{text}");
    let out = run(home.path(), &["stats"], "");
    assert!(
        stdout(&out).contains("shadow: would allow 0, block 1, ask 0"),
        "the most recent session: {}",
        stdout(&out)
    );
    let out = run(
        home.path(),
        &["stats", "--all", "--since", "1h", "--json"],
        "",
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["checks"], 7);
    assert!(v["summary"]["latency"]["local"]["p95_us"].as_u64().unwrap() > 0);
    let out = run(home.path(), &["stats", "--since", "soon"], "");
    assert_eq!(out.status.code(), Some(1));

    // A what-if is not a record; `check --record` records, as session "check".
    let out = common::sentinel(home.path())
        .args(["check", "--offline", "ls"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = run(home.path(), &["stats", "--session", "check", "--json"], "");
    let none = serde_json::from_slice::<Value>(&out.stdout)
        .map(|v| v["summary"]["checks"].as_u64().unwrap_or(0))
        .unwrap_or(0);
    assert_eq!(none, 0, "no session `check` without --record");
    let out = common::sentinel(home.path())
        .args(["check", "--offline", "--record", "ls"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = run(home.path(), &["stats", "--session", "check", "--json"], "");
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["summary"]["checks"],
        1
    );

    let tail = stdout(&run(home.path(), &["audit", "tail", "-n", "2"], ""));
    assert!(
        tail.contains("#7") && tail.contains("git push --force") && tail.contains("(shadow)"),
        "{tail}"
    );
    assert!(
        tail.contains("#8") && tail.contains("session check"),
        "{tail}"
    );
    // An edited record is named.
    let audit = home.path().join("audit.jsonl");
    let text = std::fs::read_to_string(&audit)
        .unwrap()
        .replacen("rm -rf ~", "rm -rf /tmp/x", 1);
    std::fs::write(&audit, text).unwrap();
    let verify = run(home.path(), &["audit", "verify"], "");
    assert_eq!(verify.status.code(), Some(1));
    assert!(
        stdout(&verify).contains("audit.jsonl:3 (seq 3): its hash does not match its content"),
        "{}",
        stdout(&verify)
    );
}

/// The stats and the audit log keep no secret of the credential corpus (the same redaction as
/// the export), and the chain over the redacted records verifies.
#[test]
fn the_books_keep_no_secret_the_agent_typed() {
    let home = tempfile::tempdir().unwrap();
    let corpus = include_str!("corpus/credentials.jsonl");
    let mut secrets = Vec::new();
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let out = run(
            home.path(),
            &["hook"],
            &event("books", v["command"].as_str().unwrap()),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        secrets.push(v["secret"].as_str().unwrap().to_string());
    }
    let stats = std::fs::read_to_string(home.path().join("stats.jsonl")).unwrap();
    let audit = std::fs::read_to_string(home.path().join("audit.jsonl")).unwrap();
    assert_eq!(audit.lines().count(), secrets.len());
    assert!(audit.contains("[REDACTED]"));
    for s in &secrets {
        assert!(!stats.contains(s.as_str()), "{s} in the stats");
        assert!(!audit.contains(s.as_str()), "{s} in the audit log");
    }
    let verify = run(home.path(), &["audit", "verify"], "");
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
}
