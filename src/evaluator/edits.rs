//! File edits follow the person's permission mode (SPEC 2.3, issue 29). Tier 1 finds an edit
//! inside the project (not in a protected place) fine to allow; whether sentinel *says* allow is
//! the person's choice, made with the agent's permission mode: an allow from a hook skips the
//! agent's own edit prompt, so in a mode where the person chose to see edits sentinel gives no
//! answer and that prompt stands.

use crate::call::ToolCall;
use crate::config::ApproveEdits;
use crate::decision::{Decision, Verdict};

/// Claude Code's modes in which edits go through without the person's prompt: there an allow
/// from sentinel adds nothing the person did not already grant.
pub const MODES_THAT_ACCEPT_EDITS: &[&str] =
    &["acceptEdits", "auto", "dontAsk", "bypassPermissions"];

/// Whether sentinel should stay silent on Tier 1's `local` decision of `call`, so the agent's
/// own edit prompt decides: a file edit Tier 1 allows, under `approve_edits = "mode"`, in a
/// mode that does not accept edits by itself. `default` and `plan` are such modes; so is a mode
/// sentinel does not know or that the agent did not send (Gemini CLI, Cursor, Copilot, Codex):
/// without knowing the person's choice, sentinel leaves it to the agent rather than widen it,
/// and rather than turn every edit into a prompt (or, for Gemini CLI, a refusal).
pub fn defer_to_agent(
    call: &ToolCall,
    local: &Decision,
    approve: ApproveEdits,
    permission_mode: Option<&str>,
) -> bool {
    // A plain fetch (issue 42) likewise: Claude Code asks before fetching from a new domain, and
    // the person's own domain rules stand; only under bypassPermissions, where nothing is
    // asked, does sentinel say allow (the same outcome, recorded as sentinel's).
    if matches!(call, ToolCall::Fetch { .. }) {
        return local.verdict == Verdict::Allow && permission_mode != Some("bypassPermissions");
    }
    matches!(call, ToolCall::Write { .. } | ToolCall::Patch { .. })
        && local.verdict == Verdict::Allow
        && approve == ApproveEdits::Mode
        && !permission_mode.is_some_and(|m| MODES_THAT_ACCEPT_EDITS.contains(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write() -> ToolCall {
        ToolCall::Write {
            tool: "Write".into(),
            path: "src/a.rs".into(),
            content: String::new(),
        }
    }

    #[test]
    fn edits_follow_the_mode() {
        let allow = Decision::local("Write", Verdict::Allow, "inside", None);
        for (mode, defers) in [
            (Some("default"), true),
            (Some("plan"), true),
            (None, true),
            (Some("someNewMode"), true),
            (Some("acceptEdits"), false),
            (Some("auto"), false),
            (Some("dontAsk"), false),
            (Some("bypassPermissions"), false),
        ] {
            assert_eq!(
                defer_to_agent(&write(), &allow, ApproveEdits::Mode, mode),
                defers,
                "{mode:?}"
            );
            assert!(!defer_to_agent(
                &write(),
                &allow,
                ApproveEdits::Always,
                mode
            ));
        }
        // What Tier 1 does not allow is judged as ever; a command is not an edit.
        let deny = Decision::local("Write", Verdict::Deny, "excluded", None);
        assert!(!defer_to_agent(
            &write(),
            &deny,
            ApproveEdits::Mode,
            Some("default")
        ));
        let shell = ToolCall::Shell {
            command: "ls".into(),
        };
        assert!(!defer_to_agent(
            &shell,
            &allow,
            ApproveEdits::Mode,
            Some("default")
        ));
    }
}
