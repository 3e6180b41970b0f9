//! Issue 31, the person stays in charge: install and uninstall know the Claude Code plugin (a
//! purge never leaves a hook that refuses every call), a project keeps no `{}` nor backup, and
//! doctor tells the truth (an unseeded home, a double registration, fixes that keep
//! `--settings`, a self-test through the registered hook, a documented JSON shape). Through the
//! built binary, with scratch homes under the target dir.

#[path = "person_home/env.rs"]
mod env;

use env::{Env, PLUGIN_ON, hook, read, text};
use serde_json::Value;

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
    // Nor the folder install made for it.
    assert!(!claude.exists(), "{}", text(&out.stdout));

    // A file the project had: given back as it was, and still no backup beside it.
    std::fs::create_dir_all(&claude).unwrap();
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

/// The self-test runs the registered command line under the person's mode: a hook registered
/// with `--shadow`, or `mode = "shadow"` in sentinel.toml, enforces nothing and the check says so
/// (a warning, never "denies `rm -rf ~`"); guard mode never allows.
#[test]
fn doctor_says_what_the_registered_hook_enforces() {
    let env = Env::new();
    let selftest = |env: &Env| {
        env.doctor(&[])
            .into_iter()
            .find(|c| c["name"] == "selftest")
            .unwrap()
    };
    assert_eq!(env.run(&["install", "--shadow"]).status.code(), Some(0));
    let s = selftest(&env);
    assert_eq!(s["status"], "warn", "{s}");
    let detail = s["detail"].as_str().unwrap();
    assert!(
        detail.contains("--shadow") && detail.contains("It enforces nothing"),
        "{s}"
    );
    assert!(!detail.contains("deny for"), "{s}");
    assert!(
        s["fix"].as_str().unwrap().contains("without --shadow"),
        "{s}"
    );

    assert_eq!(env.run(&["install"]).status.code(), Some(0));
    assert_eq!(selftest(&env)["status"], "ok");
    let toml = env.home().join(".agentos/sentinel.toml");
    let seeded = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("mode = \"shadow\"\n{seeded}")).unwrap();
    let s = selftest(&env);
    assert_eq!(s["status"], "warn", "{s}");
    assert!(
        s["detail"].as_str().unwrap().contains("mode = shadow"),
        "{s}"
    );
    assert!(
        s["detail"]
            .as_str()
            .unwrap()
            .contains("It enforces nothing"),
        "{s}"
    );

    std::fs::write(&toml, format!("mode = \"guard\"\n{seeded}")).unwrap();
    let s = selftest(&env);
    assert_eq!(s["status"], "ok", "{s}");
    assert!(
        s["detail"]
            .as_str()
            .unwrap()
            .contains("no answer for `git status` (left to Claude Code's own prompt)"),
        "{s}"
    );
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
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
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

/// `doctor --json`: the documented shape, every check name among the documented ones, and the
/// checks of issue 31 (double registration, mode, unseeded home, self-test) each reported.
#[test]
fn doctor_json_has_the_documented_shape() {
    let documented = [
        "settings",
        "hook",
        "binary",
        "matcher",
        "rules",
        "config",
        "home",
        "mode",
        "tier2",
        "selftest",
        "env",
        "project",
        "containment",
        "policy",
        "export",
    ];
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents.md"),
    )
    .unwrap();
    for name in documented {
        assert!(docs.contains(&format!("`{name}`")), "{name} is documented");
    }
    let env = Env::new();
    std::fs::write(env.user_settings(), PLUGIN_ON).unwrap();
    env.run(&["install", "--seed-only"]);
    let mut seen = std::collections::BTreeSet::new();
    let mut scenario = |toml: &str, install: bool| {
        std::fs::write(env.home().join(".agentos/sentinel.toml"), toml).unwrap();
        if install {
            env.run(&["install"]);
        }
        let out = env.run(&["doctor", "--json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["checks", "ok"]);
        assert_eq!(v["ok"], out.status.code() == Some(0));
        for c in v["checks"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            assert!(documented.contains(&name), "{name}");
            assert!(["ok", "warn", "fail"].contains(&c["status"].as_str().unwrap()));
            assert!(c["detail"].is_string());
            for k in c.as_object().unwrap().keys() {
                assert!(
                    ["name", "status", "detail", "fix"].contains(&k.as_str()),
                    "{k}"
                );
            }
            seen.insert((name.to_string(), c["status"].as_str().unwrap().to_string()));
        }
    };
    scenario("mode = \"shadow\"\n", false);
    scenario("mode = \"guard\"\n", true);
    std::fs::remove_file(env.home().join(".agentos/sentinel.toml")).unwrap();
    let out = env.run(&["doctor", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for c in v["checks"].as_array().unwrap() {
        seen.insert((
            c["name"].as_str().unwrap().to_string(),
            c["status"].as_str().unwrap().to_string(),
        ));
    }
    for want in [
        ("hook", "warn"),   // settings entry and plugin: judged twice
        ("mode", "warn"),   // shadow, guard
        ("home", "warn"),   // not seeded
        ("selftest", "ok"), // the registered hook answers as it should
        ("tier2", "ok"),
        ("matcher", "ok"),
    ] {
        assert!(
            seen.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} in {seen:?}"
        );
    }
}

/// `install`, `uninstall` and `audit verify` report as JSON too.
#[test]
fn install_uninstall_and_verify_speak_json() {
    let env = Env::new();
    std::fs::write(env.user_settings(), PLUGIN_ON).unwrap();
    let v: Value = serde_json::from_slice(&env.run(&["install", "--json"]).stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["changed"], true);
    assert_eq!(v["plugin"][0]["id"], "sentinel@sentinel");
    assert!(v["warnings"][0].as_str().unwrap().contains("judged twice"));
    hook(&env, "j1", "git status");
    let v: Value = serde_json::from_slice(&env.run(&["audit", "verify", "--json"]).stdout).unwrap();
    assert_eq!(
        (v["ok"].clone(), v["status"].clone()),
        (true.into(), "intact".into())
    );
    assert_eq!(v["records"], 1);
    let out = env.run(&["uninstall", "--purge", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["changed"], true);
    assert_eq!(v["plugin"][0]["state"], "switched off");
    assert!(
        v["removed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().ends_with(".agentos")),
        "{v}"
    );
}
