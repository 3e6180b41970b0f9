//! Which project files changed is observed, not inferred (SPEC 2.3): a file changed by a tree
//! copy, a computed name, an interpreter's write or in an earlier session is read in full when
//! the project's code runs, as a file in the session's ledger is; a file untouched since the
//! person's baseline counts only for a deny. Through the built binary, on a real project under
//! the target dir (not a temp dir: sentinel judges those as scratch space).

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

/// A helper the tests import: read only when it is the agent's (changed or in the ledger).
const RUNS_RM: &str = "import os\nos.system('rm -rf ~')\n";
/// A conftest whose delete sentinel cannot see the target of: uncertain when it is the agent's,
/// nothing when it is the project's own.
const VAGUE: &str = "import shutil, sys\nshutil.rmtree(sys.argv[1])\n";
const BENIGN_TEST: &str = "def test_a():\n    assert True\n";

struct World {
    dir: tempfile::TempDir,
}

impl World {
    /// A git project holding `files`, and an empty SENTINEL_HOME.
    fn new(files: &[(&str, &str)]) -> World {
        let w = World {
            dir: tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap(),
        };
        std::fs::create_dir_all(w.project().join(".git")).unwrap();
        std::fs::create_dir_all(w.home()).unwrap();
        // Reading alone (where a run cannot be fenced): what is observed decides what is read.
        std::fs::write(w.home().join("sentinel.toml"), "contain = false\n").unwrap();
        w.put("tests/test_a.py", BENIGN_TEST);
        for (rel, text) in files {
            w.put(rel, text);
        }
        w
    }

    /// The same, with the person's baseline taken by a first run of the project's code (after
    /// the file clock's lag, so that what was put counts as the person's).
    fn with_baseline(files: &[(&str, &str)]) -> World {
        let w = World::new(files);
        std::thread::sleep(std::time::Duration::from_millis(100));
        let (v, why) = w.pytest("first");
        assert_eq!(v, "allow", "{why}");
        assert_eq!(w.baselines().len(), 1);
        w
    }

    /// A real git repository: `committed` in its one commit, then `open` put beside it without
    /// a commit (untracked, or changed when also committed), all before sentinel's first look.
    fn git(committed: &[(&str, &str)], open: &[(&str, &str)]) -> World {
        let w = World::new(committed);
        std::fs::remove_dir(w.project().join(".git")).unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .current_dir(w.project())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-qm", "first"]);
        for (rel, text) in open {
            w.put(rel, text);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        w
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("proj")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn put(&self, rel: &str, text: &str) {
        let p = self.project().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn baselines(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.home().join("projects"))
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default()
    }

    /// The hook's answer to a PreToolUse in `session`: allow, ask, deny or none; and the reason.
    fn pre(&self, session: &str, tool: &str, input: Value) -> (String, String) {
        let event = json!({
            "hook_event_name": "PreToolUse",
            "session_id": session,
            "cwd": self.project(),
            "permission_mode": "bypassPermissions",
            "tool_name": tool,
            "tool_input": input,
        });
        let mut cmd = common::sentinel(&self.home());
        cmd.arg("hook");
        let out = common::feed(cmd, event.to_string().as_bytes());
        let stdout = String::from_utf8(out.stdout).unwrap();
        if stdout.trim().is_empty() {
            return ("none".into(), String::new());
        }
        let v: Value = serde_json::from_str(&stdout).unwrap();
        let h = &v["hookSpecificOutput"];
        (
            h["permissionDecision"].as_str().unwrap().to_string(),
            h["permissionDecisionReason"].as_str().unwrap().to_string(),
        )
    }

    fn pytest(&self, session: &str) -> (String, String) {
        self.pre(session, "Bash", json!({ "command": "pytest" }))
    }

    /// The agent's shell command: put to the hook, then run in the project as it would be once
    /// not denied.
    fn agent_runs(&self, session: &str, script: &str) {
        let (v, why) = self.pre(session, "Bash", json!({ "command": script }));
        assert_ne!(v, "deny", "{script}: {why}");
        let status = Command::new("sh")
            .args(["-c", script])
            .current_dir(self.project())
            .status()
            .unwrap();
        assert!(status.success(), "{script}");
    }

    fn end(&self, session: &str) {
        let event = json!({
            "hook_event_name": "SessionEnd",
            "session_id": session,
            "cwd": self.project(),
            "reason": "exit",
        });
        let mut cmd = common::sentinel(&self.home());
        cmd.arg("hook");
        common::feed(cmd, event.to_string().as_bytes());
    }
}

fn has_python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_file_copied_in_with_its_tree_is_read() {
    let w = World::with_baseline(&[("evil/util.py", RUNS_RM)]);
    // The ledger notes `tests` (the copy's target), not the files that land in it.
    w.agent_runs("s", "cp -r evil/. tests/");
    let (v, why) = w.pytest("s");
    assert_eq!(v, "deny", "{why}");
    assert!(why.contains("tests/util.py"), "{why}");
}

#[test]
fn a_file_written_under_a_computed_name_is_read() {
    let w = World::with_baseline(&[]);
    w.agent_runs(
        "s",
        "f=conftest.py; printf 'import shutil, sys\\nshutil.rmtree(sys.argv[1])\\n' > \"$PWD/tests/$f\"",
    );
    let (v, why) = w.pytest("s");
    assert_eq!(v, "ask", "{why}");
    assert!(why.contains("conftest.py"), "{why}");
    // And by dd, to a name the ledger does not know either.
    let w = World::with_baseline(&[]);
    w.agent_runs(
        "s",
        "printf \"import os\\nos.system('rm -rf ~')\\n\" | dd of=tests/util.py status=none",
    );
    let (v, why) = w.pytest("s");
    assert_eq!(v, "deny", "{why}");
    assert!(why.contains("tests/util.py"), "{why}");
}

#[test]
fn a_file_an_interpreter_wrote_is_read_whatever_its_mtime() {
    if !has_python() {
        eprintln!("no python3: skipped");
        return;
    }
    let w = World::with_baseline(&[]);
    w.agent_runs(
        "s",
        "python3 -c \"open('tests/util.py', 'w').write('import os\\nos.system(\\'rm -rf ~\\')\\n')\"",
    );
    // An mtime from long ago hides nothing: the ctime is the kernel's.
    let status = Command::new("touch")
        .args(["-d", "2000-01-01", "tests/util.py"])
        .current_dir(w.project())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(w.project().join("tests/util.py")).unwrap(),
        RUNS_RM
    );
    let (v, why) = w.pytest("s");
    assert_eq!(v, "deny", "{why}");
    assert!(why.contains("tests/util.py"), "{why}");
}

#[test]
fn a_file_written_in_an_earlier_session_is_read() {
    let w = World::with_baseline(&[]);
    let conftest = w.project().join("tests/conftest.py");
    let (v, _) = w.pre(
        "one",
        "Write",
        json!({ "file_path": conftest, "content": VAGUE }),
    );
    assert_eq!(v, "allow");
    w.put("tests/conftest.py", VAGUE);
    // In its own session the ledger names it ...
    assert_eq!(w.pytest("one").0, "ask");
    w.end("one");
    let left = std::fs::read_dir(w.home().join("written"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(left, 0, "the session's ledger ended with it");
    // ... and in the next one the observation does, exactly alike.
    let (v, why) = w.pytest("two");
    assert_eq!(v, "ask", "{why}");
    assert!(why.contains("conftest.py"), "{why}");
}

#[test]
fn a_file_untouched_since_the_baseline_counts_only_for_a_deny() {
    let w = World::with_baseline(&[("tests/conftest.py", VAGUE), ("tests/util.py", RUNS_RM)]);
    let (v, why) = w.pytest("s");
    assert_eq!(v, "allow", "the project's own: {why}");
    // A deny in the project's own conftest counts, at the first look and after it.
    let w = World::new(&[("conftest.py", RUNS_RM)]);
    for _ in 0..2 {
        let (v, why) = w.pytest("s");
        assert_eq!(v, "deny", "{why}");
    }
}

#[test]
fn a_file_not_committed_at_the_first_look_is_the_agents() {
    // Untracked, placed before sentinel ever looked (by another program, an unguarded session).
    let w = World::git(&[], &[("tests/conftest.py", VAGUE)]);
    for session in ["first", "later"] {
        let (v, why) = w.pytest(session);
        assert_eq!(v, "ask", "{session}: {why}");
        assert!(why.contains("conftest.py"), "{why}");
    }
    // Changed from its committed text, before the first look.
    let w = World::git(
        &[("tests/conftest.py", BENIGN_TEST)],
        &[("tests/conftest.py", VAGUE)],
    );
    let (v, why) = w.pytest("first");
    assert_eq!(v, "ask", "{why}");
    // Committed as it is: the person's, read only for a deny.
    let w = World::git(&[("tests/conftest.py", VAGUE)], &[]);
    let (v, why) = w.pytest("first");
    assert_eq!(v, "allow", "{why}");
    // Ignored by git: what a build made, not work in progress.
    let w = World::git(
        &[(".gitignore", "generated/\n")],
        &[("generated/conftest.py", VAGUE)],
    );
    let (v, why) = w.pytest("first");
    assert_eq!(v, "allow", "{why}");
}

#[test]
fn a_call_that_runs_no_project_code_observes_nothing() {
    let w = World::new(&[]);
    for command in ["ls -la tests", "git status", "cat tests/test_a.py"] {
        let (v, why) = w.pre("s", "Bash", json!({ "command": command }));
        assert_eq!(v, "allow", "{command}: {why}");
    }
    assert!(!w.home().join("projects").exists());
}

#[test]
fn a_damaged_baseline_makes_every_file_the_agents() {
    let w = World::with_baseline(&[("tests/conftest.py", VAGUE)]);
    let [kept] = w.baselines().try_into().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&kept), 0o600);
        assert_eq!(mode(kept.parent().unwrap()), 0o700);
    }
    std::fs::write(&kept, "{\"since_ns\": ").unwrap();
    let (v, why) = w.pytest("s");
    assert_eq!(v, "ask", "{why}");
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        "{\"since_ns\": ",
        "a damaged baseline is not silently rewritten"
    );
}

#[test]
fn a_linked_projects_folder_is_not_followed() {
    let w = World::new(&[("tests/conftest.py", VAGUE)]);
    let elsewhere = w.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, w.home().join("projects")).unwrap();
    let (v, why) = w.pytest("s");
    assert_eq!(v, "ask", "{why}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}
