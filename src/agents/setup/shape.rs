//! Adding and removing sentinel's handlers in the two shapes of hook file: grouped under a
//! matcher (Codex, Gemini CLI) or listed flat (Cursor, Copilot CLI).

use super::{Shape, Target, is_ours};
use anyhow::{Result, bail};
use serde_json::{Map, Value, json};

/// The record that install created the file itself (so uninstall may remove it).
pub const FILE: &str = "file";

/// Adds sentinel's handlers (after removing any earlier ones).
pub fn add(target: Target, file: &mut Value, command: &str, timeout_secs: u64) -> Result<()> {
    remove(target, file, Some(&[]))?;
    let Value::Object(top) = file else {
        bail!("the file is not a JSON object")
    };
    if target.shape() == Shape::Flat && !top.contains_key("version") {
        top.insert("version".into(), json!(1));
    }
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(events) = hooks else {
        bail!("`hooks` is not an object")
    };
    let handler = target.handler(command, timeout_secs);
    for (event, matcher) in target.events() {
        let list = events
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            bail!("`hooks.{event}` is not an array")
        };
        match target.shape() {
            Shape::Grouped => {
                let mut group = Map::new();
                if let Some(m) = matcher {
                    group.insert("matcher".into(), json!(m));
                }
                group.insert("hooks".into(), json!([handler.clone()]));
                list.push(Value::Object(group));
            }
            Shape::Flat => list.push(handler.clone()),
        }
    }
    Ok(())
}

/// Removes sentinel's handlers, the groups that only held them, and the containers install
/// created (`created`, from the install state; without that record, whatever the removal
/// emptied). Returns whether any handler was removed.
pub fn remove(target: Target, file: &mut Value, created: Option<&[String]>) -> Result<bool> {
    let made = |p: &str| created.is_none_or(|c| c.iter().any(|x| x == p));
    let Some(hooks) = file.get_mut("hooks") else {
        return Ok(false);
    };
    let Value::Object(events) = hooks else {
        bail!("`hooks` is not an object")
    };
    let mut removed = false;
    let mut emptied = Vec::new();
    for (event, list) in events.iter_mut() {
        let Value::Array(list) = list else { continue };
        let before = list.len();
        let mut kept = Vec::with_capacity(before);
        for mut item in std::mem::take(list) {
            match target.shape() {
                Shape::Flat => {
                    if is_ours(target, &item) {
                        removed = true;
                    } else {
                        kept.push(item);
                    }
                }
                Shape::Grouped => {
                    let mut drop_group = false;
                    if let Some(Value::Array(handlers)) = item.get_mut("hooks") {
                        let n = handlers.len();
                        handlers.retain(|h| !is_ours(target, h));
                        if handlers.len() != n {
                            removed = true;
                            drop_group = handlers.is_empty();
                        }
                    }
                    if !drop_group {
                        kept.push(item);
                    }
                }
            }
        }
        *list = kept;
        let ours = match created {
            Some(_) => made(&format!("hooks.{event}")),
            None => before > 0,
        };
        if list.is_empty() && ours {
            emptied.push(event.clone());
        }
    }
    for e in emptied {
        events.remove(&e);
    }
    if removed
        && events.is_empty()
        && made("hooks")
        && let Value::Object(top) = file
    {
        top.remove("hooks");
    }
    // The `version` install added goes with its handlers; without a record, only with `hooks`.
    if removed
        && target.shape() == Shape::Flat
        && made("version")
        && (created.is_some() || file.get("hooks").is_none())
        && let Value::Object(top) = file
    {
        top.remove("version");
    }
    Ok(removed)
}

/// What adding sentinel's handlers to `before` creates: the file, `version`, `hooks`, and each
/// event list, so that uninstall removes those and nothing the person had.
pub fn containers_created(target: Target, before: &Value, new_file: bool) -> Vec<String> {
    let mut out = Vec::new();
    if new_file {
        out.push(FILE.to_string());
    }
    if target.shape() == Shape::Flat && before.get("version").is_none() {
        out.push("version".into());
    }
    let hooks = before.get("hooks");
    if hooks.is_none() {
        out.push("hooks".into());
    }
    for (event, _) in target.events() {
        if hooks.and_then(|h| h.get(event)).is_none() {
            out.push(format!("hooks.{event}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(t: Target) -> String {
        super::super::command_line(t, std::path::Path::new("/usr/local/bin/sentinel"), false)
    }

    #[test]
    fn adding_twice_adds_each_handler_once_and_removal_gives_back_the_file() {
        let others = json!({
            "model": "x",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}],
                      "preToolUse": [{"type": "command", "bash": "other", "command": "other"}]}
        });
        for t in Target::ALL {
            let mut v = others.clone();
            add(t, &mut v, &cmd(t), 30).unwrap();
            let once = v.clone();
            add(t, &mut v, &cmd(t), 30).unwrap();
            assert_eq!(v, once, "{t:?}");
            assert_eq!(
                super::super::registered(t, &v).len(),
                t.events().len(),
                "{t:?}"
            );
            let created = containers_created(t, &others, false);
            assert!(remove(t, &mut v, Some(&created)).unwrap());
            assert_eq!(v, others, "{t:?}");
        }
    }

    #[test]
    fn an_empty_file_comes_back_empty() {
        for t in Target::ALL {
            let mut v = json!({});
            add(t, &mut v, &cmd(t), 30).unwrap();
            let created = containers_created(t, &json!({}), true);
            assert!(remove(t, &mut v, Some(&created)).unwrap());
            assert_eq!(v, json!({}), "{t:?}");
        }
    }

    #[test]
    fn hooks_of_the_wrong_type_are_refused() {
        for t in Target::ALL {
            assert!(add(t, &mut json!({"hooks": []}), &cmd(t), 30).is_err());
            assert!(add(t, &mut json!([]), &cmd(t), 30).is_err());
        }
        let mut v = json!({"hooks": {"BeforeTool": {}}});
        assert!(add(Target::Gemini, &mut v, &cmd(Target::Gemini), 30).is_err());
    }
}
