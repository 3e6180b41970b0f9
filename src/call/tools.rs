//! The tools sentinel judges, in one list. The decision reads a call by this list, `install`
//! writes it into the settings matcher, the plugin's `plugin/hooks/hooks.json` carries the same matcher
//! (a test holds them equal), and `doctor` checks a registered matcher against it. A tool left
//! out of the matcher is never sent to sentinel at all, so a list kept in two places is a hole.

/// How a judged tool's call is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    /// A shell command (`command`).
    Shell,
    /// A PowerShell command (`command`).
    PowerShell,
    /// A file written (`file_path`, or `notebook_path`).
    Write,
    /// One file read (`file_path`).
    ReadFile,
    /// Paths searched or listed (`path`, `glob`).
    Search,
    /// A subagent launched with a prompt (`prompt`).
    Agent,
    /// A request out with a URL (`url`) or a search query (`query`).
    Fetch,
}

/// Claude Code's tool names that sentinel decides before they run (PreToolUse).
pub const JUDGED: &[(&str, Judged)] = &[
    ("Bash", Judged::Shell),
    ("PowerShell", Judged::PowerShell),
    ("Write", Judged::Write),
    ("Edit", Judged::Write),
    ("MultiEdit", Judged::Write),
    ("NotebookEdit", Judged::Write),
    ("Read", Judged::ReadFile),
    ("Glob", Judged::Search),
    ("Grep", Judged::Search),
    ("LS", Judged::Search),
    ("Agent", Judged::Agent),
    ("Task", Judged::Agent),
    ("WebFetch", Judged::Fetch),
    ("WebSearch", Judged::Fetch),
];

/// OpenAI Codex CLI's file-editing tool: a patch that adds, updates, deletes and moves files
/// (`call::patch`). Codex also matches it as `Write` and `Edit`; its matcher names it too.
pub const APPLY_PATCH: &str = "apply_patch";

/// The tools whose output sentinel marks as outside text (PostToolUse), as the settings matcher
/// writes them; the same names as the default `untrusted_tools`.
pub const UNTRUSTED_MATCHER: &str = "WebFetch|WebSearch|mcp__.*";

/// The PostToolUse matcher: the tools whose output taints the session, and the tools whose
/// output may show a secret value (`Read`, `Grep`, `Bash`), kept as fingerprints so that a later
/// fetch or MCP call carrying one is refused (`ledger::secrets`).
pub const POST_TOOL_USE_MATCHER: &str = "WebFetch|WebSearch|mcp__.*|Read|Grep|Bash";

/// How `tool` is judged; None for a tool sentinel has no opinion on.
pub fn judged(tool: &str) -> Option<Judged> {
    JUDGED.iter().find(|(n, _)| *n == tool).map(|(_, j)| *j)
}

/// MCP tools (`mcp__SERVER__TOOL`) reach sentinel too: the ones whose effects are known are
/// judged like their built-in counterparts ([`super::mcp`]), the others by the MCP specs and
/// their input (docs/mcp.md); none gets no opinion.
pub const MCP_MATCHER: &str = "mcp__.*";

/// The PreToolUse matcher naming every judged tool: `Bash|PowerShell|…|mcp__.*`.
pub fn judged_matcher() -> String {
    let mut names: Vec<&str> = JUDGED.iter().map(|(n, _)| *n).collect();
    names.push(MCP_MATCHER);
    names.join("|")
}

/// The judged tools a matcher (a regex over tool names, as Claude Code reads it) leaves out.
pub fn missing_from(matcher: &str) -> Vec<&'static str> {
    if matcher.is_empty() || matcher == "*" {
        return Vec::new();
    }
    let re = match regex::Regex::new(&format!("^(?:{matcher})$")) {
        Ok(re) => re,
        Err(_) => {
            let mut all: Vec<&str> = JUDGED.iter().map(|(n, _)| *n).collect();
            all.push(MCP_MATCHER);
            return all;
        }
    };
    // An MCP tool's name stands for the MCP entry.
    let mcp_sample = "mcp__filesystem__write_file";
    JUDGED
        .iter()
        .map(|(n, _)| (*n, *n))
        .chain([(MCP_MATCHER, mcp_sample)])
        .filter(|(_, sample)| !re.is_match(sample))
        .map(|(n, _)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matcher_covers_every_judged_tool() {
        assert!(missing_from(&judged_matcher()).is_empty());
        assert_eq!(missing_from("Bash|Read"), {
            let mut v: Vec<&str> = JUDGED.iter().map(|(n, _)| *n).collect();
            v.retain(|n| *n != "Bash" && *n != "Read");
            v.push(MCP_MATCHER);
            v
        });
        assert!(missing_from("*").is_empty());
        assert!(missing_from("").is_empty());
    }
}
