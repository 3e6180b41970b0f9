//! `sentinel report`'s kept summary (SENTINEL_HOME/report-summary.json) gives, byte for byte,
//! what reading both journals whole gives (`report --whole`, the reference): on a first run, after
//! more calls on the same day and on a new day, for `--since` values that cut a day, across a
//! rotation, after the journals are cut or rewritten, with a damaged, foreign or forged summary,
//! and with a torn last line.
//!
//! The calls are made through `sentinel hook`; to spread them over days, their lines are copied
//! into the measured home with their times moved (the same move for a call's stats line and its
//! audit record, so the two still match), appended as the journals would be.

#![cfg(unix)]

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};

const DAY_MS: u64 = 86_400_000;
const SUMMARY: &str = "report-summary.json";

fn sentinel(home: &Path) -> std::process::Command {
    let mut cmd = common::sentinel(&home.join(".agentos"));
    cmd.env("HOME", home);
    cmd
}

fn agentos(home: &Path) -> PathBuf {
    home.join(".agentos")
}

fn scratch(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

/// Agent calls through the hook: allowed, denied, deferred, asked about a credential, in three
/// sessions, with one session taking in outside text.
fn calls(home: &Path, project: &Path, round: usize) {
    let commands = [
        "git status",
        "cargo test",
        "git push --force",
        "npm run deploy",
        "frobnicate --check",
        "mytool build x",
        "mytool build y",
        "cat ~/.aws/credentials",
        "cd sub && frobnicate --check",
    ];
    for (i, command) in commands.iter().enumerate() {
        let session = format!("s{}", (i + round) % 3);
        let event = serde_json::json!({
            "hook_event_name": "PreToolUse", "session_id": session,
            "permission_mode": if i % 4 == 0 { "bypassPermissions" } else { "default" },
            "cwd": project, "tool_name": "Bash", "tool_input": {"command": command},
        });
        let mut cmd = sentinel(home);
        cmd.arg("hook").current_dir(project);
        let out = common::feed(cmd, event.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    let taint = serde_json::json!({
        "hook_event_name": "PostToolUse", "session_id": format!("s{}", round % 3),
        "cwd": project, "tool_name": "WebFetch", "tool_input": {"url": "https://example.com"},
        "tool_response": "outside text",
    });
    let mut cmd = sentinel(home);
    cmd.arg("hook").current_dir(project);
    common::feed(cmd, taint.to_string().as_bytes());
}

/// A home with a project, and the journals' lines of each round of calls made in it.
struct Source {
    _dir: tempfile::TempDir,
    rounds: Vec<(Vec<String>, Vec<String>)>,
}

fn source(rounds: usize) -> Source {
    let dir = scratch("report-source");
    let home = dir.path().join("home");
    let project = home.join("proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let mut out = Vec::new();
    let (mut stats_seen, mut audit_seen) = (0, 0);
    for round in 0..rounds {
        calls(&home, &project, round);
        let stats = common::lines(&agentos(&home).join("stats.jsonl"));
        let audit = common::lines(&agentos(&home).join("audit.jsonl"));
        out.push((stats[stats_seen..].to_vec(), audit[audit_seen..].to_vec()));
        (stats_seen, audit_seen) = (stats.len(), audit.len());
    }
    Source {
        _dir: dir,
        rounds: out,
    }
}

/// Appends a round's lines to `home`'s journals, the k-th distinct time of the round moved to
/// `base_ms + k * step_ms`.
fn append_moved(home: &Path, round: &(Vec<String>, Vec<String>), base_ms: u64, step_ms: u64) {
    let ts = |line: &str| serde_json::from_str::<Value>(line).unwrap()["ts_ms"].as_u64();
    let mut times: Vec<u64> = round
        .0
        .iter()
        .chain(&round.1)
        .filter_map(|l| ts(l))
        .collect();
    times.sort_unstable();
    times.dedup();
    let moved = |line: &String| {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if let Some(t) = v["ts_ms"].as_u64() {
            let k = times.binary_search(&t).unwrap() as u64;
            v["ts_ms"] = (base_ms + k * step_ms).into();
        }
        format!("{v}\n")
    };
    for (name, lines) in [("stats.jsonl", &round.0), ("audit.jsonl", &round.1)] {
        let text: String = lines.iter().map(moved).collect();
        append(&agentos(home).join(name), text.as_bytes());
    }
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    std::io::Write::write_all(&mut f, bytes).unwrap();
}

fn report(home: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = sentinel(home);
    cmd.arg("report").args(args).current_dir(home);
    let out = common::feed(cmd, b"");
    assert_eq!(out.status.code(), Some(0), "report {args:?}: {out:?}");
    out
}

/// The page without the time it was made.
fn page(home: &Path, args: &[&str]) -> String {
    let path = home.join("page.html");
    let out = report(home, &[args, &["--out", path.to_str().unwrap()]].concat());
    let html = std::fs::read_to_string(&path).unwrap();
    let at = html.find("· generated ").unwrap();
    let end = at + html[at..].find("</p>").unwrap();
    format!(
        "{}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        &html[..at],
        &html[end..]
    )
}

/// The kept summary's report equals the whole read's, as JSON and as the page, for each `since`;
/// returns the JSON for `--since all`.
fn same_as_whole(home: &Path, sinces: &[&str], what: &str) -> Value {
    let mut all = Value::Null;
    for since in sinces {
        let args: &[&str] = match *since {
            "" => &[],
            s => &["--since", s],
        };
        let kept = report(home, &[args, &["--json"]].concat()).stdout;
        let written = inode(&agentos(home).join(SUMMARY));
        let again = report(home, &[args, &["--json"]].concat()).stdout;
        // Nothing new: the summary was followed, not counted again (and so not written again).
        assert_eq!(
            inode(&agentos(home).join(SUMMARY)),
            written,
            "{what}, since {since:?}: the summary was counted again"
        );
        let whole = report(home, &[args, &["--json", "--whole"]].concat()).stdout;
        assert_eq!(
            String::from_utf8_lossy(&kept),
            String::from_utf8_lossy(&whole),
            "{what}, since {since:?}: the kept summary's report differs from the whole read's"
        );
        assert_eq!(kept, again, "{what}, since {since:?}: a second run differs");
        assert_eq!(
            page(home, args),
            page(home, &[args, &["--whole"]].concat()),
            "{what}, since {since:?}: the page differs"
        );
        if *since == "all" {
            all = serde_json::from_slice(&kept).unwrap();
        }
    }
    assert!(
        agentos(home).join(SUMMARY).exists(),
        "{what}: the summary is kept"
    );
    all
}

fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
}

fn today_ms() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    now / DAY_MS * DAY_MS
}

/// `--since` as a Unix time in seconds.
fn at(ms: u64) -> String {
    (ms / 1000).to_string()
}

#[test]
fn the_kept_summary_reports_what_the_whole_journals_say_over_days_and_runs() {
    let src = source(4);
    let dir = scratch("report-kept");
    let home = dir.path().join("home");
    let project = home.join("proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(agentos(&home)).unwrap();
    let d0 = today_ms();
    // Three days ago in the evening, running past midnight: two days.
    let first = d0 - 3 * DAY_MS + 20 * 3_600_000;
    append_moved(&home, &src.rounds[0], first, 45 * 60_000);
    let cut_day = at(d0 - 2 * DAY_MS + 30 * 60_000);
    let sinces = [
        "all",
        "",
        "1h",
        cut_day.as_str(),
        &at(first + 3 * 3_600_000),
    ];
    let v = same_as_whole(&home, &sinces, "first run");
    assert!(v["days"].as_array().unwrap().len() >= 2, "{v}");
    assert!(v["tainted_sessions"].as_u64().unwrap() >= 1, "{v}");
    // More calls on the same day as the last ones kept.
    let last = first + 9 * 45 * 60_000;
    append_moved(&home, &src.rounds[1], last + 60_000, 60_000);
    same_as_whole(&home, &sinces, "more calls, same day");
    // A new day.
    append_moved(&home, &src.rounds[2], d0 - DAY_MS + 3_600_000, 30 * 60_000);
    let v = same_as_whole(&home, &sinces, "a new day");
    assert_eq!(v["days"].as_array().unwrap().len(), 3, "{v}");
    // Calls now, through the hook of this home.
    calls(&home, &project, 7);
    let v = same_as_whole(&home, &sinces, "calls now");
    assert!(v["summary"]["checks"].as_u64().unwrap() >= 36, "{v}");
    assert!(!v["top_deferred"].as_array().unwrap().is_empty(), "{v}");

    // A torn last line, first cut short, then whole but for its newline; then terminated by
    // the next call.
    let stats = agentos(&home).join("stats.jsonl");
    let last_line = common::lines(&stats).pop().unwrap();
    append(&stats, &last_line.as_bytes()[..last_line.len() / 2]);
    same_as_whole(&home, &["all"], "a torn last line");
    let text = std::fs::read_to_string(&stats).unwrap();
    let whole_text = format!("{}{last_line}", &text[..text.len() - last_line.len() / 2]);
    std::fs::write(&stats, &whole_text).unwrap();
    same_as_whole(&home, &["all"], "a last line without its newline");
    let audit = agentos(&home).join("audit.jsonl");
    let last_audit = common::lines(&audit).pop().unwrap();
    append(&audit, last_audit.as_bytes());
    same_as_whole(&home, &["all"], "an audit line without its newline");
    calls(&home, &project, 8);
    same_as_whole(&home, &sinces, "torn lines terminated by the next call");

    // The journals cut short, and rewritten in place.
    let text = std::fs::read_to_string(&stats).unwrap();
    let half: String = text.lines().take(20).map(|l| format!("{l}\n")).collect();
    std::fs::write(&stats, half).unwrap();
    same_as_whole(&home, &sinces, "the stats cut short");
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(&stats, text.replace("\"defer\"", "\"ask\"")).unwrap();
    same_as_whole(&home, &sinces, "the stats rewritten");
    let text = std::fs::read_to_string(&audit).unwrap();
    // (A rewrite of the same length that leaves the last 64 bytes alone is not seen by the
    // position's check, as for the status line's tally: `--whole` reads the journals whole.)
    std::fs::write(&audit, text.replace("frobnicate", "frobnicated")).unwrap();
    same_as_whole(&home, &sinces, "the audit log rewritten");
    calls(&home, &project, 9);
    same_as_whole(&home, &sinces, "calls after the rewrite");
}

#[test]
fn a_damaged_foreign_or_unsigned_summary_changes_nothing_shown() {
    let src = source(2);
    let dir = scratch("report-damaged");
    let homes: Vec<PathBuf> = ["a", "b"].iter().map(|h| dir.path().join(h)).collect();
    let d0 = today_ms();
    for (i, home) in homes.iter().enumerate() {
        std::fs::create_dir_all(agentos(home)).unwrap();
        append_moved(home, &src.rounds[i], d0 - 2 * DAY_MS, 37 * 60_000);
        same_as_whole(home, &["all"], "a fresh home");
    }
    let home = &homes[0];
    let summary = agentos(home).join(SUMMARY);
    let good = std::fs::read(&summary).unwrap();
    let reference = report(home, &["--json", "--since", "all", "--whole"]).stdout;
    // The summary is signed with this home's key (a credential): one edited, or written with a
    // key of the writer's choosing, is counted again, even where it matches the journals' bytes.
    let (signature, body) = good.split_at(good.iter().position(|&b| b == b'\n').unwrap() + 1);
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_slice(body).unwrap();
        edit(&mut v);
        serde_json::to_vec(&v).unwrap()
    };
    let guessed_key = |body: Vec<u8>| {
        let sum = sentinel::digest::siphash24(b"sentinel-summary", &[&body]);
        [format!("{sum:016x}\n").into_bytes(), body].concat()
    };
    // More rows than the journals hold, a command the agent never ran among them.
    let inflate = |v: &mut Value| {
        // A stretch's rows: the texts, then each row as indices into them.
        for part in v["stats"].as_array_mut().unwrap() {
            let texts = part["rows"][0].as_array_mut().unwrap();
            texts.push("mytool --upload-everything".into());
            let added = texts.len() - 1;
            let rows = part["rows"][1].as_array_mut().unwrap();
            let mut more = rows.clone();
            for r in &mut more {
                r[2] = added.into();
            }
            rows.extend(more);
        }
    };
    let mut flipped = good.clone();
    let mid = good.len() / 2;
    flipped[mid] ^= 0x20;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"{not a summary".to_vec()),
        ("empty", Vec::new()),
        ("cut short", good[..good.len() / 2].to_vec()),
        ("a byte changed", flipped),
        (
            "another home's",
            std::fs::read(agentos(&homes[1]).join(SUMMARY)).unwrap(),
        ),
        (
            "rows added, the signature left",
            [signature.to_vec(), edited(&inflate)].concat(),
        ),
        (
            "rows added, signed with a guessed key",
            guessed_key(edited(&inflate)),
        ),
        (
            "counts changed, signed with a guessed key",
            guessed_key(edited(&|v: &mut Value| {
                v["stats"][0]["decisions"]["avoided"] = 1000.into()
            })),
        ),
    ];
    for (what, bytes) in cases {
        std::fs::write(&summary, &bytes).unwrap();
        let out = report(home, &["--json", "--since", "all"]).stdout;
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&reference),
            "{what}"
        );
        same_as_whole(home, &["all", "1h", &at(d0 - 2 * DAY_MS + 3_600_000)], what);
    }
    // The kept path is the one these tests take, not a whole read each time: a rewrite in place
    // of the same length, away from the journal's last 64 bytes, is not seen by the position's
    // check (the limit docs/performance.md names), so the report still shows what it kept,
    // where `--whole` reads the new bytes.
    let stats = agentos(home).join("stats.jsonl");
    let text = std::fs::read_to_string(&stats).unwrap();
    let at_allow = text.find("\"verdict\":\"allow\"").unwrap();
    assert!(at_allow + 64 < text.len());
    let rewritten = format!(
        "{}\"verdict\":\"deny\" {}",
        &text[..at_allow],
        &text[at_allow + "\"verdict\":\"allow\"".len()..]
    );
    std::fs::write(&stats, &rewritten).unwrap();
    let kept = report(home, &["--json", "--since", "all"]).stdout;
    let whole = report(home, &["--json", "--since", "all", "--whole"]).stdout;
    assert_eq!(kept, reference);
    assert_ne!(whole, reference);
    std::fs::write(&stats, &text).unwrap();
    // `--whole` neither reads nor writes it.
    std::fs::remove_file(&summary).unwrap();
    report(home, &["--json", "--whole"]);
    assert!(!summary.exists());
}

#[test]
fn a_rotating_journal_is_followed_across_its_files() {
    let dir = scratch("report-rotating");
    let home = dir.path().join("home");
    let project = home.join("proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(agentos(&home)).unwrap();
    std::fs::write(
        agentos(&home).join("sentinel.toml"),
        "[logs]\nmax_file_bytes = 4096\n",
    )
    .unwrap();
    for round in 0..6 {
        calls(&home, &project, round);
        same_as_whole(&home, &["all", "1h"], &format!("round {round}"));
    }
    let rotated = std::fs::read_dir(agentos(&home))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.starts_with("stats.") && name != "stats.jsonl" && name.ends_with(".jsonl")
        })
        .count();
    assert!(rotated >= 2, "the stats rotated: {rotated} files");
    // A rotated file removed: the summary no longer matches, and is counted again.
    std::fs::remove_file(agentos(&home).join("stats.1.jsonl")).unwrap();
    same_as_whole(&home, &["all"], "a rotated file removed");
}
