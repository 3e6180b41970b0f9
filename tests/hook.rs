//! `sentinel hook` run as an agent runs it: the built binary, an event on stdin, the answer on
//! stdout. HOME points at the fixtures' home (/home/dev/demo/home, never created) and
//! SENTINEL_HOME at a temp dir, so nothing real is read or written.

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

const HOME: &str = "/home/dev/demo/home";

struct Hook {
    sentinel_home: tempfile::TempDir,
}

impl Hook {
    fn new() -> Hook {
        Hook {
            sentinel_home: tempfile::tempdir().unwrap(),
        }
    }

    fn run_with(&self, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
        let mut cmd = common::sentinel(self.sentinel_home.path());
        cmd.arg("hook")
            .args(args)
            .env("HOME", HOME)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        // The hook may stop reading early (oversize input): a broken pipe is expected then.
        let _ = input.write_all(stdin);
        drop(input);
        child.wait_with_output().unwrap()
    }

    fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.run_with(args, stdin, &[])
    }

    fn stats(&self) -> Vec<Value> {
        std::fs::read_to_string(self.sentinel_home.path().join("stats.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// The verdict an answer carries in its agent's shape, or "none" for empty stdout.
fn verdict(agent: &str, out: &Output) -> String {
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    if stdout.trim().is_empty() {
        return "none".into();
    }
    assert!(
        stdout.ends_with('\n') && stdout.trim().lines().count() == 1,
        "one line of JSON: {stdout:?}"
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let s = match agent {
        "claude" | "codex" => {
            assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
            assert!(
                v["hookSpecificOutput"]["permissionDecisionReason"]
                    .as_str()
                    .unwrap()
                    .starts_with("sentinel")
            );
            v["hookSpecificOutput"]["permissionDecision"].as_str()
        }
        "gemini" => {
            assert!(v["reason"].as_str().is_some());
            v["decision"].as_str()
        }
        "cursor" => {
            assert_eq!(v["user_message"], v["agentMessage"]);
            v["permission"].as_str()
        }
        "copilot" => v["permissionDecision"].as_str(),
        _ => unreachable!(),
    };
    s.unwrap().to_string()
}

#[derive(serde::Deserialize)]
struct Case {
    agent: String,
    file: String,
    expect: String,
}

#[test]
fn every_fixture_gets_its_decision_in_its_agents_shape() {
    let hook = Hook::new();
    let cases: Vec<Case> =
        serde_json::from_str(include_str!("fixtures/agents/cases.json")).unwrap();
    let mut wrong = Vec::new();
    for case in &cases {
        let event = std::fs::read(Path::new("tests/fixtures/agents").join(&case.file)).unwrap();
        let agent_flag = case.agent.as_str();
        if case.expect == "summary" && agent_flag == "claude" {
            // A session with no checks says nothing: give this one a check first.
            let v: Value = serde_json::from_slice(&event).unwrap();
            let check = serde_json::json!({"session_id": v["session_id"], "hook_event_name": "PreToolUse",
                "cwd": "/", "tool_name": "Bash", "tool_input": {"command": "ls"}});
            hook.run(&[], check.to_string().as_bytes());
        }
        let out = hook.run(&["--agent", agent_flag], &event);
        if case.expect == "summary" {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let in_message = |m: &str| m.contains(" check — ") || m.contains(" checks — ");
            let (code, shown) = match case.agent.as_str() {
                "claude" => (2, stderr.starts_with("sentinel: ") && in_message(&stderr)),
                "gemini" => (
                    0,
                    serde_json::from_str::<Value>(&stdout)
                        .is_ok_and(|v| v["systemMessage"].as_str().is_some_and(in_message)),
                ),
                _ => (0, in_message(&stderr)),
            };
            if out.status.code() != Some(code) || !shown {
                wrong.push(format!(
                    "{}: the session summary: exit {:?}, stdout {stdout:?}, stderr {stderr:?}",
                    case.file,
                    out.status.code()
                ));
            }
            continue;
        }
        let got = verdict(&case.agent, &out);
        // Gemini CLI cannot ask: what needs a person is refused with a reason that says so.
        let want = if matches!(case.agent.as_str(), "gemini" | "codex") && case.expect == "ask" {
            "deny"
        } else {
            case.expect.as_str()
        };
        if out.status.code() != Some(0) || got != want {
            wrong.push(format!(
                "{}: want {want}, got {got} (exit {:?}) {}",
                case.file,
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(cases.len() >= 70);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_events_claude_code_really_sent() {
    let hook = Hook::new();
    let dir = Path::new("tests/fixtures/claude-code-2.1.328");
    let expect = [
        ("PreToolUse-Bash", "allow"), // touch inside the project: a write there
        ("PreToolUse-Bash-acceptEdits", "allow"),
        ("PreToolUse-Bash-bypassPermissions", "allow"),
        ("PreToolUse-Write", "none"), // default mode: the edit prompt is the person's (issue 29)
        ("PreToolUse-Edit", "none"),
        ("PreToolUse-Read", "allow"),
        ("PostToolUse-Bash", "none"),
        ("PostToolUse-Edit", "none"),
        ("PostToolUse-Read", "none"),
        ("PostToolUse-Write", "none"),
        ("PostToolUseFailure-Read", "none"),
        ("PermissionRequest-Bash", "none"),
        ("PermissionRequest-Write", "none"),
        ("SessionStart", "none"),
        ("SessionEnd", "none"),
        ("Stop", "none"),
        ("UserPromptSubmit", "none"),
    ];
    assert_eq!(
        std::fs::read_dir(dir).unwrap().count(),
        expect.len(),
        "every recorded event is covered"
    );
    for (name, want) in expect {
        let out = hook.run(
            &[],
            &std::fs::read(dir.join(format!("{name}.json"))).unwrap(),
        );
        if name == "SessionEnd" {
            // The summary goes to the user: stderr with exit 2, the channel Claude Code documents.
            assert_eq!(out.status.code(), Some(2));
            let stderr = String::from_utf8_lossy(&out.stderr);
            // The two edits Claude Code's own prompt decided (mode `default`) are not allows.
            assert!(
                stderr.starts_with("sentinel: 4 checks — local 2 (allow 2, block 0)")
                    && stderr.contains("left to the agent 2"),
                "{stderr}"
            );
            // Whether Tier 2 was on, and why (issue 30): no key here.
            assert!(
                stderr.contains(" · tier 2 off (no SENTINEL_API_KEY or ANTHROPIC_API_KEY)"),
                "{stderr}"
            );
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(verdict("claude", &out), want, "{name}");
    }
    assert_eq!(hook.stats().len(), 6, "one record per PreToolUse decision");
}

#[test]
fn shadow_mode_prints_nothing_exits_0_and_records() {
    for (args, env) in [
        (vec!["--shadow"], vec![]),
        (vec![], vec![("SENTINEL_SHADOW", "1")]),
    ] {
        let hook = Hook::new();
        // A variable that turns enforcement off counts only when the person's own
        // sentinel.toml trusts it (a project's agent settings can set variables).
        std::fs::write(
            hook.sentinel_home.path().join("sentinel.toml"),
            "[env]\ntrust = [\"SENTINEL_SHADOW\"]\n",
        )
        .unwrap();
        let deny = br#"{"hook_event_name":"PreToolUse","session_id":"sh","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}"#;
        let out = hook.run_with(&args, deny, &env);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
        let bad = hook.run_with(&args, b"{not json", &env);
        assert_eq!(
            bad.status.code(),
            Some(0),
            "even a bad event exits 0 in shadow mode"
        );
        assert!(bad.stdout.is_empty());
        let stats = hook.stats();
        assert_eq!(stats.len(), 2, "the unreadable event is recorded too");
        assert_eq!(
            (&stats[1]["verdict"], &stats[1]["shadow"]),
            (&json!("ask"), &json!(true))
        );
        assert_eq!(stats[0]["shadow"], true);
        assert_eq!(stats[0]["verdict"], "deny", "what would have happened");
        assert_eq!(
            stats[0]["rule"].as_str().unwrap().split(':').next(),
            Some("hard_block_commands.txt")
        );
    }
    let hook = Hook::new();
    std::fs::write(
        hook.sentinel_home.path().join("sentinel.toml"),
        "mode = \"shadow\"\n",
    )
    .unwrap();
    let out = hook.run(&[], br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push -f"}}"#);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
    assert_eq!(hook.stats()[0]["shadow"], true);
}

#[test]
fn configuration_changes_the_answer() {
    let hook = Hook::new();
    let uncertain = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"frobnicate x.py"}}"#;
    let block = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git reset --hard"}}"#;
    let allow =
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    let toml = hook.sentinel_home.path().join("sentinel.toml");
    std::fs::write(&toml, "on_uncertain = \"deny\"\non_block = \"ask\"\n").unwrap();
    assert_eq!(verdict("claude", &hook.run(&[], uncertain)), "deny");
    assert_eq!(verdict("claude", &hook.run(&[], block)), "ask");
    std::fs::write(&toml, "on_uncertain = \"defer\"\n").unwrap();
    assert_eq!(verdict("claude", &hook.run(&[], uncertain)), "none");
    std::fs::write(&toml, "on_uncertain = \"allow\"\n").unwrap();
    let out = hook.run(&[], uncertain);
    assert_eq!(verdict("claude", &out), "allow");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("on_uncertain = allow")
    );
    // A broken config never widens: allow becomes ask, and the error names the key and line.
    std::fs::write(&toml, "mode = \"enforce\"\non_uncertian = \"allow\"\n").unwrap();
    let out = hook.run(&[], allow);
    assert_eq!(verdict("claude", &out), "ask");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sentinel.toml:2") && err.contains("on_uncertian"),
        "{err}"
    );
    assert_eq!(verdict("claude", &hook.run(&[], block)), "deny");
    // Guard mode only refuses (or asks): what it would allow goes to the agent's own flow.
    std::fs::write(&toml, "mode = \"guard\"\non_uncertain = \"ask\"\n").unwrap();
    assert_eq!(verdict("claude", &hook.run(&[], allow)), "none");
    assert_eq!(verdict("claude", &hook.run(&[], block)), "deny");
    assert_eq!(verdict("claude", &hook.run(&[], uncertain)), "ask");
    assert_eq!(hook.stats().last().unwrap()["verdict"], "ask");
}

/// Inputs a hook must survive: each gets a one-line error on stderr and an `ask` on stdout, exit
/// 0. None panics.
fn bad_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let ev = |s: &str| s.as_bytes().to_vec();
    let mut v: Vec<(&'static str, Vec<u8>)> = vec![
        ("empty stdin", vec![]),
        ("whitespace only", ev(" \n\t ")),
        ("null", ev("null")),
        ("array", ev("[]")),
        ("string", ev("\"PreToolUse\"")),
        ("number", ev("42")),
        ("empty object", ev("{}")),
        ("event name is a number", ev(r#"{"hook_event_name":1}"#)),
        ("unknown event", ev(r#"{"hook_event_name":"PreToolUseX","tool_name":"Bash","tool_input":{"command":"ls"}}"#)),
        ("lower-case event name", ev(r#"{"hook_event_name":"pretooluse","tool_name":"Bash","tool_input":{"command":"ls"}}"#)),
        ("no tool_name", ev(r#"{"hook_event_name":"PreToolUse","tool_input":{"command":"ls"}}"#)),
        ("tool_name is a number", ev(r#"{"hook_event_name":"PreToolUse","tool_name":7,"tool_input":{"command":"ls"}}"#)),
        ("no tool_input", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#)),
        ("tool_input is a string", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}"#)),
        ("tool_input is an array", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":["ls"]}"#)),
        ("command is a number", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":1}}"#)),
        ("command is an array", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["ls"]}}"#)),
        ("no command", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"description":"ls"}}"#)),
        ("Write without file_path", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"x"}}"#)),
        ("file_path is an object", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":{}}}"#)),
        ("cwd is a number", ev(r#"{"hook_event_name":"PreToolUse","cwd":5,"tool_name":"Bash","tool_input":{"command":"ls"}}"#)),
        ("session_id is an object", ev(r#"{"hook_event_name":"PreToolUse","session_id":{},"tool_name":"Bash","tool_input":{"command":"ls"}}"#)),
        ("invalid UTF-8", b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \xff\xfe\"}}".to_vec()),
        ("raw NUL byte", b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\x00\"}}".to_vec()),
        ("binary garbage", (0..2048u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect()),
        ("deeply nested arrays", ev(&"[".repeat(100_000))),
        ("deeply nested tool_input", ev(&format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}"command":"ls"{}}}"#, "{\"a\":".repeat(5000), "}".repeat(5000)))),
        ("two events concatenated", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}"#)),
        ("two events on two lines", ev("{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}\n{\"hook_event_name\":\"Stop\"}\n")),
        ("trailing garbage", ev(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}} x"#)),
        ("byte-order mark", [b"\xef\xbb\xbf".as_slice(), br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#].concat()),
        ("single quotes", ev("{'hook_event_name':'PreToolUse'}")),
        ("oversize", [br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls #"#.as_slice(), &vec![b'a'; 1024 * 1024], br#""}}"#].concat()),
        ("copilot toolArgs not JSON", ev(r#"{"toolName":"bash","toolArgs":"{not json"}"#)),
    ];
    // Truncated at every boundary of a real event.
    let full = std::fs::read("tests/fixtures/claude-code-2.1.328/PreToolUse-Bash.json").unwrap();
    for cut in 1..full.trim_ascii_end().len() {
        v.push(("truncated event", full[..cut].to_vec()));
    }
    v
}

#[test]
fn bad_input_never_panics_and_never_allows() {
    let hook = Hook::new();
    let cases = bad_inputs();
    let kinds: std::collections::BTreeSet<_> = cases.iter().map(|(k, _)| *k).collect();
    assert!(kinds.len() >= 30, "{} kinds", kinds.len());
    let mut problems = Vec::new();
    // Every fail mode answers the same: fail_mode is about Tier 2, not sentinel's own failures.
    for fail_mode in ["open", "closed", "ask"] {
        for (kind, input) in &cases {
            if fail_mode != "open" && *kind == "truncated event" {
                continue;
            }
            let agent = if kind.starts_with("copilot") {
                "copilot"
            } else {
                "claude"
            };
            let out = hook.run_with(
                &["--agent", agent],
                input,
                &[("SENTINEL_FAIL_MODE", fail_mode)],
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            if stderr.contains("panicked") || out.status.code().is_none() {
                problems.push(format!("{kind}: crashed: {stderr}"));
            } else if out.status.code() != Some(0) {
                problems.push(format!("{kind}: exit {:?}", out.status.code()));
            } else if stdout.is_empty() {
                problems.push(format!("{kind}: no answer"));
            } else if verdict(agent, &out) != "ask" {
                problems.push(format!("{kind}: {stdout}"));
            } else if stderr.lines().count() != 1 || !stderr.starts_with("sentinel: ") {
                problems.push(format!("{kind}: the error is not one line: {stderr:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn errors_name_what_is_wrong() {
    let hook = Hook::new();
    let cases: [(&[u8], &str); 6] = [
        (b"", "no event on stdin"),
        (b"{\"hook_event_name\":\"Nope\"}", "unknown event `Nope`"),
        (b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":1}}", "command must be a string"),
        (b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\"}", "tool_input is missing"),
        (b"{\"hook_event_name\":\"PreTo", "malformed JSON"),
        (b"\xff", "not valid UTF-8"),
    ];
    for (input, want) in cases {
        let out = hook.run(&[], input);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{want}: {err}");
        assert_eq!(verdict("claude", &out), "ask");
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains(want), "the agent is told too: {reason}");
    }
    std::fs::write(
        hook.sentinel_home.path().join("sentinel.toml"),
        "max_event_bytes = 2048\n",
    )
    .unwrap();
    let out = hook.run(&[], &[b' '; 4096]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("over the 2048-byte limit"));
}

fn settings_roundtrip(original: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    if let Some(text) = original {
        std::fs::write(&settings, text).unwrap();
    }
    let sentinel_home = dir.path().join("agentos");
    let run = |args: &[&str]| {
        common::sentinel(&sentinel_home)
            .args(args)
            .arg("--settings")
            .arg(&settings)
            .env("HOME", dir.path())
            .output()
            .unwrap()
    };
    let before: Value = match original {
        Some(t) if !t.trim().is_empty() => serde_json::from_str(t).unwrap(),
        _ => serde_json::json!({}),
    };
    let out = run(&["install"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let once: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    let handler = &once["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["hooks"][0];
    assert_eq!(
        handler["command"],
        std::fs::canonicalize(env!("CARGO_BIN_EXE_sentinel"))
            .unwrap()
            .display()
            .to_string()
    );
    assert_eq!(handler["args"], serde_json::json!(["hook"]));
    assert!(handler["timeout"].as_u64().unwrap() > 8);
    assert!(String::from_utf8_lossy(&run(&["install"]).stdout).contains("already registered"));
    let twice: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert_eq!(once, twice, "installing twice adds nothing");
    // Every key that was there is still there, unchanged.
    for (k, v) in before.as_object().unwrap() {
        if k != "hooks" {
            assert_eq!(&once[k], v);
        }
    }
    assert_eq!(run(&["uninstall"]).status.code(), Some(0));
    if original.is_none() {
        assert!(!settings.exists(), "the file install created goes again");
    } else {
        let after: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
        assert_eq!(after, before, "install then uninstall gives the file back");
    }
    let backups = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("sentinel-backup")
        })
        .count();
    assert_eq!(
        backups,
        usize::from(original.is_some()),
        "one backup, replaced at each change, not a pile (none of a file that was not there)"
    );
    // Seeded, and never overwritten.
    assert!(sentinel_home.join("hard_block_commands.txt").exists());
    assert!(sentinel_home.join("sentinel.toml").exists());
}

#[test]
fn install_and_uninstall_give_the_settings_back() {
    settings_roundtrip(None);
    settings_roundtrip(Some(""));
    settings_roundtrip(Some("{}"));
    settings_roundtrip(Some(
        r#"{"model":"opus","permissions":{"allow":["Bash(ls)"],"deny":[]},"env":{"A":"1"}}"#,
    ));
    settings_roundtrip(Some(
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/other-guard","timeout":5}]}],"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]},"theme":"dark"}"#,
    ));
    settings_roundtrip(Some(
        "  {\n\n\"z\" :1,\"a\":   [ 1,2 ,3],\n\t\"hooks\" : { \"SessionEnd\":[ ] } }\n\n",
    ));
}

#[test]
fn invalid_settings_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for text in ["{\"hooks\": ", "[1,2]", "{\"hooks\": []}", "// comment\n{}"] {
        let settings = dir.path().join("settings.json");
        std::fs::write(&settings, text).unwrap();
        let out = common::sentinel(&dir.path().join("agentos"))
            .args(["install", "--settings"])
            .arg(&settings)
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert_eq!(
            std::fs::read_to_string(&settings).unwrap(),
            text,
            "left untouched"
        );
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("sentinel: "));
    }
}

#[test]
fn seeding_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let home: PathBuf = dir.path().join("agentos");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("safe_commands.txt"), "ls\n").unwrap();
    let out = common::sentinel(&home)
        .args(["install", "--shadow", "--settings"])
        .arg(dir.path().join("s.json"))
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(home.join("safe_commands.txt")).unwrap(),
        "ls\n"
    );
    let s: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(
        s["hooks"]["PreToolUse"][0]["hooks"][0]["args"],
        serde_json::json!(["hook", "--shadow"])
    );
}

/// A session that made no checks ends without a word (and exit 0: nothing for Claude Code to
/// show as a failed hook).
#[test]
fn a_session_without_checks_ends_quietly() {
    let hook = Hook::new();
    let out = hook.run(
        &[],
        br#"{"hook_event_name":"SessionEnd","session_id":"empty-1","reason":"other"}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
}

/// `install` keeps a symlinked settings file a symlink (a dotfiles repository) and keeps its
/// mode; `--scope project` writes no machine path into the committed file, `--scope local`
/// writes `settings.local.json`; `doctor` finds a matcher that leaves tools out and is green
/// after install; `uninstall --purge` leaves nothing of sentinel behind.
#[test]
fn install_keeps_symlinks_and_modes_and_doctor_checks_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("install")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let home = dir.path().join("home");
    let dotfiles = dir.path().join("dotfiles");
    let project = dir.path().join("proj");
    for d in [home.join(".claude"), dotfiles.clone(), project.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    let real = dotfiles.join("settings.json");
    std::fs::write(&real, r#"{"theme": "dark"}"#).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = home.join(".claude/settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = |args: &[&str], cwd: &Path| {
        common::sentinel(&home.join(".agentos"))
            .args(args)
            .current_dir(cwd)
            .env("HOME", &home)
            // The scratch dir lies inside this repository's work tree (the target dir): the
            // project is named, as the agent names it, so the home is not inside it.
            .env("CLAUDE_PROJECT_DIR", &project)
            .output()
            .unwrap()
    };
    // Before install: doctor fails and says how to fix it.
    let out = run(&["doctor"], &home);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("fix: sentinel install"));

    assert_eq!(run(&["install"], &home).status.code(), Some(0));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let v: Value = serde_json::from_slice(&std::fs::read(&real).unwrap()).unwrap();
    assert_eq!(v["theme"], "dark");
    let out = run(&["doctor", "--json"], &home);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "ok"),
        "a fresh install is all green: {report}"
    );

    // A matcher from an older install that leaves tools out is found.
    let mut old = v.clone();
    old["hooks"]["PreToolUse"][0]["matcher"] = "Bash|Write|Edit|Read".into();
    std::fs::write(&real, old.to_string()).unwrap();
    let out = run(&["doctor"], &home);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("leaves out") && text.contains("Grep"),
        "{text}"
    );

    // Project scope: no machine path in the committed file; local scope: settings.local.json.
    assert_eq!(
        run(&["install", "--scope", "project"], &project)
            .status
            .code(),
        Some(0)
    );
    let p: Value =
        serde_json::from_slice(&std::fs::read(project.join(".claude/settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        p["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "sentinel"
    );
    assert_eq!(
        run(&["install", "--scope", "local"], &project)
            .status
            .code(),
        Some(0)
    );
    assert!(project.join(".claude/settings.local.json").exists());

    // Purge: sentinel's entries, the backup and SENTINEL_HOME go; the symlink and the person's
    // keys stay.
    assert_eq!(run(&["uninstall", "--purge"], &home).status.code(), Some(0));
    assert!(!home.join(".agentos").exists());
    assert!(!install_backup(&real).exists());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&real).unwrap()).unwrap();
    assert_eq!(v, serde_json::json!({"theme": "dark"}));
}

fn install_backup(settings: &Path) -> std::path::PathBuf {
    sentinel::agents::install::backup_path(settings)
}
