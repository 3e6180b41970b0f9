//! The organisation's policy (the managed layer) as the agent meets it: the built binary run as
//! a hook, with `SENTINEL_MANAGED_DIR` naming a policy folder in the build's scratch space (the
//! variable is honoured only while the system folder, /etc/sentinel, does not exist: these
//! tests need a machine without one).
//!
//! A policy must be root's alone. Run as root (as the project's CI does), each test builds a
//! policy that loads and checks what it does; run as another user, the same folder is not
//! root's, and each test checks that the policy is refused and every call asks instead.

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn is_root() -> bool {
    // SAFETY: geteuid has no failure.
    unsafe { libc::geteuid() == 0 }
}

/// A scratch machine: the policy folder, the person's SENTINEL_HOME and a project.
struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::Builder::new()
            .prefix("managed")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        for d in ["policy", "home", "proj/.git"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        chmod(dir.path(), 0o755);
        chmod(&dir.path().join("policy"), 0o755);
        let site = Site { dir };
        site.person("sentinel.toml", "");
        site
    }

    fn policy_dir(&self) -> PathBuf {
        self.dir.path().join("policy")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn proj(&self) -> PathBuf {
        self.dir.path().join("proj")
    }

    /// Writes one of the policy's files, root's and 0644 as an administrator deploys it.
    fn policy(&self, name: &str, text: &str) -> PathBuf {
        let path = self.policy_dir().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        chmod(&path, 0o644);
        path
    }

    /// Writes one of the person's files; their `sentinel.toml` always trusts the variable that
    /// names the test's policy folder (without it, the variable is ignored).
    fn person(&self, name: &str, text: &str) {
        let text = match name {
            "sentinel.toml" if !text.contains("[env]") => {
                format!("{text}\n[env]\ntrust = [\"SENTINEL_MANAGED_DIR\"]\n")
            }
            _ => text.to_string(),
        };
        std::fs::write(self.home().join(name), text).unwrap();
    }

    fn project(&self, name: &str, text: &str) {
        let path = self.proj().join(".sentinel").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `sentinel ARGS` under the policy (`with_policy`) or with none.
    fn command(&self, with_policy: bool) -> Command {
        let mut cmd = common::sentinel(&self.home());
        let policy = match with_policy {
            true => self.policy_dir(),
            false => self.dir.path().join("no-policy"),
        };
        cmd.env("SENTINEL_MANAGED_DIR", policy)
            .current_dir(self.proj());
        cmd
    }

    /// The hook's answer to `event`: (decision or "none", reason).
    fn hook(
        &self,
        with_policy: bool,
        args: &[&str],
        event: &Value,
        env: &[(&str, &str)],
    ) -> (String, String) {
        let mut cmd = self.command(with_policy);
        cmd.arg("hook").args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = common::feed(cmd, event.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
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

    fn bash(&self, with_policy: bool, command: &str) -> (String, String) {
        self.hook(with_policy, &[], &self.bash_event(command), &[])
    }

    fn bash_event(&self, command: &str) -> Value {
        json!({
            "hook_event_name": "PreToolUse",
            "session_id": "managed-test",
            "cwd": self.proj(),
            "permission_mode": "bypassPermissions",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        })
    }

    fn cli(&self, with_policy: bool, args: &[&str]) -> Output {
        let mut cmd = self.command(with_policy);
        cmd.args(args);
        common::feed(cmd, b"")
    }
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Not root: the policy folder is the test user's, so it is refused and every call asks.
fn refused_as_not_roots(site: &Site) {
    let (verdict, reason) = site.bash(true, "git status");
    assert_eq!(verdict, "ask", "{reason}");
    assert!(reason.contains("not root"), "{reason}");
}

#[test]
fn the_policy_denies_what_the_person_allows() {
    let site = Site::new();
    site.person("safe_commands.txt", "^ls( \\S+)*$\n");
    site.policy(
        "hard_block_commands.txt",
        "# the organisation's own\n^ls( |$)   # listings leave this machine in logs\n",
    );
    let secret_dir = site.proj().join("deploy");
    std::fs::create_dir_all(&secret_dir).unwrap();
    std::fs::write(secret_dir.join("notes.txt"), "k").unwrap();
    site.policy(
        "credential_paths.txt",
        &format!("{}/**\n", secret_dir.display()),
    );
    // Without the policy the person's rules allow both.
    assert_eq!(site.bash(false, "ls -la").0, "allow");
    let read = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "managed-test",
        "cwd": site.proj(),
        "permission_mode": "bypassPermissions",
        "tool_name": "Read",
        "tool_input": {"file_path": secret_dir.join("notes.txt")},
    });
    assert_eq!(site.hook(false, &[], &read, &[]).0, "allow");
    if !is_root() {
        return refused_as_not_roots(&site);
    }
    // Under it: denied, naming the policy's file and line.
    let (verdict, reason) = site.bash(true, "ls -la");
    assert_eq!(verdict, "deny", "{reason}");
    let file = site.policy_dir().join("hard_block_commands.txt");
    assert!(
        reason.contains(&format!("the organisation's {}:2", file.display())),
        "{reason}"
    );
    // A credential of the organisation's: never read unasked.
    let (verdict, reason) = site.hook(true, &[], &read, &[]);
    assert_eq!(verdict, "ask", "{reason}");
    // A command spec of the organisation's replaces the bundled one (and the person's).
    assert_eq!(site.bash(true, "git status").0, "allow");
    let spec = site.policy(
        "commands/git.toml",
        "[\"git status\"]\nabout = \"by policy\"\ndeny = \"not here; instead: ask the person\"\n",
    );
    chmod(&site.policy_dir().join("commands"), 0o755);
    let (verdict, reason) = site.bash(true, "git status");
    assert_eq!(verdict, "deny", "{reason}");
    assert!(
        reason.contains(&format!("{}:1", spec.display())),
        "{reason}"
    );
    // `check` and `explain` name the same file and line.
    let out = site.cli(true, &["check", "--offline", "ls -la"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).contains(&format!("{}:2", file.display())));
    let out = site.cli(true, &["explain", "--offline", "ls -la"]);
    let text = stdout(&out);
    assert!(text.contains(&format!("{}:2", file.display())), "{text}");
    assert!(text.contains("policy"), "{text}");
}

#[test]
fn a_pinned_mode_is_not_loosened_by_shadow() {
    let site = Site::new();
    site.person(
        "sentinel.toml",
        "mode = \"shadow\"\n[env]\ntrust = [\"SENTINEL_SHADOW\", \"SENTINEL_MANAGED_DIR\"]\n",
    );
    site.policy("sentinel.toml", "mode = \"enforce\"\n");
    let push = site.bash_event("git push --force origin main");
    let shadow_env = [("SENTINEL_SHADOW", "1")];
    // The person's shadow mode, the flag and the variable: silent without the policy.
    assert_eq!(
        site.hook(false, &["--shadow"], &push, &shadow_env).0,
        "none"
    );
    if !is_root() {
        return refused_as_not_roots(&site);
    }
    // Under it every one of them is set aside: the deny is given.
    for (args, env) in [
        (&[][..], &[][..]),
        (&["--shadow"][..], &[][..]),
        (&["--shadow"][..], &shadow_env[..]),
    ] {
        let (verdict, reason) = site.hook(true, args, &push, env);
        assert_eq!(verdict, "deny", "{args:?} {env:?}: {reason}");
    }
    // `config` says where the mode comes from, and what it overrides.
    let out = site.cli(true, &["config"]);
    let text = stdout(&out);
    let pinned = format!(
        "managed {}:1",
        site.policy_dir().join("sentinel.toml").display()
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("mode ") && l.contains("enforce") && l.contains(&pinned)),
        "{text}"
    );
    let out = site.cli(true, &["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains("sentinel.toml:1: mode is overridden by managed"),
        "{text}"
    );
}

#[test]
fn the_policy_survives_the_persons_off_and_a_projects_trust() {
    let site = Site::new();
    let bundled = "^(shutdown|reboot|halt|poweroff)( |$)";
    site.person("hard_block_commands.txt", &format!("off: {bundled}\n"));
    site.project("safe_commands.txt", "^reboot$\n^mytool( \\S+)*$\n");
    site.project("sentinel.toml", "fail_mode = \"open\"\n");
    let out = site.cli(false, &["trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Without the policy: the person switched the rule off, and the trusted project allows.
    assert_eq!(site.bash(false, "reboot").0, "allow");
    assert_eq!(site.bash(false, "mytool run").0, "allow");
    site.policy(
        "hard_block_commands.txt",
        &format!("{bundled}   # kept on for everyone\n"),
    );
    site.policy(
        "sentinel.toml",
        "fail_mode = \"ask\"\n[managed]\nallow_project_trust = false\n",
    );
    if !is_root() {
        return refused_as_not_roots(&site);
    }
    let file = site.policy_dir().join("hard_block_commands.txt");
    let (verdict, reason) = site.bash(true, "reboot");
    assert_eq!(verdict, "deny", "{reason}");
    assert!(
        reason.contains(&format!("{}:1", file.display())),
        "{reason}"
    );
    // The project's trusted loosening rules no longer apply.
    let (verdict, reason) = site.bash(true, "mytool run");
    assert_ne!(verdict, "allow", "{reason}");
    // ... and the reason does not send the person to a `sentinel trust` that cannot help.
    assert!(
        reason.contains("allow_project_trust = false")
            && !reason.contains("can run `sentinel trust`"),
        "{reason}"
    );
    // `rules diff` reads the policy too: the person's `off:` is shown as void, and why.
    let text = stdout(&site.cli(true, &["rules", "diff"]));
    assert!(
        text.contains(&format!(
            "`off: {bundled}` has no effect: the organisation's policy holds the same rule ({}:1)",
            file.display()
        )),
        "{text}"
    );
    // explain says what has no effect, and why.
    let out = site.cli(true, &["explain", "--offline", "reboot"]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "off: {bundled} has no effect: the organisation's policy holds the same rule ({}:1)",
            file.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("fail_mode = open has no effect: fail_mode is pinned"),
        "{text}"
    );
    assert!(text.contains("`sentinel trust` has no effect"), "{text}");
}

#[test]
fn a_broken_policy_asks_every_call() {
    let site = Site::new();
    // The person allows everything they can; the bundled rules deny a force push.
    site.person("sentinel.toml", "mode = \"shadow\"\n");
    let cases: [(&str, &str, &str); 3] = [
        ("sentinel.toml", "mode = \"loud\"\n", "sentinel.toml:1"),
        ("safe_commands.txt", "^git (status\n", "safe_commands.txt:1"),
        (
            "hard_block_commands.txt",
            "off: ^(shutdown|reboot|halt|poweroff)( |$)\n",
            "hard_block_commands.txt:1",
        ),
    ];
    for (name, text, at) in cases {
        let path = site.policy(name, text);
        if !is_root() {
            return refused_as_not_roots(&site);
        }
        // Even in the person's shadow mode, with the flag: an allow becomes ask, with why.
        let status = site.bash_event("git status");
        let (verdict, reason) = site.hook(true, &["--shadow"], &status, &[]);
        assert_eq!(verdict, "ask", "{name}: {reason}");
        assert!(reason.contains("policy cannot be used"), "{reason}");
        assert!(reason.contains(at), "{name}: {reason}");
        // A tool sentinel has no opinion on asks too; a deny stays a deny.
        let other = json!({
            "hook_event_name": "PreToolUse", "session_id": "managed-test", "cwd": site.proj(),
            "tool_name": "SomeNewTool", "tool_input": {},
        });
        assert_eq!(site.hook(true, &[], &other, &[]).0, "ask");
        assert_eq!(site.bash(true, "git push --force origin main").0, "deny");
        // doctor fails, naming it.
        let out = site.cli(true, &["doctor"]);
        assert_ne!(out.status.code(), Some(0));
        assert!(stdout(&out).contains("cannot be used"), "{}", stdout(&out));
        // `rules lint` reads the policy as the hook does: it fails, naming the line.
        let out = site.cli(true, &["rules", "lint"]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stdout(&out));
        assert!(stdout(&out).contains(at), "{name}: {}", stdout(&out));
        std::fs::remove_file(path).unwrap();
    }
    // Fixed: the call is allowed again (the person's shadow mode is theirs once more).
    assert_eq!(site.bash(true, "git status").0, "none");
}

#[test]
fn a_policy_others_can_write_is_refused() {
    let site = Site::new();
    let file = site.policy("hard_block_commands.txt", "^ls( |$)\n");
    let asks = |why: &str| {
        let (verdict, reason) = site.bash(true, "git status");
        assert_eq!(verdict, "ask", "{reason}");
        assert!(reason.contains(why), "{why}: {reason}");
    };
    if !is_root() {
        return asks("not root");
    }
    assert_eq!(site.bash(true, "git status").0, "allow");
    // The folder, a folder above it, the file: group- or world-writable.
    chmod(&site.policy_dir(), 0o777);
    asks("writable by group or others (mode 0777)");
    chmod(&site.policy_dir(), 0o755);
    chmod(site.dir.path(), 0o775);
    asks("writable by group or others (mode 0775)");
    chmod(site.dir.path(), 0o755);
    chmod(&file, 0o666);
    asks("writable by group or others (mode 0666)");
    chmod(&file, 0o644);
    // Owned by someone else: the person could rewrite it.
    std::os::unix::fs::chown(&file, Some(1000), Some(1000)).unwrap();
    asks("owned by uid 1000, not root");
    std::os::unix::fs::chown(&file, Some(0), Some(0)).unwrap();
    // A link in the policy could lead anywhere.
    let elsewhere = site.dir.path().join("elsewhere.txt");
    std::fs::write(&elsewhere, "").unwrap();
    std::os::unix::fs::symlink(&elsewhere, site.policy_dir().join("safe_commands.txt")).unwrap();
    asks("symbolic link");
    std::fs::remove_file(site.policy_dir().join("safe_commands.txt")).unwrap();
    assert_eq!(site.bash(true, "git status").0, "allow");
}

#[test]
fn the_variable_naming_a_policy_folder_is_ignored_unless_the_person_trusts_it() {
    let site = Site::new();
    // A folder root wrote, named by a variable a project's agent settings could set, pinning
    // enforcement off: the person has not trusted the variable, so it is not read.
    site.policy("sentinel.toml", "mode = \"shadow\"\n");
    std::fs::write(site.home().join("sentinel.toml"), "").unwrap();
    let (verdict, reason) = site.bash(true, "rm -rf ~");
    assert_eq!(verdict, "deny", "{reason}");
    let out = site.cli(true, &["config"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.contains("SENTINEL_MANAGED_DIR=") && text.contains("is ignored"),
        "{text}"
    );
    if !is_root() {
        return;
    }
    // Trusted by the person, it is read (and its pin applies).
    site.person("sentinel.toml", "");
    let (verdict, reason) = site.bash(true, "rm -rf ~");
    assert_ne!(verdict, "deny", "{reason}");
}

#[test]
fn the_policy_may_add_a_describer_the_person_may_not() {
    let site = Site::new();
    // A describer's words go unjudged: from the person's file, a rule error, so an allow asks.
    site.person(
        "program_roles.txt",
        "describer  mydoc  # our manual viewer\n",
    );
    let (verdict, reason) = site.bash(false, "git status");
    assert_eq!(verdict, "ask", "{reason}");
    std::fs::remove_file(site.home().join("program_roles.txt")).unwrap();
    assert_eq!(site.bash(false, "git status").0, "allow");
    if !is_root() {
        return refused_as_not_roots(&site);
    }
    // From the organisation's policy it is taken.
    site.policy(
        "program_roles.txt",
        "describer  mydoc  # the organisation's manual viewer\n",
    );
    assert_eq!(site.bash(true, "git status").0, "allow");
    let out = site.cli(true, &["rules", "lint"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}
