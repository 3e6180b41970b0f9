//! The Claude Code plugin kept in `SENTINEL_HOME/claude-plugin` (`sentinel install --plugin`), so
//! that the guard does not depend on where a clone lives. Claude Code loads a plugin from the
//! directory marketplace it was added from, and once that directory is moved or deleted it
//! silently stops running the plugin's hooks: a clone is a poor home for a guard. This directory
//! is sentinel's own (the agent cannot write there), the plugin's files are compiled into the
//! binary, and its hook script names the installed binary's absolute path first.

use std::path::{Path, PathBuf};

/// The folder under SENTINEL_HOME.
pub const DIR: &str = "claude-plugin";

/// The marketplace's name, as `claude plugin install sentinel@sentinel` names it.
pub const MARKETPLACE: &str = "sentinel";

const MARKETPLACE_JSON: &str = include_str!("../../.claude-plugin/marketplace.json");
const PLUGIN_JSON: &str = include_str!("../../plugin/.claude-plugin/plugin.json");
const HOOKS_JSON: &str = include_str!("../../plugin/hooks/hooks.json");
const HOOK_SCRIPT: &str = include_str!("../../plugin/scripts/sentinel-hook");

/// The marketplace folder in `home`.
pub fn dir(home: &Path) -> PathBuf {
    home.join(DIR)
}

/// The plugin's files (path under the marketplace folder, text, executable), the hook script
/// naming `binary` as the one to run.
pub fn files(binary: &Path) -> Vec<(&'static str, String, bool)> {
    let named = format!(
        "installed={}",
        crate::text::shell_word(&binary.display().to_string())
    );
    vec![
        (
            ".claude-plugin/marketplace.json",
            MARKETPLACE_JSON.into(),
            false,
        ),
        (
            "plugin/.claude-plugin/plugin.json",
            PLUGIN_JSON.into(),
            false,
        ),
        ("plugin/hooks/hooks.json", HOOKS_JSON.into(), false),
        (
            "plugin/scripts/sentinel-hook",
            HOOK_SCRIPT.replacen("installed=\"\"", &named, 1),
            true,
        ),
    ]
}

/// Writes the marketplace into `home` (sentinel's own folder: no link followed, 0700), replacing
/// an earlier one. Returns its folder.
pub fn write(home: &Path, binary: &Path) -> std::io::Result<PathBuf> {
    let root = dir(home);
    for (rel, text, exec) in files(binary) {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            crate::config::kept::create_dir(parent)?;
        }
        crate::config::kept::write_whole(&path, text.as_bytes())?;
        // Windows runs a file by its extension: no bit to set.
        #[cfg(unix)]
        if exec {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))?;
        }
        #[cfg(not(unix))]
        let _ = exec;
    }
    Ok(root)
}

/// The `claude` commands that install the plugin from `root`. `recorded`: the folder Claude Code
/// has the marketplace `sentinel` from already (`known_marketplaces.json`), when there is one:
/// another folder (a clone) is removed first, since a name is added once.
pub fn commands(root: &Path, recorded: Option<&Path>) -> Vec<String> {
    let mut out = Vec::new();
    let id = format!("sentinel@{MARKETPLACE}");
    match recorded {
        Some(r) if r == root => {}
        Some(_) => {
            out.push(format!("claude plugin marketplace remove {MARKETPLACE}"));
            out.push(format!(
                "claude plugin marketplace add {}",
                crate::text::shell_word(&root.display().to_string())
            ));
        }
        None => out.push(format!(
            "claude plugin marketplace add {}",
            crate::text::shell_word(&root.display().to_string())
        )),
    }
    out.push(format!("claude plugin install {id}"));
    out
}

/// The directory Claude Code records for the marketplace `name` (a directory source), from
/// `~/.claude/plugins/known_marketplaces.json`.
pub fn recorded_directory(plugins: &Path, name: &str) -> Option<PathBuf> {
    let bytes = std::fs::read(plugins.join("known_marketplaces.json")).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let src = v.get(name)?.get("source")?;
    (src.get("source")?.as_str()? == "directory")
        .then(|| src.get("path")?.as_str().map(PathBuf::from))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_script_names_the_binary_it_was_written_for() {
        let files = files(Path::new("/opt/my tools/sentinel"));
        let script = &files.iter().find(|f| f.2).unwrap().1;
        assert!(
            script.contains("installed='/opt/my tools/sentinel'\n"),
            "{script}"
        );
        assert!(!script.contains("installed=\"\""));
        let root = Path::new("/h/.agentos/claude-plugin");
        assert_eq!(
            commands(root, None),
            [
                "claude plugin marketplace add /h/.agentos/claude-plugin",
                "claude plugin install sentinel@sentinel"
            ]
        );
        assert_eq!(commands(root, Some(root)).len(), 1);
        assert_eq!(
            commands(root, Some(Path::new("/src/clone")))[0],
            "claude plugin marketplace remove sentinel"
        );
    }
}
