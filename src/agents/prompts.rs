//! Which calls the agent would have put to the person itself: an allow from sentinel spares a
//! permission prompt only there. Claude Code's `permission_mode` says it (hook-protocol.md §1.2):
//! under `default` and `plan` a command, an edit, a fetch or an MCP call is asked about, a read or
//! a subagent launch is not; `acceptEdits` lets edits through by itself; `auto`, `dontAsk` and
//! `bypassPermissions` ask nothing. Where the mode is unknown (not sent, another agent), no
//! prompt is claimed: the figure never flatters.

use crate::agents::event::Agent;

/// Whether `agent` would have asked the person about a call of `tool` in `mode`.
pub fn would_prompt(agent: Agent, tool: &str, mode: Option<&str>) -> bool {
    if agent != Agent::Claude {
        return false;
    }
    let edit = matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit");
    let asked = edit
        || matches!(tool, "Bash" | "PowerShell" | "WebFetch" | "WebSearch")
        || crate::call::mcp::is_mcp(tool);
    match mode {
        Some("default" | "plan") => asked,
        Some("acceptEdits") => asked && !edit,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_mode_that_asks_counts() {
        let c = Agent::Claude;
        assert!(would_prompt(c, "Bash", Some("default")));
        assert!(would_prompt(c, "Edit", Some("default")));
        assert!(would_prompt(c, "mcp__github__create_issue", Some("plan")));
        assert!(!would_prompt(c, "Edit", Some("acceptEdits")));
        assert!(would_prompt(c, "Bash", Some("acceptEdits")));
        assert!(!would_prompt(c, "Read", Some("default")));
        for mode in [
            Some("bypassPermissions"),
            Some("auto"),
            Some("dontAsk"),
            None,
            Some("x"),
        ] {
            assert!(!would_prompt(c, "Bash", mode), "{mode:?}");
        }
        assert!(!would_prompt(Agent::Gemini, "Bash", Some("default")));
    }
}
