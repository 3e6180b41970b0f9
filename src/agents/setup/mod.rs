//! `sentinel install --agent codex|gemini|cursor|copilot`: registering the hook in the other
//! agents' own hook files, in each one's documented format and place (shared/research/
//! hook-protocol.md §3), with the same care as for Claude Code ([`super::install`]): every other
//! key and hook is kept, a symlinked file stays a symlink, the mode is kept, a file that is not a
//! JSON object is refused, and uninstall removes exactly what install added.
//!
//! Two shapes: Codex and Gemini CLI group handlers under a matcher, as Claude Code does
//! (`hooks.EVENT[{matcher, hooks: [handler]}]`); Cursor and Copilot CLI list handlers directly
//! (`{"version": 1, "hooks": {"event": [handler]}}`). Every one of them runs a shell command
//! line, so the handler is `'/path/to/sentinel' hook --agent NAME`.

pub mod doctor;
mod shape;
pub mod statusline;

use super::install::{self, Report};
use anyhow::{Result, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// An agent other than Claude Code whose hook file `install --agent` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// OpenAI Codex CLI: `hooks.json`, Claude Code's shape and protocol.
    Codex,
    /// Gemini CLI: `settings.json`'s `hooks`, timeouts in milliseconds.
    Gemini,
    /// Cursor: `hooks.json`, version 1, flat handler lists.
    Cursor,
    /// GitHub Copilot CLI: a file of its own in a hooks folder, version 1.
    Copilot,
}

/// How an agent's file holds its handlers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `hooks.EVENT` is a list of `{matcher?, hooks: [handler]}` groups.
    Grouped,
    /// `hooks.EVENT` is a list of handlers; the file carries `version: 1`.
    Flat,
}

/// Gemini CLI's tools that sentinel judges (`event::gemini_call` maps them onto Claude Code's);
/// its matcher is a regex over tool names.
pub const GEMINI_TOOLS: &[&str] = &[
    "run_shell_command",
    "write_file",
    "replace",
    "edit",
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "search_file_content",
    "grep_search",
    "grep",
    "web_fetch",
    "google_web_search",
];

impl Target {
    /// Every agent `install --agent` writes for, besides Claude Code.
    pub const ALL: [Target; 4] = [
        Target::Codex,
        Target::Gemini,
        Target::Cursor,
        Target::Copilot,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Codex => "codex",
            Target::Gemini => "gemini",
            Target::Cursor => "cursor",
            Target::Copilot => "copilot",
        }
    }

    /// The agent's own name, for messages.
    pub fn title(self) -> &'static str {
        match self {
            Target::Codex => "Codex CLI",
            Target::Gemini => "Gemini CLI",
            Target::Cursor => "Cursor",
            Target::Copilot => "Copilot CLI",
        }
    }

    /// The person's hook file. Codex honours `CODEX_HOME` (given as `codex_home`).
    pub fn user_path(self, home: &Path, codex_home: Option<PathBuf>) -> PathBuf {
        match self {
            Target::Codex => codex_home
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or_else(|| home.join(".codex"))
                .join("hooks.json"),
            Target::Gemini => home.join(".gemini/settings.json"),
            Target::Cursor => home.join(".cursor/hooks.json"),
            Target::Copilot => home.join(".copilot/hooks/sentinel.json"),
        }
    }

    /// The project's hook file, under the project directory `dir`.
    pub fn project_path(self, dir: &Path) -> PathBuf {
        match self {
            Target::Codex => dir.join(".codex/hooks.json"),
            Target::Gemini => dir.join(".gemini/settings.json"),
            Target::Cursor => dir.join(".cursor/hooks.json"),
            Target::Copilot => dir.join(".github/hooks/sentinel.json"),
        }
    }

    /// The protocol `sentinel hook` must speak. Codex sends Claude Code's shape but takes no
    /// `ask` and no bare `allow`: `--agent codex` answers in its terms.
    pub fn hook_agent(self) -> Option<&'static str> {
        match self {
            Target::Codex => Some("codex"),
            Target::Gemini => Some("gemini"),
            Target::Cursor => Some("cursor"),
            Target::Copilot => Some("copilot"),
        }
    }

    pub(crate) fn shape(self) -> Shape {
        match self {
            Target::Codex | Target::Gemini => Shape::Grouped,
            Target::Cursor | Target::Copilot => Shape::Flat,
        }
    }

    /// The events sentinel registers for, each with its matcher (grouped shapes only). Codex has
    /// no session-end event; Cursor's `sessionEnd` is recent and left out, so that an older
    /// Cursor never meets an event it does not know in the file that holds its guard.
    pub fn events(self) -> Vec<(&'static str, Option<String>)> {
        use crate::call::tools;
        match self {
            Target::Codex => vec![
                (
                    "PreToolUse",
                    Some(format!(
                        "{}|{}",
                        tools::judged_matcher(),
                        tools::APPLY_PATCH
                    )),
                ),
                (
                    "PostToolUse",
                    Some(tools::POST_TOOL_USE_MATCHER.to_string()),
                ),
            ],
            Target::Gemini => vec![
                (
                    "BeforeTool",
                    Some(format!(
                        "^({}|{})$",
                        GEMINI_TOOLS.join("|"),
                        tools::MCP_MATCHER
                    )),
                ),
                ("AfterTool", Some(tools::MCP_MATCHER.to_string())),
                ("SessionEnd", None),
            ],
            Target::Cursor => vec![
                ("beforeShellExecution", None),
                ("beforeReadFile", None),
                ("beforeMCPExecution", None),
                ("preToolUse", None),
            ],
            Target::Copilot => vec![
                ("preToolUse", None),
                ("postToolUse", None),
                ("sessionEnd", None),
            ],
        }
    }

    /// The event a shell call arrives on, whose handler doctor's self-test runs.
    pub fn shell_event(self) -> &'static str {
        match self {
            Target::Codex => "PreToolUse",
            Target::Gemini => "BeforeTool",
            Target::Cursor => "beforeShellExecution",
            Target::Copilot => "preToolUse",
        }
    }

    /// The protocol the agent speaks, as [`crate::agents::event`] names it.
    pub fn agent(self) -> crate::agents::event::Agent {
        use crate::agents::event::Agent;
        match self {
            Target::Codex => Agent::Codex,
            Target::Gemini => Agent::Gemini,
            Target::Cursor => Agent::Cursor,
            Target::Copilot => Agent::Copilot,
        }
    }

    /// The event that guards calls: the one whose absence leaves the agent unguarded.
    pub fn guard_events(self) -> &'static [&'static str] {
        match self {
            Target::Codex => &["PreToolUse"],
            Target::Gemini => &["BeforeTool"],
            Target::Cursor => &[
                "beforeShellExecution",
                "beforeReadFile",
                "beforeMCPExecution",
                "preToolUse",
            ],
            Target::Copilot => &["preToolUse"],
        }
    }

    /// One handler, in the agent's fields. Timeouts: seconds, except Gemini CLI's milliseconds;
    /// Cursor's documented handler has no timeout field.
    pub fn handler(self, command: &str, timeout_secs: u64) -> Value {
        match self {
            Target::Codex => {
                json!({"type": "command", "command": command, "timeout": timeout_secs})
            }
            Target::Gemini => json!({
                "type": "command",
                "command": command,
                "name": "sentinel",
                "timeout": timeout_secs * 1000,
            }),
            Target::Cursor => json!({ "command": command }),
            Target::Copilot => {
                json!({"type": "command", "bash": command, "timeoutSec": timeout_secs})
            }
        }
    }

    /// The command line a handler runs.
    pub fn command_of(self, handler: &Value) -> Option<&str> {
        let field = if self == Target::Copilot {
            "bash"
        } else {
            "command"
        };
        handler.get(field).and_then(Value::as_str)
    }

    /// The agent by its command-line name.
    pub fn parse(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The command line registered for `target`: `'/path/sentinel' hook [--agent NAME] [--shadow]`.
pub fn command_line(target: Target, binary: &Path, shadow: bool) -> String {
    let mut line = format!(
        "{} hook",
        crate::text::shell_word(&binary.display().to_string())
    );
    if let Some(agent) = target.hook_agent() {
        line.push_str(" --agent ");
        line.push_str(agent);
    }
    if shadow {
        line.push_str(" --shadow");
    }
    line
}

/// The words of a simple command line, as far as they can be read without a shell: quotes and
/// backslashes undone, leading `NAME=value` assignments skipped. None when the line holds
/// anything a shell would do more with (a pipe, a list, an expansion).
pub fn words(line: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some(w) = word.take() {
                    out.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => w.push(chars.next()?),
                        '$' | '`' => return None,
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            ';' | '|' | '&' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' => return None,
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    let assignments = out
        .iter()
        .take_while(|w| {
            w.split_once('=').is_some_and(|(n, _)| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            })
        })
        .count();
    Some(out.split_off(assignments))
}

/// True for a handler that runs sentinel's hook (this binary or another copy).
pub fn is_ours(target: Target, handler: &Value) -> bool {
    if target.shape() == Shape::Grouped && install::is_ours(handler) {
        return true;
    }
    let Some(words) = target.command_of(handler).and_then(words) else {
        return false;
    };
    words.len() >= 2
        && Path::new(&words[0])
            .file_name()
            .is_some_and(|n| n == "sentinel")
        && words[1] == "hook"
}

/// One of sentinel's handlers found in a file.
#[derive(Clone, Debug)]
pub struct Found {
    /// The event it is registered for.
    pub event: String,
    /// The matcher of its group (grouped shapes).
    pub matcher: Option<String>,
    /// The command line it runs (exec form: the program and its arguments).
    pub words: Vec<String>,
    /// The command line as the agent hands it to its shell (an exec form's arguments quoted
    /// onto it).
    pub line: String,
}

/// sentinel's handlers in an agent's file.
pub fn registered(target: Target, file: &Value) -> Vec<Found> {
    let mut out = Vec::new();
    let Some(Value::Object(events)) = file.get("hooks") else {
        return out;
    };
    for (event, list) in events {
        let Value::Array(list) = list else { continue };
        for item in list {
            let (matcher, handlers): (Option<String>, Vec<&Value>) = match target.shape() {
                Shape::Grouped => (
                    item.get("matcher")
                        .and_then(Value::as_str)
                        .map(String::from),
                    item.get("hooks")
                        .and_then(Value::as_array)
                        .map(|h| h.iter().collect())
                        .unwrap_or_default(),
                ),
                Shape::Flat => (None, vec![item]),
            };
            for h in handlers.into_iter().filter(|h| is_ours(target, h)) {
                // A shell line, or the exec form Claude Code uses (`command` and `args`).
                let mut line = target.command_of(h).unwrap_or("").to_string();
                let mut words = words(&line).unwrap_or_default();
                for a in h["args"].as_array().into_iter().flatten() {
                    if let Some(a) = a.as_str() {
                        line.push(' ');
                        line.push_str(&crate::text::shell_word(a));
                        words.push(a.to_string());
                    }
                }
                out.push(Found {
                    event: event.clone(),
                    matcher: matcher.clone(),
                    words,
                    line,
                });
            }
        }
    }
    out
}

/// Registers sentinel in `target`'s file at `path`, then seeds `home` (as for Claude Code).
pub fn install(
    target: Target,
    path: &Path,
    binary: &Path,
    shadow: bool,
    timeout_secs: u64,
    home: &Path,
) -> Result<Report> {
    let (mut value, previous) = install::read_settings(path)?;
    let before = value.clone();
    let new_dirs = install::missing_dirs(path);
    let command = command_line(target, binary, shadow);
    shape::add(target, &mut value, &command, timeout_secs)
        .map_err(|e| e.context(format!("in {}; it was left untouched", path.display())))?;
    let mut report = Report {
        settings: path.to_path_buf(),
        seeded: install::seed(home)?,
        ..Report::default()
    };
    if value != before || previous.is_none() {
        let mut state = install::read_state(home);
        let key = install::state_key(path);
        let mut without_ours = before;
        shape::remove(target, &mut without_ours, Some(&[]))?;
        let new = shape::containers_created(target, &without_ours, previous.is_none());
        install::record_created(&mut state, &key, new, new_dirs);
        install::write_state(home, &state)?;
        report.backup = install::write_settings(path, &value, previous.as_deref())?;
        report.changed = true;
    }
    Ok(report)
}

/// Removes exactly what install added; a file install created and left empty is removed.
pub fn uninstall(target: Target, path: &Path, home: &Path) -> Result<Report> {
    let (mut value, previous) = install::read_settings(path)?;
    let mut report = Report {
        settings: path.to_path_buf(),
        ..Report::default()
    };
    let mut state = install::read_state(home);
    let key = install::state_key(path);
    let created = install::created_for(&state, &key);
    let removed = shape::remove(target, &mut value, created.as_deref())
        .map_err(|e| e.context(format!("in {}", path.display())))?;
    if removed {
        let file_ours = created
            .as_deref()
            .is_some_and(|c| c.iter().any(|p| p == shape::FILE));
        let empty = value.as_object().is_some_and(|o| o.is_empty());
        let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
        if file_ours && empty && regular {
            std::fs::remove_file(path)
                .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", path.display()))?;
            report.removed.push(path.to_path_buf());
            report.removed.extend(install::remove_created(
                path,
                &install::dirs_for(&state, &key),
            ));
        } else {
            report.backup = install::write_settings(path, &value, previous.as_deref())?;
        }
        report.changed = true;
    }
    if state.remove(&key).is_some() {
        install::write_state(home, &state)?;
    }
    Ok(report)
}

/// The scope a non-Claude install applies to.
pub fn path_for(
    target: Target,
    project: bool,
    home: Option<&Path>,
    cwd: &Path,
    codex_home: Option<PathBuf>,
) -> Result<PathBuf> {
    if project {
        return Ok(target.project_path(cwd));
    }
    match home {
        Some(h) => Ok(target.user_path(h, codex_home)),
        None => bail!("cannot find the home directory"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_read_back_as_their_words() {
        let bin = Path::new("/opt/my tools/sentinel");
        let line = command_line(Target::Gemini, bin, true);
        assert_eq!(
            line,
            "'/opt/my tools/sentinel' hook --agent gemini --shadow"
        );
        assert_eq!(
            words(&line).unwrap(),
            [
                "/opt/my tools/sentinel",
                "hook",
                "--agent",
                "gemini",
                "--shadow"
            ]
        );
        assert_eq!(
            command_line(Target::Codex, Path::new("/usr/bin/sentinel"), false),
            "/usr/bin/sentinel hook --agent codex"
        );
        assert_eq!(
            words("X=1 \"/a b/sentinel\" hook").unwrap(),
            ["/a b/sentinel", "hook"]
        );
        assert_eq!(words("sentinel hook | tee x"), None);
        assert_eq!(words("sentinel hook $(x)"), None);
    }

    #[test]
    fn only_sentinels_hook_is_ours() {
        for t in Target::ALL {
            let ours = t.handler(&command_line(t, Path::new("/x/sentinel"), false), 30);
            assert!(is_ours(t, &ours), "{t:?}");
            for other in [
                "/x/sentinel check ls",
                "/x/not-sentinel hook",
                "sentinel hook; rm -rf ~",
                "",
            ] {
                assert!(!is_ours(t, &t.handler(other, 30)), "{t:?} {other}");
            }
        }
    }

    #[test]
    fn every_gemini_tool_listed_is_one_sentinel_judges() {
        use crate::agents::event::{Agent, parse_event};
        use crate::call::ToolCall;
        for tool in GEMINI_TOOLS {
            let event = format!(
                r#"{{"hook_event_name":"BeforeTool","tool_name":"{tool}","tool_input":{{"command":"ls","file_path":"/p/x","content":"x"}}}}"#
            );
            let call = parse_event(Agent::Gemini, &event).unwrap().call.unwrap();
            assert!(!matches!(call, ToolCall::Other { .. }), "{tool}");
        }
    }
}
