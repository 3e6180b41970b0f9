//! Cursor's tools, as its `preToolUse` and `beforeMCPExecution` hooks name them, mapped onto
//! sentinel's calls. `preToolUse` fires for every tool (`Shell`, `Read`, `Write`, `Grep`,
//! `Delete`, `Task`, `MCP:NAME` …); the shell, file reads and MCP tools have hooks of their own
//! (`beforeShellExecution`, `beforeReadFile`, `beforeMCPExecution`), registered too, so they are
//! judged there, once, and `preToolUse` judges the rest: file edits above all.

use crate::call::{EventError, ToolCall, written_text};
use serde_json::Value;

/// The call of Cursor's `preToolUse` for `tool`; `Other` (no opinion) for the tools another of
/// Cursor's hooks judges, and for tools sentinel knows nothing about.
pub fn call(tool: &str, input: &Value) -> Result<ToolCall, EventError> {
    let text = |fields: &[&'static str]| -> Result<Option<String>, EventError> {
        for f in fields {
            match input.get(f) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => return Ok(Some(s.clone())),
                Some(_) => {
                    return Err(EventError::WrongType {
                        field: f,
                        expected: "a string",
                    });
                }
            }
        }
        Ok(None)
    };
    const PATH: &[&str] = &[
        "file_path",
        "path",
        "target_file",
        "filePath",
        "notebook_path",
    ];
    Ok(match tool {
        // Judged by beforeShellExecution, beforeReadFile and beforeMCPExecution.
        "Shell" | "Bash" | "Terminal" | "Read" | "ReadFile" => ToolCall::Other {
            tool: tool.to_string(),
        },
        t if t.starts_with("MCP:") || crate::call::mcp::is_mcp(t) => ToolCall::Other {
            tool: tool.to_string(),
        },
        "Write" | "Edit" | "MultiEdit" | "StrReplace" | "Delete" | "EditNotebook"
        | "NotebookEdit" | "ApplyPatch" => {
            let mut content = written_text(input);
            if let Some(c) = text(&["contents", "code_edit"])? {
                content.push('\n');
                content.push_str(&c);
            }
            ToolCall::Write {
                tool: tool.to_string(),
                path: text(PATH)?.ok_or(EventError::Missing {
                    field: "file_path",
                    tool: tool.to_string(),
                })?,
                content,
            }
        }
        "Grep" | "Glob" | "LS" | "List" => ToolCall::Read {
            tool: tool.to_string(),
            paths: text(&["path", "target_directory", "file_path"])?
                .into_iter()
                .collect(),
        },
        "Task" => ToolCall::Agent {
            tool: tool.to_string(),
            prompt: text(&["prompt", "description"])?.unwrap_or_default(),
        },
        "WebFetch" | "WebSearch" => ToolCall::Fetch {
            tool: tool.to_string(),
            text: text(&["url", "query", "search_term"])?.unwrap_or_default(),
            seen: Vec::new(),
        },
        _ => ToolCall::Other {
            tool: tool.to_string(),
        },
    })
}

/// The call of Cursor's `beforeMCPExecution`: the tool by its bare name, with its input. Cursor
/// does not name the server as Claude Code does (`mcp__SERVER__TOOL`), so the tool is judged as
/// an MCP tool of an unknown server: by the MCP specs that match its name and a scan of its input
/// for credentials, hosts and destructive words (docs/mcp.md).
pub fn mcp_call(tool: &str, input: &Value) -> Result<ToolCall, EventError> {
    let name = format!("mcp__cursor__{tool}");
    ToolCall::from_tool_input(&name, input)
}
