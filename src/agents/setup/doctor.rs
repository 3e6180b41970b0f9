//! `sentinel doctor --agent NAME`: is sentinel registered in that agent's hook file, for the
//! events that guard its calls, in the protocol it speaks, with a binary that exists?

use super::{Found, Shape, Target, registered};
use crate::agents::doctor::{Check, Status};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Whether `file` registers sentinel at all (any handler).
pub fn has_sentinel(target: Target, file: &Path) -> bool {
    read(file).is_some_and(|v| !registered(target, &v).is_empty())
}

fn read(file: &Path) -> Option<Value> {
    std::fs::read(file)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
}

/// The command line registered for shell calls in `file`, when its program exists: what
/// doctor's self-test runs.
pub fn shell_hook(target: Target, file: &Path) -> Option<String> {
    let value = read(file)?;
    registered(target, &value)
        .into_iter()
        .find(|f| f.event == target.shell_event())
        .filter(|f| {
            f.words
                .first()
                .and_then(|p| resolve(p))
                .is_some_and(|p| is_executable(&p))
        })
        .map(|f| f.line)
}

/// The checks of `target`'s registration in `file`. `fix` is the install command for its scope.
pub fn checks(target: Target, file: &Path, fix: &str) -> Vec<Check> {
    let name = target.name();
    let shown = file.display();
    let value = match std::fs::read(file) {
        Err(_) => {
            return vec![
                Check::new(
                    name,
                    Status::Fail,
                    format!(
                        "{shown} does not exist: sentinel does not check {}'s calls",
                        target.title()
                    ),
                )
                .fix(fix),
            ];
        }
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => v,
            Err(e) => {
                return vec![
                    Check::new(
                        name,
                        Status::Fail,
                        format!("{shown} is not valid JSON ({e})"),
                    )
                    .fix(format!("repair {shown} by hand")),
                ];
            }
        },
    };
    let found = registered(target, &value);
    let mut out = Vec::new();
    let missing: Vec<&str> = target
        .events()
        .into_iter()
        .map(|(e, _)| e)
        .filter(|e| !found.iter().any(|f| f.event == *e))
        .collect();
    let unguarded = target.guard_events().iter().any(|e| missing.contains(e));
    out.push(match (found.is_empty(), unguarded, missing.is_empty()) {
        (true, _, _) => Check::new(
            name,
            Status::Fail,
            format!(
                "sentinel is not registered in {shown}: no {} call is checked",
                target.title()
            ),
        )
        .fix(fix),
        (false, true, _) => Check::new(
            name,
            Status::Fail,
            format!(
                "{shown} registers sentinel but not for {}: those calls are not checked",
                missing.join(", ")
            ),
        )
        .fix(fix),
        (false, false, false) => Check::new(
            name,
            Status::Warn,
            format!(
                "{shown} registers sentinel, but not for {}",
                missing.join(", ")
            ),
        )
        .fix(fix),
        (false, false, true) => Check::new(
            name,
            Status::Ok,
            format!(
                "registered for {} in {shown}",
                target
                    .events()
                    .iter()
                    .map(|(e, _)| *e)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
    });
    for f in &found {
        if let Some(c) = protocol(target, f, fix) {
            out.push(c);
        }
        if let Some(c) = binary(target, f) {
            out.push(c);
        }
        if let Some(c) = matcher(target, f, fix) {
            out.push(c);
        }
    }
    if found
        .iter()
        .any(|f| f.words.iter().any(|w| w == "--shadow"))
    {
        out.push(
            Check::new(
                name,
                Status::Warn,
                format!("registered with --shadow in {shown}: nothing is enforced"),
            )
            .fix(fix.replace(" --shadow", "")),
        );
    }
    if target == Target::Codex && !found.is_empty() {
        out.push(codex_trust(file));
    }
    dedup(out)
}

/// Codex runs a hook from a hooks file only after the person trusted it in its `/hooks` view,
/// which records `[hooks.state."FILE:pre_tool_use:GROUP:HANDLER"] trusted_hash = …` in the
/// `config.toml` beside the file (or in `$CODEX_HOME`). Without that record, Codex's calls are
/// not checked. The hash itself is Codex's own: a changed hook is asked about again.
fn codex_trust(file: &Path) -> Check {
    let mut configs: Vec<PathBuf> = file
        .parent()
        .map(|d| d.join("config.toml"))
        .into_iter()
        .collect();
    let codex_home = std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::config::user_home().map(|h| h.join(".codex")));
    if let Some(home) = codex_home {
        let c = home.join("config.toml");
        if !configs.contains(&c) {
            configs.push(c);
        }
    }
    let mut names = vec![file.display().to_string()];
    if let Ok(real) = file.canonicalize() {
        names.push(real.display().to_string());
    }
    let trusted_in = configs.iter().find(|c| {
        let Ok(text) = std::fs::read_to_string(c) else {
            return false;
        };
        let Ok(value) = text.parse::<toml::Table>() else {
            return false;
        };
        value
            .get("hooks")
            .and_then(|h| h.get("state"))
            .and_then(toml::Value::as_table)
            .is_some_and(|states| {
                states.iter().any(|(key, state)| {
                    names
                        .iter()
                        .any(|n| key.starts_with(&format!("{n}:pre_tool_use:")))
                        && state.get("trusted_hash").is_some()
                })
            })
    });
    match trusted_in {
        Some(c) => Check::new(
            "codex",
            Status::Ok,
            format!(
                "Codex has trusted sentinel's PreToolUse hook ({}); after a change to the hook Codex asks again in /hooks",
                c.display()
            ),
        ),
        None => Check::new(
            "codex",
            Status::Warn,
            format!(
                "no trust record for sentinel's hooks in {}: Codex runs a new or changed hook only once you trust it, so until then its calls are not checked",
                configs
                    .iter()
                    .map(|c| c.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        )
        .fix("open Codex, type /hooks, and trust sentinel's PreToolUse and PostToolUse hooks"),
    }
}

/// The protocol the registration speaks must be the agent's: a Gemini CLI hook answering in
/// Claude Code's shape is ignored, and so the call runs.
fn protocol(target: Target, f: &Found, fix: &str) -> Option<Check> {
    let mut agent = None;
    let mut args = f.words.iter().skip(2);
    while let Some(a) = args.next() {
        if a == "--agent" {
            agent = args.next().map(String::as_str);
        } else if let Some(v) = a.strip_prefix("--agent=") {
            agent = Some(v);
        }
    }
    let agent = agent.filter(|a| *a != "claude");
    // An older Codex registration (`sentinel hook`) still judges: Codex's events are known by
    // their `turn_id`. Only an event sentinel cannot read is then answered `ask`, which Codex
    // ignores.
    let status = if target == Target::Codex && agent.is_none() {
        Status::Warn
    } else {
        Status::Fail
    };
    (agent != target.hook_agent()).then(|| {
        Check::new(
            target.name(),
            status,
            format!(
                "the {} handler runs `sentinel hook{}`, but {} needs `{}`: its answers are not read",
                f.event,
                agent.map(|a| format!(" --agent {a}")).unwrap_or_default(),
                target.title(),
                match target.hook_agent() {
                    Some(a) => format!("sentinel hook --agent {a}"),
                    None => "sentinel hook".into(),
                }
            ),
        )
        .fix(fix)
    })
}

fn binary(target: Target, f: &Found) -> Option<Check> {
    let program = f.words.first()?;
    let path = resolve(program);
    let runs = path.as_deref().is_some_and(is_executable);
    (!runs).then(|| {
        Check::new(
            target.name(),
            Status::Fail,
            format!(
                "the {} handler runs {program}, which {}: {} lets the call through",
                f.event,
                if program.contains('/') {
                    "does not exist or cannot be run"
                } else {
                    "is not on PATH"
                },
                target.title()
            ),
        )
        .fix(format!(
            "install sentinel (./install/install.sh), then: sentinel install --agent {}",
            target.name()
        ))
    })
}

fn resolve(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    crate::platform::executable::is_executable(p)
}

/// A grouped registration's matcher must reach every tool sentinel judges for that agent.
fn matcher(target: Target, f: &Found, fix: &str) -> Option<Check> {
    if target.shape() != Shape::Grouped || !target.guard_events().contains(&f.event.as_str()) {
        return None;
    }
    let m = f.matcher.as_deref().unwrap_or("");
    let missing: Vec<&str> = match target {
        Target::Codex => crate::call::tools::missing_from(m),
        _ => {
            if m.is_empty() || m == "*" {
                Vec::new()
            } else {
                match regex::Regex::new(m) {
                    Ok(re) => super::GEMINI_TOOLS
                        .iter()
                        .copied()
                        .filter(|t| !re.is_match(t))
                        .collect(),
                    Err(_) => super::GEMINI_TOOLS.to_vec(),
                }
            }
        }
    };
    (!missing.is_empty()).then(|| {
        Check::new(
            target.name(),
            Status::Fail,
            format!(
                "the {} matcher `{m}` leaves out {}: those calls are not checked",
                f.event,
                missing.join(", ")
            ),
        )
        .fix(fix)
    })
}

fn dedup(checks: Vec<Check>) -> Vec<Check> {
    let mut out: Vec<Check> = Vec::new();
    for c in checks {
        if !out.iter().any(|o| o.detail == c.detail) {
            out.push(c);
        }
    }
    out
}
