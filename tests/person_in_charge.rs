//! Issue 31, the person stays in charge: install and uninstall know the Claude Code plugin (a
//! purge never leaves a hook that refuses every call), a project keeps no `{}` nor backup, and
//! doctor tells the truth (an unseeded home, a double registration, fixes that keep
//! `--settings`, a self-test through the registered hook). Through the built binary, with
//! scratch homes under the target dir.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new()
            .prefix("person31")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        for d in ["home/.claude", "proj"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Env { dir }
    }
    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    fn proj(&self) -> PathBuf {
        self.dir.path().join("proj")
    }
    fn user_settings(&self) -> PathBuf {
        self.home().join(".claude/settings.json")
    }
    fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        common::sentinel(&self.home().join(".agentos"))
            .args(args)
            .current_dir(cwd)
            .env("HOME", self.home())
            .env("CLAUDE_PROJECT_DIR", self.proj())
            .output()
            .unwrap()
    }
    fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.proj(), args)
    }
    fn doctor(&self, args: &[&str]) -> Vec<Value> {
        let out = self.run(&[&["doctor", "--json"], args].concat());
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        v["checks"].as_array().unwrap().clone()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

const PLUGIN_ON: &str =
    r#"{"theme":"dark","enabledPlugins":{"sentinel@sentinel":true,"other@x":true}}"#;

#[test]
fn install_warns_of_the_plugin_and_purge_switches_it_off() {
    let env = Env::new();
    std::fs::write(env.user_settings(), PLUGIN_ON).unwrap();
    let out = env.run(&["install"]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains("also enabled") && err.contains("judged twice"),
        "{err}"
    );
    assert!(
        err.contains("claude plugin uninstall sentinel@sentinel"),
        "{err}"
    );
    let checks = env.doctor(&[]);
    let hook = checks.iter().find(|c| c["name"] == "hook").unwrap();
    assert_eq!(hook["status"], "warn", "{hook}");
    assert!(hook["detail"].as_str().unwrap().contains("judged twice"));

    // A plain uninstall keeps the plugin (it still guards, its binary is there) and says so.
    let out = env.run(&["uninstall"]);
    let said = text(&out.stdout);
    assert!(
        said.contains("still enabled")
            && said.contains("claude plugin uninstall sentinel@sentinel"),
        "{said}"
    );
    assert_eq!(
        read(&env.user_settings())["enabledPlugins"]["sentinel@sentinel"],
        true
    );

    // --purge removes what the plugin's hook runs: the plugin is switched off, the rest kept.
    env.run(&["install"]);
    let out = env.run(&["uninstall", "--purge"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("switched off the plugin sentinel@sentinel"),
        "{said}"
    );
    let v = read(&env.user_settings());
    assert_eq!(
        v,
        serde_json::json!({"theme":"dark","enabledPlugins":{"sentinel@sentinel":false,"other@x":true}})
    );
    assert!(!env.home().join(".agentos").exists());
}

#[test]
fn purge_names_but_leaves_a_projects_plugin_switch() {
    let env = Env::new();
    let project_settings = env.proj().join(".claude/settings.json");
    std::fs::create_dir_all(project_settings.parent().unwrap()).unwrap();
    std::fs::write(&project_settings, PLUGIN_ON).unwrap();
    let out = env.run(&["uninstall", "--purge"]);
    let said = text(&out.stdout);
    assert!(
        said.contains("enabled in the project's") && said.contains("claude plugin uninstall"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(&project_settings).unwrap(),
        PLUGIN_ON
    );
}

/// `--scope project` writes into a repository: uninstall leaves neither `{}` nor a backup there.
#[test]
fn a_project_keeps_no_empty_file_nor_backup() {
    let env = Env::new();
    let claude = env.proj().join(".claude");
    let settings = claude.join("settings.json");
    assert_eq!(
        env.run(&["install", "--scope", "project"]).status.code(),
        Some(0)
    );
    assert!(settings.exists());
    let out = env.run(&["uninstall", "--scope", "project"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!settings.exists(), "{}", text(&out.stdout));
    let left: Vec<_> = std::fs::read_dir(&claude).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");

    // A file the project had: given back as it was, and still no backup beside it.
    std::fs::write(&settings, r#"{"permissions":{"allow":["Bash(ls)"]}}"#).unwrap();
    env.run(&["install", "--scope", "project"]);
    env.run(&["install", "--scope", "local"]);
    env.run(&["uninstall", "--scope", "project"]);
    env.run(&["uninstall", "--scope", "local"]);
    assert_eq!(
        read(&settings),
        serde_json::json!({"permissions":{"allow":["Bash(ls)"]}})
    );
    let names: Vec<String> = std::fs::read_dir(&claude)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["settings.json".to_string()]);

    // The user's own file keeps its one backup.
    std::fs::write(env.user_settings(), "{}").unwrap();
    env.run(&["install"]);
    env.run(&["uninstall"]);
    assert!(sentinel::agents::install::backup_path(&env.user_settings()).exists());
}

#[test]
fn doctor_keeps_the_settings_file_in_its_fixes_and_sees_an_unseeded_home() {
    let env = Env::new();
    let custom = env.dir.path().join("my settings.json");
    let custom_arg = custom.display().to_string();
    let checks = env.doctor(&["--settings", &custom_arg]);
    let hook = checks.iter().find(|c| c["name"] == "hook").unwrap();
    let fix = hook["fix"].as_str().unwrap();
    assert!(
        fix.starts_with(&format!("sentinel install --settings '{custom_arg}'")),
        "{fix}"
    );
    let project = env.doctor(&["--scope", "project"]);
    let fix = project.iter().find(|c| c["name"] == "hook").unwrap()["fix"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(fix.starts_with("sentinel install --scope project"), "{fix}");

    // The plugin route never runs `install`: the home is not seeded, and doctor says so.
    std::fs::write(env.user_settings(), PLUGIN_ON).unwrap();
    let unseeded = |checks: &[Value]| {
        checks
            .iter()
            .any(|c| c["name"] == "home" && c["status"] == "warn")
    };
    let checks = env.doctor(&[]);
    assert!(unseeded(&checks), "{checks:?}");
    let config = checks.iter().find(|c| c["name"] == "config").unwrap();
    assert!(
        config["detail"]
            .as_str()
            .unwrap()
            .contains("no sentinel.toml")
    );
    let out = env.run(&["install", "--seed-only"]);
    assert!(text(&out.stdout).contains("seeded"), "{out:?}");
    assert_eq!(
        read(&env.user_settings()),
        serde_json::from_str::<Value>(PLUGIN_ON).unwrap()
    );
    assert!(!unseeded(&env.doctor(&[])));
    assert!(text(&env.run(&["install", "--seed-only"]).stdout).contains("already seeded"));
}

/// The self-test runs the registered hook as Claude Code would: the real binary passes, a
/// stand-in that allows everything fails, and nothing lands in the person's stats or audit.
#[test]
fn doctor_runs_the_registered_hook() {
    let env = Env::new();
    assert_eq!(env.run(&["install"]).status.code(), Some(0));
    let checks = env.doctor(&[]);
    let selftest = checks.iter().find(|c| c["name"] == "selftest").unwrap();
    assert_eq!(selftest["status"], "ok", "{selftest}");
    let agentos = env.home().join(".agentos");
    assert!(!agentos.join("stats.jsonl").exists());
    assert!(!agentos.join("audit.jsonl").exists());
    let leftovers: Vec<_> = std::fs::read_dir(&agentos)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.starts_with(".doctor").then_some(n)
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // A stand-in named sentinel that allows everything.
    let fake = env.dir.path().join("bin/sentinel");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::write(
        &fake,
        "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut v = read(&env.user_settings());
    for event in ["PreToolUse", "PostToolUse", "SessionEnd"] {
        v["hooks"][event][0]["hooks"][0]["command"] = fake.display().to_string().into();
    }
    std::fs::write(env.user_settings(), v.to_string()).unwrap();
    let out = env.run(&["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let selftest = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "selftest")
        .unwrap()
        .clone();
    assert_eq!(selftest["status"], "fail");
    let detail = selftest["detail"].as_str().unwrap();
    assert!(
        detail.contains("allow for `rm -rf ~` (expected deny)"),
        "{detail}"
    );
}

fn check(env: &Env, command: &str) -> (String, String) {
    let out = env.run(&["check", "--json", command]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    (
        v["verdict"].as_str().unwrap().to_string(),
        v["reason"].as_str().unwrap().to_string(),
    )
}

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

fn hook(env: &Env, session: &str, command: &str) -> Output {
    let event = serde_json::json!({
        "session_id": session, "hook_event_name": "PreToolUse", "cwd": env.proj(),
        "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": command},
    });
    let mut c = common::sentinel(&env.home().join(".agentos"));
    c.arg("hook").env("HOME", env.home());
    common::feed(c, event.to_string().as_bytes())
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
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 1, "{v}");
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
            sentinel::local::spec_check::missing_instead(&std::fs::read_to_string(&path).unwrap());
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
        (
            vec!["--tool", "WebFetch", "--path", "https://example.com"],
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
