//! `sentinel doctor`'s self-test: the hook the agent runs — the registered command line with its
//! registered arguments (`--shadow`), under the person's `mode` — given one call it must deny, one
//! it must allow and one it cannot decide locally, exactly as that agent sends them, its answer
//! read as that agent reads it ([`sentinel::agents::probe`]). What it must answer follows from
//! what is registered: shadow mode answers nothing at all (it enforces nothing, and the check says
//! so), guard mode never allows. It runs with a scratch SENTINEL_HOME (inside the person's,
//! removed after), so the person's stats and audit log record nothing, and without Tier 2 keys, so
//! nothing leaves the machine.

use sentinel::agents::doctor::{Check, Status};
use sentinel::agents::event::Agent;
use sentinel::agents::probe::{self, CALLS, Heard};
use sentinel::config::{Config, Mode};
use std::path::{Path, PathBuf};

/// A registered hook, as its agent runs it.
pub enum HookLine {
    /// Claude Code's exec form: the program and its arguments, no shell.
    Exec { program: PathBuf, args: Vec<String> },
    /// A command line the agent hands to `sh -c` (Codex, Gemini CLI, Cursor, Copilot CLI).
    Shell(String),
}

impl HookLine {
    fn shown(&self) -> String {
        match self {
            HookLine::Exec { program, args } => {
                format!("`{} {}`", program.display(), args.join(" "))
            }
            HookLine::Shell(line) => format!("`{line}`"),
        }
    }

    fn flagged_shadow(&self) -> bool {
        match self {
            HookLine::Exec { args, .. } => args.iter().any(|a| a == "--shadow"),
            HookLine::Shell(line) => sentinel::agents::setup::words(line)
                .is_some_and(|w| w.iter().any(|a| a == "--shadow")),
        }
    }
}

/// Runs the calls through `hook` (as registered, as `agent` runs it) under the person's
/// configuration. `again` is the install command that registers it afresh.
pub fn run(
    hook: &HookLine,
    agent: Agent,
    config: &Config,
    again: &str,
    name: &'static str,
) -> Check {
    let flagged = hook.flagged_shadow();
    let mode = if flagged {
        Mode::Shadow
    } else {
        config.mode.value
    };
    let shown = hook.shown();
    let home = &config.home.value;
    let scratch = home.join(format!(".doctor-selftest-{}", std::process::id()));
    let result = sentinel::config::kept::create_dir(&scratch)
        .map_err(|e| format!("cannot create {} ({e})", scratch.display()))
        .and_then(|()| answers(hook, agent, mode, &scratch));
    let _ = sentinel::config::kept::remove_tree(&scratch);
    let want = probe::expected(agent, mode);
    let why = if flagged {
        "`--shadow` in its registered command line".to_string()
    } else {
        format!("mode = {:?} ({})", mode, config.mode.source).to_lowercase()
    };
    let title = agent.title();
    match result {
        Ok(got) if got == want && mode == Mode::Shadow => Check::new(
            name,
            Status::Warn,
            format!(
                "{shown} runs in shadow mode ({why}): it gave no answer for `{}`, `{}` or `{}`. It enforces nothing: every call goes to {title}'s own permission flow, as if sentinel were absent (decisions are only recorded)",
                CALLS[0], CALLS[1], CALLS[2]
            ),
        )
        .fix(if flagged {
            format!("{again}   (registers it again without --shadow)")
        } else {
            "set mode = \"enforce\" in sentinel.toml".to_string()
        }),
        Ok(got) if got == want => Check::new(
            name,
            Status::Ok,
            format!(
                "{shown}, run as {title} runs it{}: {}",
                match (mode, agent) {
                    (Mode::Guard, _) => " (guard mode: it never allows)",
                    (_, Agent::Codex) =>
                        " (Codex takes no allow: what sentinel allows goes to Codex's own approval)",
                    _ => "",
                },
                describe(&want, title)
            ),
        ),
        Ok(got) => {
            let wrong: Vec<String> = got
                .iter()
                .zip(CALLS.iter().zip(want))
                .filter(|(g, (_, w))| *g != w)
                .map(|(g, (call, w))| {
                    format!("{} for `{call}` (expected {})", g.as_str(), w.as_str())
                })
                .collect();
            Check::new(
                name,
                Status::Fail,
                format!("{shown}, run as {title} runs it, answered {}", wrong.join(", ")),
            )
            .fix(format!("reinstall sentinel (./install/install.sh), then: {again}"))
        }
        Err(e) => Check::new(
            name,
            Status::Fail,
            format!("{shown}, run as {title} runs it: {e}; {title} lets such calls through"),
        )
        .fix(format!("reinstall sentinel (./install/install.sh), then: {again}")),
    }
}

/// The answers in words: "deny for `rm -rf ~`, allow for …".
fn describe(heard: &[Heard; 3], title: &str) -> String {
    heard
        .iter()
        .zip(CALLS)
        .map(|(h, call)| match h {
            Heard::Defer => format!("no answer for `{call}` (left to {title}'s own prompt)"),
            h => format!("{} for `{call}`", h.as_str()),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn answers(
    hook: &HookLine,
    agent: Agent,
    mode: Mode,
    scratch: &Path,
) -> Result<[Heard; 3], String> {
    // The person's mode, in the scratch home. Shadow goes as the flag: a home that lies inside
    // the directory the hook runs in (as the scratch one does) cannot loosen sentinel.
    let shadow = mode == Mode::Shadow && !hook.flagged_shadow();
    if mode == Mode::Guard {
        sentinel::config::kept::write_whole(&scratch.join("sentinel.toml"), b"mode = \"guard\"\n")
            .map_err(|e| e.to_string())?;
    }
    let q = |p: &Path| sentinel::text::shell_word(&p.display().to_string());
    let program = match hook {
        HookLine::Exec { program, args } => {
            let mut words = vec![q(program)];
            words.extend(args.iter().map(|a| sentinel::text::shell_word(a)));
            if shadow {
                words.push("--shadow".into());
            }
            words.join(" ")
        }
        // The agent's shell runs the line as it is (the line holds no shell syntax of its
        // own: doctor reads it as plain words).
        HookLine::Shell(line) => format!(
            "sh -c {}",
            sentinel::text::shell_word(&if shadow {
                format!("{line} --shadow")
            } else {
                line.clone()
            })
        ),
    };
    let mut out = [Heard::Defer; 3];
    for (slot, command) in out.iter_mut().zip(CALLS) {
        *slot = answer(&program, agent, scratch, command)?;
    }
    Ok(out)
}

/// The hook's answer to one shell call, as `agent` reads it.
///
/// Run through `system(3)` with files for stdin, stdout and stderr, not `std::process::Command`:
/// std's spawning imports ~40 libc symbols, and rustc binds every import at start-up, so that one
/// use cost every hook ~12,000 instructions (3% of an uncertain call, callgrind). The hook ends
/// on its own within its 20 s deadline, so there is no timeout to keep here.
fn answer(program: &str, agent: Agent, scratch: &Path, command: &str) -> Result<Heard, String> {
    let event = probe::shell_event(agent, command, scratch);
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
        "cd {dir} && exec env {unset}SENTINEL_HOME={dir} SENTINEL_NO_TTY=1 {program} < {input} > {output} 2> {errors}",
        dir = q(scratch),
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
    // Windows' system() returns the command's exit status itself.
    #[cfg(unix)]
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    #[cfg(not(unix))]
    let code = Some(status);
    let read = |name: &str| std::fs::read(file(name)).unwrap_or_default();
    let (out_bytes, err_bytes) = (read("out.json"), read("err.txt"));
    probe::read_answer(agent, code, &String::from_utf8_lossy(&out_bytes)).map_err(|e| {
        let err = String::from_utf8_lossy(&err_bytes);
        let err = err.trim();
        if err.is_empty() {
            e
        } else {
            format!("{e} (stderr: {})", err.lines().next().unwrap_or(""))
        }
    })
}
