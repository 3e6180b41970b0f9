//! `sentinel install|uninstall|doctor --agent codex|gemini|cursor|copilot` against each agent's
//! real hook file (tests/fixtures/agent-configs): the person's content, symlink and mode are
//! kept; the registered command line, run as the agent runs it (`sh -c`) with the agent's own
//! event, answers in that agent's shape; doctor sees it; uninstall gives the file back.

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

struct Case {
    agent: &'static str,
    /// The fixture of the person's file, and where it lives under HOME.
    fixture: &'static str,
    user_path: &'static str,
    /// sentinel's file under HOME (Copilot's is its own, beside the person's).
    ours: &'static str,
    /// A deny event in the agent's protocol, and where its answer says deny.
    deny_event: &'static str,
    verdict: &'static [&'static str],
    events: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        agent: "codex",
        fixture: "codex/hooks.json",
        user_path: ".codex/hooks.json",
        ours: ".codex/hooks.json",
        deny_event: "codex/bash-deny.json",
        verdict: &["hookSpecificOutput", "permissionDecision"],
        events: &["PreToolUse", "PostToolUse"],
    },
    Case {
        agent: "gemini",
        fixture: "gemini/settings.json",
        user_path: ".gemini/settings.json",
        ours: ".gemini/settings.json",
        deny_event: "gemini/shell-deny.json",
        verdict: &["decision"],
        events: &["BeforeTool", "AfterTool", "SessionEnd"],
    },
    Case {
        agent: "cursor",
        fixture: "cursor/hooks.json",
        user_path: ".cursor/hooks.json",
        ours: ".cursor/hooks.json",
        deny_event: "cursor/shell-deny.json",
        verdict: &["permission"],
        events: &[
            "beforeShellExecution",
            "beforeReadFile",
            "beforeMCPExecution",
            "preToolUse",
        ],
    },
    Case {
        agent: "copilot",
        fixture: "copilot/security.json",
        user_path: ".copilot/hooks/security.json",
        ours: ".copilot/hooks/sentinel.json",
        deny_event: "copilot/bash-deny-string-args.json",
        verdict: &["permissionDecision"],
        events: &["preToolUse", "postToolUse", "sessionEnd"],
    },
];

fn run(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    common::sentinel(&home.join(".agentos"))
        .args(args)
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Every command line sentinel registered in `file`, by event (Copilot's `bash`, the others'
/// `command`), for the shapes grouped under a matcher and flat.
fn registered(file: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (event, list) in file["hooks"].as_object().unwrap() {
        for item in list.as_array().unwrap() {
            let handlers = match item.get("hooks") {
                Some(h) => h.as_array().unwrap().clone(),
                None => vec![item.clone()],
            };
            for h in handlers {
                let line = h
                    .get("bash")
                    .or(h.get("command"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if line.contains("sentinel") {
                    out.push((event.clone(), line.to_string()));
                }
            }
        }
    }
    out
}

#[test]
fn each_agents_file_round_trips_and_its_registration_answers_in_its_protocol() {
    for case in CASES {
        let dir = common::scratch(case.agent);
        let home = dir.path().join("home");
        // The person's file is a symlink into a dotfiles folder, with a mode of its own.
        let dotfiles = dir.path().join("dotfiles");
        std::fs::create_dir_all(&dotfiles).unwrap();
        let real = dotfiles.join(case.agent);
        std::fs::copy(
            Path::new(FIXTURES).join("agent-configs").join(case.fixture),
            &real,
        )
        .unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = home.join(case.user_path);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let original = json(&real);

        let out = run(&home, &home, &["install", "--agent", case.agent]);
        assert_eq!(out.status.code(), Some(0), "{}: {}", case.agent, text(&out));
        let ours = home.join(case.ours);
        let after = json(&ours);
        let lines = registered(&after);
        let events: Vec<&str> = lines.iter().map(|(e, _)| e.as_str()).collect();
        assert_eq!(events, case.events, "{}", case.agent);
        if ours == link {
            assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
            let mode = std::fs::metadata(&real).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o640, "{}", case.agent);
            // Every key and hook of the person's is still there.
            for (key, value) in original.as_object().unwrap() {
                if key != "hooks" {
                    assert_eq!(&after[key], value, "{} {key}", case.agent);
                }
            }
            for (event, list) in original["hooks"].as_object().unwrap() {
                for item in list.as_array().unwrap() {
                    assert!(
                        after["hooks"][event].as_array().unwrap().contains(item),
                        "{} {event}",
                        case.agent
                    );
                }
            }
        } else {
            assert_eq!(
                json(&real),
                original,
                "the person's own file is not touched"
            );
        }

        // The command line as the agent runs it, fed the agent's own event: a deny in its shape.
        let event =
            std::fs::read(Path::new(FIXTURES).join("agents").join(case.deny_event)).unwrap();
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c")
            .arg(&lines[0].1)
            .env("HOME", &home)
            .env("SENTINEL_HOME", home.join(".agentos"))
            .env("SENTINEL_NO_TTY", "1")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("SENTINEL_API_KEY");
        let answer = common::feed(sh, &event);
        assert_eq!(answer.status.code(), Some(0), "{}", case.agent);
        let answer: Value = serde_json::from_slice(&answer.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}: {}", case.agent, text(&answer)));
        let verdict = case.verdict.iter().fold(&answer, |v, k| &v[*k]);
        assert_eq!(verdict, "deny", "{}: {answer}", case.agent);

        // Twice is once; doctor sees it.
        let again = run(&home, &home, &["install", "--agent", case.agent]);
        assert!(
            text(&again).contains("already registered"),
            "{}",
            text(&again)
        );
        assert_eq!(json(&ours), after);
        let doctor = run(&home, &home, &["doctor", "--agent", case.agent]);
        assert_eq!(doctor.status.code(), Some(0), "{}", text(&doctor));
        assert!(
            text(&doctor).contains(&format!("ok    {:<8} registered for", case.agent)),
            "{}",
            text(&doctor)
        );
        // doctor ran the registered line as the agent runs it, on the agent's own events.
        let selftest = doctor_check(&home, case.agent, "selftest");
        assert_eq!(selftest["status"], "ok", "{}: {selftest}", case.agent);
        let detail = selftest["detail"].as_str().unwrap();
        assert!(detail.contains(&lines[0].1), "{detail}");
        assert!(detail.contains("deny for `rm -rf ~`"), "{detail}");
        // So does the plain doctor, beside Claude Code's own checks.
        let plain = run(&home, &home, &["doctor"]);
        assert!(text(&plain).contains(&format!("{:<8} registered for", case.agent)));

        let out = run(&home, &home, &["uninstall", "--agent", case.agent]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert_eq!(json(&real), original, "{}", case.agent);
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        if ours != link {
            assert!(!ours.exists(), "the file install created is gone");
        }
        let doctor = run(&home, &home, &["doctor", "--agent", case.agent]);
        assert_eq!(doctor.status.code(), Some(1), "{}", text(&doctor));
        assert!(text(&doctor).contains(&format!("fix: sentinel install --agent {}", case.agent)));
    }
}

#[test]
fn a_new_file_is_created_and_removed_and_a_project_names_sentinel_on_path() {
    for case in CASES {
        let dir = common::scratch(case.agent);
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let out = run(
            &home,
            &project,
            &["install", "--agent", case.agent, "--scope", "project"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let file: PathBuf = match case.agent {
            "copilot" => project.join(".github/hooks/sentinel.json"),
            _ => project.join(case.user_path),
        };
        for (_, line) in registered(&json(&file)) {
            assert!(line.starts_with("sentinel hook"), "{}: {line}", case.agent);
        }
        let out = run(
            &home,
            &project,
            &["uninstall", "--agent", case.agent, "--scope", "project"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(!file.exists(), "{}", case.agent);
        // Claude Code's local scope is its own.
        let out = run(
            &home,
            &project,
            &["install", "--agent", case.agent, "--scope", "local"],
        );
        assert_eq!(out.status.code(), Some(1));
    }
}

/// The check named `name` of `doctor --agent AGENT --json`.
fn doctor_check(home: &Path, agent: &str, name: &str) -> Value {
    let out = run(home, home, &["doctor", "--agent", agent, "--json"]);
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no {name} check: {v}"))
}

#[test]
fn doctors_selftest_says_what_each_agents_registration_enforces() {
    for (agent, allowed) in [
        ("codex", "no answer for `git status`"),
        ("gemini", "allow for `git status`"),
        ("cursor", "allow for `git status`"),
        ("copilot", "allow for `git status`"),
    ] {
        let dir = common::scratch(&format!("selftest-{agent}"));
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        // Registered with --shadow: it enforces nothing, and doctor says so.
        let out = run(&home, &home, &["install", "--agent", agent, "--shadow"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let s = doctor_check(&home, agent, "selftest");
        assert_eq!(s["status"], "warn", "{agent}: {s}");
        assert!(
            s["detail"]
                .as_str()
                .unwrap()
                .contains("It enforces nothing"),
            "{s}"
        );
        assert!(
            s["fix"]
                .as_str()
                .unwrap()
                .starts_with(&format!("sentinel install --agent {agent}"))
        );
        // Enforcing: a deny and an allow in the agent's terms (Codex takes no bare allow).
        run(&home, &home, &["install", "--agent", agent]);
        let s = doctor_check(&home, agent, "selftest");
        assert_eq!(s["status"], "ok", "{agent}: {s}");
        let detail = s["detail"].as_str().unwrap();
        assert!(
            detail.contains("deny for `rm -rf ~`") && detail.contains(allowed),
            "{agent}: {detail}"
        );
        // mode = "guard" in sentinel.toml: nothing is allowed.
        let toml = home.join(".agentos/sentinel.toml");
        let text_before = std::fs::read_to_string(&toml).unwrap();
        std::fs::write(&toml, format!("mode = \"guard\"\n{text_before}")).unwrap();
        let s = doctor_check(&home, agent, "selftest");
        assert_eq!(s["status"], "ok", "{agent}: {s}");
        let detail = s["detail"].as_str().unwrap();
        assert!(
            detail.contains("guard mode") && detail.contains("no answer for `git status`"),
            "{agent}: {detail}"
        );
        // A line that answers in another agent's shape, run as the agent would: a failure.
        let file = home.join(match agent {
            "codex" => ".codex/hooks.json",
            "gemini" => ".gemini/settings.json",
            "cursor" => ".cursor/hooks.json",
            _ => ".copilot/hooks/sentinel.json",
        });
        let other = if agent == "cursor" {
            "copilot"
        } else {
            "cursor"
        };
        let edited = std::fs::read_to_string(&file)
            .unwrap()
            .replace(&format!("--agent {agent}"), &format!("--agent {other}"));
        std::fs::write(&file, edited).unwrap();
        let s = doctor_check(&home, agent, "selftest");
        assert_eq!(s["status"], "fail", "{agent}: {s}");
    }
}

/// doctor's events are the agents' documented ones (tests/fixtures/agents): every field it sends
/// is one the agent sends, with the same type.
#[test]
fn doctors_events_have_the_agents_documented_shape() {
    use sentinel::agents::event::Agent;
    for (agent, fixture) in [
        (Agent::Claude, "claude/bash-allow.json"),
        (Agent::Codex, "codex/bash-allow.json"),
        (Agent::Gemini, "gemini/shell-allow.json"),
        (Agent::Cursor, "cursor/shell-allow.json"),
        (Agent::Copilot, "copilot/bash-deny-string-args.json"),
    ] {
        let documented = json(&Path::new(FIXTURES).join("agents").join(fixture));
        let ours = sentinel::agents::probe::shell_event(agent, "git status", Path::new("/p"));
        let kind = |v: &Value| match v {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        for (key, value) in ours.as_object().unwrap() {
            let theirs = documented
                .get(key)
                .unwrap_or_else(|| panic!("{agent:?}: {key} is not in {fixture}"));
            assert_eq!(kind(value), kind(theirs), "{agent:?} {key}");
        }
        // And sentinel reads it as the shell call it is.
        let parsed = sentinel::agents::event::parse_event(agent, &ours.to_string()).unwrap();
        assert!(
            matches!(parsed.call, Some(sentinel::call::ToolCall::Shell { .. })),
            "{agent:?}"
        );
    }
}

#[test]
fn a_broken_file_is_refused_untouched_and_doctor_names_a_wrong_protocol() {
    let dir = common::scratch("broken");
    let home = dir.path().join("home");
    let file = home.join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    for bad in [
        "{\"theme\": ",
        "[]",
        "{\"hooks\": []}",
        "{\"hooks\": {\"BeforeTool\": {}}}",
    ] {
        std::fs::write(&file, bad).unwrap();
        let out = run(&home, &home, &["install", "--agent", "gemini"]);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), bad);
    }
    // Registered by hand in Claude Code's protocol: Gemini CLI would not read the answers.
    let bin = env!("CARGO_BIN_EXE_sentinel");
    std::fs::write(
        &file,
        serde_json::json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": format!("{bin} hook")}]}]}})
            .to_string(),
    )
    .unwrap();
    let out = run(&home, &home, &["doctor", "--agent", "gemini"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("needs `sentinel hook --agent gemini`"),
        "{}",
        text(&out)
    );
    // And the self-test, which runs it, finds an answer Gemini CLI does not read.
    let selftest = doctor_check(&home, "gemini", "selftest");
    assert_eq!(selftest["status"], "fail", "{selftest}");
    assert!(
        selftest["detail"]
            .as_str()
            .unwrap()
            .contains("no decision that Gemini CLI reads"),
        "{selftest}"
    );
    // A matcher that leaves the shell out.
    std::fs::write(
        &file,
        serde_json::json!({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": format!("{bin} hook --agent gemini")}]}]}})
            .to_string(),
    )
    .unwrap();
    let out = run(&home, &home, &["doctor", "--agent", "gemini"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("leaves out run_shell_command"),
        "{}",
        text(&out)
    );
    // A matcher from before Gemini CLI's grep tool was `grep_search`.
    std::fs::write(
        &file,
        serde_json::json!({"hooks": {"BeforeTool": [{"matcher": "^(run_shell_command|write_file|replace|edit|read_file|read_many_files|list_directory|glob|search_file_content|grep|web_fetch|google_web_search|mcp__.*)$", "hooks": [{"type": "command", "command": format!("{bin} hook --agent gemini")}]}]}})
            .to_string(),
    )
    .unwrap();
    let out = run(&home, &home, &["doctor", "--agent", "gemini"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("leaves out grep_search"),
        "{}",
        text(&out)
    );
    // A binary that is gone.
    let codex = home.join(".codex/hooks.json");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    std::fs::write(
        &codex,
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/nowhere/sentinel hook"}]}]}}"#,
    )
    .unwrap();
    let out = run(&home, &home, &["doctor", "--agent", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("/nowhere/sentinel, which does not exist"),
        "{}",
        text(&out)
    );
}

#[test]
fn the_status_line_is_offered_never_over_the_persons_own_and_only_sentinels_is_removed() {
    let dir = common::scratch("statusline");
    let home = dir.path().join("home");
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();

    // Without a status line: offered, registered on request, removed by uninstall.
    std::fs::write(&settings, r#"{"model": "opus"}"#).unwrap();
    let out = run(&home, &home, &["install"]);
    // Tier 2's state is said at install (issue 30): no key in the tests' environment.
    assert!(
        text(&out).contains("tier 2 off (no SENTINEL_API_KEY or ANTHROPIC_API_KEY): uncertain calls go to the agent's own prompt"),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("tip: `sentinel install --statusline`"),
        "{}",
        text(&out)
    );
    assert!(json(&settings).get("statusLine").is_none());
    run(&home, &home, &["uninstall"]);
    let out = run(&home, &home, &["install", "--statusline"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("registered sentinel's status line"));
    let line = json(&settings)["statusLine"]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(line.ends_with("sentinel statusline"), "{line}");
    // The backup is the file as it was before install.
    let backup = home.join(".claude/settings.json.sentinel-backup");
    assert_eq!(json(&backup), serde_json::json!({"model": "opus"}));
    let out = run(&home, &home, &["uninstall"]);
    assert!(
        text(&out).contains("removed sentinel's status line"),
        "{}",
        text(&out)
    );
    assert_eq!(json(&settings), serde_json::json!({"model": "opus"}));

    // The person's own: kept, said so, and left by uninstall.
    let own =
        serde_json::json!({"statusLine": {"type": "command", "command": "~/.claude/line.sh"}});
    std::fs::write(&settings, own.to_string()).unwrap();
    for args in [&["install"][..], &["install", "--statusline"]] {
        let out = run(&home, &home, args);
        assert!(
            text(&out).contains("status line of your own"),
            "{}",
            text(&out)
        );
        assert_eq!(json(&settings)["statusLine"], own["statusLine"]);
    }
    run(&home, &home, &["uninstall"]);
    assert_eq!(json(&settings), own);
}

#[test]
fn codex_is_told_to_trust_the_hook_and_doctor_reads_codexs_trust_record() {
    let dir = common::scratch("codex-trust");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = run(&home, &home, &["install", "--agent", "codex"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("type /hooks, and trust sentinel's"),
        "{}",
        text(&out)
    );
    let file = home.join(".codex/hooks.json");
    let pre = &json(&file)["hooks"]["PreToolUse"][0];
    assert!(pre["matcher"].as_str().unwrap().ends_with("|apply_patch"));
    assert!(
        pre["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with(" hook --agent codex")
    );

    let out = run(&home, &home, &["doctor", "--agent", "codex", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let trust = |r: &Value| {
        r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| {
                let d = c["detail"].as_str().unwrap();
                d.contains("trust record") || d.contains("has trusted")
            })
            .cloned()
            .unwrap()
    };
    let t = trust(&report);
    assert_eq!(t["status"], "warn", "{t}");
    assert!(t["fix"].as_str().unwrap().contains("/hooks"), "{t}");

    // What Codex writes once the person trusts the hook in /hooks.
    std::fs::write(
        home.join(".codex/config.toml"),
        format!(
            "model = \"gpt-5-codex\"\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n",
            file.display()
        ),
    )
    .unwrap();
    let out = run(&home, &home, &["doctor", "--agent", "codex", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(trust(&report)["status"], "ok", "{report}");

    // An older registration (`sentinel hook`) still judges Codex's calls: a warning, not a failure.
    let bin = env!("CARGO_BIN_EXE_sentinel");
    std::fs::write(
        &file,
        serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": format!("{bin} hook")}]}]}})
            .to_string(),
    )
    .unwrap();
    let out = run(&home, &home, &["doctor", "--agent", "codex", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let protocol = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["detail"]
                .as_str()
                .unwrap()
                .contains("needs `sentinel hook --agent codex`")
        })
        .cloned()
        .unwrap();
    assert_eq!(protocol["status"], "warn", "{protocol}");
}

#[test]
fn cursors_file_edits_and_mcp_calls_are_judged_and_an_older_install_is_named() {
    let dir = common::scratch("cursor-tools");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = run(&home, &home, &["install", "--agent", "cursor"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let file = home.join(".cursor/hooks.json");
    // Each registered line, run as Cursor runs it, with Cursor's events.
    let lines = registered(&json(&file));
    for (event, fixture, want) in [
        ("preToolUse", "cursor/pretooluse-write-bashrc.json", "deny"),
        ("preToolUse", "cursor/pretooluse-edit-hooks.json", "deny"),
        ("beforeMCPExecution", "cursor/mcp-drop.json", "deny"),
    ] {
        let (_, line) = lines.iter().find(|(e, _)| e == event).unwrap();
        let out = common::feed(
            {
                let mut c = std::process::Command::new("sh");
                c.args(["-c", line])
                    .env("HOME", "/home/dev/demo/home")
                    .env("SENTINEL_HOME", dir.path().join("sh"))
                    .env("SENTINEL_NO_TTY", "1")
                    .env_remove("ANTHROPIC_API_KEY")
                    .env_remove("SENTINEL_API_KEY");
                c
            },
            &std::fs::read(Path::new(FIXTURES).join("agents").join(fixture)).unwrap(),
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["permission"], want, "{fixture}: {v}");
    }
    // An install from before preToolUse and beforeMCPExecution were registered: doctor fails.
    std::fs::write(
        &file,
        serde_json::json!({"version": 1, "hooks": {
            "beforeShellExecution": [{"command": lines[0].1}],
            "beforeReadFile": [{"command": lines[0].1}]}})
        .to_string(),
    )
    .unwrap();
    let out = run(&home, &home, &["doctor", "--agent", "cursor"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("not for beforeMCPExecution, preToolUse: those calls are not checked"),
        "{}",
        text(&out)
    );
}

/// Everything below `home` but SENTINEL_HOME, as relative paths.
fn left_in(home: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![home.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p == home.join(".agentos") {
                continue;
            }
            out.push(p.strip_prefix(home).unwrap().display().to_string());
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

/// install, install --statusline, uninstall (and each other agent's install and uninstall) from a
/// home without any agent's folder: nothing is left behind, no `{}`, no backup, no empty folder.
/// Folders and files that were there before stay, even when empty.
#[test]
fn install_then_uninstall_leaves_nothing_behind_and_keeps_what_was_there() {
    for before in [&[][..], &[".claude/projects", ".codex", ".gemini/tmp"][..]] {
        let dir = common::scratch("left-behind");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        for d in before {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        let had = left_in(&home);
        for args in [
            &["install"][..],
            &["install", "--statusline"],
            &["uninstall"],
        ] {
            let out = run(&home, &home, args);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
        }
        assert_eq!(
            left_in(&home),
            had,
            "after Claude Code's install and uninstall"
        );
        for agent in ["codex", "gemini", "cursor", "copilot"] {
            for args in [
                &["install", "--agent", agent][..],
                &["uninstall", "--agent", agent],
            ] {
                let out = run(&home, &home, args);
                assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
            }
            assert_eq!(left_in(&home), had, "after {agent}'s install and uninstall");
        }
    }
    // A folder that held something when uninstall ran stays (here: Claude Code's own file).
    let dir = common::scratch("left-behind-used");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    run(&home, &home, &["install", "--statusline"]);
    std::fs::write(home.join(".claude/history.jsonl"), "{}\n").unwrap();
    run(&home, &home, &["uninstall"]);
    assert_eq!(left_in(&home), [".claude", ".claude/history.jsonl"]);
}
