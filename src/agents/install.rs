//! `sentinel install` / `uninstall`: registering the hook in Claude Code's settings JSON, and
//! seeding SENTINEL_HOME with commented starters for the rule files.
//!
//! The edit is idempotent and minimal: sentinel's own handlers (a `command` handler whose program
//! is named `sentinel` and whose first argument is `hook`) are removed and added again, and every
//! other key, hook and handler is kept. A settings file that is not valid JSON is refused and left
//! untouched; a changed file is backed up first and replaced atomically.

use crate::config;
use crate::rules::RuleFile;
use anyhow::{Context as _, Result, bail};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The tools that bring outside text into the context.
pub use crate::call::tools::POST_TOOL_USE_MATCHER;

/// What an install or uninstall did.
#[derive(Debug, Default)]
pub struct Report {
    /// The settings file.
    pub settings: PathBuf,
    /// Whether it was rewritten.
    pub changed: bool,
    /// The backup of the previous file, when one was written.
    pub backup: Option<PathBuf>,
    /// Files seeded into SENTINEL_HOME.
    pub seeded: Vec<PathBuf>,
    /// Files removed: a settings file install created and uninstall left empty, a backup in a
    /// project.
    pub removed: Vec<PathBuf>,
    /// Whether uninstall's `also` removed something too (sentinel's status line).
    pub statusline: bool,
}

/// The handler sentinel registers: exec form, absolute path, a timeout above Tier 2's.
pub fn handler(binary: &Path, shadow: bool, timeout_secs: u64) -> Value {
    let mut args = vec!["hook"];
    if shadow {
        args.push("--shadow");
    }
    json!({ "type": "command", "command": binary.display().to_string(), "args": args, "timeout": timeout_secs })
}

/// True for a handler sentinel added (this binary or another copy of sentinel).
pub fn is_ours(handler: &Value) -> bool {
    let program = handler.get("command").and_then(Value::as_str).unwrap_or("");
    let first_arg = handler
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str);
    Path::new(program)
        .file_name()
        .is_some_and(|n| n == "sentinel")
        && first_arg == Some("hook")
}

/// Removes sentinel's handlers and the groups that only held them. An event list or the `hooks`
/// object left empty is removed when install created it (`created`, from the install state), or,
/// without that record, whenever sentinel's removal emptied it. Returns whether anything changed.
pub fn remove_hooks(settings: &mut Value, created: Option<&[String]>) -> Result<bool> {
    let Some(hooks) = settings.get_mut("hooks") else {
        return Ok(false);
    };
    let Value::Object(events) = hooks else {
        bail!("`hooks` is not an object")
    };
    let mut removed = false;
    let mut emptied_events = Vec::new();
    for (event, groups) in events.iter_mut() {
        let Value::Array(groups) = groups else {
            continue;
        };
        let before = groups.len();
        let mut kept = Vec::with_capacity(before);
        for mut group in std::mem::take(groups) {
            let mut emptied = false;
            if let Some(Value::Array(handlers)) = group.get_mut("hooks") {
                let n = handlers.len();
                handlers.retain(|h| !is_ours(h));
                if handlers.len() != n {
                    removed = true;
                    emptied = handlers.is_empty();
                }
            }
            if !emptied {
                kept.push(group);
            }
        }
        *groups = kept;
        let ours = match created {
            Some(c) => c.iter().any(|p| p == &format!("hooks.{event}")),
            None => before > 0,
        };
        if groups.is_empty() && ours {
            emptied_events.push(event.clone());
        }
    }
    for e in emptied_events {
        events.remove(&e);
    }
    let hooks_ours = created.is_none_or(|c| c.iter().any(|p| p == "hooks"));
    if removed
        && hooks_ours
        && events.is_empty()
        && let Value::Object(top) = settings
    {
        top.remove("hooks");
    }
    Ok(removed)
}

/// Adds sentinel's three registrations (after removing any earlier ones).
pub fn add_hooks(settings: &mut Value, handler: &Value) -> Result<()> {
    remove_hooks(settings, Some(&[]))?;
    let Value::Object(top) = settings else {
        bail!("the settings file is not a JSON object")
    };
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(events) = hooks else {
        bail!("`hooks` is not an object")
    };
    let pre = crate::call::tools::judged_matcher();
    let groups = [
        ("PreToolUse", Some(pre.as_str())),
        ("PostToolUse", Some(POST_TOOL_USE_MATCHER)),
        ("SessionEnd", None),
    ];
    for (event, matcher) in groups {
        let list = events
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            bail!("`hooks.{event}` is not an array")
        };
        let mut group = Map::new();
        if let Some(m) = matcher {
            group.insert("matcher".into(), json!(m));
        }
        group.insert("hooks".into(), json!([handler]));
        list.push(Value::Object(group));
    }
    Ok(())
}

/// Reads a settings file: absent or blank is `{}`; invalid JSON or a non-object is an error.
pub(crate) fn read_settings(path: &Path) -> Result<(Value, Option<Vec<u8>>)> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((json!({}), None)),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok((json!({}), Some(bytes)));
    }
    let value: Value = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not valid JSON; it was left untouched",
            path.display()
        )
    })?;
    if !value.is_object() {
        bail!(
            "{} is not a JSON object; it was left untouched",
            path.display()
        );
    }
    Ok((value, Some(bytes)))
}

/// Writes `value` to `path` through a temp file and a rename, after backing up `previous`.
pub(crate) fn write_settings(
    path: &Path,
    value: &Value,
    previous: Option<&[u8]>,
) -> Result<Option<PathBuf>> {
    // A symlinked settings file (a dotfiles repository) stays a symlink: the file it points at
    // is the one rewritten, in its own directory, with its own mode.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let file_name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("settings.json")
        .to_string();
    let mode = std::fs::metadata(&target).ok().map(|m| m.permissions());
    // One backup, next to the file, replaced on each change: the state before sentinel's
    // latest edit, not a pile of them.
    let backup = match previous {
        Some(bytes) => {
            let backup = backup_path(&target);
            std::fs::write(&backup, bytes)
                .with_context(|| format!("cannot write the backup {}", backup.display()))?;
            if let Some(m) = &mode {
                let _ = std::fs::set_permissions(&backup, m.clone());
            }
            Some(backup)
        }
        None => None,
    };
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    let tmp = dir.join(format!(".{file_name}.sentinel-tmp"));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    if let Some(m) = mode {
        std::fs::set_permissions(&tmp, m)
            .with_context(|| format!("cannot set the mode of {}", tmp.display()))?;
    }
    std::fs::rename(&tmp, &target)
        .with_context(|| format!("cannot replace {}", target.display()))?;
    Ok(backup)
}

/// The one backup of a settings file: `settings.json.sentinel-backup`.
pub fn backup_path(settings: &Path) -> PathBuf {
    let name = settings
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("settings.json");
    settings.with_file_name(format!("{name}.sentinel-backup"))
}

/// The containers (`hooks`, `hooks.PreToolUse` …) that adding sentinel's hooks to `before`
/// creates, so that uninstall removes those and nothing the user had.
fn containers_created(before: &Value) -> Vec<String> {
    let Some(hooks) = before.get("hooks") else {
        return [
            "hooks",
            "hooks.PreToolUse",
            "hooks.PostToolUse",
            "hooks.SessionEnd",
        ]
        .map(String::from)
        .to_vec();
    };
    ["PreToolUse", "PostToolUse", "SessionEnd"]
        .into_iter()
        .filter(|e| hooks.get(e).is_none())
        .map(|e| format!("hooks.{e}"))
        .collect()
}

/// `SENTINEL_HOME/install-state.json`: per settings file, the containers install created.
const STATE_FILE: &str = "install-state.json";

pub(crate) fn read_state(home: &Path) -> Map<String, Value> {
    let max = config::files::MAX_STATE_BYTES;
    config::kept::read(&home.join(STATE_FILE), max)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default()
}

pub(crate) fn write_state(home: &Path, state: &Map<String, Value>) -> Result<()> {
    let path = home.join(STATE_FILE);
    let text = serde_json::to_string_pretty(state)?;
    config::kept::write_whole(&path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

pub(crate) fn state_key(settings: &Path) -> String {
    std::path::absolute(settings)
        .unwrap_or_else(|_| settings.to_path_buf())
        .display()
        .to_string()
}

pub(crate) fn created_for(state: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    state
        .get(key)
        .and_then(|v| serde_json::from_value(v["created"].clone()).ok())
}

/// The folders above `path` that do not exist yet, deepest first: what writing it creates.
pub(crate) fn missing_dirs(path: &Path) -> Vec<String> {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.ancestors()
        .skip(1)
        .take_while(|d| std::fs::symlink_metadata(d).is_err())
        .map(|d| d.display().to_string())
        .collect()
}

/// The record of what install created for `key`: the containers and the file (`created`), and
/// the folders it made (`dirs`), an earlier install's kept.
pub(crate) fn record_created(
    state: &mut Map<String, Value>,
    key: &str,
    new: Vec<String>,
    new_dirs: Vec<String>,
) {
    let mut created = created_for(state, key).unwrap_or_default();
    for c in new {
        if !created.contains(&c) {
            created.push(c);
        }
    }
    let mut dirs = dirs_for(state, key);
    for d in new_dirs {
        if !dirs.contains(&d) {
            dirs.push(d);
        }
    }
    state.insert(key.to_string(), json!({ "created": created, "dirs": dirs }));
}

pub(crate) fn dirs_for(state: &Map<String, Value>, key: &str) -> Vec<String> {
    state
        .get(key)
        .and_then(|v| serde_json::from_value(v["dirs"].clone()).ok())
        .unwrap_or_default()
}

/// After uninstall removed a settings file install had created: its backup (which can only hold
/// sentinel's own earlier registration) and the folders install made, each only when empty,
/// deepest first; a folder that holds anything (of the person's, or the agent's) stays.
pub(crate) fn remove_created(settings: &Path, dirs: &[String]) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let backup = backup_path(settings);
    if std::fs::symlink_metadata(&backup).is_ok_and(|m| m.is_file())
        && std::fs::remove_file(&backup).is_ok()
    {
        removed.push(backup);
    }
    for d in dirs {
        let d = Path::new(d);
        if std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()) && std::fs::remove_dir(d).is_ok()
        {
            removed.push(d.to_path_buf());
        }
    }
    removed
}

/// Registers sentinel in `settings`, then seeds `home`. `backup`: keep a copy of the previous
/// file beside it (not in a project, whose history is the backup).
pub fn install(
    settings: &Path,
    binary: &Path,
    shadow: bool,
    timeout_secs: u64,
    home: &Path,
    backup: bool,
) -> Result<Report> {
    let (mut value, previous) = read_settings(settings)?;
    let before = value.clone();
    let new_dirs = missing_dirs(settings);
    add_hooks(&mut value, &handler(binary, shadow, timeout_secs))
        .with_context(|| format!("in {}", settings.display()))?;
    let mut report = Report {
        settings: settings.to_path_buf(),
        seeded: seed(home)?,
        ..Report::default()
    };
    if value != before || previous.is_none() {
        // What an earlier install created stays created: reinstalling keeps that record.
        let mut state = read_state(home);
        let key = state_key(settings);
        let mut without_ours = before;
        remove_hooks(&mut without_ours, Some(&[]))?;
        let mut new = containers_created(&without_ours);
        // The file itself, when there was none: uninstall then removes it rather than leave `{}`.
        if previous.is_none() {
            new.push(CREATED_FILE.to_string());
        }
        record_created(&mut state, &key, new, new_dirs);
        write_state(home, &state)?;
        let previous = previous.as_deref().filter(|_| backup);
        report.backup = write_settings(settings, &value, previous)?;
        report.changed = true;
    }
    Ok(report)
}

/// The install-state mark of a settings file install created.
const CREATED_FILE: &str = "file";

/// Removes exactly what install added: a settings file install created and this leaves `{}` is
/// removed. Without `backup` (a project) no backup is written and an earlier one is removed.
/// `also` removes more of sentinel's from the same value (its status line), in the same write, so
/// that a file left with nothing else is seen as empty; it says whether it removed anything.
pub fn uninstall(
    settings: &Path,
    home: &Path,
    backup: bool,
    also: &dyn Fn(&mut Value) -> bool,
) -> Result<Report> {
    let (mut value, previous) = read_settings(settings)?;
    let mut report = Report {
        settings: settings.to_path_buf(),
        ..Report::default()
    };
    let mut state = read_state(home);
    let key = state_key(settings);
    let created = created_for(&state, &key);
    let hooks = remove_hooks(&mut value, created.as_deref())
        .with_context(|| format!("in {}", settings.display()))?;
    report.statusline = also(&mut value);
    if hooks || report.statusline {
        let ours = created
            .as_deref()
            .is_some_and(|c| c.iter().any(|p| p == CREATED_FILE));
        if ours
            && value.as_object().is_some_and(Map::is_empty)
            && std::fs::symlink_metadata(settings).is_ok_and(|m| m.is_file())
        {
            std::fs::remove_file(settings)
                .with_context(|| format!("cannot remove {}", settings.display()))?;
            report.removed.push(settings.to_path_buf());
            report
                .removed
                .extend(remove_created(settings, &dirs_for(&state, &key)));
        } else {
            let previous = previous.as_deref().filter(|_| backup);
            report.backup = write_settings(settings, &value, previous)?;
        }
        report.changed = true;
    }
    if !backup {
        let target = std::fs::canonicalize(settings).unwrap_or_else(|_| settings.to_path_buf());
        let old = backup_path(&target);
        if std::fs::symlink_metadata(&old).is_ok_and(|m| m.is_file()) {
            std::fs::remove_file(&old)
                .with_context(|| format!("cannot remove {}", old.display()))?;
            report.removed.push(old);
        }
    }
    if state.remove(&key).is_some() {
        write_state(home, &state)?;
    }
    Ok(report)
}

/// `uninstall --purge`, after the hooks are removed: the settings backup, the settings file when
/// nothing is left in it, SENTINEL_HOME, and the installed binary (not a build in a `target/`
/// directory). Returns what was removed.
pub fn purge(settings: &Path, home: &Path) -> Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let target = std::fs::canonicalize(settings).unwrap_or_else(|_| settings.to_path_buf());
    let backup = backup_path(&target);
    if backup.exists() {
        std::fs::remove_file(&backup)
            .with_context(|| format!("cannot remove {}", backup.display()))?;
        removed.push(backup);
    }
    if let Ok((value, _)) = read_settings(settings)
        && value.as_object().is_some_and(Map::is_empty)
        && std::fs::symlink_metadata(settings).is_ok_and(|m| m.is_file())
    {
        std::fs::remove_file(settings)
            .with_context(|| format!("cannot remove {}", settings.display()))?;
        removed.push(settings.to_path_buf());
    }
    if home.exists() {
        std::fs::remove_dir_all(home)
            .with_context(|| format!("cannot remove {}", home.display()))?;
        removed.push(home.to_path_buf());
    }
    if let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize())
        && exe.file_name().is_some_and(|n| n == "sentinel")
        && !exe.components().any(|c| c.as_os_str() == "target")
        // A cargo build's own binary (a CARGO_TARGET_DIR of any name): its profile folder keeps
        // cargo's fingerprints. Removing it would pull the binary from under other test runs.
        && !exe
            .parent()
            .is_some_and(|dir| dir.join(".fingerprint").is_dir())
    {
        std::fs::remove_file(&exe).with_context(|| format!("cannot remove {}", exe.display()))?;
        removed.push(exe);
    }
    Ok(removed)
}

/// A rule file as `install` writes it: comments only. The bundled rules always apply and come
/// with the binary, so a copy would only freeze them at this version (SPEC 2.1).
pub fn starter(file: RuleFile) -> String {
    let what = match file {
        RuleFile::HardBlock => "one regex a line: a match anywhere in a command denies it",
        RuleFile::Safe => {
            "one regex a line: a simple command that matches is allowed (its effects are still checked); `!REGEX` is an exception"
        }
        RuleFile::ConditionalBlock => {
            "one regex a line: denied unless the cwd and every path argument are in a safe path"
        }
        RuleFile::SafePaths => "one path a line (`~` expands): writes inside are allowed",
        RuleFile::ExcludedPaths => {
            "one path or glob a line: writes and redirections there are denied; `!PATH` is an exception"
        }
        RuleFile::CredentialPaths => "one path or glob a line: reading it is never allowed locally",
        RuleFile::ProtectedPaths => {
            "one glob a line, relative to the project: never written locally"
        }
    };
    format!(
        "# {name}: your additions to sentinel's bundled {name}.\n\
         # {what}. A `# why` after the pattern is shown in the reason.\n\
         # The bundled rules always apply and are updated with sentinel; `sentinel rules diff`\n\
         # shows what this file changes. To switch a bundled rule off, add `off: ` followed by\n\
         # its pattern exactly as the bundled file has it (`sentinel explain` shows it).\n{spec}",
        name = file.name(),
        spec = if file == RuleFile::HardBlock {
            "# `off: [git stash drop]` switches off a bundled command spec's deny (see docs/rules.md).\n"
        } else {
            ""
        }
    )
}

/// Writes a commented starter for each rule file and a commented `sentinel.toml` into `home`
/// where absent. Never overwrites.
pub fn seed(home: &Path) -> Result<Vec<PathBuf>> {
    config::files::create_dir(home).with_context(|| format!("cannot create {}", home.display()))?;
    let mut seeded = Vec::new();
    let starters: Vec<(&str, String)> = RuleFile::ALL
        .iter()
        .map(|f| (f.name(), starter(*f)))
        .collect();
    let files = starters
        .iter()
        .map(|(n, t)| (*n, t.as_str()))
        .chain([(config::FILE_NAME, config::TEMPLATE)]);
    for (name, text) in files {
        let path = home.join(name);
        match config::kept::open(&path, config::kept::Access::Fresh) {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(text.as_bytes())
                    .with_context(|| format!("cannot write {}", path.display()))?;
                seeded.push(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", path.display())),
        }
    }
    Ok(seeded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h() -> Value {
        handler(Path::new("/usr/local/bin/sentinel"), false, 30)
    }

    #[test]
    fn install_twice_adds_one_entry_each() {
        let mut v = json!({});
        add_hooks(&mut v, &h()).unwrap();
        let once = v.clone();
        add_hooks(&mut v, &h()).unwrap();
        assert_eq!(v, once);
        assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["matcher"],
            crate::call::tools::judged_matcher()
        );
        assert_eq!(
            v["hooks"]["PostToolUse"][0]["matcher"],
            POST_TOOL_USE_MATCHER
        );
        assert!(v["hooks"]["SessionEnd"][0].get("matcher").is_none());
        assert_eq!(
            v["hooks"]["SessionEnd"][0]["hooks"][0]["args"],
            json!(["hook"])
        );
    }

    #[test]
    fn other_hooks_and_keys_are_kept() {
        let original = json!({
            "model": "opus",
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "/x/other-guard"}]}
                ],
                "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]
            },
            "permissions": {"allow": ["Bash(ls)"]}
        });
        let mut v = original.clone();
        add_hooks(&mut v, &h()).unwrap();
        assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(
            v["hooks"]["PreToolUse"][0],
            original["hooks"]["PreToolUse"][0]
        );
        assert!(remove_hooks(&mut v, None).unwrap());
        assert_eq!(v, original);
    }

    #[test]
    fn a_group_shared_with_other_handlers_keeps_them() {
        let mut v = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/opt/sentinel", "args": ["hook"]},
            {"type": "command", "command": "other"}
        ]}]}});
        assert!(remove_hooks(&mut v, None).unwrap());
        assert_eq!(
            v,
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}]}})
        );
    }

    #[test]
    fn hooks_that_are_not_objects_are_refused() {
        assert!(add_hooks(&mut json!({"hooks": []}), &h()).is_err());
        assert!(add_hooks(&mut json!({"hooks": {"PreToolUse": {}}}), &h()).is_err());
    }
}
