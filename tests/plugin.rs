//! The Claude Code plugin in the repo (`plugin/`: `.claude-plugin/plugin.json`, `hooks/hooks.json`,
//! `scripts/sentinel-hook`; the marketplace file is `.claude-plugin/marketplace.json`): its matchers are the code's one list of judged tools, and its hook
//! runs the installed binary or, when there is none, refuses the call and says how to install it.
//! (The real Claude Code installs it from the repo's marketplace in `tests/e2e/run.py`.)

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

/// Runs the plugin's hook script with `path` as PATH and an empty home.
fn run_script(path: &str, home: &Path) -> std::process::Output {
    let event = r#"{"session_id":"p","hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls; rm -rf ~"}}"#;
    let mut child = Command::new(repo().join("plugin/scripts/sentinel-hook"))
        .arg("hook")
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("SENTINEL_HOME", home.join(".agentos"))
        .env("CLAUDE_PLUGIN_ROOT", repo())
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
