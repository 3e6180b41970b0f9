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

/// The Haiku model Tier 2 uses unless configured otherwise (the dated id, so it cannot move).
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5-20251001";
/// Anthropic's API, used when no URL is configured.
pub const DEFAULT_API_URL: &str = "https://api.anthropic.com";
/// Largest hook event read from stdin.
pub const DEFAULT_MAX_EVENT_BYTES: u64 = 1024 * 1024;
/// The config file's name in SENTINEL_HOME.
pub const FILE_NAME: &str = "sentinel.toml";

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

/// The user's home directory, for `~` in commands and path lists.
pub fn user_home() -> Option<PathBuf> {
    dirs::home_dir()
}

/// Enforce decisions, or only compute and record them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Answer the agent.
    Enforce,
    /// Decide, count and record, but print nothing and exit 0.
    Shadow,
}

/// What happens when Tier 2 fails (and to the exit status of a hook that cannot read its event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailMode {
    /// Allow, with a warning to the user.
    Open,
    /// Deny; a hook that cannot read its event exits 2 (block).
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
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File { line } => write!(f, "{FILE_NAME}:{line}"),
            Source::Env { name } => write!(f, "env {name}"),
            Source::Fallback => write!(f, "fallback: {FILE_NAME} has errors"),
            Source::Project { line } => write!(f, ".sentinel/{FILE_NAME}:{line}"),
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
    /// `[api] model`.
    pub api_model: Setting<String>,
    /// `[api] url`, base of the Messages API.
    pub api_url: Setting<String>,
    /// `[api] timeout`, seconds for a whole Tier-2 call.
    pub api_timeout_secs: Setting<f64>,
    /// The API key, when one is set (never printed).
    #[serde(skip)]
    pub api_key: Option<Setting<String>>,
    /// `[budget] calls_per_minute`.
    pub calls_per_minute: Setting<u32>,
    /// `[budget] calls_per_day` (UTC days).
    pub calls_per_day: Setting<u32>,
    /// `[logs] max_file_bytes`: stats and audit files rotate past this size.
    pub log_max_bytes: Setting<u64>,
    /// Everything wrong with the file or the environment.
    pub errors: Vec<ConfigError>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    mode: Option<Spanned<Mode>>,
    fail_mode: Option<Spanned<FailMode>>,
    on_uncertain: Option<Spanned<OnUncertain>>,
    on_block: Option<Spanned<OnBlock>>,
    max_event_bytes: Option<Spanned<u64>>,
    paranoid: Option<Spanned<bool>>,
    untrusted_tools: Option<Spanned<Vec<String>>>,
    taint_max_age_hours: Option<Spanned<u64>>,
    sanitize_untrusted_output: Option<Spanned<bool>>,
    api: Option<RawApi>,
    budget: Option<RawBudget>,
    logs: Option<RawLogs>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLogs {
    max_file_bytes: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawApi {
    model: Option<Spanned<String>>,
    url: Option<Spanned<String>>,
    timeout: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudget {
    calls_per_minute: Option<Spanned<u32>>,
    calls_per_day: Option<Spanned<u32>>,
}

/// The keys a project's `.sentinel/sentinel.toml` may set: the ones that say how strict to be.
/// API settings, budgets, logs and the mode belong to the person alone.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProjectConfig {
    fail_mode: Option<Spanned<FailMode>>,
    on_uncertain: Option<Spanned<OnUncertain>>,
    on_block: Option<Spanned<OnBlock>>,
    paranoid: Option<Spanned<bool>>,
    untrusted_tools: Option<Spanned<Vec<String>>>,
}

/// Whether `url` can be the base of the Messages API: http(s), a host, no spaces.
pub fn check_url(url: &str) -> Result<(), &'static str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or("is not an http:// or https:// URL")?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') {
        return Err("has no host");
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("contains spaces or control characters");
    }
    Ok(())
}

/// Whether `model` is shaped like a model id (`claude-haiku-4-5-20251001`, a Bedrock
/// `anthropic.claude-…-v1:0`, a Vertex `claude-…@20251001`, or a gateway's own name).
pub fn check_model(model: &str) -> Result<(), &'static str> {
    if model.is_empty() || model.len() > 128 {
        return Err("is not 1 to 128 characters long");
    }
    if !model
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | ':' | '@' | '/'))
    {
        return Err("is not a model id (letters, digits and - . _ : @ / only)");
    }
    Ok(())
}

/// How strict a setting's value is: higher is stricter.
trait Strictness {
    fn strictness(&self) -> u8;
}

impl Strictness for FailMode {
    fn strictness(&self) -> u8 {
        match self {
            FailMode::Open => 0,
            FailMode::Ask => 1,
            FailMode::Closed => 2,
        }
    }
}

impl Strictness for OnUncertain {
    fn strictness(&self) -> u8 {
        match self {
            OnUncertain::Allow => 0,
            OnUncertain::Defer => 1,
            // Defers only where the agent has a gate of its own, so it sits between.
            OnUncertain::Auto => 2,
            OnUncertain::Ask => 3,
            OnUncertain::Deny => 4,
        }
    }
}

impl Strictness for OnBlock {
    fn strictness(&self) -> u8 {
        match self {
            OnBlock::Ask => 0,
            OnBlock::Deny => 1,
        }
    }
}

impl Strictness for bool {
    fn strictness(&self) -> u8 {
        u8::from(*self)
    }
}

/// The commented `sentinel.toml` that `sentinel install` seeds.
pub const TEMPLATE: &str = include_str!("../../rules/sentinel.toml");

impl Config {
    /// The configuration of this process: SENTINEL_HOME (or `~/.agentos`), its `sentinel.toml`
    /// and the environment. None when there is no home directory to find it in.
    pub fn load_for_process() -> Option<Config> {
        let home = sentinel_home()?;
        let source = if std::env::var_os("SENTINEL_HOME").is_some_and(|h| !h.is_empty()) {
            Source::Env {
                name: "SENTINEL_HOME".into(),
            }
        } else {
            Source::Default
        };
        Some(Config::load(&home, source))
    }

    /// Reads `sentinel.toml` from `home` and applies the process environment.
    pub fn load(home: &Path, home_source: Source) -> Config {
        let text = match std::fs::read(home.join(FILE_NAME)) {
            Ok(bytes) => {
                Some(String::from_utf8(bytes).map_err(|_| "file is not valid UTF-8".to_string()))
            }
            Err(e) if is_absent(&e) => None,
            Err(e) => Some(Err(format!("cannot read: {e}"))),
        };
        Config::from_parts(home, home_source, text, &|name| std::env::var(name).ok())
    }

    /// Builds the configuration from the file's text (None: absent) and an environment; pure.
    pub fn from_parts(
        home: &Path,
        home_source: Source,
        text: Option<Result<String, String>>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Config {
        let mut c = Config {
            home: Setting {
                value: home.to_path_buf(),
                source: home_source,
            },
            mode: Setting::default(Mode::Enforce),
            fail_mode: Setting::default(FailMode::Open),
            on_uncertain: Setting::default(OnUncertain::Auto),
            on_block: Setting::default(OnBlock::Deny),
            max_event_bytes: Setting::default(DEFAULT_MAX_EVENT_BYTES),
            paranoid: Setting::default(false),
            untrusted_tools: Setting::default(
                ["WebFetch", "WebSearch", "mcp__*"]
                    .map(String::from)
                    .to_vec(),
            ),
            taint_max_age_hours: Setting::default(24),
            sanitize_untrusted_output: Setting::default(false),
            api_model: Setting::default(DEFAULT_MODEL.to_string()),
            api_url: Setting::default(DEFAULT_API_URL.to_string()),
            api_timeout_secs: Setting::default(8.0),
            api_key: None,
            calls_per_minute: Setting::default(30),
            calls_per_day: Setting::default(1000),
            log_max_bytes: Setting::default(10 * 1024 * 1024),
            errors: Vec::new(),
        };
        let mut file_url = None;
        match text {
            None => {}
            Some(Err(message)) => c.errors.push(ConfigError {
                at: FILE_NAME.to_string(),
                message,
            }),
            Some(Ok(text)) => match toml::from_str::<RawConfig>(&text) {
                Ok(raw) => file_url = c.apply_file(raw, &text),
                Err(e) => {
                    let line = e.span().map(|s| line_of(&text, s.start)).unwrap_or(1);
                    c.errors.push(ConfigError {
                        at: format!("{FILE_NAME}:{line}"),
                        message: first_line(e.message()),
                    });
                }
            },
        }
        c.apply_env(env, file_url);
        c.check_api();
        if !c.errors.is_empty() && !matches!(c.fail_mode.source, Source::Env { .. }) {
            // Broken config: the fail path asks rather than trusting a default it may contradict.
            c.fail_mode = Setting {
                value: FailMode::Ask,
                source: Source::Fallback,
            };
        }
        c
    }

    /// Values that parse but cannot work: a base URL that is not http(s), a model id with
    /// characters no model id has. Tier 2 would fail on every call; better to say so once, naming
    /// the key, than to fall through to the fail path unnoticed.
    fn check_api(&mut self) {
        let at = |source: &Source, key: &str| match source {
            Source::Env { name } => name.clone(),
            Source::File { line } => format!("{FILE_NAME}:{line}"),
            other => format!("{key} ({other})"),
        };
        if let Err(why) = check_url(&self.api_url.value) {
            self.errors.push(ConfigError {
                at: at(&self.api_url.source, "[api] url"),
                message: format!("[api] url `{}` {why}", self.api_url.value),
            });
        }
        if let Err(why) = check_model(&self.api_model.value) {
            self.errors.push(ConfigError {
                at: at(&self.api_model.source, "[api] model"),
                message: format!("[api] model `{}` {why}", self.api_model.value),
            });
        }
    }

    /// Applies the file's values; returns `[api] url` for the URL precedence chain.
    fn apply_file(&mut self, raw: RawConfig, text: &str) -> Option<Setting<String>> {
        fn set<T: Clone>(target: &mut Setting<T>, v: Option<Spanned<T>>, text: &str) {
            if let Some(v) = v {
                let line = line_of(text, v.span().start);
                target.value = v.into_inner();
                target.source = Source::File { line };
            }
        }
        set(&mut self.mode, raw.mode, text);
        set(&mut self.fail_mode, raw.fail_mode, text);
        set(&mut self.on_uncertain, raw.on_uncertain, text);
        set(&mut self.on_block, raw.on_block, text);
        set(&mut self.paranoid, raw.paranoid, text);
        set(&mut self.untrusted_tools, raw.untrusted_tools, text);
        set(&mut self.taint_max_age_hours, raw.taint_max_age_hours, text);
        set(
            &mut self.sanitize_untrusted_output,
            raw.sanitize_untrusted_output,
            text,
        );
        if let Some(v) = &raw.max_event_bytes {
            if *v.get_ref() < 1024 || *v.get_ref() > 64 * 1024 * 1024 {
                self.errors.push(ConfigError {
                    at: format!("{FILE_NAME}:{}", line_of(text, v.span().start)),
                    message: "max_event_bytes must be between 1024 and 67108864".into(),
                });
            } else {
                set(&mut self.max_event_bytes, raw.max_event_bytes, text);
            }
        }
        let mut url = None;
        if let Some(api) = raw.api {
            set(&mut self.api_model, api.model, text);
            if let Some(t) = &api.timeout {
                if !(t.get_ref().is_finite() && *t.get_ref() > 0.0 && *t.get_ref() <= 60.0) {
                    self.errors.push(ConfigError {
                        at: format!("{FILE_NAME}:{}", line_of(text, t.span().start)),
                        message: "[api] timeout must be between 0 and 60 seconds".into(),
                    });
                } else {
                    set(&mut self.api_timeout_secs, api.timeout, text);
                }
            }
            url = api.url.map(|u| Setting {
                source: Source::File {
                    line: line_of(text, u.span().start),
                },
                value: u.into_inner(),
            });
        }
        if let Some(logs) = raw.logs {
            if let Some(v) = &logs.max_file_bytes
                && *v.get_ref() < 4096
            {
                self.errors.push(ConfigError {
                    at: format!("{FILE_NAME}:{}", line_of(text, v.span().start)),
                    message: "[logs] max_file_bytes must be at least 4096".into(),
                });
            } else {
                set(&mut self.log_max_bytes, logs.max_file_bytes, text);
            }
        }
        if let Some(b) = raw.budget {
            set(&mut self.calls_per_minute, b.calls_per_minute, text);
            set(&mut self.calls_per_day, b.calls_per_day, text);
        }
        url
    }

    fn apply_env(
        &mut self,
        env: &dyn Fn(&str) -> Option<String>,
        file_url: Option<Setting<String>>,
    ) {
        let from = |name: &str| Source::Env {
            name: name.to_string(),
        };
        if let Some(v) = env("SENTINEL_SHADOW").filter(|v| !v.is_empty()) {
            match v.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => {
                    self.mode = Setting {
                        value: Mode::Shadow,
                        source: from("SENTINEL_SHADOW"),
                    }
                }
                "0" | "false" | "no" | "off" => {
                    self.mode = Setting {
                        value: Mode::Enforce,
                        source: from("SENTINEL_SHADOW"),
                    }
                }
                _ => self.errors.push(ConfigError {
                    at: "SENTINEL_SHADOW".into(),
                    message: format!("`{v}` is not 1/true or 0/false"),
                }),
            }
        }
        if let Some(v) = env("SENTINEL_FAIL_MODE").filter(|v| !v.is_empty()) {
            match v.as_str() {
                "open" => {
                    self.fail_mode = Setting {
                        value: FailMode::Open,
                        source: from("SENTINEL_FAIL_MODE"),
                    }
                }
                "closed" => {
                    self.fail_mode = Setting {
                        value: FailMode::Closed,
                        source: from("SENTINEL_FAIL_MODE"),
                    }
                }
                "ask" => {
                    self.fail_mode = Setting {
                        value: FailMode::Ask,
                        source: from("SENTINEL_FAIL_MODE"),
                    }
                }
                _ => self.errors.push(ConfigError {
                    at: "SENTINEL_FAIL_MODE".into(),
                    message: format!("`{v}` is not open, closed or ask"),
                }),
            }
        }
        // Base URL, first found: SENTINEL_API_URL, [api] url, ANTHROPIC_BASE_URL, the default.
        if let Some(v) = env("SENTINEL_API_URL").filter(|v| !v.is_empty()) {
            self.api_url = Setting {
                value: v,
                source: from("SENTINEL_API_URL"),
            };
        } else if let Some(u) = file_url {
            self.api_url = u;
        } else if let Some(v) = env("ANTHROPIC_BASE_URL").filter(|v| !v.is_empty()) {
            self.api_url = Setting {
                value: v,
                source: from("ANTHROPIC_BASE_URL"),
            };
        }
        for name in ["SENTINEL_API_KEY", "ANTHROPIC_API_KEY"] {
            if let Some(v) = env(name).filter(|v| !v.trim().is_empty()) {
                self.api_key = Some(Setting {
                    value: v,
                    source: from(name),
                });
                break;
            }
        }
    }

    /// Layers a project's `.sentinel/sentinel.toml` (its text, or why it cannot be read): a
    /// stricter value always applies; a laxer one only when `trusted` and not set by the
    /// environment. Returns the laxer values held back, one line each.
    pub fn add_project(&mut self, text: Result<&str, &str>, trusted: bool) -> Vec<String> {
        let at = |line: usize| format!(".sentinel/{FILE_NAME}:{line}");
        let text = match text {
            Ok(t) => t,
            Err(message) => {
                self.errors.push(ConfigError {
                    at: format!(".sentinel/{FILE_NAME}"),
                    message: message.to_string(),
                });
                return Vec::new();
            }
        };
        let raw = match toml::from_str::<RawProjectConfig>(text) {
            Ok(raw) => raw,
            Err(e) => {
                let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
                self.errors.push(ConfigError {
                    at: at(line),
                    message: format!(
                        "{} (a project may set fail_mode, on_uncertain, on_block, paranoid and untrusted_tools)",
                        first_line(e.message())
                    ),
                });
                return Vec::new();
            }
        };
        let mut held = Vec::new();
        fn layer<T: Strictness + serde::Serialize>(
            key: &str,
            target: &mut Setting<T>,
            v: Option<Spanned<T>>,
            text: &str,
            trusted: bool,
            held: &mut Vec<String>,
        ) {
            let Some(v) = v else { return };
            let line = line_of(text, v.span().start);
            let value = v.into_inner();
            let stricter = value.strictness() >= target.value.strictness();
            if stricter || (trusted && !matches!(target.source, Source::Env { .. })) {
                *target = Setting {
                    value,
                    source: Source::Project { line },
                };
            } else {
                held.push(format!(
                    ".sentinel/{FILE_NAME}:{line}: {key} = {} is laxer than {} ({}) and is held back",
                    enum_name(&value),
                    enum_name(&target.value),
                    target.source
                ));
            }
        }
        layer(
            "fail_mode",
            &mut self.fail_mode,
            raw.fail_mode,
            text,
            trusted,
            &mut held,
        );
        layer(
            "on_uncertain",
            &mut self.on_uncertain,
            raw.on_uncertain,
            text,
            trusted,
            &mut held,
        );
        layer(
            "on_block",
            &mut self.on_block,
            raw.on_block,
            text,
            trusted,
            &mut held,
        );
        layer(
            "paranoid",
            &mut self.paranoid,
            raw.paranoid,
            text,
            trusted,
            &mut held,
        );
        if let Some(tools) = raw.untrusted_tools {
            // More untrusted tools only ever tighten.
            let line = line_of(text, tools.span().start);
            for t in tools.into_inner() {
                if !self.untrusted_tools.value.contains(&t) {
                    self.untrusted_tools.value.push(t);
                    self.untrusted_tools.source = Source::Project { line };
                }
            }
        }
        held
    }

    /// The hook timeout `sentinel install` writes: well above a whole Tier-2 call.
    pub fn hook_timeout_secs(&self) -> u64 {
        (self.api_timeout_secs.value.ceil() as u64 + 10).max(30)
    }

    /// The table `sentinel config` prints: key, value, source.
    pub fn rows(&self) -> Vec<(&'static str, String, String)> {
        let row = |k, v: String, s: &Source| (k, v, s.to_string());
        let key = match &self.api_key {
            Some(k) => (
                format!("set ({} characters)", k.value.len()),
                k.source.to_string(),
            ),
            None => (
                "not set: Tier 2 is off".to_string(),
                "SENTINEL_API_KEY / ANTHROPIC_API_KEY".to_string(),
            ),
        };
        vec![
            row(
                "SENTINEL_HOME",
                self.home.value.display().to_string(),
                &self.home.source,
            ),
            row("mode", enum_name(&self.mode.value), &self.mode.source),
            row(
                "fail_mode",
                enum_name(&self.fail_mode.value),
                &self.fail_mode.source,
            ),
            row(
                "on_uncertain",
                enum_name(&self.on_uncertain.value),
                &self.on_uncertain.source,
            ),
            row(
                "on_block",
                enum_name(&self.on_block.value),
                &self.on_block.source,
            ),
            row(
                "max_event_bytes",
                self.max_event_bytes.value.to_string(),
                &self.max_event_bytes.source,
            ),
            row(
                "paranoid",
                self.paranoid.value.to_string(),
                &self.paranoid.source,
            ),
            row(
                "untrusted_tools",
                self.untrusted_tools.value.join(", "),
                &self.untrusted_tools.source,
            ),
            row(
                "taint_max_age_hours",
                self.taint_max_age_hours.value.to_string(),
                &self.taint_max_age_hours.source,
            ),
            row(
                "sanitize_untrusted_output",
                self.sanitize_untrusted_output.value.to_string(),
                &self.sanitize_untrusted_output.source,
            ),
            row(
                "api.model",
                self.api_model.value.clone(),
                &self.api_model.source,
            ),
            row("api.url", self.api_url.value.clone(), &self.api_url.source),
            row(
                "api.timeout",
                format!("{} s", self.api_timeout_secs.value),
                &self.api_timeout_secs.source,
            ),
            ("api.key", key.0, key.1),
            row(
                "budget.calls_per_minute",
                self.calls_per_minute.value.to_string(),
                &self.calls_per_minute.source,
            ),
            row(
                "budget.calls_per_day",
                self.calls_per_day.value.to_string(),
                &self.calls_per_day.source,
            ),
            row(
                "logs.max_file_bytes",
                self.log_max_bytes.value.to_string(),
                &self.log_max_bytes.source,
            ),
        ]
    }
}

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

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map(|t| t.matches('\n').count() + 1)
        .unwrap_or(1)
}

fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("invalid TOML")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: Option<&str>, env: &[(&str, &str)]) -> Config {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_parts(
            Path::new("/h"),
            Source::Default,
            text.map(|t| Ok(t.to_string())),
            &move |name| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
        )
    }

    #[test]
    fn an_api_url_or_model_that_cannot_work_is_an_error_naming_the_key() {
        let c = load(
            Some("[api]\nurl = \"api.anthropic.com\"\nmodel = \"claude haiku\"\n"),
            &[],
        );
        let errors: Vec<String> = c.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].starts_with("sentinel.toml:2: [api] url `api.anthropic.com` is not an http"),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("sentinel.toml:3: [api] model `claude haiku` is not a model id"),
            "{errors:?}"
        );
        // A broken API setting means the fail path asks rather than allowing unchecked.
        assert_eq!(c.fail_mode.value, FailMode::Ask);
        let c = load(None, &[("SENTINEL_API_URL", "ftp://x")]);
        assert!(
            c.errors[0]
                .to_string()
                .starts_with("SENTINEL_API_URL: [api] url `ftp://x`"),
            "{:?}",
            c.errors
        );
        for good in [
            "http://127.0.0.1:8080",
            "https://gateway.example/anthropic/",
        ] {
            assert!(
                load(None, &[("SENTINEL_API_URL", good)]).errors.is_empty(),
                "{good}"
            );
        }
        for good in [
            "anthropic.claude-haiku-4-5-20251001-v1:0",
            "claude-haiku-4-5@20251001",
            "team/haiku",
        ] {
            assert!(check_model(good).is_ok(), "{good}");
        }
        assert!(check_url("https://").is_err() && check_url("http://:80").is_err());
    }

    #[test]
    fn defaults_without_a_file() {
        let c = load(None, &[]);
        assert!(c.errors.is_empty());
        assert_eq!(c.mode.value, Mode::Enforce);
        assert_eq!(c.fail_mode.value, FailMode::Open);
        assert_eq!(c.on_uncertain.value, OnUncertain::Auto);
        assert_eq!(c.on_block.value, OnBlock::Deny);
        assert_eq!(c.api_url.value, DEFAULT_API_URL);
        assert!(c.api_key.is_none());
    }

    #[test]
    fn file_values_carry_their_line() {
        let c = load(
            Some("# c\nmode = \"shadow\"\n\n[api]\ntimeout = 3.5\n"),
            &[],
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.mode.value, Mode::Shadow);
        assert_eq!(c.mode.source, Source::File { line: 2 });
        assert_eq!(c.api_timeout_secs.value, 3.5);
        assert_eq!(c.api_timeout_secs.source, Source::File { line: 5 });
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_never_widen() {
        let c = load(Some("mode = \"enforce\"\nfail-mode = \"open\"\n"), &[]);
        assert_eq!(c.errors.len(), 1);
        assert!(
            c.errors[0].to_string().starts_with("sentinel.toml:2: "),
            "{}",
            c.errors[0]
        );
        assert!(c.errors[0].message.contains("fail-mode"), "{}", c.errors[0]);
        assert_eq!(c.fail_mode.value, FailMode::Ask);
        let c = load(Some("\n\nfail_mode = \"opne\"\n"), &[]);
        assert!(
            c.errors[0].to_string().starts_with("sentinel.toml:3: "),
            "{}",
            c.errors[0]
        );
        assert!(c.errors[0].message.contains("opne"), "{}", c.errors[0]);
        let c = load(Some("[api]\ntimeout = -1.0\n"), &[]);
        assert!(c.errors[0].to_string().contains("timeout"));
        let c = load(Some("mode = [\n"), &[]);
        assert_eq!(c.errors.len(), 1);
    }

    #[test]
    fn environment_overrides_the_file() {
        let c = load(
            Some("fail_mode = \"open\"\n[api]\nurl = \"http://file\"\n"),
            &[
                ("SENTINEL_FAIL_MODE", "closed"),
                ("SENTINEL_SHADOW", "1"),
                ("ANTHROPIC_BASE_URL", "http://gw"),
                ("ANTHROPIC_API_KEY", "k"),
            ],
        );
        assert_eq!(c.fail_mode.value, FailMode::Closed);
        assert_eq!(
            c.fail_mode.source,
            Source::Env {
                name: "SENTINEL_FAIL_MODE".into()
            }
        );
        assert_eq!(c.mode.value, Mode::Shadow);
        assert_eq!(
            c.api_url.value, "http://file",
            "[api] url comes before ANTHROPIC_BASE_URL"
        );
        assert_eq!(c.api_key.as_ref().map(|k| k.value.as_str()), Some("k"));
        let c = load(
            None,
            &[
                ("ANTHROPIC_BASE_URL", "http://gw"),
                ("SENTINEL_API_URL", "http://s"),
            ],
        );
        assert_eq!(c.api_url.value, "http://s");
        let c = load(None, &[("ANTHROPIC_BASE_URL", "http://gw")]);
        assert_eq!(c.api_url.value, "http://gw");
        let c = load(None, &[("SENTINEL_FAIL_MODE", "sometimes")]);
        assert_eq!(c.errors[0].at, "SENTINEL_FAIL_MODE");
    }

    #[test]
    fn the_seeded_template_is_valid_and_changes_nothing() {
        let c = load(Some(TEMPLATE), &[]);
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.mode.source, Source::Default);
    }
}
