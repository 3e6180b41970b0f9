//! `sentinel doctor`'s checks of what can switch sentinel off or loosen it from outside the
//! person's own `sentinel.toml` (SPEC 2.6): variables that would loosen it (ignored unless
//! `[env] trust` names them, and named when honoured), a project's committed agent settings
//! that set SENTINEL_* / ANTHROPIC_* variables or `disableAllHooks`, and a SENTINEL_HOME others
//! can read (it holds command texts).

use super::doctor::{Check, Status};
use crate::config::Config;
use serde_json::Value;
use std::path::Path;

/// The agent settings files a project carries (Claude Code reads both, and their `env` reaches
/// every hook it runs).
pub const PROJECT_SETTINGS: [&str; 2] = [".claude/settings.json", ".claude/settings.local.json"];

/// The checks for the environment, the project at `project` (its root) and the home.
pub fn checks(config: &Config, project: Option<&Path>) -> Vec<Check> {
    let mut out = Vec::new();
    for w in &config.warnings {
        out.push(Check::new("env", Status::Warn, w.clone()));
    }
    if let Some(root) = project {
        let home = &config.home.value;
        let canonical = |p: &Path| p.canonicalize().unwrap_or(p.to_path_buf());
        // As the hook judges it: a home from the environment, inside a real project (named by
        // the agent, or a git work tree), not merely under the directory doctor runs in.
        let real =
            crate::local::rules::project::named_by_agent().is_some() || root.join(".git").exists();
        if matches!(config.home.source, crate::config::Source::Env { .. })
            && real
            && canonical(home).starts_with(canonical(root))
        {
            out.push(
                Check::new(
                    "home",
                    Status::Fail,
                    format!(
                        "SENTINEL_HOME {} is inside the project {}: the project's files would be your rules; where the agent names this project, sentinel refuses it and asks",
                        home.display(),
                        root.display()
                    ),
                )
                .fix("set SENTINEL_HOME outside any project (or unset it: ~/.agentos)"),
            );
        }
        for name in PROJECT_SETTINGS {
            let path = root.join(name);
            let Ok(bytes) =
                crate::config::files::read(&path, 4 << 20, crate::config::files::Links::Follow)
            else {
                continue;
            };
            let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            out.extend(settings_problems(&path, &v));
        }
    }
    out.extend(home_mode(&config.home.value));
    out
}

/// What one project settings file does to sentinel: variables it sets for every hook, hooks it
/// turns off.
pub fn settings_problems(path: &Path, settings: &Value) -> Vec<Check> {
    let mut out = Vec::new();
    let shown = path.display();
    if settings.get("disableAllHooks") == Some(&Value::Bool(true)) {
        out.push(
            Check::new(
                "project",
                Status::Fail,
                format!(
                    "{shown} sets \"disableAllHooks\": true: sentinel never runs in this project"
                ),
            )
            .fix(format!(
                "remove \"disableAllHooks\" from {shown}, or do not trust this folder"
            )),
        );
    }
    let env = settings.get("env").and_then(Value::as_object);
    for (name, value) in env.into_iter().flatten() {
        if !(name.starts_with("SENTINEL_") || name.starts_with("ANTHROPIC_")) {
            continue;
        }
        let value = value
            .as_str()
            .map(str::to_string)
            .unwrap_or(value.to_string());
        let value = crate::text::excerpt_to(&value, 60);
        out.push(
            Check::new(
                "project",
                Status::Fail,
                format!(
                    "{shown} sets {name}={value} in the environment of every hook, sentinel's too"
                ),
            )
            .fix(format!("remove {name} from the \"env\" of {shown}")),
        );
    }
    out
}

/// A home others can read or enter: its files hold command texts, tokens typed in them included.
fn home_mode(home: &Path) -> Option<Check> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(home).ok()?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Some(
                Check::new(
                    "home",
                    Status::Warn,
                    format!(
                        "SENTINEL_HOME {} is mode {mode:o}: others can read the command texts in its logs",
                        home.display()
                    ),
                )
                .fix(format!("chmod -R go-rwx {}", home.display())),
            );
        }
    }
    let _ = home;
    None
}
