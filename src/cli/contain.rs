//! `sentinel contain`: run a command fenced (the hook rewrites runs of project code to this).

use anyhow::{Result, bail};
use sentinel::config;
use sentinel::contain::{Availability, Fence, availability, plan::Inputs};
use sentinel::local::rules::project::Layered;
use std::ffi::OsString;
use std::path::Path;

pub fn run(
    project: &Path,
    ports: &[u16],
    registries: bool,
    plan_only: bool,
    command: &[OsString],
) -> Result<u8> {
    if command.is_empty() && !plan_only {
        bail!("no command given: sentinel contain --project DIR -- COMMAND [ARGS…]");
    }
    let base = super::load_config()?;
    let user_home = config::user_home();
    let project = std::fs::canonicalize(project)
        .map_err(|e| anyhow::anyhow!("--project {}: {e}", project.display()))?;
    if !project.is_dir() {
        bail!("--project {} is not a folder", project.display());
    }
    let layered = Layered::load(&base, &project, user_home.as_deref());
    let var = |name: &str| std::env::var(name).ok();
    let fence = Fence::plan(&Inputs {
        project: &project,
        home: user_home.as_deref(),
        sentinel_home: &layered.config.home.value,
        rules: &layered.rules,
        ports,
        registries,
        var: &var,
    });
    for e in &fence.errors {
        sentinel::errln!("sentinel contain: {e}");
    }
    if plan_only {
        outln!("{}", serde_json::to_string_pretty(&fence)?);
        return Ok(0);
    }
    if !fence.errors.is_empty() {
        sentinel::errln!(
            "sentinel contain: the fence's lists have errors; the command did not run"
        );
        return Ok(NOT_FENCED);
    }
    match availability() {
        Availability::Available { .. } => {}
        Availability::Unavailable(why) => {
            sentinel::errln!(
                "sentinel contain: containment is not available here ({why}); the command did not run"
            );
            return Ok(NOT_FENCED);
        }
    }
    let quarantine = layered
        .config
        .home
        .value
        .join("quarantine")
        .join(sentinel::clock::now_ms().to_string());
    Ok(fenced(&fence, command, &quarantine))
}

/// The status of a run that could not be fenced.
const NOT_FENCED: u8 = 125;

#[cfg(target_os = "linux")]
fn fenced(fence: &Fence, command: &[OsString], quarantine: &Path) -> u8 {
    let status = sentinel::contain::linux::run(fence, command, quarantine);
    u8::try_from(status).unwrap_or(NOT_FENCED)
}

#[cfg(not(target_os = "linux"))]
fn fenced(_fence: &Fence, _command: &[OsString], _quarantine: &Path) -> u8 {
    NOT_FENCED
}
