//! `sentinel doctor`'s self-test: the hook the agent runs — the registered program with its
//! registered arguments (`--shadow`), under the person's `mode` — given one call it must deny, one
//! it must allow and one it cannot decide locally, exactly as Claude Code sends them. What it must
//! answer follows from what is registered: shadow mode answers nothing at all (it enforces
//! nothing, and the check says so), guard mode never allows. It runs with a scratch SENTINEL_HOME
//! (inside the person's, removed after), so the person's stats and audit log record nothing, and
//! without Tier 2 keys, so nothing leaves the machine.

use sentinel::agents::doctor::{Check, Status};
use sentinel::config::{Config, Mode};
use std::path::Path;

/// The three calls (default mode, no Tier 2: the uncertain one is deferred to the agent's own
/// prompt, which the hook says by printing nothing).
const CALLS: [&str; 3] = [
    "rm -rf ~",
    "git status",
    "curl -X POST https://example.com/upload -d @notes.txt",
];

/// What the registered hook enforces: its answers to [`CALLS`], and how it is described.
fn expected(mode: Mode) -> [&'static str; 3] {
    match mode {
        Mode::Enforce => ["deny", "allow", "defer"],
        Mode::Guard => ["deny", "defer", "defer"],
        Mode::Shadow => ["defer", "defer", "defer"],
    }
}

/// Runs the calls through `binary ARGS` (as registered) under the person's configuration.
pub fn run(binary: &Path, args: &[String], config: &Config) -> Check {
    let flagged = args.iter().any(|a| a == "--shadow");
    let mode = if flagged {
        Mode::Shadow
    } else {
        config.mode.value
    };
    let shown = format!("`{} {}`", binary.display(), args.join(" "));
    let home = &config.home.value;
    let scratch = home.join(format!(".doctor-selftest-{}", std::process::id()));
    let result = sentinel::config::kept::create_dir(&scratch)
        .map_err(|e| format!("cannot create {} ({e})", scratch.display()))
        .and_then(|()| answers(binary, args, mode, &scratch));
    let _ = sentinel::config::kept::remove_tree(&scratch);
    let want = expected(mode);
    let why = if flagged {
        "`--shadow` in its registered command line".to_string()
    } else {
        format!("mode = {:?} ({})", mode, config.mode.source).to_lowercase()
    };
    match result {
        Ok(got) if got == want && mode == Mode::Shadow => Check::new(
            "selftest",
            Status::Warn,
            format!(
                "{shown} runs in shadow mode ({why}): it gave no answer for `{}`, `{}` or `{}`. It enforces nothing: every call goes to Claude Code's own permission flow, as if sentinel were absent (decisions are only recorded)",
                CALLS[0], CALLS[1], CALLS[2]
            ),
        )
        .fix(if flagged {
            "sentinel install   (registers it again without --shadow)"
        } else {
            "set mode = \"enforce\" in sentinel.toml"
        }),
        Ok(got) if got == want => Check::new(
            "selftest",
            Status::Ok,
            format!(
                "{shown}{}: {} for `{}`, {} for `{}`, {} for `{}`",
                if mode == Mode::Guard {
                    " (guard mode: it never allows)"
                } else {
                    ""
                },
                want[0],
                CALLS[0],
                want[1],
                CALLS[1],
                want[2],
                CALLS[2]
            ),
        ),
        Ok(got) => {
            let wrong: Vec<String> = got
                .iter()
                .zip(CALLS.iter().zip(want))
                .filter(|(g, (_, w))| g.as_str() != *w)
                .map(|(g, (call, w))| format!("{g} for `{call}` (expected {w})"))
                .collect();
            Check::new(
                "selftest",
                Status::Fail,
                format!("{shown} answered {}", wrong.join(", ")),
            )
            .fix("reinstall sentinel: ./install/install.sh")
        }
        Err(e) => Check::new(
            "selftest",
            Status::Fail,
            format!("{shown} could not be run: {e}"),
        )
        .fix("reinstall sentinel: ./install/install.sh"),
    }
}

fn answers(
    binary: &Path,
    args: &[String],
    mode: Mode,
    scratch: &Path,
) -> Result<Vec<String>, String> {
    // The person's mode, in the scratch home. Shadow goes as the flag: a home that lies inside
    // the directory the hook runs in (as the scratch one does) cannot loosen sentinel.
    let mut args: Vec<String> = args.to_vec();
    match mode {
        Mode::Shadow if !args.iter().any(|a| a == "--shadow") => args.push("--shadow".into()),
        Mode::Guard => sentinel::config::kept::write_whole(
            &scratch.join("sentinel.toml"),
            b"mode = \"guard\"\n",
        )
        .map_err(|e| e.to_string())?,
        _ => {}
    }
    CALLS
        .iter()
        .map(|command| answer(binary, &args, scratch, command))
        .collect()
}

/// The hook's answer to one Bash call: its permissionDecision, `defer` for no output and exit 0,
/// `deny` for exit 2.
///
/// Run through `system(3)` with files for stdin, stdout and stderr, not `std::process::Command`:
/// std's spawning imports ~40 libc symbols, and rustc binds every import at start-up, so that one
/// use cost every hook ~12,000 instructions (3% of an uncertain call, callgrind). The hook ends
/// on its own within its 20 s deadline, so there is no timeout to keep here.
fn answer(binary: &Path, args: &[String], scratch: &Path, command: &str) -> Result<String, String> {
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
        "cd {dir} && exec env {unset}SENTINEL_HOME={dir} SENTINEL_NO_TTY=1 {bin} {args} < {input} > {output} 2> {errors}",
        dir = q(scratch),
        bin = q(binary),
        args = args
            .iter()
            .map(|a| sentinel::text::shell_word(a))
            .collect::<Vec<_>>()
            .join(" "),
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
