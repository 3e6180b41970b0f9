//! `sentinel doctor`'s self-test: the hook the agent runs, given one call it must deny, one it
//! must allow and one it cannot decide locally, exactly as Claude Code sends them. It runs with a
//! scratch SENTINEL_HOME (inside the person's, removed after), so the person's stats and audit
//! log record nothing, and without Tier 2 keys, so nothing leaves the machine.

use sentinel::agents::doctor::{Check, Status};
use std::path::Path;

/// The three calls and the answer each must get (default mode, no Tier 2: the uncertain one is
/// deferred to the agent's own prompt, which the hook says by printing nothing).
const CALLS: [(&str, &str); 3] = [
    ("rm -rf ~", "deny"),
    ("git status", "allow"),
    (
        "curl -X POST https://example.com/upload -d @notes.txt",
        "defer",
    ),
];

/// Runs the calls through `binary hook`.
pub fn run(binary: &Path, home: &Path) -> Check {
    let scratch = home.join(format!(".doctor-selftest-{}", std::process::id()));
    let result = sentinel::config::kept::create_dir(&scratch)
        .map_err(|e| format!("cannot create {} ({e})", scratch.display()))
        .and_then(|()| answers(binary, &scratch));
    let _ = sentinel::config::kept::remove_tree(&scratch);
    match result {
        Ok(got) if got.iter().zip(CALLS).all(|(g, (_, want))| g == want) => Check::new(
            "selftest",
            Status::Ok,
            format!(
                "{} hook: deny for `{}`, allow for `{}`, defer for `{}`",
                binary.display(),
                CALLS[0].0,
                CALLS[1].0,
                CALLS[2].0
            ),
        ),
        Ok(got) => {
            let wrong: Vec<String> = got
                .iter()
                .zip(CALLS)
                .filter(|(g, (_, want))| g != want)
                .map(|(g, (call, want))| format!("{g} for `{call}` (expected {want})"))
                .collect();
            Check::new(
                "selftest",
                Status::Fail,
                format!("{} hook answered {}", binary.display(), wrong.join(", ")),
            )
            .fix("reinstall sentinel: ./install/install.sh")
        }
        Err(e) => Check::new(
            "selftest",
            Status::Fail,
            format!("{} hook could not be run: {e}", binary.display()),
        )
        .fix("reinstall sentinel: ./install/install.sh"),
    }
}

fn answers(binary: &Path, scratch: &Path) -> Result<Vec<String>, String> {
    CALLS
        .iter()
        .map(|(command, _)| answer(binary, scratch, command))
        .collect()
}

/// The hook's answer to one Bash call: its permissionDecision, `defer` for no output and exit 0,
/// `deny` for exit 2.
///
/// Run through `system(3)` with files for stdin, stdout and stderr, not `std::process::Command`:
/// std's spawning imports ~40 libc symbols, and rustc binds every import at start-up, so that one
/// use cost every hook ~12,000 instructions (3% of an uncertain call, callgrind). The hook ends
/// on its own within its 20 s deadline, so there is no timeout to keep here.
fn answer(binary: &Path, scratch: &Path, command: &str) -> Result<String, String> {
    let event = serde_json::json!({
        "session_id": "sentinel-doctor-selftest",
        "hook_event_name": "PreToolUse",
        "cwd": scratch,
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": { "command": command },
    });
    let file = |name: &str| scratch.join(name);
    sentinel::config::kept::write_whole(&file("event.json"), event.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    let q = |p: &Path| sentinel::text::shell_word(&p.display().to_string());
    let unset: String = [
        "SENTINEL_SHADOW",
        "SENTINEL_FAIL_MODE",
        "SENTINEL_API_KEY",
        "ANTHROPIC_API_KEY",
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
    ]
    .iter()
    .map(|n| format!("-u {n} "))
    .collect();
    let script = format!(
        "cd {dir} && exec env {unset}SENTINEL_HOME={dir} SENTINEL_NO_TTY=1 {bin} hook < {input} > {output} 2> {errors}",
        dir = q(scratch),
        bin = q(binary),
        input = q(&file("event.json")),
        output = q(&file("out.json")),
        errors = q(&file("err.txt")),
    );
    let script = std::ffi::CString::new(script).map_err(|e| e.to_string())?;
    // SAFETY: a NUL-terminated string that outlives the call; system(3) only reads it.
    let status = unsafe { libc::system(script.as_ptr()) };
    if status == -1 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let read = |name: &str| std::fs::read(file(name)).unwrap_or_default();
    let (out_bytes, err_bytes) = (read("out.json"), read("err.txt"));
    let stdout = String::from_utf8_lossy(&out_bytes);
    match code {
        Some(2) => return Ok("deny".into()),
        Some(0) => {}
        other => {
            return Err(format!(
                "exit {other:?}: {}",
                String::from_utf8_lossy(&err_bytes).trim()
            ));
        }
    }
    if stdout.trim().is_empty() {
        return Ok("defer".into());
    }
    let v: serde_json::Value = serde_json::from_str(&stdout)
        .map_err(|e| format!("not the hook's JSON ({e}): {}", stdout.trim()))?;
    Ok(v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("no decision")
        .to_string())
}
