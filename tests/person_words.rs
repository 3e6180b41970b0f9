//! Issue 31, one switch and one vocabulary: `off:` switches a bundled behaviour off wherever it
//! lives, `suggest` learns from deferred calls, a credential read gets one answer by any tool, a
//! spec's deny without `instead` is a warning, `check` speaks the hook's words, `stats` knows its
//! sessions. Through the built binary, with scratch homes under the target dir.

#[path = "person_home/env.rs"]
mod env;

use env::{Env, check, common, hook, text};
use serde_json::Value;

/// `off:` of the bundled hard-block line switches off the spec denies of the commands it names;
/// `off: [NAME]` the one spec deny; every deny reason says whose file decided.
#[test]
fn off_switches_a_behaviour_off_wherever_it_lives() {
    let env = Env::new();
    let agentos = env.home().join(".agentos");
    std::fs::create_dir_all(&agentos).unwrap();
    let (verdict, reason) = check(&env, "git stash drop");
    assert_eq!(verdict, "deny");
    assert!(
        reason.contains("blocked by bundled hard_block_commands.txt:"),
        "{reason}"
    );

    // Only the spec's deny: the bundled hard-block line still stands, and says it is bundled.
    std::fs::write(
        agentos.join("hard_block_commands.txt"),
        "off: [git stash drop]\n^make deploy   # production\n",
    )
    .unwrap();
    let (verdict, reason) = check(&env, "git stash drop");
    assert_eq!(verdict, "deny");
    assert!(
        reason.contains("bundled hard_block_commands.txt:"),
        "{reason}"
    );
    let (verdict, reason) = check(&env, "make deploy");
    assert_eq!(verdict, "deny");
    assert!(
        reason.contains("blocked by your hard_block_commands.txt:2"),
        "{reason}"
    );

    // The bundled line: both spec denies it names go with it, and nothing else changes.
    let line = "^git( \\S+)* stash (drop|clear)( |$)";
    std::fs::write(
        agentos.join("hard_block_commands.txt"),
        format!("off: {line}\n"),
    )
    .unwrap();
    for command in [
        "git stash drop",
        "git stash drop stash@{1}",
        "git -C . stash drop -q",
        "git stash clear",
    ] {
        let (verdict, reason) = check(&env, command);
        assert_ne!(verdict, "deny", "{command}: {reason}");
    }
    for command in [
        "git push --force origin main",
        "git reset --hard",
        "git clean -fdx",
        "rm -rf ~",
    ] {
        assert_eq!(check(&env, command).0, "deny", "{command}");
    }
    let diff = text(&env.run(&["rules", "diff"]).stdout);
    assert!(
        diff.contains("the deny of bundled commands/git.toml:")
            && diff.contains("[git stash drop]")
            && diff.contains("[git stash clear]"),
        "{diff}"
    );
    // Through the hook, as the agent sees it.
    let event = r#"{"session_id":"s31","hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","permission_mode":"default","tool_input":{"command":"git stash drop"}}"#;
    let out = common::feed(
        {
            let mut c = common::sentinel(&agentos);
            c.arg("hook").env("HOME", env.home());
            c
        },
        event.as_bytes(),
    );
    assert!(!text(&out.stdout).contains("\"deny\""), "{out:?}");
}

/// Without a key every uncertain call is deferred to Claude Code's prompt: suggest learns from
/// those, and a command seen once proposes nothing.
#[test]
fn suggest_learns_from_deferred_calls_never_from_one() {
    let env = Env::new();
    for (session, command) in [
        ("s1", "mytool lint src"),
        ("s2", "mytool lint src"),
        ("s2", "othertool once"),
    ] {
        let out = hook(&env, session, command);
        assert!(out.stdout.is_empty(), "deferred: {out:?}");
    }
    let out = env.run(&["suggest", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v["suggestions"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{v}");
    assert_eq!(v["decisions"], 3);
    assert_eq!(list[0]["pattern"], "^mytool lint src$");
    assert_eq!(list[0]["evidence"]["deferred"], 2);
}

/// A credential read gets one answer whichever tool reads it, in every permission mode.
#[test]
fn credential_reads_get_one_answer_by_any_tool() {
    let env = Env::new();
    let home = env.home();
    let answer = |mode: &str, tool: &str, input: Value| {
        let event = serde_json::json!({
            "session_id": "cred", "hook_event_name": "PreToolUse", "cwd": env.proj(),
            "permission_mode": mode, "tool_name": tool, "tool_input": input,
        });
        let mut c = common::sentinel(&home.join(".agentos"));
        c.arg("hook").env("HOME", &home);
        let out = common::feed(c, event.to_string().as_bytes());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("defer")
            .to_string()
    };
    for mode in [
        "default",
        "auto",
        "acceptEdits",
        "bypassPermissions",
        "plan",
    ] {
        for (file, shell) in [
            (home.join(".ssh/id_rsa"), "cat ~/.ssh/id_rsa"),
            (home.join(".aws/credentials"), "head -3 ~/.aws/credentials"),
            (env.proj().join(".env"), "cat .env"),
        ] {
            let read = answer(mode, "Read", serde_json::json!({"file_path": file}));
            let bash = answer(mode, "Bash", serde_json::json!({"command": shell}));
            assert_eq!(read, "ask", "{mode} Read {}", file.display());
            assert_eq!(bash, read, "{mode}: `{shell}`");
        }
        // Neighbours stay allowed.
        let readme = env.proj().join("README.md");
        assert_eq!(
            answer(mode, "Read", serde_json::json!({"file_path": readme})),
            "allow"
        );
        assert_eq!(
            answer(
                mode,
                "Bash",
                serde_json::json!({"command": "cat README.md"})
            ),
            "allow",
            "{mode}"
        );
        assert_eq!(
            answer(
                mode,
                "Bash",
                serde_json::json!({"command": "cat .env.example"})
            ),
            "allow",
            "{mode}"
        );
    }
}

/// A person's spec whose deny names no alternative still denies, is a lint warning, and turns
/// no allow into ask; every bundled deny names its alternative.
#[test]
fn a_deny_without_instead_is_a_warning_not_a_switch() {
    let specs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/commands");
    for entry in std::fs::read_dir(&specs).unwrap() {
        let path = entry.unwrap().path();
        let missing =
            sentinel::local::spec::check::missing_instead(&std::fs::read_to_string(&path).unwrap());
        assert!(missing.is_empty(), "{}: {missing:?}", path.display());
    }
    let env = Env::new();
    let commands = env.home().join(".agentos/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("frob.toml"),
        "[\"frob\"]\nabout = \"frobs\"\noperands = \"\"\ndeny = \"it frobs everything\"\n\n[\"frob2\"]\nabout = \"x\"\noptions.\"--all\" = \"deny: takes everything\"\noperands = \"\"\n",
    )
    .unwrap();
    let (verdict, reason) = check(&env, "frob");
    assert_eq!(verdict, "deny", "{reason}");
    assert!(
        reason.contains("blocked by your commands/frob.toml:1"),
        "{reason}"
    );
    assert_eq!(check(&env, "frob2 --all").0, "deny");
    assert_eq!(check(&env, "git status").0, "allow", "no allow becomes ask");
    let out = env.run(&["rules", "lint"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let said = text(&out.stdout);
    assert!(
        said.contains("frob.toml:4: warning: a deny without `; instead: …`"),
        "{said}"
    );
    assert!(said.contains("frob.toml:8: warning"), "{said}");
    assert!(
        said.contains("ok: ") && said.contains("2 warnings"),
        "{said}"
    );
    assert!(
        out.stderr.is_empty(),
        "success is on stdout: {}",
        text(&out.stderr)
    );
}

/// `check` speaks the hook's words: allow, ask, deny or defer, whatever the flags, with Tier 1's
/// uncertainty in a field of its own; a file tool given a command is a usage error.
#[test]
fn check_answers_in_the_hooks_words() {
    let env = Env::new();
    let json = |args: &[&str]| {
        let out = env.run(&[&["check", "--json"], args].concat());
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
        (
            v["verdict"].as_str().unwrap().to_string(),
            v["uncertain"].clone(),
            out.status.code(),
        )
    };
    let words = ["allow", "ask", "deny", "defer"];
    for (args, verdict, uncertain) in [
        (vec!["frobnicate x"], "ask", true),
        (vec!["--offline", "frobnicate x"], "ask", true),
        (
            vec!["--permission-mode", "default", "frobnicate x"],
            "defer",
            true,
        ),
        (
            vec!["--permission-mode", "bypassPermissions", "frobnicate x"],
            "ask",
            true,
        ),
        (vec!["git status"], "allow", false),
        (vec!["--offline", "rm -rf ~"], "deny", false),
        (vec!["--tool", "TodoWrite", "--path", "x"], "defer", false),
        // A plain fetch follows the mode, as an edit does (docs/mcp.md).
        (
            vec!["--tool", "WebFetch", "--path", "https://example.com"],
            "allow",
            false,
        ),
        (
            vec![
                "--permission-mode",
                "default",
                "--tool",
                "WebFetch",
                "--path",
                "https://example.com",
            ],
            "defer",
            false,
        ),
    ] {
        let (got, unc, code) = json(&args);
        assert!(words.contains(&got.as_str()), "{args:?}: {got}");
        assert_eq!(got, verdict, "{args:?}");
        assert_eq!(unc, uncertain, "{args:?}");
        let text_out = text(&env.run(&[&["check"], args.as_slice()].concat()).stdout);
        assert!(
            text_out.starts_with(&format!("verdict: {verdict}\n")),
            "{text_out}"
        );
        assert_eq!(
            text_out.contains("\nuncertain: yes"),
            uncertain,
            "{text_out}"
        );
        assert_eq!(
            code,
            Some(match verdict {
                "allow" => 0,
                "deny" => 2,
                _ => 3,
            })
        );
    }
    for args in [
        vec!["check", "git status", "--tool", "Read"],
        vec!["check", "--tool", "Read", "--path", "x", "git status"],
        vec!["check", "--tool", "Write"],
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            text(&out.stderr).contains("--path"),
            "{}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
}

/// `stats --session` of a session never recorded is an error that names the way to list them;
/// `--sessions` lists them.
#[test]
fn stats_lists_sessions_and_refuses_an_unknown_one() {
    let env = Env::new();
    let out = env.run(&["stats", "--sessions"]);
    assert_eq!(text(&out.stdout), "no decisions recorded yet\n");
    for (s, c) in [("alpha", "git status"), ("beta", "ls"), ("alpha", "ls -la")] {
        hook(&env, s, c);
    }
    let out = env.run(&["stats", "--session", "gamma"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no decisions recorded for session gamma"));
    assert!(text(&out.stderr).contains("sentinel stats --sessions"));
    let listed = text(&env.run(&["stats", "--sessions"]).stdout);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(lines[0].starts_with("beta  1 decision  "), "{listed}");
    assert!(lines[1].starts_with("alpha  2 decisions  "), "{listed}");
    let v: Value =
        serde_json::from_slice(&env.run(&["stats", "--sessions", "--json"]).stdout).unwrap();
    assert_eq!(v["sessions"][1]["session"], "alpha");
    assert_eq!(v["sessions"][1]["decisions"], 2);
    let one = text(&env.run(&["stats", "--session", "beta"]).stdout);
    assert!(one.contains("sentinel: 1 check — "), "{one}");
}

/// `trust` and `allow-once` report as JSON too.
#[test]
fn trust_and_allow_once_speak_json() {
    let env = Env::new();
    let rules = env.proj().join(".sentinel");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("safe_commands.txt"), "^task test$\n").unwrap();
    let out = env.run(&["trust", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(
        (v["ok"].clone(), v["trusted"].clone()),
        (true.into(), true.into())
    );
    assert_eq!(v["files"][0]["name"], "safe_commands.txt");
    assert!(
        v["loosening"][0].as_str().unwrap().contains("^task test$"),
        "{v}"
    );
    let v: Value =
        serde_json::from_slice(&env.run(&["trust", "--revoke", "--json"]).stdout).unwrap();
    assert_eq!(
        (v["trusted"].clone(), v["was_trusted"].clone()),
        (false.into(), true.into())
    );

    let out = hook(&env, "ao", "git push --force origin main");
    let reason = text(&out.stdout);
    let code = reason
        .split("sentinel allow-once ")
        .nth(1)
        .and_then(|r| r.get(..6))
        .unwrap_or_else(|| panic!("{reason}"))
        .to_string();
    let v: Value =
        serde_json::from_slice(&env.run(&["allow-once", &code, "--json"]).stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["subject"], "git push --force origin main");
    assert!(
        v["refused"]
            .as_str()
            .unwrap()
            .contains("blocked by bundled")
    );
}
