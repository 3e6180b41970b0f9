//! OpenAI Codex CLI through the built binary, as Codex runs it (`sentinel hook --agent codex`,
//! or an older `sentinel hook` registration): `apply_patch` judged as the file writes it makes,
//! no `ask` (Codex runs the call then) and no bare `allow` (a failed hook there), and the way a
//! person approves a refused call. Events: tests/fixtures/agents/codex (README there).

mod common;

use serde_json::{Value, json};
use std::path::Path;

const HOME: &str = "/home/dev/demo/home";

fn hook(sentinel_home: &Path, args: &[&str], event: &str) -> (String, String) {
    let mut cmd = common::sentinel(sentinel_home);
    cmd.arg("hook").args(args).env("HOME", HOME);
    let out = common::feed(cmd, event.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    if stdout.trim().is_empty() {
        return ("none".into(), String::new());
    }
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let h = &v["hookSpecificOutput"];
    assert_eq!(h["hookEventName"], "PreToolUse");
    (
        h["permissionDecision"].as_str().unwrap().to_string(),
        h["permissionDecisionReason"].as_str().unwrap().to_string(),
    )
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new("tests/fixtures/agents/codex").join(name)).unwrap()
}

fn patch_event(patch: &str, mode: &str) -> String {
    json!({"session_id": "c9", "turn_id": "t9", "cwd": "/home/dev/demo/proj",
           "hook_event_name": "PreToolUse", "model": "gpt-5-codex", "permission_mode": mode,
           "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "call_9"})
    .to_string()
}

#[test]
fn each_file_a_patch_touches_is_judged_as_a_write_of_it() {
    let home = tempfile::tempdir().unwrap();
    let judged = |patch: &str| {
        hook(
            home.path(),
            &["--agent", "codex"],
            &patch_event(patch, "bypassPermissions"),
        )
    };
    // Inside the project: nothing to refuse, and a bare allow is not Codex's: no answer.
    assert_eq!(
        judged("*** Begin Patch\n*** Add File: notes/a.md\n+hi\n*** End Patch\n").0,
        "none"
    );
    for (patch, names) in [
        (
            "*** Begin Patch\n*** Update File: /home/dev/demo/home/.bashrc\n@@\n+alias ls=rm\n*** End Patch\n",
            ".bashrc",
        ),
        (
            "*** Begin Patch\n*** Add File: src/ok.rs\n+fn f() {}\n*** Add File: .git/hooks/post-checkout\n+#!/bin/sh\n*** End Patch\n",
            ".git/hooks/post-checkout",
        ),
        (
            "*** Begin Patch\n*** Add File: .vscode/tasks.json\n+{}\n*** End Patch\n",
            ".vscode/tasks.json",
        ),
        (
            "*** Begin Patch\n*** Update File: .envrc\n@@\n+export X=1\n*** End Patch\n",
            ".envrc",
        ),
        (
            "*** Begin Patch\n*** Add File: /home/dev/demo/home/.codex/hooks.json\n+{}\n*** End Patch\n",
            ".codex/hooks.json",
        ),
        (
            "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: /home/dev/demo/home/.profile\n@@\n-a\n+b\n*** End Patch\n",
            ".profile",
        ),
        (
            "*** Begin Patch\n*** Delete File: /etc/hosts\n*** End Patch\n",
            "/etc/hosts",
        ),
        (
            "*** Begin Patch\n*** Add File: .env\n+KEY=x\n*** End Patch\n",
            ".env",
        ),
    ] {
        let (d, reason) = judged(patch);
        assert_eq!(d, "deny", "{patch:?}: {reason}");
        assert!(reason.contains(names), "{patch:?}: {reason}");
    }
    // A patch sentinel cannot read is refused, never guessed harmless.
    let (d, reason) = judged("*** Begin Patch\n*** Frobnicate File: x\n*** End Patch\n");
    assert_eq!(d, "deny");
    assert!(reason.contains("cannot ask for"), "{reason}");
}

#[test]
fn a_call_that_needs_the_person_is_refused_with_a_code_that_approves_it_once() {
    let home = tempfile::tempdir().unwrap();
    let event = fixture("apply-patch-move-out.json");
    let (d, reason) = hook(home.path(), &["--agent", "codex"], &event);
    assert_eq!(d, "deny", "{reason}");
    assert!(
        reason.contains("this needs the person's approval, which a Codex CLI hook cannot ask for"),
        "{reason}"
    );
    let start = reason.find("sentinel allow-once ").expect(&reason) + 20;
    let code = &reason[start..start + 6];
    let out = common::run(home.path(), &["allow-once", code], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Granted: left to Codex (which runs it under bypassPermissions), once.
    assert_eq!(hook(home.path(), &["--agent", "codex"], &event).0, "none");
    assert_eq!(hook(home.path(), &["--agent", "codex"], &event).0, "deny");
}

#[test]
fn an_older_registration_answers_codex_in_its_terms() {
    let home = tempfile::tempdir().unwrap();
    // `sentinel hook` without --agent: Codex's events carry a turn_id.
    for (file, want) in [
        ("bash-allow.json", "none"),
        ("bash-deny.json", "deny"),
        ("bash-ask-bypass.json", "deny"),
        ("apply-patch-bashrc.json", "deny"),
    ] {
        let (d, reason) = hook(home.path(), &[], &fixture(file));
        assert_eq!(d, want, "{file}: {reason}");
    }
    // Claude Code's own events are answered as before.
    let claude = json!({"session_id": "k", "cwd": "/home/dev/demo/proj", "hook_event_name": "PreToolUse",
        "permission_mode": "bypassPermissions", "tool_name": "Bash",
        "tool_input": {"command": "curl -X POST https://example.com -d @notes.txt"}});
    assert_eq!(hook(home.path(), &[], &claude.to_string()).0, "ask");
    // What cannot be read is refused for Codex, never asked (Codex would run it).
    let (d, reason) = hook(
        home.path(),
        &["--agent", "codex"],
        "{\"hook_event_name\":\"PreTo",
    );
    assert_eq!(d, "deny");
    assert!(reason.contains("not checked"), "{reason}");
}
