//! `sentinel doctor`: is sentinel in the way of every call it should judge?

use super::args::Scope;
use super::install::{plugin_files, settings_args, settings_path};
use super::load_config;
use anyhow::Result;
use sentinel::config;
use sentinel::rules::Rules;
use std::path::PathBuf;

pub fn run(settings: Option<PathBuf>, scope: Scope, json: bool) -> Result<u8> {
    let config = load_config()?;
    let again = settings_args(settings.as_deref(), scope);
    let settings = settings_path(settings, scope)?;
    let rules = Rules::load(&config.home.value, config::user_home().as_deref());
    let plugin = sentinel::agents::install_plugin::enabled_in(&plugin_files(&settings));
    let on_path = sentinel::agents::doctor::on_path();
    let found = sentinel::agents::doctor::Found {
        settings: &settings,
        plugin: &plugin,
        again: &again,
        on_path: on_path.clone(),
    };
    let mut checks = sentinel::agents::doctor::run(&found, &config, &rules);
    // The plugin's own files, where Claude Code keeps them.
    let plugins = config::user_home().map(|h| h.join(".claude/plugins"));
    let ids: Vec<String> = plugin.iter().map(|(_, id)| id.clone()).collect();
    if !plugin.is_empty()
        && let Some(plugins) = &plugins
    {
        checks.extend(sentinel::agents::plugin_files::checks(
            plugins,
            &ids,
            &sentinel::agents::plugin_home::dir(&config.home.value),
        ));
    }
    // The hook the agent runs, run as the agent runs it: the settings entry's binary, or the
    // plugin's hook script in Claude Code's copy (or, where Claude Code keeps no record of it,
    // the `sentinel` on PATH that script finds).
    // With the arguments it is registered with (`--shadow`), under the person's mode.
    let plugin_script = plugins
        .as_deref()
        .filter(|_| !plugin.is_empty())
        .and_then(|p| sentinel::agents::plugin_files::hook_script(p, &ids));
    let from_settings =
        sentinel::agents::doctor::hook_command(&settings).filter(|(p, _)| p.exists());
    let reinstall = if from_settings.is_none() && !plugin.is_empty() {
        "sentinel install --plugin".to_string()
    } else {
        format!("sentinel install{again}")
    };
    let command = from_settings
        .or(plugin_script.map(|p| (p, vec!["hook".to_string()])))
        .or(on_path
            .filter(|_| !plugin.is_empty())
            .map(|p| (p, vec!["hook".to_string()])));
    if let Some((program, mut args)) = command {
        if args.is_empty() {
            args.push("hook".into());
        }
        checks.push(super::doctor_selftest::run(
            &super::doctor_selftest::HookLine::Exec { program, args },
            sentinel::agents::event::Agent::Claude,
            &config,
            &reinstall,
            "selftest",
        ));
    }
    // The project doctor runs in: what its agent settings do to sentinel.
    let project = std::env::current_dir().ok().map(|cwd| {
        sentinel::local::rules::project::root(
            &cwd,
            sentinel::local::rules::project::named_by_agent().as_deref(),
        )
    });
    checks.extend(sentinel::agents::exposure::checks(
        &config,
        project.as_deref(),
    ));
    if let Ok(me) = std::env::current_exe() {
        checks.push(super::doctor_contain::check(&me, &config));
    }
    checks.extend(super::doctor_contain::unverified(&config));
    // The organisation's policy above the person's.
    checks.extend(super::doctor_managed::checks(&config));
    // Where decisions are exported, and whether the spool keeps up.
    checks.extend(super::doctor_export::checks(&config));
    // The other agents sentinel is registered for, checked as `doctor --agent NAME` would.
    checks.extend(super::setup::registered_elsewhere());
    Ok(print(&checks, json))
}

/// Prints the checks (as JSON with `json`); the exit status is 1 when one failed.
pub fn print(checks: &[sentinel::agents::doctor::Check], json: bool) -> u8 {
    let failed = checks
        .iter()
        .any(|c| c.status == sentinel::agents::doctor::Status::Fail);
    if json {
        outln!("{}", serde_json::json!({ "ok": !failed, "checks": checks }));
    } else {
        for c in checks {
            let mark = match c.status {
                sentinel::agents::doctor::Status::Ok => "ok  ",
                sentinel::agents::doctor::Status::Warn => "warn",
                sentinel::agents::doctor::Status::Fail => "FAIL",
            };
            outln!("{mark}  {:<8} {}", c.name, c.detail);
            if let Some(fix) = &c.fix {
                outln!("                fix: {fix}");
            }
        }
    }
    u8::from(failed)
}
