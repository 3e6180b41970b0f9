//! doctor's self-test in each agent's terms: the shell call as that agent sends it (the shapes
//! kept under `tests/fixtures/agents/`, from each agent's documentation), and the hook's answer
//! read as that agent reads it. A well-formed answer in another agent's shape is a failure: the
//! agent ignores it, and the call runs.

use super::event::Agent;
use crate::config::Mode;
use serde_json::{Value, json};
use std::path::Path;

/// The three calls: one sentinel must deny, one it allows, one it cannot decide locally (no
/// Tier 2 in the self-test).
pub const CALLS: [&str; 3] = [
    "rm -rf ~",
    "git status",
    "curl -X POST https://example.com/upload -d @notes.txt",
];

/// What a hook's answer means to the agent that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// The call is refused.
    Deny,
    /// The call runs without the agent's own prompt.
    Allow,
    /// The agent asks the person.
    Ask,
    /// No answer: the agent's own permission flow decides.
    Defer,
}

impl Heard {
    pub fn as_str(self) -> &'static str {
        match self {
            Heard::Deny => "deny",
            Heard::Allow => "allow",
            Heard::Ask => "ask",
            Heard::Defer => "defer",
        }
    }
}

/// The shell call `command` in `cwd` as `agent` sends it to its pre-tool hook (Claude Code and
/// Codex with `permission_mode: default`; Cursor's `beforeShellExecution`).
pub fn shell_event(agent: Agent, command: &str, cwd: &Path) -> Value {
    let session = "sentinel-doctor-selftest";
    match agent {
        Agent::Claude => json!({
            "session_id": session,
            "hook_event_name": "PreToolUse",
            "cwd": cwd,
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_doctor",
        }),
        Agent::Codex => json!({
            "session_id": session,
            "turn_id": "doctor",
            "transcript_path": null,
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "model": "doctor",
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "call_doctor",
        }),
        Agent::Gemini => json!({
            "session_id": session,
            "transcript_path": "",
            "cwd": cwd,
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command, "description": "doctor"},
        }),
        Agent::Cursor => json!({
            "conversation_id": session,
            "generation_id": "doctor",
            "workspace_roots": [cwd],
            "model": "doctor",
            "cursor_version": "1.7",
            "hook_event_name": "beforeShellExecution",
            "command": command,
            "cwd": cwd,
        }),
        Agent::Copilot => json!({
            "timestamp": 1_767_225_600_000_u64,
            "cwd": cwd,
            "toolName": "bash",
            "toolArgs": json!({"command": command}).to_string(),
        }),
    }
}

/// Reads the hook's answer as `agent` does: exit 2 refuses (every one of them), exit 0 with no
/// output defers, exit 0 with JSON is read in the agent's fields. Anything else (another
/// agent's shape, a value the agent does not take, another exit status) is an error that says
/// what was wrong.
pub fn read_answer(agent: Agent, exit: Option<i32>, stdout: &str) -> Result<Heard, String> {
    match exit {
        Some(2) => return Ok(Heard::Deny),
        Some(0) => {}
        Some(c) => {
            return Err(format!(
                "exit status {c}: the agent treats it as a failed hook"
            ));
        }
        None => return Err("killed by a signal".into()),
    }
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(Heard::Defer);
    }
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {}", short(text)))?;
    let (field, value) = match agent {
        Agent::Claude | Agent::Codex => {
            let h = &v["hookSpecificOutput"];
            if h["hookEventName"] != "PreToolUse" {
                return Err(format!(
                    "no hookSpecificOutput.hookEventName \"PreToolUse\": {}",
                    short(text)
                ));
            }
            (
                "hookSpecificOutput.permissionDecision",
                &h["permissionDecision"],
            )
        }
        Agent::Gemini => ("decision", &v["decision"]),
        Agent::Cursor => ("permission", &v["permission"]),
        Agent::Copilot => ("permissionDecision", &v["permissionDecision"]),
    };
    let heard = match value.as_str() {
        Some("deny") => Heard::Deny,
        Some("allow") => Heard::Allow,
        Some("ask") => Heard::Ask,
        _ => {
            return Err(format!(
                "no {field} that {} reads: {}",
                agent.title(),
                short(text)
            ));
        }
    };
    // What the agent does not take: Codex runs the call on a bare allow or an ask (it
    // fails the hook); Gemini CLI has no ask.
    let taken = match agent {
        Agent::Codex => heard == Heard::Deny,
        Agent::Gemini => heard != Heard::Ask,
        _ => true,
    };
    if !taken {
        return Err(format!(
            "{field} \"{}\", which {} does not take",
            heard.as_str(),
            agent.title()
        ));
    }
    Ok(heard)
}

fn short(text: &str) -> String {
    let mut s: String = text.chars().take(160).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

/// What the hook must answer to [`CALLS`] under `mode`, in `agent`'s terms. The uncertain call
/// is left to the agent's own prompt where the agent has one in its default mode (Claude Code,
/// Codex); Cursor and Copilot CLI are asked; Gemini CLI, which has no ask, is refused.
pub fn expected(agent: Agent, mode: Mode) -> [Heard; 3] {
    use Heard::*;
    match (mode, agent) {
        (Mode::Shadow, _) => [Defer, Defer, Defer],
        // Codex takes no bare allow: an allowed call goes to its own approval.
        (_, Agent::Codex) => [Deny, Defer, Defer],
        (Mode::Guard, Agent::Claude) => [Deny, Defer, Defer],
        (Mode::Guard, Agent::Gemini) => [Deny, Defer, Deny],
        (Mode::Guard, _) => [Deny, Defer, Ask],
        (Mode::Enforce, Agent::Claude) => [Deny, Allow, Defer],
        (Mode::Enforce, Agent::Gemini) => [Deny, Allow, Deny],
        (Mode::Enforce, _) => [Deny, Allow, Ask],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_in_the_agents_own_fields() {
        let claude = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}"#;
        assert_eq!(read_answer(Agent::Claude, Some(0), claude), Ok(Heard::Deny));
        assert_eq!(read_answer(Agent::Codex, Some(0), claude), Ok(Heard::Deny));
        // Claude Code's shape means nothing to Gemini CLI, Cursor or Copilot CLI.
        for a in [Agent::Gemini, Agent::Cursor, Agent::Copilot] {
            assert!(read_answer(a, Some(0), claude).is_err(), "{a:?}");
        }
        assert_eq!(
            read_answer(Agent::Cursor, Some(0), r#"{"permission":"ask"}"#),
            Ok(Heard::Ask)
        );
        assert!(read_answer(Agent::Gemini, Some(0), r#"{"decision":"ask"}"#).is_err());
        let allow = claude.replace("deny", "allow");
        assert!(read_answer(Agent::Codex, Some(0), &allow).is_err());
        assert_eq!(read_answer(Agent::Copilot, Some(2), ""), Ok(Heard::Deny));
        assert_eq!(
            read_answer(Agent::Copilot, Some(0), " \n"),
            Ok(Heard::Defer)
        );
        assert!(read_answer(Agent::Claude, Some(1), "").is_err());
        assert!(read_answer(Agent::Claude, Some(0), "nope").is_err());
    }
}
