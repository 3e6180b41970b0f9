//! `sentinel install|uninstall|doctor --agent codex|gemini|cursor|copilot`: the other agents'
//! hook files ([`sentinel::agents::setup`]).

use super::args::Scope;
use super::load_config;
use super::person::person_only;
use anyhow::{Context as _, Result, bail};
use sentinel::agents::doctor::Check;
use sentinel::agents::setup::{self, Target};
use sentinel::config;
use std::path::PathBuf;

/// The agent's file: `--settings`, else the person's (`--scope user`) or the project's.
fn path(target: Target, settings: Option<PathBuf>, scope: Scope) -> Result<PathBuf> {
    if let Some(p) = settings {
        return Ok(p);
    }
    let project = match scope {
        Scope::User => false,
        Scope::Project => true,
        Scope::Local => bail!(
            "--scope local is Claude Code's settings.local.json; {} has user and project files",
            target.title()
        ),
    };
    setup::path_for(
        target,
        project,
        config::user_home().as_deref(),
        &std::env::current_dir()?,
        std::env::var_os("CODEX_HOME").map(PathBuf::from),
    )
}

/// The install command for this scope, as doctor's fixes name it.
fn install_command(target: Target, scope: Scope, settings: Option<&PathBuf>) -> String {
    let mut c = format!("sentinel install --agent {}", target.name());
    if let Some(p) = settings {
        c.push_str(&format!(" --settings {}", p.display()));
    } else if matches!(scope, Scope::Project) {
        c.push_str(" --scope project");
    }
    c
}

pub fn install(
    target: Target,
    shadow: bool,
    settings: Option<PathBuf>,
    scope: Scope,
    statusline: bool,
) -> Result<u8> {
    person_only("install")?;
    if statusline {
        bail!("--statusline is Claude Code's: run `sentinel install --statusline` for it");
    }
    let config = load_config()?;
    let explicit = settings.is_some();
    let file = path(target, settings, scope)?;
    // A project's file is committed: it names `sentinel` as found on PATH.
    let binary = match scope {
        Scope::Project if !explicit => PathBuf::from("sentinel"),
        _ => std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .context("cannot find sentinel's own path")?,
    };
    let report = setup::install(
        target,
        &file,
        &binary,
        shadow,
        config.hook_timeout_secs(),
        &config.home.value,
    )?;
    let mode = if shadow { " in shadow mode" } else { "" };
    if report.changed {
        outln!(
            "registered {}{mode} for {} in {}",
            binary.display(),
            target.title(),
            file.display()
        );
    } else {
        outln!(
            "already registered{mode} for {} in {}",
            target.title(),
            file.display()
        );
    }
    if let Some(b) = &report.backup {
        outln!("backup of the previous file: {}", b.display());
    }
    for p in &report.seeded {
        outln!("seeded {}", p.display());
    }
    if target == Target::Codex {
        outln!(
            "next: Codex runs a new or changed hook only once you trust it: open Codex, type /hooks, and trust sentinel's PreToolUse and PostToolUse hooks (until then Codex's calls are not checked; `sentinel doctor --agent codex` tells)"
        );
        outln!(
            "note: Codex releases before hooks were on by default also need `[features] codex_hooks = true` in ~/.codex/config.toml"
        );
    }
    Ok(0)
}

pub fn uninstall(
    target: Target,
    settings: Option<PathBuf>,
    scope: Scope,
    purge: bool,
) -> Result<u8> {
    person_only("uninstall")?;
    if purge {
        bail!(
            "--purge goes with Claude Code's uninstall; remove {}'s registration first, then run `sentinel uninstall --purge`",
            target.title()
        );
    }
    let config = load_config()?;
    let file = path(target, settings, scope)?;
    let report = setup::uninstall(target, &file, &config.home.value)?;
    if report.changed {
        outln!(
            "removed sentinel from {} ({})",
            file.display(),
            target.title()
        );
    } else {
        outln!("sentinel was not registered in {}", file.display());
    }
    if let Some(b) = &report.backup {
        outln!("backup of the previous file: {}", b.display());
    }
    Ok(0)
}

pub fn doctor(target: Target, settings: Option<PathBuf>, scope: Scope, json: bool) -> Result<u8> {
    let config = load_config()?;
    let fix = install_command(target, scope, settings.as_ref());
    let file = path(target, settings, scope)?;
    let mut checks = setup::doctor::checks(target, &file, &fix);
    checks.extend(selftest(target, &file, &fix, &config, "selftest"));
    // The checks of sentinel itself (rules, configuration, home, Tier 2), without Claude Code's
    // registration ones.
    let rules = sentinel::rules::Rules::load(&config.home.value, config::user_home().as_deref());
    let claude = super::install::settings_path(None, Scope::User)?;
    checks.extend(
        sentinel::agents::doctor::run(
            &sentinel::agents::doctor::Found {
                settings: &claude,
                plugin: &[],
                again: "",
                on_path: None,
            },
            &config,
            &rules,
        )
        .into_iter()
        .filter(|c| !matches!(c.name, "hook" | "binary" | "matcher")),
    );
    Ok(super::doctor::print(&checks, json))
}

/// The registered shell hook run as the agent runs it, on the agent's own events
/// (`doctor_selftest`); nothing when no runnable registration is there (the checks say why).
fn selftest(
    target: Target,
    file: &std::path::Path,
    fix: &str,
    config: &config::Config,
    name: &'static str,
) -> Option<Check> {
    let line = setup::doctor::shell_hook(target, file)?;
    Some(super::doctor_selftest::run(
        &super::doctor_selftest::HookLine::Shell(line),
        target.agent(),
        config,
        fix,
        name,
    ))
}

/// For `sentinel doctor`: each other agent whose user or project file registers sentinel, with
/// its checks, so a registration gone stale there is seen too.
pub fn registered_elsewhere() -> Vec<Check> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for target in Target::ALL {
        for scope in [Scope::User, Scope::Project] {
            let Ok(file) = path(target, None, scope) else {
                continue;
            };
            // In the home directory, the project's file is the person's.
            if seen.contains(&file) {
                continue;
            }
            seen.push(file.clone());
            if setup::doctor::has_sentinel(target, &file) {
                let fix = install_command(target, scope, None);
                out.extend(setup::doctor::checks(target, &file, &fix));
                if let Ok(config) = load_config() {
                    out.extend(selftest(target, &file, &fix, &config, target.name()));
                }
            }
        }
    }
    out
}

/// After Claude Code's install: registers the status line with `--statusline` (never over the
/// person's own), or says how to. `changed`: install just rewrote the file and backed it up.
pub fn offer_statusline(
    settings: &std::path::Path,
    binary: &std::path::Path,
    register: bool,
    changed: bool,
) -> Result<()> {
    use setup::statusline::{Outcome, register as add};
    if !register {
        // The offer; over a status line of the person's own, only how to combine them.
        let current = std::fs::read(settings)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("statusLine").cloned())
            .filter(|s| !s.is_null());
        match current {
            None => outln!(
                "tip: `sentinel install --statusline` adds sentinel's status line to Claude Code (mode, Tier 2, this session's answers)"
            ),
            Some(s) if !setup::statusline::is_ours(&s) => outln!(
                "note: you have a status line of your own, so `--statusline` would keep it; `sentinel statusline` (same stdin) can print part of it"
            ),
            Some(_) => {}
        }
        return Ok(());
    }
    match add(settings, binary, !changed)? {
        Outcome::Registered => outln!(
            "registered sentinel's status line in {}",
            settings.display()
        ),
        Outcome::Already => outln!("sentinel's status line is already registered"),
        Outcome::Kept(cmd) => outln!(
            "note: you have a status line of your own ({cmd}): kept, and sentinel's not registered; `sentinel statusline` (same stdin) can print part of it"
        ),
    }
    Ok(())
}
