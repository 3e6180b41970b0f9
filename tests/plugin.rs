//! The Claude Code plugin in the repo (`plugin/`: `.claude-plugin/plugin.json`, `hooks/hooks.json`,
//! `scripts/sentinel-hook`; the marketplace file is `.claude-plugin/marketplace.json`): its matchers are the code's one list of judged tools, and its hook
//! runs the installed binary or, when there is none, refuses the call and says how to install it.
//! (The real Claude Code installs it from the repo's marketplace in `tests/e2e/run.py`.)

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json(path: &str) -> Value {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_plugin_hooks_name_every_judged_tool() {
    let hooks = json("plugin/hooks/hooks.json");
    let pre = hooks["hooks"]["PreToolUse"][0]["matcher"].as_str().unwrap();
    assert_eq!(pre, sentinel::call::tools::judged_matcher());
    assert!(sentinel::call::tools::missing_from(pre).is_empty());
    let post = hooks["hooks"]["PostToolUse"][0]["matcher"]
        .as_str()
        .unwrap();
    assert_eq!(post, sentinel::call::tools::POST_TOOL_USE_MATCHER);
    for event in ["PreToolUse", "PostToolUse", "SessionEnd"] {
        let h = &hooks["hooks"][event][0]["hooks"][0];
        assert_eq!(h["command"], "${CLAUDE_PLUGIN_ROOT}/scripts/sentinel-hook");
        assert_eq!(h["args"], serde_json::json!(["hook"]));
    }
    let plugin = json("plugin/.claude-plugin/plugin.json");
    let market = json(".claude-plugin/marketplace.json");
    assert_eq!(plugin["name"], "sentinel");
    assert_eq!(market["plugins"][0]["name"], "sentinel");
    assert_eq!(market["plugins"][0]["source"], "./plugin");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
}

/// Runs the plugin's hook script with `path` as PATH and an empty home, the plugin run in place.
fn run_script(path: &str, home: &Path) -> std::process::Output {
    run_script_from(path, home, &repo().join("plugin"))
}

/// The same, the plugin folder at `root` (Claude Code runs a copy in its cache).
fn run_script_from(path: &str, home: &Path, root: &Path) -> std::process::Output {
    let event = r#"{"session_id":"p","hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls; rm -rf ~"}}"#;
    let mut child = Command::new(root.join("scripts/sentinel-hook"))
        .arg("hook")
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("SENTINEL_HOME", home.join(".agentos"))
        .env("CLAUDE_PLUGIN_ROOT", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Without sentinel the script refuses at once, without reading: a broken pipe is expected.
    let _ = child.stdin.take().unwrap().write_all(event.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn the_plugin_hook_runs_sentinel_or_refuses_without_it() {
    let dir = tempfile::Builder::new()
        .prefix("plugin")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let home = dir.path().join("home");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&bin).unwrap();

    // No sentinel anywhere: refused, with the command that installs it.
    let out = run_script("/usr/bin:/bin", &home);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not installed") && err.contains("cargo install --locked --path"));
    assert!(
        err.contains("claude plugin uninstall sentinel@sentinel"),
        "the way out is named too: {err}"
    );

    // Installed on PATH: its answer is the hook's answer.
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sentinel"), bin.join("sentinel")).unwrap();
    let out = run_script(&format!("{}:/usr/bin:/bin", bin.display()), &home);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
}

/// The install command in a refusal, its path checked: a package with the `sentinel` binary
/// that cargo reads with its lock file as is (what `cargo install --locked --path` builds).
fn install_path_in(err: &str) -> PathBuf {
    let start = err.find("cargo install --locked --path \"").expect(err) + 31;
    let end = start + err[start..].find('"').unwrap();
    let path = PathBuf::from(&err[start..end]);
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--locked",
            "--offline",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(path.join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bins: Vec<&str> = meta["packages"][0]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"][0] == "bin")
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(bins, ["sentinel"], "{err}");
    path
}

#[test]
fn the_missing_binary_message_names_an_install_command_that_works() {
    let dir = tempfile::Builder::new()
        .prefix("plugin-fix")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".claude/plugins")).unwrap();
    // Run in place from the clone: the clone is beside the plugin folder.
    let err = String::from_utf8(run_script("/usr/bin:/bin", &home).stderr).unwrap();
    assert_eq!(install_path_in(&err), repo());

    // Run from Claude Code's cache (a copy of plugin/ only), the clone found through the
    // directory marketplace Claude Code recorded.
    let cache = dir.path().join("cache/sentinel/sentinel/0.1.0");
    std::fs::create_dir_all(cache.join("scripts")).unwrap();
    std::fs::copy(
        repo().join("plugin/scripts/sentinel-hook"),
        cache.join("scripts/sentinel-hook"),
    )
    .unwrap();
    std::fs::write(
        home.join(".claude/plugins/known_marketplaces.json"),
        serde_json::to_string_pretty(&serde_json::json!({"sentinel": {
            "source": {"source": "directory", "path": repo()},
            "installLocation": repo(), "lastUpdated": "2026-11-28T14:38:08.991Z"}}))
        .unwrap(),
    )
    .unwrap();
    let out = run_script_from("/usr/bin:/bin", &home, &cache);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(install_path_in(&err), repo());

    // The clone moved away: no command that cannot work, but what to do.
    std::fs::remove_file(home.join(".claude/plugins/known_marketplaces.json")).unwrap();
    let out = run_script_from("/usr/bin:/bin", &home, &cache);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("cargo install"), "{err}");
    assert!(err.contains("./install/install.sh in a clone"), "{err}");
}

#[test]
fn doctor_fails_a_plugin_whose_clone_was_moved_or_whose_files_are_gone() {
    let dir = tempfile::Builder::new()
        .prefix("plugin-doctor")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let home = dir.path().join("home");
    let plugins = home.join(".claude/plugins");
    let clone = dir.path().join("clone");
    let cache = plugins.join("cache/sentinel/sentinel/0.1.0");
    std::fs::create_dir_all(clone.join(".claude-plugin")).unwrap();
    std::fs::copy(
        repo().join(".claude-plugin/marketplace.json"),
        clone.join(".claude-plugin/marketplace.json"),
    )
    .unwrap();
    std::fs::create_dir_all(cache.join("scripts")).unwrap();
    std::fs::copy(
        repo().join("plugin/scripts/sentinel-hook"),
        cache.join("scripts/sentinel-hook"),
    )
    .unwrap();
    // As Claude Code 2.1.332 leaves them after `plugin marketplace add CLONE` and `plugin install`.
    std::fs::write(
        home.join(".claude/settings.json"),
        serde_json::json!({"extraKnownMarketplaces": {"sentinel": {"source": {"source": "directory", "path": clone}}},
                           "enabledPlugins": {"sentinel@sentinel": true}})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        plugins.join("known_marketplaces.json"),
        serde_json::json!({"sentinel": {"source": {"source": "directory", "path": clone}, "installLocation": clone}})
            .to_string(),
    )
    .unwrap();
    std::fs::write(
        plugins.join("installed_plugins.json"),
        serde_json::json!({"version": 2, "plugins": {"sentinel@sentinel": [{"scope": "user", "installPath": cache, "version": "0.1.0"}]}})
            .to_string(),
    )
    .unwrap();
    let doctor = || {
        let out = Command::new(env!("CARGO_BIN_EXE_sentinel"))
            .args(["doctor", "--json"])
            .env("HOME", &home)
            .env("SENTINEL_HOME", home.join(".agentos"))
            .env("PATH", "/usr/bin:/bin")
            .current_dir(&home)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["name"] == "plugin")
            .cloned()
            .collect::<Vec<Value>>()
    };
    let found = doctor();
    assert_eq!(found.len(), 2, "{found:?}");
    // It works, but only as long as the clone stays where it is: said, with the fix.
    assert_eq!(found[0]["status"], "warn", "{found:?}");
    assert!(
        found[0]["detail"]
            .as_str()
            .unwrap()
            .contains("moving or deleting it")
    );
    assert!(
        found[0]["fix"]
            .as_str()
            .unwrap()
            .starts_with("sentinel install --plugin")
    );
    assert_eq!(found[1]["status"], "ok", "{found:?}");

    std::fs::rename(&clone, dir.path().join("moved")).unwrap();
    let found = doctor();
    assert_eq!(found[0]["status"], "fail", "{found:?}");
    assert!(
        found[0]["detail"]
            .as_str()
            .unwrap()
            .contains("gone or moved")
    );
    assert!(
        found[0]["fix"]
            .as_str()
            .unwrap()
            .contains("sentinel install --plugin")
    );

    std::fs::rename(dir.path().join("moved"), &clone).unwrap();
    std::fs::remove_dir_all(cache.join("scripts")).unwrap();
    let found = doctor();
    let failed: Vec<&Value> = found.iter().filter(|c| c["status"] == "fail").collect();
    assert_eq!(failed.len(), 1, "{found:?}");
    assert!(failed[0]["detail"].as_str().unwrap().contains("are gone"));
}

/// `install --plugin`: the plugin written into SENTINEL_HOME (no clone), its hook naming the
/// binary; installed from there, doctor has nothing to warn of and its self-test runs Claude
/// Code's copy of the hook. With that binary gone and none on PATH, the hook refuses and says
/// which binary is gone; doctor's self-test fails.
#[test]
fn install_plugin_keeps_the_plugin_in_sentinels_home_and_doctor_runs_its_hook() {
    let dir = tempfile::Builder::new()
        .prefix("plugin-home")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let home = dir.path().join("home");
    let plugins = home.join(".claude/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    // The installed binary: a copy, so that it can be deleted.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let installed = bin.join("sentinel");
    std::fs::copy(env!("CARGO_BIN_EXE_sentinel"), &installed).unwrap();
    let sentinel_home = home.join(".agentos");
    let run = |program: &Path, args: &[&str]| {
        Command::new(program)
            .args(args)
            .env("HOME", &home)
            .env("SENTINEL_HOME", &sentinel_home)
            .env("PATH", "/usr/bin:/bin")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("SENTINEL_API_KEY")
            .current_dir(&home)
            .output()
            .unwrap()
    };
    let out = run(&installed, &["install", "--plugin", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let market = sentinel_home.join("claude-plugin");
    assert_eq!(report["plugin"], market.display().to_string());
    assert_eq!(
        report["commands"],
        serde_json::json!([
            format!("claude plugin marketplace add {}", market.display()),
            "claude plugin install sentinel@sentinel"
        ])
    );
    // The same files as the repository's, the script naming the binary.
    for rel in [
        ".claude-plugin/marketplace.json",
        "plugin/.claude-plugin/plugin.json",
        "plugin/hooks/hooks.json",
    ] {
        assert_eq!(
            std::fs::read(market.join(rel)).unwrap(),
            std::fs::read(repo().join(rel)).unwrap(),
            "{rel}"
        );
    }
    let script = std::fs::read_to_string(market.join("plugin/scripts/sentinel-hook")).unwrap();
    assert!(
        script.contains(&format!("installed={}\n", installed.display())),
        "{script}"
    );

    // As Claude Code leaves things after the two commands: a copy in its cache (the plugin is
    // loaded in place from the marketplace folder, which doctor's self-test runs).
    let cache = plugins.join("cache/sentinel/sentinel/0.1.0");
    std::fs::create_dir_all(cache.join("scripts")).unwrap();
    let copied = cache.join("scripts/sentinel-hook");
    std::fs::copy(market.join("plugin/scripts/sentinel-hook"), &copied).unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        serde_json::json!({"enabledPlugins": {"sentinel@sentinel": true}}).to_string(),
    )
    .unwrap();
    std::fs::write(
        plugins.join("known_marketplaces.json"),
        serde_json::json!({"sentinel": {"source": {"source": "directory", "path": market}, "installLocation": market}})
            .to_string(),
    )
    .unwrap();
    std::fs::write(
        plugins.join("installed_plugins.json"),
        serde_json::json!({"version": 2, "plugins": {"sentinel@sentinel": [{"scope": "user", "installPath": cache, "version": "0.1.0"}]}})
            .to_string(),
    )
    .unwrap();
    let checks = |program: &Path| -> Vec<Value> {
        let out = run(program, &["doctor", "--json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checks"].as_array().unwrap().clone()
    };
    let named = |all: &[Value], name: &str| -> Vec<Value> {
        all.iter().filter(|c| c["name"] == name).cloned().collect()
    };
    let all = checks(&installed);
    let plugin = named(&all, "plugin");
    assert_eq!(plugin.len(), 1, "{plugin:?}");
    assert_eq!(plugin[0]["status"], "ok", "{plugin:?}");
    let selftest = named(&all, "selftest");
    assert_eq!(selftest[0]["status"], "ok", "{selftest:?}");
    assert!(
        selftest[0]["detail"].as_str().unwrap().contains(
            &market
                .join("./plugin/scripts/sentinel-hook")
                .display()
                .to_string()
        ),
        "{selftest:?}"
    );

    // The binary the plugin names is deleted, none on PATH: refused, saying what is gone.
    std::fs::remove_file(&installed).unwrap();
    let out = run_script_from("/usr/bin:/bin", &home, &market.join("plugin"));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "{} (the binary this plugin was set up with) is gone",
            installed.display()
        )),
        "{err}"
    );
    assert!(err.contains("./install/install.sh in a clone"), "{err}");
    let all = checks(Path::new(env!("CARGO_BIN_EXE_sentinel")));
    let selftest = named(&all, "selftest");
    assert_eq!(selftest[0]["status"], "fail", "{selftest:?}");
    assert!(
        selftest[0]["fix"]
            .as_str()
            .unwrap()
            .contains("sentinel install --plugin"),
        "{selftest:?}"
    );

    // That fix, run with the binary where it is now: the plugin names it, and passes again.
    let out = run(
        Path::new(env!("CARGO_BIN_EXE_sentinel")),
        &["install", "--plugin"],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("claude plugin install sentinel@sentinel")
    );
    let all = checks(Path::new(env!("CARGO_BIN_EXE_sentinel")));
    assert_eq!(named(&all, "selftest")[0]["status"], "ok", "{all:?}");
}
