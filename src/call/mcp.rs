//! MCP tools (`mcp__SERVER__TOOL`) whose effects are known, read as the built-in call they
//! amount to: the common filesystem server's reads, writes, edits and moves, and servers that run
//! a shell command (in the directory the tool names, with its `args` joined in). Every other MCP
//! tool becomes [`ToolCall::Mcp`], judged by the MCP specs and its input (docs/mcp.md); its
//! output still marks the session as carrying untrusted content.
//!
//! A tool is recognised by its own name (the part after the server's), whatever the server is
//! called, and by the fields its input has: a `write_file` without `path` and `content` is not
//! the filesystem server's, and is judged as any other MCP tool.

use super::{EventError, ToolCall};
use crate::text::shell_word;
use serde_json::Value;

/// Whether `tool` is an MCP tool's name (`mcp__SERVER__TOOL`).
pub fn is_mcp(tool: &str) -> bool {
    tool.strip_prefix("mcp__").is_some_and(|r| {
        r.rsplit_once("__")
            .is_some_and(|(s, t)| !s.is_empty() && !t.is_empty())
    })
}

/// The server's and the tool's own names of an MCP tool (`mcp__plugin_x_db__query` →
/// `plugin_x_db`, `query`).
pub fn names(tool: &str) -> Option<(&str, &str)> {
    tool.strip_prefix("mcp__").and_then(|r| r.rsplit_once("__"))
}

/// How many string values of an input are read, how deep, and how many bytes in all: an input
/// past them is judged on what was read, and said to be cut.
pub const MAX_STRINGS: usize = 512;
pub const MAX_DEPTH: usize = 16;
pub const MAX_BYTES: usize = 256 * 1024;

/// Every string value of `input` (object keys not included), depth first, within the bounds
/// above; numbers and booleans as their text. A string cut at the byte bound ends the list.
pub fn strings(input: &Value) -> Vec<String> {
    fn walk(v: &Value, depth: usize, out: &mut Vec<String>, bytes: &mut usize) {
        if depth > MAX_DEPTH || out.len() >= MAX_STRINGS || *bytes >= MAX_BYTES {
            return;
        }
        match v {
            Value::String(s) => {
                let room = MAX_BYTES - *bytes;
                let mut end = s.len().min(room);
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                *bytes += end;
                out.push(s[..end].to_string());
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, depth + 1, out, bytes)),
            Value::Object(map) => map.values().for_each(|i| walk(i, depth + 1, out, bytes)),
            Value::Number(n) => out.push(n.to_string()),
            Value::Bool(_) | Value::Null => {}
        }
    }
    let mut out = Vec::new();
    walk(input, 0, &mut out, &mut 0);
    out
}

/// Whether reading `input` met a bound of [`strings`].
pub fn cut(input: &Value) -> bool {
    fn size(v: &Value, depth: usize, n: &mut usize, bytes: &mut usize) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        match v {
            Value::String(s) => {
                *n += 1;
                *bytes += s.len();
            }
            Value::Array(items) => return items.iter().any(|i| size(i, depth + 1, n, bytes)),
            Value::Object(map) => return map.values().any(|i| size(i, depth + 1, n, bytes)),
            _ => *n += 1,
        }
        *n > MAX_STRINGS || *bytes > MAX_BYTES
    }
    size(input, 0, &mut 0, &mut 0)
}

/// The fields in which a shell server's tool names the directory its command runs in.
const DIR_FIELDS: &[&str] = &[
    "cwd",
    "workdir",
    "work_dir",
    "working_dir",
    "working_directory",
    "workingDir",
    "workingDirectory",
    "directory",
    "dir",
    "path",
];

/// A shell tool's command line: `command` (or `cmd`, `program`: a string, or a list of words) and its `args` (a list
/// of words, each quoted; or one string, taken as shell text). Also the same words joined
/// unquoted when a word holds shell syntax: a server that joins its arguments into shell text
/// runs that instead.
struct Line {
    quoted: String,
    raw: String,
    split: bool,
}

fn shell_line(input: &Value) -> Result<Option<Line>, EventError> {
    let words = |items: &[Value], field: &'static str| -> Result<Vec<String>, EventError> {
        items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(EventError::WrongType {
                    field,
                    expected: "a list of strings",
                }),
            })
            .collect()
    };
    let push = |line: &mut Line, ws: &[String]| {
        for w in ws {
            if !line.quoted.is_empty() {
                line.quoted.push(' ');
                line.raw.push(' ');
            }
            line.quoted.push_str(&shell_word(w));
            line.raw.push_str(w);
        }
        line.split = true;
    };
    let mut line = Line {
        quoted: String::new(),
        raw: String::new(),
        split: false,
    };
    // The servers' names for the command: `command`, `cmd`, or `program` (with `argv`).
    let command = ["command", "cmd", "program"]
        .iter()
        .find_map(|f| input.get(*f).filter(|v| !v.is_null()));
    match command {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => {
            line.quoted = s.clone();
            line.raw = s.clone();
        }
        Some(Value::Array(items)) if !items.is_empty() => {
            push(&mut line, &words(items, "command")?)
        }
        Some(_) => {
            return Err(EventError::WrongType {
                field: "command",
                expected: "a string or a list of strings",
            });
        }
    }
    for field in ["args", "arguments", "argv"] {
        match input.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => push(&mut line, &words(items, "args")?),
            Some(Value::String(s)) => {
                line.quoted.push(' ');
                line.quoted.push_str(s);
                line.raw.push(' ');
                line.raw.push_str(s);
                line.split = true;
            }
            Some(_) => {
                return Err(EventError::WrongType {
                    field: "args",
                    expected: "a list of strings",
                });
            }
        }
    }
    Ok(Some(line))
}

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
        // Servers that run a shell command: in the directory the tool names (not the
        // session's), with `args` as words of the one command line.
        "run_command"
        | "execute_command"
        | "run_shell_command"
        | "shell"
        | "exec"
        | "exec_command"
        | "execute"
        | "bash"
        | "run_terminal_command"
        | "run_in_terminal"
        | "terminal"
        | "start_process"
        | "shell_exec"
        | "execute_shell"
        | "run_shell"
        | "run_cmd"
        | "exec_cmd" => {
            let Some(line) = shell_line(input)? else {
                return Ok(None);
            };
            let mut dir = None;
            for field in DIR_FIELDS {
                if let Some(d) = text(field)?.filter(|d| !d.is_empty()) {
                    dir = Some(d);
                    break;
                }
            }
            if dir.is_none() && !line.split {
                Some(ToolCall::Shell {
                    command: line.quoted,
                })
            } else {
                Some(ToolCall::McpShell {
                    tool: tool.to_string(),
                    raw: (line.raw != line.quoted
                        && line
                            .raw
                            .contains(['$', '`', ';', '|', '&', '<', '>', '(', ')', '\n']))
                    .then_some(line.raw),
                    command: line.quoted,
                    dir,
                })
            }
        }
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
        // The tool's own directory and arguments.
        assert_eq!(
            c(
                "mcp__shell__run_command",
                json!({"command": "rm -rf Documents", "cwd": "~"})
            ),
            Some(ToolCall::McpShell {
                tool: "mcp__shell__run_command".into(),
                command: "rm -rf Documents".into(),
                raw: None,
                dir: Some("~".into())
            })
        );
        assert_eq!(
            c(
                "mcp__shell__execute_command",
                json!({"command": "rm", "args": ["-rf", "my dir", "~"]})
            ),
            Some(ToolCall::McpShell {
                tool: "mcp__shell__execute_command".into(),
                command: "rm -rf 'my dir' ~".into(),
                raw: None,
                dir: None
            })
        );
        assert!(call("mcp__s__exec", &json!({"command": "ls", "args": [{}]})).is_err());
        assert!(matches!(
            c("mcp__s__exec", json!({"command": "echo", "args": ["$(rm -rf ~)"]})),
            Some(ToolCall::McpShell { raw: Some(r), .. }) if r == "echo $(rm -rf ~)"
        ));
        // Unknown tools, other shapes and non-MCP names: not mapped here.
        assert_eq!(c("mcp__github__get_issue", json!({"n": 1})), None);
        assert_eq!(c("mcp__x__write_file", json!({"name": "a"})), None);
        assert_eq!(c("write_file", json!({"path": "a", "content": ""})), None);
        assert!(call("mcp__fs__read_file", &json!({"path": 1})).is_err());
    }
}
