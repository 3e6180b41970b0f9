//! Variables a command is given, through `sentinel hook` on a real file system
//! (`rules/env_vars.txt`): one that only names the person's toolchain or a build setting leaves
//! the decision as it was; one that changes what runs (a folder of the project or a temp dir
//! put first, code loaded before the program, options that load code) is not allowed locally.
//! The scratch dirs live under the target dir, never in /tmp.

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::os::unix::fs::symlink;
use std::path::PathBuf;

struct World {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    sentinel_home: PathBuf,
}

impl World {
    fn new() -> World {
        let root = tempfile::Builder::new()
            .prefix("env-prefixes")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let base = root.path().canonicalize().unwrap();
        let home = base.join("home/dev");
        let project = home.join("proj");
        let sentinel_home = base.join("sentinel-home");
        for d in [
            home.join(".cargo/bin"),
            home.join("sdk/jdk-17/bin"),
            project.join("bin"),
            project.join("src"),
            // Its own repository: the project is not whatever repository holds the target dir.
            project.join(".git"),
            sentinel_home.clone(),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(
            project.join("package.json"),
            r#"{"scripts":{"build":"tsc","test":"jest"}}"#,
        )
        .unwrap();
        std::fs::write(project.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
        // A folder outside the project by its name that is the project's by its target.
        symlink(project.join("bin"), home.join("tools")).unwrap();
        common::let_fixtures_age(&project);
        World {
            _root: root,
            home,
            project,
            sentinel_home,
        }
    }

    fn bash(&self, command: &str) -> String {
        let event = json!({
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "cwd": self.project,
            "permission_mode": "bypassPermissions",
            "tool_name": "Bash",
            "tool_input": { "command": command },
        });
        let mut cmd = common::sentinel(&self.sentinel_home);
        cmd.arg("hook").env("HOME", &self.home);
        let out = common::feed(cmd, event.to_string().as_bytes());
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let d = &v["hookSpecificOutput"];
        format!(
            "{}: {}",
            d["permissionDecision"].as_str().unwrap(),
            d["permissionDecisionReason"].as_str().unwrap()
        )
    }

    fn expect(&self, allowed: bool, commands: &[&str]) {
        let wrong: Vec<String> = commands
            .iter()
            .map(|c| (c, self.bash(c)))
            .filter(|(_, a)| a.starts_with("allow") != allowed)
            .map(|(c, a)| format!("{c}\n    {a}"))
            .collect();
        assert!(
            wrong.is_empty(),
            "want {}:\n{}",
            if allowed { "allow" } else { "not allow" },
            wrong.join("\n")
        );
    }
}

#[test]
fn a_toolchain_folder_or_a_build_setting_changes_nothing() {
    let w = World::new();
    w.expect(
        true,
        &[
            "PATH=/opt/homebrew/bin:$PATH npm run build",
            "PATH=$HOME/.cargo/bin:$PATH cargo build",
            "export PATH=\"$HOME/.cargo/bin:$PATH\" && cargo build",
            "export PATH=~/.cargo/bin:$PATH",
            "JAVA_HOME=~/sdk/jdk-17 ./gradlew test",
            "CI=1 npm test",
            "RUST_LOG=debug cargo run",
            "NODE_ENV=production npm run build",
            "GOOS=linux go build",
            "NODE_OPTIONS=--max-old-space-size=4096 npm run build",
            "env PATH=/usr/local/go/bin:$PATH go vet ./...",
        ],
    );
}

#[test]
fn a_variable_that_changes_what_runs_is_not_allowed() {
    let w = World::new();
    w.expect(
        false,
        &[
            "PATH=./bin:$PATH npm test",
            "PATH=bin:$PATH cargo build",
            "PATH=:$PATH cargo build",
            "PATH=$HOME/tools:$PATH cargo build",
            "PATH=/tmp/x:$PATH cargo build",
            "export PATH=$PATH:/var/tmp/bin",
            "PATH=/tmp/x; cargo build",
            "JAVA_HOME=/tmp/jdk ./gradlew test",
            "LD_PRELOAD=/tmp/x.so cargo build",
            "LD_LIBRARY_PATH=/opt/lib cargo test",
            "BASH_ENV=./x.sh bash -c 'cargo build'",
            "NODE_OPTIONS='--require ./hook.js' npm test",
            "PYTHONPATH=/tmp/evil python -m pytest",
            "PYTHONSTARTUP=/tmp/x.py python -c 'print(1)'",
            "GIT_SSH_COMMAND='ssh -i key' git fetch",
            "PAGER='sh -c id' git log",
        ],
    );
}
