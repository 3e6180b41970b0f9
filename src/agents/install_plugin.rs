//! The Claude Code plugin as `install`, `uninstall` and `doctor` see it: where it is enabled
//! (`enabledPlugins: {"sentinel@…": true}` in a settings file), and switching it off when the
//! binary its hook runs is removed, so that `uninstall --purge` never leaves a hook that refuses
//! every call.

use anyhow::Result;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The plugin ids (`sentinel@MARKETPLACE`) a settings value enables.
pub fn enabled_ids(settings: &Value) -> Vec<String> {
    settings
        .get("enabledPlugins")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .filter(|(k, v)| k.starts_with("sentinel@") && v.as_bool() == Some(true))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Where the plugin is enabled among `files` (unreadable or invalid files are skipped: install
/// and doctor report those themselves), each file once.
pub fn enabled_in(files: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for f in files {
        let key = std::path::absolute(f).unwrap_or_else(|_| f.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let Ok((value, _)) = super::install::read_settings(f) else {
            continue;
        };
        for id in enabled_ids(&value) {
            out.push((f.clone(), id));
        }
    }
    out
}

/// The one command that removes the plugin.
pub fn uninstall_command(id: &str) -> String {
    format!("claude plugin uninstall {id}")
}

/// Switches the plugin off in `settings` (`"sentinel@…": false`, as `claude plugin disable`
/// writes it), every other key kept; no backup, since this runs while purging. Returns the ids
/// switched off.
pub fn disable(settings: &Path) -> Result<Vec<String>> {
    let (mut value, _) = super::install::read_settings(settings)?;
    let ids = enabled_ids(&value);
    if ids.is_empty() {
        return Ok(ids);
    }
    if let Some(Value::Object(p)) = value.get_mut("enabledPlugins") {
        for id in &ids {
            p.insert(id.clone(), Value::Bool(false));
        }
    }
    super::install::write_settings(settings, &value, None)?;
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_enabled_sentinel_plugins_count() {
        let v = json!({"enabledPlugins": {"sentinel@sentinel": true, "sentinel@old": false, "other@x": true, "notsentinel@y": true}});
        assert_eq!(enabled_ids(&v), vec!["sentinel@sentinel".to_string()]);
        assert!(enabled_ids(&json!({"enabledPlugins": []})).is_empty());
        assert!(enabled_ids(&json!({})).is_empty());
    }
}
