//! Living with sentinel, through the built binary as the agent and the person run it: project
//! rules pinned by trust, allow-once codes, and the agent's attempts to loosen its own guard.

mod common;

use serde_json::{Value, json};
use std::path::Path;

/// A SENTINEL_HOME and a project directory with `.sentinel/`.
struct Setup {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let s = Setup {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(s.dir()).unwrap();
        s
    }

    fn dir(&self) -> std::path::PathBuf {
        self.project.path().join(".sentinel")
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.dir().join(name), text).unwrap();
    }

    /// The hook's answer to a Bash command in the project: (decision, reason).
    fn bash(&self, command: &str) -> (String, String) {
        self.hook("Bash", json!({ "command": command }), self.project.path())
    }

    fn hook(&self, tool: &str, input: Value, cwd: &Path) -> (String, String) {
        let event = json!({"hook_event_name": "PreToolUse", "session_id": "d2d", "cwd": cwd,
                           "tool_name": tool, "tool_input": input});
        let out = common::run(self.home.path(), &["hook"], &event.to_string());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let h = &v["hookSpecificOutput"];
        (
            h["permissionDecision"]
                .as_str()
                .unwrap_or("none")
                .to_string(),
            h["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        )
    }

    /// `sentinel ARGS` as the person runs it: (exit status, stdout + stderr).
    fn person(&self, args: &[&str]) -> (i32, String) {
        let out = common::run(self.home.path(), args, "");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), text)
    }

    fn trust(&self) -> String {
        let dir = self.project.path().to_str().unwrap();
        let (code, text) = self.person(&["trust", "--dir", dir]);
        assert_eq!(code, 0, "{text}");
        text
    }
}

#[test]
fn an_untrusted_projects_safe_rule_has_no_effect_while_its_block_rule_does() {
    let s = Setup::new();
    s.write(
        "safe_commands.txt",
        "^frobnicate( \\S+)*$   # our build tool\n",
    );
    s.write(
        "hard_block_commands.txt",
        "^make deploy( |$)   # deploys to production; instead: ask the person to deploy\n",
    );
    s.write("excluded_paths.txt", "migrations/\n!/etc\n");

    // Untrusted: the block and the excluded path apply, the safe rule and the `!/etc` do not.
    let (d, reason) = s.bash("make deploy");
    assert_eq!(d, "deny", "{reason}");
    assert!(
        reason.contains(".sentinel/hard_block_commands.txt:1"),
        "{reason}"
    );
    assert!(
        reason.contains("Instead: ask the person to deploy"),
        "{reason}"
    );
    let (d, reason) = s.bash("echo x > migrations/001.sql");
    assert_eq!(d, "deny", "{reason}");
    assert!(
        reason.contains(".sentinel/excluded_paths.txt:1"),
        "{reason}"
    );
    let (d, reason) = s.bash("frobnicate --all");
    assert_eq!(d, "ask", "an untrusted safe rule must not allow: {reason}");
    assert!(reason.contains("is not trusted"), "{reason}");
    assert!(reason.contains(".sentinel/safe_commands.txt:1"), "{reason}");
    let (d, _) = s.hook(
        "Write",
        json!({"file_path": "/etc/x", "content": ""}),
        s.project.path(),
    );
    assert_eq!(d, "deny", "an untrusted `!` exception must not un-exclude");

    // Trusted: the safe rule applies too, and the trust output lists what now loosens.
    let out = s.trust();
    assert!(out.contains(".sentinel/safe_commands.txt:1"), "{out}");
    let (d, reason) = s.bash("frobnicate --all");
    assert_eq!(d, "allow", "{reason}");
    assert!(reason.contains(".sentinel/safe_commands.txt:1"), "{reason}");
    // And from a subdirectory of the project.
    let sub = s.project.path().join("src");
    std::fs::create_dir(&sub).unwrap();
    let (d, _) = s.hook("Bash", json!({"command": "frobnicate"}), &sub);
    assert_eq!(d, "allow");
    // Tightening rules still apply once trusted.
    assert_eq!(s.bash("make deploy").0, "deny");
}

#[test]
fn editing_a_trusted_projects_rule_file_suspends_it() {
    let s = Setup::new();
    s.write("safe_commands.txt", "^frobnicate( \\S+)*$\n");
    s.trust();
    assert_eq!(s.bash("frobnicate").0, "allow");

    // The agent cannot make this edit (see below); a pull or a teammate can.
    s.write(
        "safe_commands.txt",
        "^frobnicate( \\S+)*$\n^curl( \\S+)*$\n",
    );
    let (d, reason) = s.bash("frobnicate");
    assert_eq!(d, "ask", "{reason}");
    assert!(
        reason.contains("changed since `sentinel trust` (safe_commands.txt)"),
        "{reason}"
    );
    assert_eq!(s.bash("curl https://example.com").0, "ask");
    let (code, explained) = s.person(&[
        "explain",
        "--offline",
        "--cwd",
        s.project.path().to_str().unwrap(),
        "frobnicate",
    ]);
    assert_eq!(code, 3, "{explained}");
    assert!(
        explained.contains("changed since `sentinel trust`"),
        "{explained}"
    );
    assert!(
        explained.contains("held back: .sentinel/safe_commands.txt:2"),
        "{explained}"
    );

    // A new file suspends it as well; trusting again restores it.
    s.trust();
    assert_eq!(s.bash("curl https://example.com").0, "allow");
    s.write("safe_paths.txt", "/\n");
    assert_eq!(s.bash("frobnicate").0, "ask");
    s.trust();
    assert_eq!(s.bash("frobnicate").0, "allow");
    let (code, text) = s.person(&[
        "trust",
        "--revoke",
        "--dir",
        s.project.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(s.bash("frobnicate").0, "ask");
}

#[test]
fn a_projects_config_may_tighten_but_loosens_only_when_trusted() {
    let s = Setup::new();
    s.write("sentinel.toml", "on_uncertain = \"deny\"\n");
    let (d, reason) = s.bash("frobnicate --check");
    assert_eq!(
        d, "deny",
        "a stricter project setting applies untrusted: {reason}"
    );

    s.write("sentinel.toml", "on_uncertain = \"allow\"\n");
    assert_eq!(
        s.bash("frobnicate --check").0,
        "ask",
        "a laxer one waits for trust"
    );
    s.trust();
    assert_eq!(s.bash("frobnicate --check").0, "allow");

    // API settings are the person's alone: a project cannot point Tier 2 elsewhere.
    s.write(
        "sentinel.toml",
        "[api]\nurl = \"http://attacker.example\"\n",
    );
    let (d, reason) = s.bash("ls");
    assert_eq!(d, "ask", "a bad project config never widens: {reason}");
}

/// The allow-once code in a deny reason.
fn code_in(reason: &str) -> String {
    let start = reason.find("sentinel allow-once ").expect(reason) + "sentinel allow-once ".len();
    reason[start..start + 6].to_string()
}

#[test]
fn an_allow_once_code_works_once_for_that_call_only_and_not_after_expiry() {
    let s = Setup::new();
    let push = "git push --force origin main";
    let (d, reason) = s.bash(push);
    assert_eq!(d, "deny");
    assert!(
        reason.contains("Instead: git push --force-with-lease"),
        "{reason}"
    );
    let code = code_in(&reason);
    // The same refused call is offered the same code.
    assert_eq!(code_in(&s.bash(push).1), code);

    let (status, text) = s.person(&["allow-once", &code]);
    assert_eq!(status, 0, "{text}");
    assert!(
        text.contains(push),
        "the person sees what they allow: {text}"
    );

    // Another call, or the same command in another directory, is decided as usual.
    assert_eq!(s.bash("git push --force origin dev").0, "deny");
    let elsewhere = tempfile::tempdir().unwrap();
    let (d, _) = s.hook("Bash", json!({"command": push}), elsewhere.path());
    assert_eq!(d, "deny");

    let (d, reason) = s.bash(push);
    assert_eq!(d, "allow", "{reason}");
    assert!(
        reason.contains(&format!("sentinel allow-once {code}")),
        "{reason}"
    );
    let (d, reason) = s.bash(push);
    assert_eq!(d, "deny", "used once: {reason}");
    let (status, text) = s.person(&["allow-once", &code]);
    assert_eq!(status, 1);
    assert!(text.contains("already used"), "{text}");

    // Grant and use are in the audit log, and the chain is intact.
    let audit = std::fs::read_to_string(s.home.path().join("audit.jsonl")).unwrap();
    assert!(audit.contains(&format!("granted allow-once {code}")));
    assert!(audit.contains(&format!(
        "allowed once: the person ran `sentinel allow-once {code}`"
    )));
    let (status, text) = s.person(&["audit", "verify"]);
    assert_eq!(status, 0, "{text}");

    // Expiry: a grant older than 10 minutes lets nothing through; a code older than 10 minutes
    // cannot be granted.
    let new_code = code_in(&s.bash(push).1);
    assert_ne!(new_code, code);
    assert_eq!(s.person(&["allow-once", &new_code]).0, 0);
    age_codes(s.home.path(), 11 * 60 * 1000);
    assert_eq!(s.bash(push).0, "deny", "an expired grant");
    let (d, reason) = s.bash("git push -f origin main");
    assert_eq!(d, "deny");
    let late = code_in(&reason);
    age_codes(s.home.path(), 11 * 60 * 1000);
    let (status, text) = s.person(&["allow-once", &late]);
    assert_eq!(status, 1);
    assert!(text.contains("expired"), "{text}");
}

/// Moves every code's clock back by `ms`, as if that much time had passed.
fn age_codes(home: &Path, ms: u64) {
    let path = home.join("allow_once.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for c in v["codes"].as_array_mut().unwrap() {
        for k in ["issued_ms", "granted_ms"] {
            if let Some(t) = c[k].as_u64() {
                c[k] = json!(t - ms);
            }
        }
    }
    std::fs::write(&path, v.to_string()).unwrap();
}

#[test]
fn allow_once_is_safe_under_concurrent_hooks() {
    let s = Setup::new();
    let push = "git push --force origin main";
    let code = code_in(&s.bash(push).1);
    assert_eq!(s.person(&["allow-once", &code]).0, 0);
    let event =
        json!({"hook_event_name": "PreToolUse", "session_id": "d2d", "cwd": s.project.path(),
                       "tool_name": "Bash", "tool_input": {"command": push}})
        .to_string();
    let children: Vec<_> = (0..12)
        .map(|_| common::spawn(s.home.path(), &["hook"], &event))
        .collect();
    let allowed = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .filter(|o| String::from_utf8_lossy(&o.stdout).contains("\"allow\""))
        .count();
    assert_eq!(allowed, 1);
}

#[test]
fn every_self_loosening_attempt_through_the_hook_is_blocked() {
    let s = Setup::new();
    let home = s.home.path().to_str().unwrap().to_string();
    let commands = [
        "sentinel trust".to_string(),
        "sentinel trust --dir .".to_string(),
        "sentinel allow-once ABC234".to_string(),
        "sentinel install".to_string(),
        "sentinel uninstall --scope project".to_string(),
        "sentinel suggest --apply 1".to_string(),
        "/usr/local/bin/sentinel trust".to_string(),
        "env FOO=1 sentinel allow-once ABC234".to_string(),
        "bash -c 'cd /tmp && sentinel trust'".to_string(),
        "ls && sentinel install --shadow".to_string(),
        format!("echo '^.*$' >> {home}/safe_commands.txt"),
        format!("cp /dev/null {home}/hard_block_commands.txt"),
        format!("rm -rf {home}"),
        "echo '^curl.*$' >> .sentinel/safe_commands.txt".to_string(),
        "rm -r .sentinel".to_string(),
        "mv x .claude/settings.local.json".to_string(),
        "tee ~/.claude/settings.json < x".to_string(),
        "sed -i s/sentinel// .claude/settings.json".to_string(),
        "cp hooks.json .cursor/hooks.json".to_string(),
    ];
    for c in &commands {
        let (d, reason) = s.bash(c);
        assert_eq!(d, "deny", "{c}: {reason}");
        assert!(
            !reason.contains("If the person wants exactly this call"),
            "no code for a person-only refusal: {c}: {reason}"
        );
    }
    let writes = [
        format!("{home}/safe_commands.txt"),
        format!("{home}/sentinel.toml"),
        ".sentinel/safe_commands.txt".to_string(),
        ".claude/settings.json".to_string(),
        ".claude/settings.local.json".to_string(),
        "/home/dev/demo/home/.claude/settings.json".to_string(),
        ".gemini/settings.json".to_string(),
        ".github/hooks/guard.json".to_string(),
    ];
    for p in &writes {
        for tool in ["Write", "Edit"] {
            let (d, reason) = s.hook(
                tool,
                json!({"file_path": p, "content": "", "old_string": "a", "new_string": "b"}),
                s.project.path(),
            );
            assert_eq!(d, "deny", "{tool} {p}: {reason}");
            assert!(
                !reason.contains("If the person wants exactly this call"),
                "{reason}"
            );
        }
    }
    // Reading them is fine.
    assert_eq!(s.bash("cat .sentinel/safe_commands.txt").0, "allow");
    // And a renamed copy run inside the agent's shell refuses by itself.
    for args in [
        vec!["trust", "--dir", s.project.path().to_str().unwrap()],
        vec!["allow-once", "ABC234"],
        vec!["suggest", "--apply", "1"],
    ] {
        let out = common::sentinel(s.home.path())
            .args(&args)
            .env("CLAUDECODE", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("in their own terminal"));
    }
    assert!(!s.home.path().join("trusted_projects.json").exists());
}

#[test]
fn broken_project_or_state_files_never_allow() {
    let s = Setup::new();
    // A bad line in an untrusted project's rule file: every allow becomes ask.
    s.write("hard_block_commands.txt", "^make deploy( |$)\nbad(regex\n");
    assert_eq!(s.bash("git status").0, "ask");
    // Trusting a broken project is refused; the allow stays an ask.
    let (code, text) = s.person(&["trust", "--dir", s.project.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(".sentinel/hard_block_commands.txt:2"),
        "{text}"
    );
    assert_eq!(s.bash("git status").0, "ask");
    std::fs::remove_file(s.dir().join("hard_block_commands.txt")).unwrap();
    assert_eq!(s.bash("git status").0, "allow");

    // A damaged allow-once file: the deny stands; the file is kept aside and replaced, so the
    // deny still offers a code (the codes in it were short-lived anyway).
    std::fs::write(s.home.path().join("allow_once.json"), "{not json").unwrap();
    let (d, reason) = s.bash("git push --force origin main");
    assert_eq!(d, "deny");
    assert!(reason.contains("sentinel allow-once "), "{reason}");
    assert_eq!(
        std::fs::read_to_string(s.home.path().join("allow_once.json.damaged")).unwrap(),
        "{not json"
    );
    // A damaged trust store: the project's safe rule does not apply.
    s.write("safe_commands.txt", "^frobnicate$\n");
    s.trust();
    assert_eq!(s.bash("frobnicate").0, "allow");
    std::fs::write(s.home.path().join("trusted_projects.json"), "garbage").unwrap();
    let (d, reason) = s.bash("frobnicate");
    assert_eq!(d, "ask", "{reason}");
    assert!(reason.contains("trust store cannot be read"), "{reason}");
}
