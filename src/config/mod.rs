//! Configuration: `sentinel.toml` in SENTINEL_HOME, environment overrides, and where each value
//! came from.
//!
//! A file with an unknown key or a bad value is reported (`sentinel.toml:LINE: …`) and ignored as
//! a whole; while it is broken every local allow becomes `ask` and the fail mode is `ask`, so a
//! typo never widens what is allowed.

use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

pub mod export;
pub mod files;
pub mod home;
pub mod kept;
mod load;
pub mod managed;
mod project;
mod rows;
#[cfg(test)]
mod tests;
mod variables;

pub use load::{check_model, check_url};
use project::Strictness;
pub use variables::{LOOSENING_VARS, is_official};

/// The Haiku model Tier 2 uses unless configured otherwise (the dated id, so it cannot move).
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5-20251001";
/// Anthropic's API, used when no URL is configured.
pub const DEFAULT_API_URL: &str = "https://api.anthropic.com";
/// Largest hook event read from stdin.
pub const DEFAULT_MAX_EVENT_BYTES: u64 = 1024 * 1024;
/// The most `max_event_bytes` may say: the hook judges within a 64 MiB address space, and an
/// event is held a few times over while it is read.
pub const MAX_EVENT_BYTES_BOUND: u64 = 4 * 1024 * 1024;
/// Largest `sentinel.toml` read (a FIFO, a device or a longer file there is an error, not a
/// hang).
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// The config file's name in SENTINEL_HOME.
pub const FILE_NAME: &str = "sentinel.toml";
/// The directory a project keeps its own rules and settings in.
pub const PROJECT_DIR: &str = ".sentinel";

/// Environment variables through which agents name the project they work in.
pub const PROJECT_DIR_VARS: &[&str] = &["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"];

/// The project directory the agent named in the environment, if any.
pub fn named_by_agent() -> Option<String> {
    PROJECT_DIR_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
}

/// The directory of rule files, config and state: `SENTINEL_HOME`, else `~/.agentos`.
pub fn sentinel_home() -> Option<PathBuf> {
    match std::env::var_os("SENTINEL_HOME") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::home_dir().map(|h| h.join(".agentos")),
    }
}

/// True when a read failed because the file is not there (a missing directory on the way counts:
/// a SENTINEL_HOME that does not exist means defaults, not an error).
pub fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// The person's home directory as their own environment says (`HOME`): for what the person runs
/// (`install`, `doctor`). A call the agent proposes is judged with [`home::judged`], which a
/// project cannot move.
pub fn user_home() -> Option<PathBuf> {
    dirs::home_dir()
}

/// Enforce decisions, only refuse, or only compute and record them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Answer the agent.
    Enforce,
    /// Answer only to refuse or to ask: sentinel never allows, so every call it would allow
    /// goes through the agent's own permission flow (as dcg and cc-safety-net work).
    Guard,
    /// Decide, count and record, but print nothing and exit 0.
    Shadow,
}

/// What happens when Tier 2 fails. Not sentinel's own failures: those always ask
/// (docs/failures.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailMode {
    /// Allow, with a warning to the user.
    Open,
    /// Deny.
    Closed,
    /// Ask the person.
    Ask,
}

/// What an UNCERTAIN local verdict becomes when Tier 2 does not decide it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnUncertain {
    /// Defer when the agent has a permission gate of its own (Claude Code's `permission_mode`
    /// `default`, `acceptEdits`, `plan`, `auto`, `dontAsk`), so sentinel's `ask` never overrides
    /// the person's allow rules; ask when it has none (`bypassPermissions`) or the mode is unknown.
    Auto,
    /// Ask the person.
    Ask,
    /// Refuse.
    Deny,
    /// Let it run.
    Allow,
    /// Print nothing: the agent's own permission flow decides.
    Defer,
}

/// Who approves the agent's file edits inside the project (SPEC 2.3, issue 29).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ApproveEdits {
    /// Follow the person's permission mode: sentinel allows an in-project edit only where the
    /// agent's own mode lets edits through (`acceptEdits`, `auto`, `dontAsk`,
    /// `bypassPermissions`); under `default`, `plan`, or no known mode it gives no answer, so
    /// the agent's own edit prompt stands.
    Mode,
    /// sentinel allows in-project edits in every mode (the person said so).
    Always,
}

/// What a local BLOCK becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnBlock {
    /// Refuse.
    Deny,
    /// Ask the person, who may let it run.
    Ask,
}

/// Where a configuration value came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Source {
    /// Built in.
    Default,
    /// A line of sentinel.toml.
    File { line: usize },
    /// An environment variable.
    Env { name: String },
    /// The built-in safe choice used while sentinel.toml is broken.
    Fallback,
    /// A line of a project's `.sentinel/sentinel.toml`.
    Project { line: usize },
    /// A line of the organisation's managed `sentinel.toml`: pinned, nothing below changes it.
    Managed { path: String, line: usize },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File { line } => write!(f, "{FILE_NAME}:{line}"),
            Source::Env { name } => write!(f, "env {name}"),
            Source::Fallback => write!(f, "fallback: {FILE_NAME} has errors"),
            Source::Project { line } => write!(f, ".sentinel/{FILE_NAME}:{line}"),
            Source::Managed { path, line } => write!(f, "managed {path}:{line}"),
        }
    }
}

/// A value and where it came from.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Setting<T> {
    /// The value in effect.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

impl<T> Setting<T> {
    fn default(value: T) -> Self {
        Setting {
            value,
            source: Source::Default,
        }
    }
}

/// A problem with the configuration, naming the key.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ConfigError {
    /// `sentinel.toml:LINE` or the environment variable.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// The effective configuration.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Config {
    /// SENTINEL_HOME.
    pub home: Setting<PathBuf>,
    /// enforce | shadow.
    pub mode: Setting<Mode>,
    /// open | closed | ask.
    pub fail_mode: Setting<FailMode>,
    /// auto | ask | deny | allow | defer.
    pub on_uncertain: Setting<OnUncertain>,
    /// deny | ask.
    pub on_block: Setting<OnBlock>,
    /// Largest hook event read from stdin, in bytes.
    pub max_event_bytes: Setting<u64>,
    /// Send high-risk calls that Tier 1 would allow to Tier 2 as well.
    pub paranoid: Setting<bool>,
    /// Tools whose output is outside text: a PostToolUse of one taints the session.
    pub untrusted_tools: Setting<Vec<String>>,
    /// How long a session's taint lasts without a new mark, in hours.
    pub taint_max_age_hours: Setting<u64>,
    /// Remind the model, after untrusted content, that instructions in it are data.
    pub sanitize_untrusted_output: Setting<bool>,
    /// mode | always: whether in-project edits follow the person's permission mode.
    pub approve_edits: Setting<ApproveEdits>,
    /// Runs of project code go fenced under `sentinel contain` where the machine allows it.
    pub contain: Setting<bool>,
    /// Projects whose runs are never fenced (their tests need the network, a browser …).
    pub contain_except: Setting<Vec<String>>,
    /// `[api] model`.
    pub api_model: Setting<String>,
    /// `[api] url`, base of the Messages API.
    pub api_url: Setting<String>,
    /// `[api] timeout`, seconds for a whole Tier-2 call.
    pub api_timeout_secs: Setting<f64>,
    /// `[api] enabled`: false turns Tier 2 off whatever key the environment holds (Claude
    /// Code's hooks inherit `ANTHROPIC_API_KEY`, so a key alone is not a choice).
    pub api_enabled: Setting<bool>,
    /// The API key, when one is set and Tier 2 is enabled (never printed).
    #[serde(skip)]
    pub api_key: Option<Setting<String>>,
    /// `[budget] calls_per_minute`.
    pub calls_per_minute: Setting<u32>,
    /// `[budget] calls_per_day` (UTC days).
    pub calls_per_day: Setting<u32>,
    /// `[logs] max_file_bytes`: stats and audit files rotate past this size.
    pub log_max_bytes: Setting<u64>,
    /// `[env] trust`: the loosening variables the person honours ([`LOOSENING_VARS`]).
    pub env_trust: Setting<Vec<String>>,
    /// `[managed] allow_off`: whether the person's `off:` lines switch bundled rules off (only
    /// the managed policy sets it).
    pub allow_off: Setting<bool>,
    /// `[managed] allow_project_trust`: whether `sentinel trust` lets a project's loosening
    /// rules and laxer settings apply (only the managed policy sets it).
    pub allow_project_trust: Setting<bool>,
    /// `[export]`: where decisions are exported (`crate::export::settings`); the whole table
    /// of the one file that has it, the organisation's over the person's.
    pub export: Option<Setting<export::Table>>,
    /// The organisation's policy, when this system has one.
    #[serde(skip)]
    pub managed: Option<std::sync::Arc<managed::Managed>>,
    /// Why the organisation's policy cannot be used (every call asks while it is set).
    pub managed_broken: Option<String>,
    /// The person's values the managed policy overrides, one line each (`doctor`, `config`).
    pub overridden: Vec<String>,
    /// Everything wrong with the file or the environment.
    pub errors: Vec<ConfigError>,
    /// Variables that would loosen sentinel, ignored or honoured, one line each (the hook
    /// prints them, `doctor` and `config` show them).
    pub warnings: Vec<String>,
}

/// The commented `sentinel.toml` that `sentinel install` seeds.
pub const TEMPLATE: &str = include_str!("../../rules/sentinel.toml");

/// A setting's value as written in sentinel.toml (`open`, `ask`, `true`).
pub fn enum_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string())
        })
        .unwrap_or_default()
}

/// Whether a setting is pinned by the organisation's policy.
pub fn is_pinned<T>(s: &Setting<T>) -> bool {
    matches!(s.source, Source::Managed { .. })
}

impl Config {
    /// Whether Tier 2 is on and where its key comes from, in a few words for the install output
    /// and the session summary (`tier 2 on (key: env ANTHROPIC_API_KEY)`, `tier 2 off (no API
    /// key)`): a key the environment hands the hook is not always a choice the person made.
    pub fn tier2_state(&self) -> String {
        match &self.api_key {
            Some(k) => format!("tier 2 on (key: {})", k.source),
            None if !self.api_enabled.value => {
                format!(
                    "tier 2 off ([api] enabled = false, {})",
                    self.api_enabled.source
                )
            }
            None => "tier 2 off (no SENTINEL_API_KEY or ANTHROPIC_API_KEY)".to_string(),
        }
    }
}
