//! Text from the agent is inert on the person's terminal and pages: every command that prints
//! a command, path, reason or session id the agent sent shows its control, bidi and invisible
//! characters escaped — a clipboard-writing OSC 52, a carriage return that writes over the
//! line, a right-to-left override — through the built binary.

mod common;

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Output;

/// OSC 52 (set the clipboard to `rm -rf ~`), a CR that writes over what was shown, a bidi
/// override, a zero-width space, a C1 control and a backspace.
const HOSTILE: &str = "\u{1b}]52;c;cm0gLXJmIH4=\u{7}\rall fine\u{202e}hs.txt\u{200b}\u{85}\u{8}";
/// A session id the agent chose.
const SESSION: &str = "s\u{1b}[2J\u{202e}1";

/// The characters that must never reach the terminal raw.
fn acting(c: char) -> bool {
    matches!(
        c,
        '\u{1b}' | '\u{7}' | '\r' | '\u{8}' | '\u{85}' | '\u{202e}' | '\u{200b}'
    )
}

/// `text` shows the hostile part (escaped) and holds none of it raw.
fn assert_inert(text: &str, what: &str) {
    let raw: Vec<String> = text
        .chars()
        .filter(|c| acting(*c))
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    assert!(raw.is_empty(), "{what}: raw {raw:?} in:\n{text}");
}

/// `text` shows an escape of the hostile text, so it was shown, not dropped.
fn assert_shown(text: &str, what: &str) {
    assert!(
        text.contains("\\e]52") || text.contains("\\u202e"),
        "{what}: the agent's text is not shown:\n{text}"
    );
}

struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let dir = tempfile::Builder::new()
            .prefix("inert")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        std::fs::create_dir_all(dir.path().join("proj/.git")).unwrap();
        World { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn proj(&self) -> PathBuf {
        self.dir.path().join("proj")
    }

    fn hook(&self, event: Value) -> Output {
        let mut cmd = common::sentinel(&self.home());
        cmd.arg("hook").current_dir(self.proj());
        common::feed(cmd, event.to_string().as_bytes())
    }

    fn bash(&self, command: &str) -> Output {
        self.hook(
            json!({"hook_event_name": "PreToolUse", "session_id": SESSION,
            "cwd": self.proj(), "permission_mode": "bypassPermissions", "tool_name": "Bash",
            "tool_input": {"command": command}}),
        )
    }

    fn run(&self, args: &[&str], stdin: &str) -> Output {
        let mut cmd = common::sentinel(&self.home());
        cmd.args(args).current_dir(self.proj());
        common::feed(cmd, stdin.as_bytes())
    }

    /// A session's worth of hostile calls: a deny, uncertain calls, a write.
    fn session(&self) -> Output {
        let deny = self.bash(&format!("git push --force origin 'main{HOSTILE}'"));
        for _ in 0..3 {
            self.bash(&format!("frobnicate --x '{HOSTILE}'"));
        }
        self.hook(
            json!({"hook_event_name": "PreToolUse", "session_id": SESSION,
            "cwd": self.proj(), "permission_mode": "acceptEdits", "tool_name": "Write",
            "tool_input": {"file_path": self.proj().join(format!("n{HOSTILE}.txt")),
                           "content": "x"}}),
        );
        deny
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_hooks_answer_and_warnings_are_inert() {
    let w = World::new();
    let deny = w.session();
    let v: Value = serde_json::from_slice(&deny.stdout).unwrap();
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    // The reason, as the agent decodes it and shows it to the person.
    assert_inert(reason, "the deny's reason");
    assert_shown(reason, "the deny's reason");
    assert_inert(&text(&deny.stderr), "the hook's stderr");
}

#[test]
fn statusline_is_inert() {
    let w = World::new();
    w.session();
    let out = w.run(
        &["statusline"],
        &json!({ "session_id": SESSION }).to_string(),
    );
    assert_inert(&text(&out.stdout), "statusline");
    assert_shown(&text(&out.stdout), "statusline");
}

#[test]
fn allow_once_is_inert() {
    let w = World::new();
    let deny = w.session();
    let v: Value = serde_json::from_slice(&deny.stdout).unwrap();
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string();
    let at = reason.find("sentinel allow-once ").expect("a code") + 20;
    let code: String = reason[at..].chars().take(6).collect();
    for args in [
        vec!["allow-once", &code],
        vec!["allow-once", &code, "--json"],
    ] {
        let out = w.run(&args, "");
        assert_inert(&text(&out.stdout), "allow-once");
        assert_inert(&text(&out.stderr), "allow-once's stderr");
    }
    let out = w.run(&["allow-once", &code], "");
    assert!(
        text(&out.stderr).contains("already granted"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn audit_tail_is_inert() {
    let w = World::new();
    w.session();
    for args in [
        &["audit", "tail", "-n", "10"][..],
        &["audit", "tail", "--json"],
    ] {
        let out = w.run(args, "");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_inert(&text(&out.stdout), "audit tail");
        assert_shown(&text(&out.stdout), "audit tail");
    }
    // JSON made inert still reads back as the same records.
    let out = w.run(&["audit", "tail", "--json"], "");
    for line in text(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["tool"] == "Bash" {
            assert_eq!(v["session"], SESSION);
        }
    }
}

#[test]
fn explain_and_check_are_inert() {
    let w = World::new();
    let command = format!("git push --force origin 'main{HOSTILE}'");
    for args in [
        vec!["explain", "--offline", command.as_str()],
        vec!["explain", "--offline", "--json", command.as_str()],
        vec!["check", "--offline", command.as_str()],
        vec!["check", "--offline", "--json", command.as_str()],
    ] {
        let out = w.run(&args, "");
        assert_inert(&text(&out.stdout), &args.join(" "));
        assert_shown(&text(&out.stdout), &args.join(" "));
        assert_inert(&text(&out.stderr), &args.join(" "));
    }
}

#[test]
fn stats_are_inert() {
    let w = World::new();
    w.session();
    for args in [
        &["stats"][..],
        &["stats", "--all"],
        &["stats", "--sessions"],
        &["stats", "--session", SESSION],
        &["stats", "--session", SESSION, "--json"],
    ] {
        let out = w.run(args, "");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_inert(&text(&out.stdout), &args.join(" "));
    }
    let out = w.run(&["stats", "--sessions"], "");
    assert!(
        text(&out.stdout).contains("s\\e[2J\\u202e1"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn report_is_inert() {
    let w = World::new();
    w.session();
    let out = w.run(&["report"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(w.home().join("report.html")).unwrap();
    assert_inert(&page, "report.html");
    assert_shown(&page, "report.html");
    let out = w.run(&["report", "--json"], "");
    assert_inert(&text(&out.stdout), "report --json");
}

#[test]
fn suggest_is_inert() {
    let w = World::new();
    w.session();
    let out = w.run(&["suggest"], "");
    assert_inert(&text(&out.stdout), "suggest");
    assert_inert(&text(&out.stderr), "suggest's stderr");
}

#[test]
fn the_session_summary_is_inert() {
    let w = World::new();
    w.session();
    let out = w.hook(
        json!({"hook_event_name": "SessionEnd", "session_id": SESSION,
        "cwd": w.proj(), "reason": "other"}),
    );
    assert!(
        text(&out.stderr).starts_with("sentinel: "),
        "{}",
        text(&out.stderr)
    );
    assert_inert(&text(&out.stderr), "SessionEnd");
    let kept: Vec<PathBuf> = std::fs::read_dir(w.home().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1);
    assert_inert(&kept[0].display().to_string(), "the summary's file name");
    assert_inert(&std::fs::read_to_string(&kept[0]).unwrap(), "the summary");
}
