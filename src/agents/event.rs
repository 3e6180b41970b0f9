//! Hook events as each agent sends them, reduced to what sentinel needs: the event kind, the
//! session, the cwd and the proposed [`ToolCall`].
//!
//! Claude Code's shape is the default (OpenAI Codex CLI sends the same); Gemini CLI, Cursor and
//! GitHub Copilot CLI have their own (`research/hook-protocol.md` §3). Every field but the event
//! name may be absent and unknown fields are ignored, but a field that is there with the wrong
//! JSON type is an error: sentinel never guesses what a malformed event meant.

use crate::call::{EventError, ToolCall, written_text};
use serde_json::{Map, Value};

/// Which agent's protocol a hook speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code (and OpenAI Codex CLI, which sends the same shape).
    Claude,
    /// OpenAI Codex CLI: Claude Code's shape, but its hooks take no `ask` and no bare `allow`.
    Codex,
    /// Gemini CLI (`BeforeTool`).
    Gemini,
    /// Cursor (`beforeShellExecution`, `beforeReadFile`).
    Cursor,
    /// GitHub Copilot CLI (`preToolUse` with `toolName` / `toolArgs`).
    Copilot,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 5] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
        Agent::Copilot,
    ];

    /// The agent with this command-line name.
    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// The agent's own name, for reasons.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
            Agent::Copilot => "Copilot CLI",
        }
    }

    /// Whether the agent's hook can answer `ask` (Codex CLI and Gemini CLI run the call then).
    pub fn can_ask(self) -> bool {
        !matches!(self, Agent::Codex | Agent::Gemini)
    }

    /// The name used on the command line and in records.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
        }
    }
}

/// What kind of event arrived, in sentinel's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A tool is about to run: decide.
    PreToolUse,
    /// A tool has run: its output entered the context.
    PostToolUse,
    /// The session is ending: summarise.
    SessionEnd,
    /// An event of the protocol that sentinel has nothing to do for (its name).
    Ignored(String),
}

/// One hook event, reduced to what sentinel uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookEvent {
    /// The event kind.
    pub kind: EventKind,
    /// The agent's session id.
    pub session_id: Option<String>,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// The proposed (or completed) call, for tool events.
    pub call: Option<ToolCall>,
    /// Claude Code's permission mode (`default`, `bypassPermissions` …).
    pub permission_mode: Option<String>,
    /// The session transcript (JSONL), where the person's own messages are.
    pub transcript_path: Option<String>,
    /// Why a session ended, for SessionEnd.
    pub reason: Option<String>,
    /// Claude Code's whole `tool_input` of a Bash call: a contained run's `updatedInput` is it
    /// with the command replaced.
    pub shell_input: Option<Value>,
    /// What a tool that has run gave back (`tool_response`, PostToolUse): read for secret values.
    pub tool_response: Option<Value>,
    /// The event's answer cannot be `ask` (Cursor's `preToolUse` does not enforce it): what
    /// needs the person is refused instead.
    pub ask_unsupported: bool,
    /// Sent by OpenAI Codex CLI (Claude Code's shape with a `turn_id`): answered in Codex's
    /// terms even by a hook registered without `--agent codex`.
    pub from_codex: bool,
}

/// Claude Code's events (and Codex's, a subset) that sentinel accepts without acting on.
const CLAUDE_OTHER_EVENTS: &[&str] = &[
    "PostToolUseFailure",
    "PermissionRequest",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "Notification",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "ConfigChange",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "TaskCreated",
    "TaskCompleted",
    "TeammateIdle",
    "Setup",
];
const GEMINI_OTHER_EVENTS: &[&str] = &[
    "SessionStart",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "Notification",
    "PreCompress",
];
const CURSOR_OTHER_EVENTS: &[&str] = &[
    "beforeSubmitPrompt",
    "afterShellExecution",
    "afterMCPExecution",
    "afterFileEdit",
    "afterAgentResponse",
    "afterAgentThought",
    "stop",
    "sessionStart",
    "preCompact",
    "subagentStart",
    "subagentStop",
    "beforeTabFileRead",
    "afterTabFileEdit",
];
const COPILOT_OTHER_EVENTS: &[&str] = &[
    "sessionStart",
    "userPromptSubmitted",
    "errorOccurred",
    "agentStop",
    "notification",
    "permissionRequest",
    "subagentStop",
];

/// True for an event name of some agent's protocol that sentinel accepts without acting on.
pub fn is_other_event(name: &str) -> bool {
    [
        CLAUDE_OTHER_EVENTS,
        GEMINI_OTHER_EVENTS,
        CURSOR_OTHER_EVENTS,
        COPILOT_OTHER_EVENTS,
    ]
    .iter()
    .any(|list| list.contains(&name))
}

/// Parses one event in `agent`'s shape.
pub fn parse_event(agent: Agent, text: &str) -> Result<HookEvent, EventError> {
    let value: Value = serde_json::from_str(text).map_err(|e| EventError::Json(e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(EventError::WrongType {
            field: "the event",
            expected: "a JSON object",
        });
    };
    match agent {
        Agent::Claude | Agent::Codex => claude_event(&obj),
        Agent::Gemini => gemini_event(&obj),
        Agent::Cursor => cursor_event(&obj),
        Agent::Copilot => copilot_event(&obj),
    }
}

/// A string field that may be absent; present with another type is an error.
fn opt_str(obj: &Map<String, Value>, field: &'static str) -> Result<Option<String>, EventError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(EventError::WrongType {
            field,
            expected: "a string",
        }),
    }
}

fn required_name(obj: &Map<String, Value>, field: &'static str) -> Result<String, EventError> {
    opt_str(obj, field)?.ok_or(EventError::MissingEvent { field })
}

fn tool_input<'a>(
    obj: &'a Map<String, Value>,
    field: &'static str,
) -> Result<&'a Value, EventError> {
    match obj.get(field) {
        Some(v @ Value::Object(_)) => Ok(v),
        None | Some(Value::Null) => Err(EventError::Missing {
            field,
            tool: "this event".into(),
        }),
        Some(_) => Err(EventError::WrongType {
            field,
            expected: "an object",
        }),
    }
}

fn claude_event(obj: &Map<String, Value>) -> Result<HookEvent, EventError> {
    let mut event = tool_event(
        obj,
        ["PreToolUse", "PostToolUse"],
        CLAUDE_OTHER_EVENTS,
        ToolCall::from_tool_input,
    )?;
    event.permission_mode = opt_str(obj, "permission_mode")?;
    // Codex sends a `turn_id` and no `prompt_id` (Claude Code's). Taken for Codex wrongly, a
    // Claude Code call would only be stricter (no allow given, an ask refused).
    event.from_codex = obj.contains_key("turn_id") && !obj.contains_key("prompt_id");
    // Codex sends this shape too (with a `turn_id`); that it runs an `allow`'s rewritten
    // command has not been seen, so its calls are never rewritten.
    if event.kind == EventKind::PreToolUse
        && matches!(event.call, Some(ToolCall::Shell { .. }))
        && !obj.contains_key("turn_id")
    {
        event.shell_input = obj.get("tool_input").cloned();
    }
    Ok(event)
}

fn gemini_event(obj: &Map<String, Value>) -> Result<HookEvent, EventError> {
    tool_event(
        obj,
        ["BeforeTool", "AfterTool"],
        GEMINI_OTHER_EVENTS,
        gemini_call,
    )
}

/// The shape Claude Code and Gemini CLI share: `hook_event_name`, `tool_name`, `tool_input`,
/// `session_id`, `cwd`, `reason`. `tool_events` names the pre- and post-tool events; `to_call`
/// maps the agent's tool onto a [`ToolCall`].
fn tool_event(
    obj: &Map<String, Value>,
    tool_events: [&str; 2],
    others: &[&str],
    to_call: fn(&str, &Value) -> Result<ToolCall, EventError>,
) -> Result<HookEvent, EventError> {
    let name = required_name(obj, "hook_event_name")?;
    let kind = match name.as_str() {
        n if n == tool_events[0] => EventKind::PreToolUse,
        n if n == tool_events[1] => EventKind::PostToolUse,
        "SessionEnd" => EventKind::SessionEnd,
        n if others.contains(&n) => EventKind::Ignored(name.clone()),
        _ => return Err(EventError::UnknownEvent(name)),
    };
    let call = match kind {
        EventKind::PreToolUse | EventKind::PostToolUse => {
            let tool = opt_str(obj, "tool_name")?
                .ok_or(EventError::MissingEvent { field: "tool_name" })?;
            Some(to_call(&tool, tool_input(obj, "tool_input")?)?)
        }
        _ => None,
    };
    let tool_response = match kind {
        EventKind::PostToolUse => obj.get("tool_response").cloned(),
        _ => None,
    };
    Ok(HookEvent {
        kind,
        session_id: opt_str(obj, "session_id")?,
        cwd: opt_str(obj, "cwd")?,
        call,
        permission_mode: None,
        transcript_path: opt_str(obj, "transcript_path")?,
        reason: opt_str(obj, "reason")?,
        shell_input: None,
        tool_response,
        from_codex: false,
        ask_unsupported: false,
    })
}

/// Gemini CLI's tools mapped onto Claude Code's.
fn gemini_call(tool: &str, input: &Value) -> Result<ToolCall, EventError> {
    let path_of = |fields: &[&'static str]| -> Result<Option<String>, EventError> {
        let obj = input.as_object().ok_or(EventError::WrongType {
            field: "tool_input",
            expected: "an object",
        })?;
        for f in fields {
            if let Some(v) = opt_str(obj, f)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    };
    let missing = |field: &'static str| EventError::Missing {
        field,
        tool: tool.to_string(),
    };
    Ok(match tool {
        "run_shell_command" => ToolCall::from_tool_input("Bash", input)?,
        "write_file" | "replace" | "edit" => ToolCall::Write {
            tool: tool.to_string(),
            path: path_of(&["file_path", "absolute_path", "path"])?
                .ok_or_else(|| missing("file_path"))?,
            content: written_text(input),
        },
        "read_file"
        | "list_directory"
        | "glob"
        | "search_file_content"
        | "grep_search"
        | "grep"
        | "read_many_files" => ToolCall::Read {
            tool: tool.to_string(),
            paths: path_of(&["file_path", "absolute_path", "path", "dir_path"])?
                .into_iter()
                .collect(),
        },
        // Gemini CLI's web tools: the prompt (with its URLs) and the query leave the machine.
        "web_fetch" => ToolCall::Fetch {
            tool: tool.to_string(),
            text: path_of(&["prompt", "url"])?.unwrap_or_default(),
            seen: Vec::new(),
        },
        "google_web_search" => ToolCall::Fetch {
            tool: tool.to_string(),
            text: path_of(&["query"])?.unwrap_or_default(),
            seen: Vec::new(),
        },
        // MCP tools keep their `mcp__SERVER__TOOL` names in Gemini CLI.
        t if crate::call::mcp::is_mcp(t) => ToolCall::from_tool_input(tool, input)?,
        _ => ToolCall::Other {
            tool: tool.to_string(),
        },
    })
}

fn cursor_event(obj: &Map<String, Value>) -> Result<HookEvent, EventError> {
    let name = required_name(obj, "hook_event_name")?;
    let (kind, call) = match name.as_str() {
        "beforeShellExecution" => {
            let command = opt_str(obj, "command")?.ok_or(EventError::Missing {
                field: "command",
                tool: name.clone(),
            })?;
            (EventKind::PreToolUse, Some(ToolCall::Shell { command }))
        }
        "beforeReadFile" => {
            let path = opt_str(obj, "file_path")?.ok_or(EventError::Missing {
                field: "file_path",
                tool: name.clone(),
            })?;
            (
                EventKind::PreToolUse,
                Some(ToolCall::Read {
                    tool: "Read".into(),
                    paths: vec![path],
                }),
            )
        }
        "preToolUse" | "postToolUse" => {
            let tool = opt_str(obj, "tool_name")?
                .ok_or(EventError::MissingEvent { field: "tool_name" })?;
            let input = cursor_tool_input(obj)?;
            let call = crate::agents::cursor::call(&tool, &input)?;
            let kind = if name == "preToolUse" {
                EventKind::PreToolUse
            } else {
                EventKind::PostToolUse
            };
            (kind, Some(call))
        }
        "beforeMCPExecution" => {
            let tool = opt_str(obj, "tool_name")?
                .ok_or(EventError::MissingEvent { field: "tool_name" })?;
            let input = cursor_tool_input(obj)?;
            (
                EventKind::PreToolUse,
                Some(crate::agents::cursor::mcp_call(&tool, &input)?),
            )
        }
        "sessionEnd" => (EventKind::SessionEnd, None),
        n if CURSOR_OTHER_EVENTS.contains(&n) => (EventKind::Ignored(name.clone()), None),
        _ => return Err(EventError::UnknownEvent(name)),
    };
    let cwd = match opt_str(obj, "cwd")? {
        Some(c) => Some(c),
        None => match obj.get("workspace_roots") {
            None | Some(Value::Null) => None,
            Some(Value::Array(roots)) => match roots.first() {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    return Err(EventError::WrongType {
                        field: "workspace_roots",
                        expected: "an array of strings",
                    });
                }
            },
            Some(_) => {
                return Err(EventError::WrongType {
                    field: "workspace_roots",
                    expected: "an array of strings",
                });
            }
        },
    };
    let ask_unsupported = name == "preToolUse";
    Ok(HookEvent {
        kind,
        session_id: opt_str(obj, "conversation_id")?,
        cwd,
        call,
        permission_mode: None,
        transcript_path: None,
        reason: None,
        shell_input: None,
        tool_response: None,
        from_codex: false,
        ask_unsupported,
    })
}

/// Cursor's `tool_input`: an object, or (beforeMCPExecution) the object as a JSON string.
fn cursor_tool_input(obj: &Map<String, Value>) -> Result<Value, EventError> {
    match obj.get("tool_input") {
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(EventError::WrongType {
                field: "tool_input",
                expected: "an object or a JSON object string",
            }),
        },
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(_) => Err(EventError::WrongType {
            field: "tool_input",
            expected: "an object",
        }),
    }
}

fn copilot_event(obj: &Map<String, Value>) -> Result<HookEvent, EventError> {
    // Copilot CLI's stdin carries no event name in its documented form; the tool fields say
    // which event it is. A name, when present, must agree.
    let name = match opt_str(obj, "hook_event_name")? {
        Some(n) => Some(n),
        None => opt_str(obj, "hookEventName")?,
    };
    let kind = match name.as_deref() {
        Some("preToolUse") | Some("PreToolUse") => EventKind::PreToolUse,
        Some("postToolUse") | Some("PostToolUse") => EventKind::PostToolUse,
        Some("sessionEnd") | Some("SessionEnd") => EventKind::SessionEnd,
        Some(n) if COPILOT_OTHER_EVENTS.contains(&n) => EventKind::Ignored(n.to_string()),
        Some(n) => return Err(EventError::UnknownEvent(n.to_string())),
        None if obj.contains_key("toolResult") => EventKind::PostToolUse,
        None if obj.contains_key("toolName") => EventKind::PreToolUse,
        None => return Err(EventError::MissingEvent { field: "toolName" }),
    };
    let call = match kind {
        EventKind::PreToolUse | EventKind::PostToolUse => {
            let tool =
                opt_str(obj, "toolName")?.ok_or(EventError::MissingEvent { field: "toolName" })?;
            // toolArgs is an object in the SDK and a JSON string in early docs: take both.
            let args = match obj.get("toolArgs") {
                Some(Value::String(s)) => {
                    serde_json::from_str::<Value>(s).map_err(|_| EventError::WrongType {
                        field: "toolArgs",
                        expected: "an object or a JSON object string",
                    })?
                }
                Some(v @ Value::Object(_)) => v.clone(),
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(_) => {
                    return Err(EventError::WrongType {
                        field: "toolArgs",
                        expected: "an object",
                    });
                }
            };
            if !args.is_object() {
                return Err(EventError::WrongType {
                    field: "toolArgs",
                    expected: "an object",
                });
            }
            Some(copilot_call(&tool, &args)?)
        }
        _ => None,
    };
    Ok(HookEvent {
        kind,
        session_id: match opt_str(obj, "sessionId")? {
            Some(s) => Some(s),
            None => opt_str(obj, "session_id")?,
        },
        cwd: opt_str(obj, "cwd")?,
        call,
        permission_mode: None,
        transcript_path: None,
        reason: opt_str(obj, "reason")?,
        shell_input: None,
        tool_response: None,
        from_codex: false,
        ask_unsupported: false,
    })
}

/// Copilot CLI's tools mapped onto Claude Code's.
fn copilot_call(tool: &str, args: &Value) -> Result<ToolCall, EventError> {
    let obj = args.as_object().ok_or(EventError::WrongType {
        field: "toolArgs",
        expected: "an object",
    })?;
    let path = || -> Result<String, EventError> {
        for f in ["path", "file_path", "filePath"] {
            if let Some(p) = opt_str(obj, f)? {
                return Ok(p);
            }
        }
        Err(EventError::Missing {
            field: "path",
            tool: tool.to_string(),
        })
    };
    Ok(match tool {
        "bash" | "shell" => ToolCall::Shell {
            command: opt_str(obj, "command")?.ok_or(EventError::Missing {
                field: "command",
                tool: tool.into(),
            })?,
        },
        "powershell" => ToolCall::PowerShell {
            command: opt_str(obj, "command")?.ok_or(EventError::Missing {
                field: "command",
                tool: tool.into(),
            })?,
        },
        "create" | "edit" | "str_replace" | "write" | "str_replace_editor" => ToolCall::Write {
            tool: tool.to_string(),
            path: path()?,
            content: written_text(args),
        },
        "view" | "read" | "glob" | "grep" => ToolCall::Read {
            tool: tool.to_string(),
            paths: vec![path()?],
        },
        _ => ToolCall::Other {
            tool: tool.to_string(),
        },
    })
}
