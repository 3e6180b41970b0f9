//! What the tests of the person in charge share: a scratch home under the target dir (a person's home with
//! `.claude/`, a project), sentinel run there as the person or as the agent's hook.

// Each test crate uses a part of this module.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "../common/mod.rs"]
pub mod common;

pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::Builder::new()
            .prefix("person31")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        for d in ["home/.claude", "proj"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Env { dir }
    }
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    pub fn proj(&self) -> PathBuf {
        self.dir.path().join("proj")
    }
    pub fn user_settings(&self) -> PathBuf {
        self.home().join(".claude/settings.json")
    }
    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        common::sentinel(&self.home().join(".agentos"))
            .args(args)
            .current_dir(cwd)
            .env("HOME", self.home())
            .env("CLAUDE_PROJECT_DIR", self.proj())
            .output()
            .unwrap()
    }
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.proj(), args)
    }
    pub fn doctor(&self, args: &[&str]) -> Vec<Value> {
        let out = self.run(&[&["doctor", "--json"], args].concat());
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        v["checks"].as_array().unwrap().clone()
    }
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

pub const PLUGIN_ON: &str =
    r#"{"theme":"dark","enabledPlugins":{"sentinel@sentinel":true,"other@x":true}}"#;

pub fn check(env: &Env, command: &str) -> (String, String) {
    let out = env.run(&["check", "--json", command]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    (
        v["verdict"].as_str().unwrap().to_string(),
        v["reason"].as_str().unwrap().to_string(),
    )
}

pub fn hook(env: &Env, session: &str, command: &str) -> Output {
    let event = serde_json::json!({
        "session_id": session, "hook_event_name": "PreToolUse", "cwd": env.proj(),
        "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": command},
    });
    let mut c = common::sentinel(&env.home().join(".agentos"));
    c.arg("hook").env("HOME", env.home());
    common::feed(c, event.to_string().as_bytes())
}
