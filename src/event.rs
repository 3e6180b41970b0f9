//! The proposed tool call, as sentinel's decision needs it, read from an agent's `tool_input`.

use serde_json::Value;
use thiserror::Error;

/// What the agent wants to do, reduced to what Tier 1 looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolCall {
    /// A Bash command (Claude Code `Bash`, Gemini `run_shell_command`, Cursor shell …).
    Shell { command: String },
    /// A PowerShell command (Claude Code's shell on Windows).
    PowerShell { command: String },
    /// A file write (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`).
    Write { tool: String, path: String },
    /// A read-only tool (`Read`, `Glob`, `Grep`, `LS`) and the paths it touches.
    Read { tool: String, paths: Vec<String> },
    /// A tool sentinel has no opinion on.
    Other { tool: String },
}

impl ToolCall {
    /// The tool's name as the agent gave it.
    pub fn tool(&self) -> &str {
        match self {
            ToolCall::Shell { .. } => "Bash",
            ToolCall::PowerShell { .. } => "PowerShell",
            ToolCall::Write { tool, .. }
            | ToolCall::Read { tool, .. }
            | ToolCall::Other { tool } => tool,
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
        Ok(match tool {
            "Bash" => ToolCall::Shell {
                command: required("command")?,
            },
            "PowerShell" => ToolCall::PowerShell {
                command: required("command")?,
            },
            "Write" | "Edit" | "MultiEdit" => ToolCall::Write {
                tool: tool.to_string(),
                path: required("file_path")?,
            },
            "NotebookEdit" => {
                let path = match field("notebook_path")? {
                    Some(p) => p,
                    None => required("file_path")?,
                };
                ToolCall::Write {
                    tool: tool.to_string(),
                    path,
                }
            }
            "Read" => ToolCall::Read {
                tool: tool.to_string(),
                paths: vec![required("file_path")?],
            },
            "Glob" | "Grep" | "LS" => {
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
            _ => ToolCall::Other {
                tool: tool.to_string(),
            },
        })
    }
}

/// Why an event or tool input was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum EventError {
    /// A field that must be there is not.
    #[error("tool_input.{field} is missing for {tool}")]
    Missing { field: &'static str, tool: String },
    /// A field has the wrong JSON type.
    #[error("{field} must be {expected}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
    },
}
