//! The decision to fence, run as the agent runs it (the built binary, a scratch home and project,
//! real processes): what counts as a run of project code, which loopback ports go into the
//! fence, and when Claude Code's own sandbox stands in for sentinel's fence.

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::io::BufRead;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A scratch home and project under the target dir (a fenced run may write the temp dirs).
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl World {
    fn new() -> World {
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let dir = tempfile::tempdir_in(base).unwrap();
        let root = dir.path().canonicalize().unwrap();
        let w = World { _dir: dir, root };
        std::fs::create_dir_all(w.home().join(".ssh")).unwrap();
        std::fs::write(w.home().join(".ssh/id_rsa"), "CANARY-KEY\n").unwrap();
        std::fs::create_dir_all(w.project().join(".git/hooks")).unwrap();
        std::fs::create_dir_all(w.root.join("sentinel-home")).unwrap();
        w
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn project(&self) -> PathBuf {
        self.root.join("proj")
    }

    fn put(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn sentinel(&self, path: &str) -> Command {
        let mut c = common::sentinel(&self.root.join("sentinel-home"));
        c.env("HOME", self.home())
            .env("PATH", path)
            .env_remove("CLAUDE_CONFIG_DIR")
            .current_dir(self.project());
        c
    }

    /// The hook's `hookSpecificOutput` for a Bash call, with the agent's PATH `path`.
    fn hook(&self, command: &str, path: &str) -> Value {
        let event = json!({
            "hook_event_name": "PreToolUse",
            "session_id": "fence-decision-test",
            "cwd": self.project(),
            "permission_mode": "bypassPermissions",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        });
        let mut cmd = self.sentinel(path);
        cmd.arg("hook");
        let out = common::feed(cmd, event.to_string().as_bytes());
        let text = String::from_utf8_lossy(&out.stdout);
        if text.trim().is_empty() {
            return Value::Null;
        }
        serde_json::from_str::<Value>(&text).unwrap()["hookSpecificOutput"].clone()
    }

    /// False (and says why) where this machine cannot fence.
    fn can_fence(&self) -> bool {
        let out = self
            .sentinel(&system_path())
            .args(["contain", "--project"])
            .arg(self.project())
            .args(["--", "true"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(125) && err.contains("not available") {
            eprintln!("skipped: {err}");
            return false;
        }
        true
    }
}

/// This test process's PATH: the system's programs.
fn system_path() -> String {
    std::env::var("PATH").unwrap()
}

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn fenced(out: &Value) -> bool {
    out["permissionDecision"] == "allow"
        && out["updatedInput"]["command"]
            .as_str()
            .is_some_and(|c| c.contains(" contain --project "))
}

#[test]
fn a_program_path_finds_in_the_project_runs_fenced() {
    let w = World::new();
    if !w.can_fence() {
        return;
    }
    // An activated virtualenv: its bin first on PATH, its pip the project's.
    let venv = w.project().join(".venv/bin");
    executable(&venv.join("pip"), "#!/bin/sh\necho pip\n");
    let activated = format!("{}:{}", venv.display(), system_path());
    let out = w.hook("pip list", &activated);
    assert!(fenced(&out), "{out}");
    let out = w.hook("timeout 5 pip freeze", &activated);
    assert!(fenced(&out), "{out}");
    // A program found elsewhere first stays as it was (`ls` is not in the venv).
    let out = w.hook("ls", &activated);
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert!(out.get("updatedInput").is_none(), "{out}");
    // Without the venv on PATH, `pip list` is not the project's (whatever pip is installed).
    let out = w.hook("pip list", &system_path());
    assert!(out.get("updatedInput").is_none(), "{out}");
    // A relative folder on PATH is the command's folder: `node_modules/.bin` of the project.
    executable(
        &w.project().join("node_modules/.bin/prettier"),
        "#!/bin/sh\necho prettier\n",
    );
    let out = w.hook(
        "prettier --check x.js",
        &format!("node_modules/.bin:{}", system_path()),
    );
    assert!(fenced(&out), "{out}");
}

/// A listener run by a program of the given name (a copy of python under that name, so its
/// `comm` and executable are that name), on a free loopback port: the child and the port.
fn listener(dir: &Path, name: &str) -> Option<(Child, u16)> {
    let python = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    let python = PathBuf::from(String::from_utf8_lossy(&python.stdout).trim());
    let copy = dir.join(name);
    std::fs::copy(&python, &copy).ok()?;
    let mut child = Command::new(&copy)
        .args([
            "-c",
            "import socket, sys, time\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\nprint(s.getsockname()[1], flush=True)\nsys.stdin.read()\n",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take()?)
        .read_line(&mut line)
        .ok()?;
    let port = line.trim().parse().ok()?;
    Some((child, port))
}

fn forwarded(out: &Value) -> Vec<u16> {
    let command = out["updatedInput"]["command"].as_str().unwrap_or("");
    let words: Vec<&str> = command.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[0] == "--port")
        .filter_map(|w| w[1].parse().ok())
        .collect()
}

#[test]
fn ports_of_editors_and_of_announced_ide_servers_are_not_forwarded() {
    let w = World::new();
    if !w.can_fence() {
        return;
    }
    let bin = w.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let Some((mut editor, editor_port)) = listener(&bin, "code") else {
        eprintln!("skipped: no python3 to listen with");
        return;
    };
    let (mut db, db_port) = listener(&bin, "devdb").unwrap();
    let (mut ide, ide_port) = listener(&bin, "ideserver").unwrap();
    // Claude Code's IDE integration announces its port in the home; whoever holds it.
    w.put(
        &w.home().join(format!(".claude/ide/{ide_port}.lock")),
        r#"{"authToken": "CANARY-IDE-TOKEN"}"#,
    );
    w.put(&w.project().join("t.sh"), "echo hi\n");
    let out = w.hook("bash t.sh", &system_path());
    assert!(fenced(&out), "{out}");
    let ports = forwarded(&out);
    for child in [&mut editor, &mut db, &mut ide] {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert!(ports.contains(&db_port), "{ports:?} {out}");
    assert!(!ports.contains(&editor_port), "{ports:?} {out}");
    assert!(!ports.contains(&ide_port), "{ports:?} {out}");
}

fn bwrap_on_path() -> bool {
    std::env::split_paths(&system_path()).any(|d| d.join("bwrap").is_file())
}

#[test]
fn claude_codes_sandbox_counts_only_from_the_persons_settings_and_unwidened() {
    let w = World::new();
    if !w.can_fence() {
        return;
    }
    w.put(&w.project().join("t.sh"), "echo hi > out.txt\n");
    let own_sandbox = |out: &Value| {
        out["permissionDecisionReason"]
            .as_str()
            .is_some_and(|r| r.contains("Claude Code's own sandbox"))
    };
    // A project (a cloned repository) cannot switch sentinel's fence off.
    let project_settings = w.project().join(".claude/settings.json");
    w.put(&project_settings, r#"{"sandbox": {"enabled": true}}"#);
    let out = w.hook("bash t.sh", &system_path());
    assert!(fenced(&out) && !own_sandbox(&out), "{out}");
    std::fs::remove_file(&project_settings).unwrap();
    if !bwrap_on_path() {
        eprintln!("skipped the rest: no bubblewrap, so Claude Code's sandbox would not run");
        return;
    }
    // The person's own settings do.
    w.put(
        &w.home().join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true}}"#,
    );
    let out = w.hook("bash t.sh", &system_path());
    assert!(
        own_sandbox(&out) && out.get("updatedInput").is_none(),
        "{out}"
    );
    // Unless any file widens it, the project's included.
    for widening in [
        r#"{"sandbox": {"network": {"allowLocalBinding": true}}}"#,
        r#"{"sandbox": {"enableWeakerNestedSandbox": true}}"#,
        r#"{"sandbox": {"network": {"allowUnixSockets": ["/var/run/docker.sock"]}}}"#,
        r#"{"permissions": {"allow": ["Edit(~/**)"]}}"#,
        r#"{"permissions": {"allow": ["Write(//etc/**)"]}}"#,
        r#"{"sandbox": {"enabled": false}}"#,
    ] {
        w.put(&project_settings, widening);
        let out = w.hook("bash t.sh", &system_path());
        assert!(fenced(&out) && !own_sandbox(&out), "{widening}: {out}");
    }
    // An edit rule inside the project widens nothing.
    w.put(
        &project_settings,
        r#"{"permissions": {"allow": ["Edit(src/**)"]}}"#,
    );
    let out = w.hook("bash t.sh", &system_path());
    assert!(own_sandbox(&out), "{out}");
    // What reading leaves uncertain is not allowed on the strength of that sandbox (it leaves
    // credentials readable), while sentinel's own fence allows it.
    std::fs::remove_file(&project_settings).unwrap();
    w.put(&w.project().join("t.py"), "exec(open('y').read())\n");
    let out = w.hook("python3 t.py", &system_path());
    assert_ne!(out["permissionDecision"], "allow", "{out}");
    std::fs::remove_file(w.home().join(".claude/settings.json")).unwrap();
    let out = w.hook("python3 t.py", &system_path());
    assert!(fenced(&out), "{out}");
}
