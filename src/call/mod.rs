//! A call an agent proposes, in sentinel's terms ([`ToolCall`]), whichever agent sent it: the
//! one type every layer reads. The agents' own event shapes are in `agents::event`.

pub mod mcp;
pub mod patch;
pub mod tools;
pub mod word;

use serde_json::Value;
use thiserror::Error;

/// What the agent wants to do, reduced to what Tier 1 looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolCall {
    /// A Bash command (Claude Code `Bash`, Gemini `run_shell_command`, Cursor shell …).
    Shell { command: String },
    /// A PowerShell command (Claude Code's shell on Windows).
    PowerShell { command: String },
    /// A file write (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`) and the text it writes.
    Write {
        tool: String,
        path: String,
        content: String,
    },
    /// Codex's `apply_patch`: every path its headers name, each judged as a write (or delete)
    /// of that path; `patch` is the whole text (what allow-once grants).
    Patch {
        tool: String,
        files: Vec<patch::PatchedFile>,
        patch: String,
    },
    /// A read-only tool (`Read`, `Glob`, `Grep`, `LS`) and the paths it touches.
    Read { tool: String, paths: Vec<String> },
    /// A subagent launch (`Agent`, formerly `Task`) and its prompt.
    Agent { tool: String, prompt: String },
    /// A shell command an MCP server runs (`mcp__*__run_command` …) where the tool names a
    /// directory of its own (`dir`, as given: `~`, relative or absolute) or takes its arguments
    /// apart (`command` + `args`, already joined into one quoted command line). The server
    /// runs it, not Claude Code's shell, so it is never rewritten to run fenced.
    McpShell {
        tool: String,
        command: String,
        /// The arguments joined unquoted, when one holds shell syntax: judged too.
        raw: Option<String>,
        dir: Option<String>,
    },
    /// A request that leaves the machine with text the agent chose: `WebFetch` (the URL),
    /// `WebSearch` (the query) and the fetch servers' tools. `seen` is filled at the edge: the
    /// session's secret values the text carries (descriptions, never the values).
    Fetch {
        tool: String,
        text: String,
        seen: Vec<String>,
    },
    /// Any other MCP tool, with its whole input: judged by the MCP specs (rules/mcp/*.toml) and
    /// a scan of its string values. `seen` as for [`ToolCall::Fetch`].
    Mcp {
        tool: String,
        input: Value,
        seen: Vec<String>,
    },
    /// A tool sentinel has no opinion on.
    Other { tool: String },
}

/// The text a write puts into a file, from whichever fields the tool uses.
pub fn written_text(input: &Value) -> String {
    let mut parts: Vec<&str> = [
        "content",
        "new_string",
        "new_source",
        "file_text",
        "new_str",
    ]
    .iter()
    .filter_map(|f| input.get(f).and_then(Value::as_str))
    .collect();
    if let Some(edits) = input.get("edits").and_then(Value::as_array) {
        parts.extend(
            edits
                .iter()
                .filter_map(|e| e.get("new_string").and_then(Value::as_str)),
        );
    }
    parts.join("\n")
}

impl ToolCall {
    /// A call that runs commands or writes files (SPEC 2.5's high-risk calls), as opposed to
    /// reads and subagent launches.
    pub fn is_high_risk(&self) -> bool {
        matches!(
            self,
            ToolCall::Shell { .. }
                | ToolCall::PowerShell { .. }
                | ToolCall::Write { .. }
                | ToolCall::Patch { .. }
                | ToolCall::McpShell { .. }
        )
    }

    /// The tool's name as the agent gave it.
    pub fn tool(&self) -> &str {
        match self {
            ToolCall::Shell { .. } => "Bash",
            ToolCall::PowerShell { .. } => "PowerShell",
            ToolCall::Write { tool, .. }
            | ToolCall::Patch { tool, .. }
            | ToolCall::Read { tool, .. }
            | ToolCall::Agent { tool, .. }
            | ToolCall::McpShell { tool, .. }
            | ToolCall::Fetch { tool, .. }
            | ToolCall::Mcp { tool, .. }
            | ToolCall::Other { tool } => tool,
        }
    }

    /// The text sent out that the edge checks against the session's secret values: a fetch's
    /// URL or query, an MCP tool's string values (bounded); None for the other calls.
    pub fn outgoing_text(&self) -> Option<String> {
        match self {
            ToolCall::Fetch { text, .. } => Some(text.clone()),
            ToolCall::Mcp { input, .. } => Some(mcp::strings(input).join("\n")),
            _ => None,
        }
    }

    /// Records the session's secret values found in the call's outgoing text (the edge's
    /// finding; Tier 1 denies on it).
    pub fn set_seen(&mut self, found: Vec<String>) {
        match self {
            ToolCall::Fetch { seen, .. } | ToolCall::Mcp { seen, .. } => *seen = found,
            _ => {}
        }
    }

    /// Builds a call from a Claude Code tool name and its `tool_input` object.
    pub fn from_tool_input(tool: &str, input: &Value) -> Result<ToolCall, EventError> {
        let field = |name: &'static str| -> Result<Option<String>, EventError> {
            match input.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(EventError::WrongType {
                    field: name,
                    expected: "a string",
                }),
            }
        };
        let required = |name: &'static str| -> Result<String, EventError> {
            field(name)?.ok_or(EventError::Missing {
                field: name,
                tool: tool.to_string(),
            })
        };
        if !input.is_object() {
            return Err(EventError::WrongType {
                field: "tool_input",
                expected: "an object",
            });
        }
        if tool == tools::APPLY_PATCH {
            // The patch text: `command` as Codex sends it; `input` / `patch` as its tool takes it.
            let text = match field("command")? {
                Some(t) => t,
                None => match field("input")? {
                    Some(t) => t,
                    None => required("patch")?,
                },
            };
            return patch::parse(&text)
                .map(|files| ToolCall::Patch {
                    tool: tool.to_string(),
                    files,
                    patch: text,
                })
                .map_err(|why| EventError::Unreadable {
                    tool: tool.to_string(),
                    why,
                });
        }
        use tools::Judged;
        Ok(match tools::judged(tool) {
            Some(Judged::Shell) => ToolCall::Shell {
                command: required("command")?,
            },
            Some(Judged::PowerShell) => ToolCall::PowerShell {
                command: required("command")?,
            },
            Some(Judged::Write) if tool != "NotebookEdit" => ToolCall::Write {
                tool: tool.to_string(),
                path: required("file_path")?,
                content: written_text(input),
            },
            Some(Judged::Write) => {
                let path = match field("notebook_path")? {
                    Some(p) => p,
                    None => required("file_path")?,
                };
                ToolCall::Write {
                    tool: tool.to_string(),
                    path,
                    content: written_text(input),
                }
            }
            Some(Judged::ReadFile) => ToolCall::Read {
                tool: tool.to_string(),
                paths: vec![required("file_path")?],
            },
            Some(Judged::Agent) => ToolCall::Agent {
                tool: tool.to_string(),
                prompt: field("prompt")?.unwrap_or_default(),
            },
            Some(Judged::Fetch) => ToolCall::Fetch {
                tool: tool.to_string(),
                text: match field("url")? {
                    Some(url) => url,
                    None => field("query")?.unwrap_or_default(),
                },
                seen: Vec::new(),
            },
            Some(Judged::Search) => {
                let paths = ["path", "glob"]
                    .into_iter()
                    .map(field)
                    .collect::<Result<Vec<_>, _>>()?
                    .into_iter()
                    .flatten()
                    .collect();
                ToolCall::Read {
                    tool: tool.to_string(),
                    paths,
                }
            }
            None => match mcp::call(tool, input)? {
                Some(call) => call,
                None if mcp::is_mcp(tool) => ToolCall::Mcp {
                    tool: tool.to_string(),
                    input: input.clone(),
                    seen: Vec::new(),
                },
                None => ToolCall::Other {
                    tool: tool.to_string(),
                },
            },
        })
    }
}

/// Why an event or tool input was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum EventError {
    /// Not JSON, or truncated.
    #[error("malformed JSON: {0}")]
    Json(String),
    /// The event name (or the tool name) is missing.
    #[error("the event has no {field}")]
    MissingEvent { field: &'static str },
    /// An event name sentinel does not know for this agent.
    #[error("unknown event `{0}`")]
    UnknownEvent(String),
    /// A field that must be there is not.
    #[error("tool_input.{field} is missing for {tool}")]
    Missing { field: &'static str, tool: String },
    /// A tool's input that cannot be read (a patch without its headers).
    #[error("the {tool} input cannot be read: {why}")]
    Unreadable { tool: String, why: String },
    /// A field has the wrong JSON type.
    #[error("{field} must be {expected}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
    },
}
