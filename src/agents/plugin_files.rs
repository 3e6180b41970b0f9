//! Whether the enabled plugin's files are really there (`sentinel doctor`). Claude Code runs a
//! plugin's hook from its copy in `~/.claude/plugins/cache/…` (`installed_plugins.json` names
//! it). A plugin installed from a directory marketplace (a clone) fails to load once that
//! directory is moved or deleted, and Claude Code then removes the copy: no hook runs, and every
//! call goes through unchecked, silently. So doctor checks both: the copy's hook script, and the
//! marketplace directory it came from (`known_marketplaces.json`), and warns when that directory
//! is not the one `sentinel install --plugin` keeps in SENTINEL_HOME ([`super::plugin_home`]).

use super::doctor::{Check, Status};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn read(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// The hook script Claude Code runs for the plugin `ids` (the first that can run), and so what
/// doctor's self-test runs. A plugin from a directory marketplace is loaded in place from that
/// directory (Claude Code 2.1.332 says so at `plugin install`); any other from its copy
/// (`installed_plugins.json`'s `installPath`).
pub fn hook_script(plugins: &Path, ids: &[String]) -> Option<PathBuf> {
    let installed = read(&plugins.join("installed_plugins.json"));
    let markets = read(&plugins.join("known_marketplaces.json"));
    ids.iter()
        .flat_map(|id| {
            let (name, market) = id.split_once('@').unwrap_or((id, ""));
            let in_place = markets
                .as_ref()
                .and_then(|m| m.get(market)?.get("source"))
                .filter(|s| s.get("source").and_then(Value::as_str) == Some("directory"))
                .and_then(|s| s.get("path")?.as_str())
                .and_then(|dir| {
                    let listing = read(&Path::new(dir).join(".claude-plugin/marketplace.json"))?;
                    let source = listing["plugins"]
                        .as_array()?
                        .iter()
                        .find(|p| p["name"] == name)?["source"]
                        .as_str()?
                        .to_string();
                    Some(Path::new(dir).join(source).join("scripts/sentinel-hook"))
                });
            let copies: Vec<PathBuf> = installed
                .as_ref()
                .and_then(|i| i["plugins"][id].as_array())
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("installPath").and_then(Value::as_str))
                .map(|p| Path::new(p).join("scripts/sentinel-hook"))
                .collect();
            in_place.into_iter().chain(copies)
        })
        .find(|p| is_executable(p))
}

/// The checks of the plugin `ids` (`sentinel@MARKETPLACE`) under Claude Code's `plugins` folder.
/// `ours`: the marketplace `sentinel install --plugin` writes (in SENTINEL_HOME), the one that
/// depends on no clone.
pub fn checks(plugins: &Path, ids: &[String], ours: &Path) -> Vec<Check> {
    let installed = read(&plugins.join("installed_plugins.json"));
    let markets = read(&plugins.join("known_marketplaces.json"));
    let mut out = Vec::new();
    for id in ids {
        let market = id.split_once('@').map(|(_, m)| m).unwrap_or("");
        let fix = format!(
            "sentinel install --plugin, then the `claude plugin` commands it prints (the plugin then lives in {}, no clone needed); or `claude plugin uninstall {id}` and `sentinel install` (settings.json)",
            ours.display()
        );
        // The marketplace a directory source names must still be there.
        let source = markets
            .as_ref()
            .and_then(|m| m.get(market))
            .and_then(|m| m.get("source"));
        if let Some(src) = source
            && src.get("source").and_then(Value::as_str) == Some("directory")
            && let Some(dir) = src.get("path").and_then(Value::as_str)
            && !Path::new(dir)
                .join(".claude-plugin/marketplace.json")
                .is_file()
        {
            out.push(
                Check::new(
                    "plugin",
                    Status::Fail,
                    format!(
                        "the plugin {id} comes from the directory {dir}, which is gone or moved: Claude Code no longer loads the plugin, runs no hook, and lets every call through"
                    ),
                )
                .fix(fix.clone()),
            );
            continue;
        }
        // A marketplace in a clone works until the clone is moved or deleted; then the guard
        // is gone without a word.
        if let Some(src) = source
            && src.get("source").and_then(Value::as_str) == Some("directory")
            && let Some(dir) = src.get("path").and_then(Value::as_str)
            && !same_dir(Path::new(dir), ours)
        {
            out.push(
                Check::new(
                    "plugin",
                    Status::Warn,
                    format!(
                        "the plugin {id} comes from the directory {dir}: moving or deleting it stops Claude Code loading the plugin, and every call then goes through unchecked, silently"
                    ),
                )
                .fix(fix.clone()),
            );
        }
        let paths: Vec<PathBuf> = installed
            .as_ref()
            .and_then(|i| i.get("plugins"))
            .and_then(|p| p.get(id))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| e.get("installPath").and_then(Value::as_str))
            .map(PathBuf::from)
            .collect();
        if installed.is_none() {
            // An older Claude Code keeps no such record: nothing to check.
            continue;
        }
        let script = |p: &PathBuf| p.join("scripts/sentinel-hook");
        match paths.iter().find(|p| is_executable(&script(p))) {
            Some(p) => out.push(Check::new(
                "plugin",
                Status::Ok,
                format!("the plugin's hook is in place ({})", script(p).display()),
            )),
            None => out.push(
                Check::new(
                    "plugin",
                    Status::Fail,
                    format!(
                        "the plugin {id} is enabled but its files ({}) are gone: Claude Code runs no hook and lets every call through",
                        if paths.is_empty() {
                            "not installed".to_string()
                        } else {
                            paths
                                .iter()
                                .map(|p| p.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    ),
                )
                .fix(fix),
            ),
        }
    }
    out
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

fn is_executable(p: &Path) -> bool {
    crate::platform::executable::is_executable(p)
}
