//! `sentinel install` and `uninstall`: register the hook (and, on request, the status line) in
//! Claude Code's settings, or remove them.
//! Both look for the Claude Code plugin too: install warns of a double registration, uninstall
//! says what is left, and `--purge` (which removes the binary the plugin's hook runs) switches the
//! plugin off rather than leave a hook that refuses every call.

use super::args::Scope;
use super::load_config;
use super::person::person_only;
use anyhow::{Context as _, Result};
use sentinel::{
    agents::{install, install_plugin, setup},
    config,
};
use std::path::{Path, PathBuf};

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

/// The arguments that name the same settings file again, for a fix printed to the person:
/// `--settings FILE` or `--scope S` (nothing for the default).
pub fn settings_args(settings: Option<&Path>, scope: Scope) -> String {
    match (settings, scope) {
        (Some(p), _) => format!(
            " --settings {}",
            sentinel::text::shell_word(&p.display().to_string())
        ),
        (None, Scope::User) => String::new(),
        (None, Scope::Project) => " --scope project".into(),
        (None, Scope::Local) => " --scope local".into(),
    }
}

/// Every settings file Claude Code reads the plugin's enablement from, as seen from here:
/// `settings` itself, the user's, this directory's project and local files.
pub fn plugin_files(settings: &Path) -> Vec<PathBuf> {
    let mut files = vec![settings.to_path_buf()];
    for scope in [Scope::User, Scope::Project, Scope::Local] {
        if let Ok(p) = settings_path(None, scope) {
            files.push(p);
        }
    }
    files
}

pub fn install(
    shadow: bool,
    settings: Option<PathBuf>,
    scope: Scope,
    statusline: bool,
    json: bool,
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
    let report = install::install(
        &settings,
        &binary,
        shadow,
        timeout,
        &config.home.value,
        keeps_backup(explicit, scope),
    )?;
    let plugin = install_plugin::enabled_in(&plugin_files(&settings));
    let again = settings_args(explicit.then_some(settings.as_path()), scope);
    let warnings: Vec<String> = plugin
        .iter()
        .map(|(file, id)| {
            format!(
                "the plugin {id} is also enabled in {}: every call is now judged twice. Keep one: `{}`, or `sentinel uninstall{again}`",
                file.display(),
                install_plugin::uninstall_command(id),
            )
        })
        .collect();
    if json {
        let status = if statusline {
            use setup::statusline::Outcome;
            Some(
                match setup::statusline::register(&report.settings, &binary, !report.changed)? {
                    Outcome::Registered => "registered".to_string(),
                    Outcome::Already => "already".to_string(),
                    Outcome::Kept(cmd) => format!("kept the person's own: {cmd}"),
                },
            )
        } else {
            None
        };
        outln!(
            "{}",
            serde_json::json!({
                "ok": true,
                "settings": report.settings,
                "changed": report.changed,
                "binary": binary,
                "statusline": status,
                "tier2": config.tier2_state(),
                "shadow": shadow,
                "backup": report.backup,
                "seeded": report.seeded,
                "plugin": plugin.iter().map(|(f, id)| serde_json::json!({"settings": f, "id": id, "state": "enabled"})).collect::<Vec<_>>(),
                "warnings": warnings,
            })
        );
        return Ok(0);
    }
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
    outln!(
        "{}: uncertain calls go to {}",
        config.tier2_state(),
        if config.api_key.is_some() {
            "Tier 2 (Haiku)"
        } else {
            "the agent's own prompt, or the person (on_uncertain)"
        }
    );
    super::setup::offer_statusline(&report.settings, &binary, statusline, report.changed)?;
    for w in &warnings {
        sentinel::errln!("sentinel: warning: {w}");
    }
    Ok(0)
}

/// `install --seed-only`: the starters, nothing registered (the plugin route never runs
/// `install`, which is what seeds SENTINEL_HOME otherwise).
pub fn seed_only() -> Result<u8> {
    person_only("install")?;
    let config = load_config()?;
    let seeded = install::seed(&config.home.value)?;
    if seeded.is_empty() {
        outln!("{} is already seeded", config.home.value.display());
    }
    for p in &seeded {
        outln!("seeded {}", p.display());
    }
    Ok(0)
}

/// `install --plugin`: the Claude Code plugin written where sentinel keeps its files, its hook
/// naming this binary, and the `claude` commands that install it from there (sentinel does not
/// run another program for the person: they see what changes Claude Code's set-up).
pub fn plugin(for_claude: bool, json: bool) -> Result<u8> {
    person_only("install")?;
    if !for_claude {
        anyhow::bail!("--plugin is Claude Code's plugin; the other agents have no plugin route");
    }
    let config = load_config()?;
    let home = &config.home.value;
    let binary = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("cannot find sentinel's own path")?;
    let seeded = install::seed(home)?;
    let root = sentinel::agents::plugin_home::write(home, &binary)
        .with_context(|| format!("cannot write the plugin into {}", home.display()))?;
    let plugins = config::user_home().map(|h| h.join(".claude/plugins"));
    let recorded = plugins.as_deref().and_then(|p| {
        sentinel::agents::plugin_home::recorded_directory(
            p,
            sentinel::agents::plugin_home::MARKETPLACE,
        )
    });
    let commands = sentinel::agents::plugin_home::commands(&root, recorded.as_deref());
    // Registered in settings.json as well, every call would be judged twice.
    let settings = settings_path(None, Scope::User)?;
    let registered = sentinel::agents::doctor::hook_command(&settings).is_some();
    if json {
        outln!(
            "{}",
            serde_json::json!({
                "ok": true,
                "plugin": root,
                "binary": binary,
                "seeded": seeded,
                "commands": commands,
                "also_in_settings": registered.then_some(&settings),
            })
        );
        return Ok(0);
    }
    for p in &seeded {
        outln!("seeded {}", p.display());
    }
    outln!(
        "wrote the Claude Code plugin to {} (its hook runs {})",
        root.display(),
        binary.display()
    );
    if let Some(r) = &recorded
        && r != &root
    {
        outln!(
            "note: Claude Code has the plugin from {}, which it stops loading, silently, once that folder is moved or deleted; the commands below switch it to this one",
            r.display()
        );
    }
    outln!("next, run in your terminal:");
    for c in &commands {
        outln!("  {c}");
    }
    if registered {
        outln!(
            "note: sentinel is also registered in {}: every call would be judged twice; keep one (`sentinel uninstall` removes that entry)",
            settings.display()
        );
    }
    Ok(0)
}

/// A backup is kept beside the person's own settings file, not in a project (its history is
/// the backup, and a stray file there ends up committed).
fn keeps_backup(explicit: bool, scope: Scope) -> bool {
    explicit || scope == Scope::User
}

pub fn uninstall(settings: Option<PathBuf>, scope: Scope, purge: bool, json: bool) -> Result<u8> {
    person_only("uninstall")?;
    let config = load_config()?;
    let explicit = settings.is_some();
    let settings = settings_path(settings, scope)?;
    let report = install::uninstall(
        &settings,
        &config.home.value,
        keeps_backup(explicit, scope),
        &|v| setup::statusline::remove(v),
    )?;
    let mut lines = Vec::new();
    // sentinel's own status line went too, in the same write.
    if report.statusline {
        lines.push(format!(
            "removed sentinel's status line from {}",
            settings.display()
        ));
    }
    if report.changed {
        lines.push(format!(
            "removed sentinel from {}",
            report.settings.display()
        ));
    } else {
        lines.push(format!(
            "sentinel was not registered in {}",
            report.settings.display()
        ));
    }
    let mut removed: Vec<PathBuf> = report.removed.clone();
    // The plugin: kept while its binary stays (a plain uninstall is how a double registration is
    // undone), switched off when --purge removes the binary its hook runs.
    let mut plugin = Vec::new();
    for (file, id) in install_plugin::enabled_in(&plugin_files(&settings)) {
        let remove = install_plugin::uninstall_command(&id);
        let state = if !purge {
            lines.push(format!(
                "the plugin {id} is still enabled in {} and guards every call; to remove it too: {remove}",
                file.display()
            ));
            "enabled"
        } else if is_projects(&file, &settings) {
            // A project's committed file is the team's: said, not edited.
            lines.push(format!(
                "the plugin {id} is enabled in the project's {}: without the binary its hook refuses every call there; remove it: {remove}",
                file.display()
            ));
            "enabled"
        } else {
            install_plugin::disable(&file)?;
            lines.push(format!(
                "switched off the plugin {id} in {} (without the binary its hook would refuse every call); to remove it: {remove}",
                file.display()
            ));
            "switched off"
        };
        plugin.push(
            serde_json::json!({"settings": file, "id": id, "state": state, "remove": remove}),
        );
    }
    let mut backup = report.backup.clone();
    if purge {
        backup = None;
        removed.extend(install::purge(&settings, &config.home.value)?);
    }
    if json {
        outln!(
            "{}",
            serde_json::json!({
                "ok": true,
                "settings": report.settings,
                "changed": report.changed,
                "backup": backup,
                "removed": removed,
                "plugin": plugin,
            })
        );
        return Ok(0);
    }
    for l in &lines {
        outln!("{l}");
    }
    if let Some(b) = &backup {
        outln!("backup of the previous file: {}", b.display());
    }
    for p in &removed {
        outln!("removed {}", p.display());
    }
    Ok(0)
}

/// The project's committed settings file, unless it is the one this uninstall was aimed at.
fn is_projects(file: &Path, target: &Path) -> bool {
    let project = settings_path(None, Scope::Project).ok();
    let same = |a: &Path, b: &Path| std::path::absolute(a).ok() == std::path::absolute(b).ok();
    project.is_some_and(|p| same(&p, file)) && !same(file, target)
}
