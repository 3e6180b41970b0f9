//! `sentinel install` and `uninstall`: register the hook (and, on request, the status line) in
//! Claude Code's settings, or remove them.

use super::args::Scope;
use super::load_config;
use super::person::person_only;
use anyhow::{Context as _, Result};
use sentinel::agents::{install, setup};
use sentinel::config;
use std::path::PathBuf;

pub fn settings_path(settings: Option<PathBuf>, scope: Scope) -> Result<PathBuf> {
    Ok(match (settings, scope) {
        (Some(p), _) => p,
        (None, Scope::User) => config::user_home()
            .context("cannot find the home directory")?
            .join(".claude/settings.json"),
        (None, Scope::Project) => std::env::current_dir()?.join(".claude/settings.json"),
        (None, Scope::Local) => std::env::current_dir()?.join(".claude/settings.local.json"),
    })
}

pub fn install(
    shadow: bool,
    settings: Option<PathBuf>,
    scope: Scope,
    statusline: bool,
) -> Result<u8> {
    person_only("install")?;
    let config = load_config()?;
    let explicit = settings.is_some();
    let settings = settings_path(settings, scope)?;
    // A project's settings file is committed: it names `sentinel` as found on PATH, never this
    // machine's path.
    let binary = match scope {
        Scope::Project if !explicit => PathBuf::from("sentinel"),
        _ => std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .context("cannot find sentinel's own path")?,
    };
    let timeout = config.hook_timeout_secs();
    let report = install::install(&settings, &binary, shadow, timeout, &config.home.value)?;
    let mode = if shadow { " in shadow mode" } else { "" };
    if report.changed {
        outln!(
            "registered {}{mode} in {}",
            binary.display(),
            report.settings.display()
        );
    } else {
        outln!("already registered{mode} in {}", report.settings.display());
    }
    if let Some(b) = &report.backup {
        outln!("backup of the previous file: {}", b.display());
    }
    for p in &report.seeded {
        outln!("seeded {}", p.display());
    }
    super::setup::offer_statusline(&report.settings, &binary, statusline, report.changed)?;
    Ok(0)
}

pub fn uninstall(settings: Option<PathBuf>, scope: Scope, purge: bool) -> Result<u8> {
    person_only("uninstall")?;
    let config = load_config()?;
    let settings = settings_path(settings, scope)?;
    let report = install::uninstall(&settings, &config.home.value)?;
    // sentinel's own status line goes too (the backup above already holds it).
    if setup::statusline::unregister(&settings, !report.changed)? {
        outln!("removed sentinel's status line from {}", settings.display());
    }
    if report.changed {
        outln!("removed sentinel from {}", report.settings.display());
    } else {
        outln!(
            "sentinel was not registered in {}",
            report.settings.display()
        );
    }
    if !purge {
        if let Some(b) = &report.backup {
            outln!("backup of the previous file: {}", b.display());
        }
        return Ok(0);
    }
    for removed in install::purge(&settings, &config.home.value)? {
        outln!("removed {}", removed.display());
    }
    Ok(0)
}
