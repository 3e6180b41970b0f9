//! The vocabulary of a decision: verdicts, tiers, the rule that decided, and the record itself.

pub mod effect;
pub mod reach;
pub mod sign;
pub mod taint;
pub mod tier2;

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// What sentinel says about one proposed call, ordered from most to least permissive so that a
/// compound command's verdict is the maximum of its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Let the call run.
    Allow,
    /// Tier 1 cannot decide; the next tier (or `on_uncertain`) does.
    Uncertain,
    /// The person decides.
    Ask,
    /// Refuse the call.
    Deny,
}

impl Verdict {
    /// The word used in the hook protocol and in `sentinel check` output.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Uncertain => "uncertain",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which tier produced a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Tier 1: local rules on the parsed command and path lists.
    Local,
    /// Tier 2: the LLM evaluator.
    Api,
    /// Tier 3: the configured fail path when Tier 2 is unavailable.
    Fail,
}

impl Tier {
    /// The name used in reasons, e.g. `sentinel[local]`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Local => "local",
            Tier::Api => "api",
            Tier::Fail => "fail",
        }
    }
}

/// A rule line that took part in a decision: `file:line` plus the pattern and its comment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
// Bundled rules borrow their text from the binary's tables; a person's own it.
pub struct RuleRef {
    /// The rule file's name, e.g. `hard_block_commands.txt`.
    pub file: Cow<'static, str>,
    /// 1-based line number in that file.
    pub line: usize,
    /// Where the file came from: `bundled` or the path it was read from.
    pub origin: Cow<'static, str>,
    /// The pattern on that line.
    pub pattern: Cow<'static, str>,
    /// The line's `# why` comment, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<Cow<'static, str>>,
}

impl RuleRef {
    /// Whose file the rule is in, as a reason says it: `bundled`, `your` (SENTINEL_HOME),
    /// `the project's` (`.sentinel/`) or `the organisation's` (the managed policy, named by its
    /// full path).
    pub fn owner(&self) -> &'static str {
        if self.origin == "bundled" {
            "bundled"
        } else if self.file.starts_with(".sentinel/") {
            "the project's"
        } else if self.file.starts_with('/') {
            "the organisation's"
        } else {
            "your"
        }
    }
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// The full record of one decision: what was decided, by which tier, why, and what was seen.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// The tier that produced it.
    pub tier: Tier,
    /// One line for people and agents: names the tier and the rule or reason.
    pub reason: String,
    /// The rule that decided, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleRef>,
    /// The tool the call was for.
    pub tool: String,
    /// The session's project directory the call was judged against.
    pub cwd: String,
    /// The simple commands found in a shell command, after unwrapping (empty for file tools).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<CommandReport>,
    /// What Tier 2 said, or why it could not say anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiOutcome>,
    /// A warning to show the user alongside the answer (e.g. an allow that skipped a check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Injection signs the call shows (SPEC 2.5).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub signs: Vec<sign::Sign>,
    /// The session's untrusted content, when it has taken any in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taint: Option<taint::Taint>,
    /// The resolved target path of a file tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Refused because it would loosen sentinel itself: only the person may do it, in their own
    /// terminal, so no allow-once code is offered.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub person_only: bool,
    /// A deny that stands for an `ask` the agent's hook cannot give (Codex CLI, Gemini CLI).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub needs_person: bool,
    /// The call runs fenced: what runs instead of the agent's command, and what holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contained: Option<Contained>,
}

/// A run of project code answered `allow` on condition that it runs fenced (SPEC 2.3).
#[derive(Clone, Debug, Serialize)]
pub struct Contained {
    /// The command that runs: the agent's, under `sentinel contain`.
    pub command: String,
    /// What the fence holds, in one line.
    pub fence: String,
    /// The agent's whole tool input with the command replaced (Claude Code's `updatedInput`).
    #[serde(skip)]
    pub updated_input: Option<serde_json::Value>,
}

impl Decision {
    /// A Tier-1 decision on `tool` with nothing seen yet: no commands, path, signs or taint.
    pub fn local(
        tool: &str,
        verdict: Verdict,
        reason: impl Into<String>,
        rule: Option<RuleRef>,
    ) -> Decision {
        Decision {
            verdict,
            tier: Tier::Local,
            reason: reason.into(),
            rule,
            tool: tool.to_string(),
            cwd: String::new(),
            commands: Vec::new(),
            api: None,
            warning: None,
            signs: Vec::new(),
            taint: None,
            path: None,
            person_only: false,
            needs_person: false,
            contained: None,
        }
    }
}

/// A bad line in a rule file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RuleError {
    /// The file as the user knows it: its path, or `name (bundled)`.
    pub file: String,
    /// 1-based line number; 0 when the whole file is unreadable.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// What happened at Tier 2.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "lowercase", tag = "outcome")]
pub enum ApiOutcome {
    /// The evaluator answered.
    Answer(tier2::Answer),
    /// The call failed.
    Error(tier2::ApiError),
    /// No call was made: the rate limit or daily budget is spent.
    Budget(String),
}

/// What Tier 1 concluded about one simple command, for `--json` and for building reasons.
#[derive(Clone, Debug, Serialize)]
pub struct CommandReport {
    /// The command as the rules saw it: normalised name, arguments, redirections.
    pub text: String,
    /// Wrappers it was unwrapped from, outermost first (`sudo`, `bash -c`, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
    /// The verdict for this command alone.
    pub verdict: Verdict,
    /// Why.
    pub reason: String,
    /// The rule that decided this command, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleRef>,
    /// Refused because only the person may do it (see [`Decision::person_only`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub person_only: bool,
    /// The directory it runs in after a `cd` (`unknown` when the `cd` target is not known);
    /// None when it runs in the session's cwd.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// What it does, as its command spec reads it (SPEC 2.2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<effect::Effect>,
}

impl CommandReport {
    /// A part that is its text alone: no wrappers, no `cd`, no effects read (a tool's input, a
    /// URL).
    pub fn plain(
        text: impl Into<String>,
        verdict: Verdict,
        reason: impl Into<String>,
        rule: Option<RuleRef>,
    ) -> CommandReport {
        CommandReport {
            text: text.into(),
            via: Vec::new(),
            verdict,
            reason: reason.into(),
            rule,
            person_only: false,
            cwd: None,
            effects: Vec::new(),
        }
    }
}
