//! `sentinel install --statusline`: Claude Code's `statusLine` setting runs `sentinel
//! statusline`. A status line the person already has is never replaced (Claude Code shows one),
//! and uninstall removes the setting only when it is sentinel's.

use super::words;
use crate::agents::install;
use anyhow::Result;
use serde_json::{Value, json};
use std::path::Path;

/// What registering the status line found.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// sentinel's status line was added (or rewritten to this binary).
    Registered,
    /// sentinel's status line was already there, as is.
    Already,
    /// The person has their own status line (its command): left as it is.
    Kept(String),
}

/// True for a `statusLine` whose command runs `sentinel statusline`.
pub fn is_ours(status_line: &Value) -> bool {
    let Some(w) = status_line
        .get("command")
        .and_then(Value::as_str)
        .and_then(words)
    else {
        return false;
    };
    w.len() >= 2
        && Path::new(&w[0])
            .file_name()
            .is_some_and(|n| n == "sentinel")
        && w[1] == "statusline"
}

/// The setting sentinel writes.
pub fn setting(binary: &Path) -> Value {
    json!({
        "type": "command",
        "command": format!("{} statusline", crate::text::shell_word(&binary.display().to_string())),
        "padding": 0,
    })
}

/// Adds sentinel's status line to the settings JSON unless another is there.
pub fn add(settings: &mut Value, binary: &Path) -> Outcome {
    let wanted = setting(binary);
    match settings.get("statusLine") {
        Some(current) if current == &wanted => Outcome::Already,
        Some(current) if !is_ours(current) && !current.is_null() => Outcome::Kept(
            current
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or("(not a command)")
                .to_string(),
        ),
        _ => {
            if let Value::Object(top) = settings {
                top.insert("statusLine".into(), wanted);
            }
            Outcome::Registered
        }
    }
}

/// Removes sentinel's status line; another one stays. Returns whether it was there.
pub fn remove(settings: &mut Value) -> bool {
    if settings.get("statusLine").is_some_and(is_ours)
        && let Value::Object(top) = settings
    {
        top.remove("statusLine");
        return true;
    }
    false
}

/// Registers the status line in the settings file at `path`. `backup`: whether to back up the
/// file first (false right after install's own change, whose backup holds the file as it was).
pub fn register(path: &Path, binary: &Path, backup: bool) -> Result<Outcome> {
    let (mut value, previous) = install::read_settings(path)?;
    let outcome = add(&mut value, binary);
    if outcome == Outcome::Registered {
        install::write_settings(path, &value, previous.as_deref().filter(|_| backup))?;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_line_of_the_persons_own_is_kept_and_sentinels_goes_and_comes_back() {
        let bin = Path::new("/home/u/.cargo/bin/sentinel");
        let mut own = json!({"statusLine": {"type": "command", "command": "~/bin/my-line.sh"}});
        let before = own.clone();
        assert_eq!(add(&mut own, bin), Outcome::Kept("~/bin/my-line.sh".into()));
        assert!(!remove(&mut own));
        assert_eq!(own, before);

        let mut v = json!({"model": "opus"});
        assert_eq!(add(&mut v, bin), Outcome::Registered);
        assert_eq!(
            v["statusLine"]["command"],
            "/home/u/.cargo/bin/sentinel statusline"
        );
        assert_eq!(add(&mut v, bin), Outcome::Already);
        // Another copy of sentinel (an older install) is sentinel's own: rewritten.
        assert_eq!(
            add(&mut v, Path::new("/usr/bin/sentinel")),
            Outcome::Registered
        );
        assert!(remove(&mut v));
        assert_eq!(v, json!({"model": "opus"}));
    }
}
