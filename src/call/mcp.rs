//! MCP tools (`mcp__SERVER__TOOL`) whose effects are known, read as the built-in call they
//! amount to: the common filesystem server's reads, writes, edits and moves, and servers that run
//! a shell command. Every other MCP tool gets no opinion (the agent's own permission flow
//! decides); its output still marks the session as carrying untrusted content.
//!
//! A tool is recognised by its own name (the part after the server's), whatever the server is
//! called, and by the fields its input has: a `write_file` without `path` and `content` is not
//! the filesystem server's, and is left alone.

use super::{EventError, ToolCall};
use crate::text::shell_word;
use serde_json::Value;

/// The built-in call an MCP tool amounts to; None when sentinel does not know the tool.
pub fn call(tool: &str, input: &Value) -> Result<Option<ToolCall>, EventError> {
    let Some(own) = tool.strip_prefix("mcp__").and_then(|r| r.rsplit_once("__")) else {
        return Ok(None);
    };
    let name = own.1;
    let text = |field: &'static str| -> Result<Option<String>, EventError> {
        match input.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(EventError::WrongType {
                field,
                expected: "a string",
            }),
        }
    };
    let read = |paths: Vec<String>| ToolCall::Read {
        tool: tool.to_string(),
        paths,
    };
    Ok(match name {
        "read_file"
        | "read_text_file"
        | "read_media_file"
        | "get_file_info"
        | "list_directory"
        | "list_directory_with_sizes"
        | "directory_tree"
        | "search_files" => text("path")?.map(|p| read(vec![p])),
        "read_multiple_files" => match input.get("paths") {
            Some(Value::Array(items)) => {
                let paths: Option<Vec<String>> = items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect();
                match paths {
                    Some(p) if !p.is_empty() => Some(read(p)),
                    _ => {
                        return Err(EventError::WrongType {
                            field: "paths",
                            expected: "a list of strings",
                        });
                    }
                }
            }
            _ => None,
        },
        "write_file" | "edit_file" => text("path")?.map(|path| ToolCall::Write {
            tool: tool.to_string(),
            path,
            content: super::written_text(input),
        }),
        // A move deletes its source and writes its destination: read as `mv`, which judges both.
        "move_file" => match (text("source")?, text("destination")?) {
            (Some(from), Some(to)) => Some(ToolCall::Shell {
                command: format!("mv -- {} {}", shell_word(&from), shell_word(&to)),
            }),
            _ => None,
        },
        "create_directory" => text("path")?.map(|p| ToolCall::Shell {
            command: format!("mkdir -p -- {}", shell_word(&p)),
        }),
        // Servers that run a shell command.
        "run_command"
        | "execute_command"
        | "run_shell_command"
        | "shell"
        | "exec"
        | "bash"
        | "run_terminal_command"
        | "terminal" => text("command")?.map(|command| ToolCall::Shell { command }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_filesystem_servers_tools_read_as_their_built_in_counterparts() {
        let c = |tool: &str, input: Value| call(tool, &input).unwrap();
        assert_eq!(
            c(
                "mcp__filesystem__read_file",
                json!({"path": "/home/u/.ssh/id_rsa"})
            ),
            Some(ToolCall::Read {
                tool: "mcp__filesystem__read_file".into(),
                paths: vec!["/home/u/.ssh/id_rsa".into()]
            })
        );
        assert!(matches!(
            c("mcp__fs__write_file", json!({"path": "/home/u/.bashrc", "content": "x"})),
            Some(ToolCall::Write { path, .. }) if path == "/home/u/.bashrc"
        ));
        assert_eq!(
            c(
                "mcp__fs__move_file",
                json!({"source": "a b", "destination": "it's"})
            ),
            Some(ToolCall::Shell {
                command: r"mv -- 'a b' 'it'\''s'".into()
            })
        );
        assert_eq!(
            c(
                "mcp__desktop__execute_command",
                json!({"command": "rm -rf ~"})
            ),
            Some(ToolCall::Shell {
                command: "rm -rf ~".into()
            })
        );
        // Unknown tools, other shapes and non-MCP names: no opinion.
        assert_eq!(c("mcp__github__get_issue", json!({"n": 1})), None);
        assert_eq!(c("mcp__x__write_file", json!({"name": "a"})), None);
        assert_eq!(c("write_file", json!({"path": "a", "content": ""})), None);
        assert!(call("mcp__fs__read_file", &json!({"path": 1})).is_err());
    }
}
