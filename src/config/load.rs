//! Reading the configuration: defaults, then `sentinel.toml` (every value with its line), then
//! the environment, then the checks that make a value that cannot work an error.

use super::variables::trusts_variable;
use super::*;

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
    approve_edits: Option<Spanned<ApproveEdits>>,
    contain: Option<Spanned<bool>>,
    contain_except: Option<Spanned<Vec<String>>>,
    api: Option<RawApi>,
    budget: Option<RawBudget>,
    logs: Option<RawLogs>,
    env: Option<RawEnv>,
    managed: Option<RawManaged>,
    export: Option<Spanned<super::export::Table>>,
}

/// `[managed]`: what only the organisation's policy may say.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManaged {
    allow_off: Option<Spanned<bool>>,
    allow_project_trust: Option<Spanned<bool>>,
}

/// Which `sentinel.toml` a value comes from: the person's, or the organisation's (managed).
struct Origin<'a> {
    /// As an error names it: `sentinel.toml`, or the managed file's path.
    label: &'a str,
    managed: bool,
}

impl Origin<'_> {
    fn source(&self, line: usize) -> Source {
        match self.managed {
            true => Source::Managed {
                path: self.label.to_string(),
                line,
            },
            false => Source::File { line },
        }
    }

    fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.label)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnv {
    trust: Option<Spanned<Vec<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLogs {
    max_file_bytes: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawApi {
    enabled: Option<Spanned<bool>>,
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

/// A setting whose source can be read and replaced, whatever its value's type.
trait Pin {
    fn source(&self) -> &Source;
    fn set_source(&mut self, source: Source);
}

impl<T> Pin for Setting<T> {
    fn source(&self) -> &Source {
        &self.source
    }
    fn set_source(&mut self, source: Source) {
        self.source = source;
    }
}

/// The keys of each table of `sentinel.toml` ("" is the top level), for an unknown key's hint.
const KEYS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "mode",
            "fail_mode",
            "on_uncertain",
            "on_block",
            "max_event_bytes",
            "paranoid",
            "untrusted_tools",
            "taint_max_age_hours",
            "sanitize_untrusted_output",
            "approve_edits",
            "contain",
            "contain_except",
        ],
    ),
    ("api", &["enabled", "model", "url", "timeout"]),
    ("budget", &["calls_per_minute", "calls_per_day"]),
    ("logs", &["max_file_bytes"]),
    ("env", &["trust"]),
    ("managed", &["allow_off", "allow_project_trust"]),
    (
        "export",
        &[
            "enabled",
            "endpoint",
            "logs_endpoint",
            "metrics_endpoint",
            "headers",
            "service_name",
            "resource_attributes",
            "max_records",
            "max_bytes",
            "batch",
            "interval_secs",
            "max_backoff_secs",
            "timeout_secs",
        ],
    ),
];

/// The table a byte offset of `text` lies in: the last `[header]` before it ("" above any).
fn table_at(text: &str, at: usize) -> &str {
    let before = text.get(..at).unwrap_or(text);
    before
        .lines()
        .rev()
        .filter_map(|l| {
            let l = l.trim();
            l.strip_prefix('[')
                .and_then(|h| h.split(']').next())
                .filter(|_| !l.starts_with("[["))
        })
        .map(str::trim)
        .next()
        .unwrap_or("")
}

/// An unknown key's error says which table it landed in (a key appended to the end of the
/// seeded file lands in its last table) and, when it is another table's key, where it belongs.
fn placed(message: String, text: &str, at: Option<usize>) -> String {
    let Some(key) = message
        .strip_prefix("unknown field `")
        .and_then(|r| r.split('`').next())
    else {
        return message;
    };
    let table = at.map(|a| table_at(text, a)).unwrap_or("");
    let here = if table.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in [{table}]")
    };
    let expected = message
        .split_once(", expected ")
        .map(|(_, e)| format!(" (expected {e})"))
        .unwrap_or_default();
    let home = KEYS
        .iter()
        .find(|(t, keys)| *t != table && keys.contains(&key))
        .map(|(t, _)| t);
    let hint = match home {
        Some(&"") => format!("; `{key}` is a top-level key: move it above the first [section]"),
        Some(t) => format!("; `{key}` belongs in [{t}]"),
        None => String::new(),
    };
    format!("unknown key `{key}` {here}{expected}{hint}")
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
        // Below the home, sentinel's files are opened without following a link.
        crate::config::kept::claim_home(home);
        let path = home.join(FILE_NAME);
        let links = crate::config::files::Links::Follow;
        let text = match crate::config::files::read(&path, MAX_CONFIG_BYTES, links) {
            Ok(bytes) => {
                Some(String::from_utf8(bytes).map_err(|_| "file is not valid UTF-8".to_string()))
            }
            Err(e) if is_absent(&e) => None,
            Err(e) => Some(Err(format!("cannot read: {e}"))),
        };
        // The variable that moves the policy folder can pin a looser mode, so it is honoured
        // only when the person's own file trusts it, as every loosening variable is.
        let trusted = |name: &str| {
            text.as_ref()
                .and_then(|t| t.as_ref().ok())
                .is_some_and(|t| trusts_variable(t, name))
        };
        let named_untrusted = std::cell::Cell::new(None);
        let managed = managed::Managed::find_with(Path::new(managed::SYSTEM_DIR), &|name| {
            let value = std::env::var_os(name).filter(|v| !v.is_empty())?;
            if trusted(name) {
                return Some(value);
            }
            named_untrusted.set(Some(value));
            None
        })
        .map(std::sync::Arc::new);
        let mut config = Config::from_layers(home, home_source, text, managed, &|name| {
            std::env::var(name).ok()
        });
        if let Some(value) = named_untrusted.into_inner() {
            let name = managed::DIR_VAR;
            config.warnings.push(format!(
                "{name}={} is ignored: it names the organisation's policy, which can pin a looser mode, and a project's agent settings can set variables; if you set it yourself (tests), add `[env] trust = [\"{name}\"]` to {FILE_NAME}",
                crate::text::excerpt_to(&value.to_string_lossy(), 80)
            ));
        }
        config
    }

    /// Builds the configuration from the file's text (None: absent) and an environment; pure.
    pub fn from_parts(
        home: &Path,
        home_source: Source,
        text: Option<Result<String, String>>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Config {
        Config::from_layers(home, home_source, text, None, env)
    }

    /// [`Config::from_parts`] under the organisation's policy, when there is one: its
    /// `sentinel.toml` pins every key it sets, over the person's file and the environment.
    pub fn from_layers(
        home: &Path,
        home_source: Source,
        text: Option<Result<String, String>>,
        managed: Option<std::sync::Arc<managed::Managed>>,
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
            approve_edits: Setting::default(ApproveEdits::Mode),
            contain: Setting::default(true),
            contain_except: Setting::default(Vec::new()),
            api_model: Setting::default(DEFAULT_MODEL.to_string()),
            api_url: Setting::default(DEFAULT_API_URL.to_string()),
            api_timeout_secs: Setting::default(8.0),
            api_enabled: Setting::default(true),
            api_key: None,
            calls_per_minute: Setting::default(30),
            calls_per_day: Setting::default(1000),
            log_max_bytes: Setting::default(10 * 1024 * 1024),
            env_trust: Setting::default(Vec::new()),
            allow_off: Setting::default(true),
            allow_project_trust: Setting::default(true),
            export: None,
            managed: None,
            managed_broken: None,
            overridden: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
        };
        let person = Origin {
            label: FILE_NAME,
            managed: false,
        };
        let mut file_url = None;
        match text {
            None => {}
            Some(Err(message)) => c.errors.push(ConfigError {
                at: FILE_NAME.to_string(),
                message,
            }),
            Some(Ok(text)) => match toml::from_str::<RawConfig>(&text) {
                Ok(raw) => file_url = c.apply_file(raw, &text, &person),
                Err(e) => {
                    let at = e.span().map(|s| s.start);
                    let line = at.map(|a| line_of(&text, a)).unwrap_or(1);
                    c.errors.push(ConfigError {
                        at: format!("{FILE_NAME}:{line}"),
                        message: placed(first_line(e.message()), &text, at),
                    });
                }
            },
        }
        if !c.errors.is_empty() {
            // Broken config: the fail path asks (a variable may still make it stricter).
            c.fail_mode = Setting {
                value: FailMode::Ask,
                source: Source::Fallback,
            };
        }
        if let Some(m) = managed {
            c.apply_managed(&m);
            c.managed = Some(m);
        }
        let file_url = file_url.filter(|u| {
            let pinned = is_pinned(&c.api_url);
            if pinned {
                c.overridden.push(format!(
                    "{FILE_NAME}:{}: [api] url is overridden by {}",
                    match u.source {
                        Source::File { line } => line,
                        _ => 0,
                    },
                    c.api_url.source
                ));
            }
            !pinned
        });
        c.apply_env(env, file_url);
        c.check_api();
        if !c.errors.is_empty()
            && !matches!(
                c.fail_mode.source,
                Source::Env { .. } | Source::Managed { .. }
            )
        {
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

    /// Applies the organisation's `sentinel.toml`: every key it sets is pinned. One that does
    /// not parse or holds a bad value makes the policy broken (every call asks).
    fn apply_managed(&mut self, m: &managed::Managed) {
        if let Some(why) = &m.broken {
            self.managed_broken = Some(why.clone());
            return;
        }
        let Some(file) = m.file(FILE_NAME) else {
            return;
        };
        let label = file.path.display().to_string();
        let origin = Origin {
            label: &label,
            managed: true,
        };
        let before = self.errors.len();
        match toml::from_str::<RawConfig>(&file.text) {
            Ok(raw) => {
                if let Some(url) = self.apply_file(raw, &file.text, &origin) {
                    self.api_url = url;
                }
            }
            Err(e) => {
                let at = e.span().map(|s| s.start);
                let line = at.map(|a| line_of(&file.text, a)).unwrap_or(1);
                self.errors.push(ConfigError {
                    at: origin.at(line),
                    message: placed(first_line(e.message()), &file.text, at),
                });
            }
        }
        if let Some(e) = self.errors.get(before) {
            self.managed_broken = Some(e.to_string());
        }
    }

    /// Applies a file's values (the person's or the organisation's); returns `[api] url` for
    /// the URL precedence chain.
    fn apply_file(
        &mut self,
        raw: RawConfig,
        text: &str,
        origin: &Origin,
    ) -> Option<Setting<String>> {
        let overridden = std::cell::RefCell::new(Vec::new());
        let set = |key: &str, target: &mut dyn Pin, line: usize| {
            if let Source::File { line: was } = target.source()
                && origin.managed
            {
                overridden.borrow_mut().push(format!(
                    "{FILE_NAME}:{was}: {key} is overridden by {}",
                    origin.source(line)
                ));
            }
            target.set_source(origin.source(line));
        };
        macro_rules! set {
            ($key:expr, $target:expr, $v:expr) => {
                if let Some(v) = $v {
                    let line = line_of(text, v.span().start);
                    set($key, &mut $target, line);
                    $target.value = v.into_inner();
                }
            };
        }
        set!("mode", self.mode, raw.mode);
        set!("fail_mode", self.fail_mode, raw.fail_mode);
        set!("on_uncertain", self.on_uncertain, raw.on_uncertain);
        set!("on_block", self.on_block, raw.on_block);
        set!("paranoid", self.paranoid, raw.paranoid);
        set!("untrusted_tools", self.untrusted_tools, raw.untrusted_tools);
        set!(
            "taint_max_age_hours",
            self.taint_max_age_hours,
            raw.taint_max_age_hours
        );
        set!(
            "sanitize_untrusted_output",
            self.sanitize_untrusted_output,
            raw.sanitize_untrusted_output
        );
        set!("approve_edits", self.approve_edits, raw.approve_edits);
        set!("contain", self.contain, raw.contain);
        set!("contain_except", self.contain_except, raw.contain_except);
        if let Some(m) = raw.managed {
            match origin.managed {
                true => {
                    set!("[managed] allow_off", self.allow_off, m.allow_off);
                    set!(
                        "[managed] allow_project_trust",
                        self.allow_project_trust,
                        m.allow_project_trust
                    );
                }
                false => self.errors.push(ConfigError {
                    at: FILE_NAME.into(),
                    message: format!(
                        "[managed] belongs in the organisation's policy ({}/{FILE_NAME}), not in the person's file",
                        managed::SYSTEM_DIR
                    ),
                }),
            }
        }
        if let Some(v) = &raw.max_event_bytes {
            if *v.get_ref() < 1024 || *v.get_ref() > super::MAX_EVENT_BYTES_BOUND {
                self.errors.push(ConfigError {
                    at: origin.at(line_of(text, v.span().start)),
                    message: format!(
                        "max_event_bytes must be between 1024 and {}",
                        super::MAX_EVENT_BYTES_BOUND
                    ),
                });
            } else {
                set!("max_event_bytes", self.max_event_bytes, raw.max_event_bytes);
            }
        }
        let mut url = None;
        if let Some(api) = raw.api {
            set!("[api] model", self.api_model, api.model);
            set!("[api] enabled", self.api_enabled, api.enabled);
            if let Some(t) = &api.timeout {
                if !(t.get_ref().is_finite() && *t.get_ref() > 0.0 && *t.get_ref() <= 60.0) {
                    self.errors.push(ConfigError {
                        at: origin.at(line_of(text, t.span().start)),
                        message: "[api] timeout must be between 0 and 60 seconds".into(),
                    });
                } else {
                    set!("[api] timeout", self.api_timeout_secs, api.timeout);
                }
            }
            url = api.url.map(|u| Setting {
                source: origin.source(line_of(text, u.span().start)),
                value: u.into_inner(),
            });
        }
        if let Some(logs) = raw.logs {
            if let Some(v) = &logs.max_file_bytes
                && *v.get_ref() < 4096
            {
                self.errors.push(ConfigError {
                    at: origin.at(line_of(text, v.span().start)),
                    message: "[logs] max_file_bytes must be at least 4096".into(),
                });
            } else {
                set!(
                    "[logs] max_file_bytes",
                    self.log_max_bytes,
                    logs.max_file_bytes
                );
            }
        }
        if let Some(b) = raw.budget {
            set!(
                "[budget] calls_per_minute",
                self.calls_per_minute,
                b.calls_per_minute
            );
            set!(
                "[budget] calls_per_day",
                self.calls_per_day,
                b.calls_per_day
            );
        }
        if let Some(export) = raw.export {
            let line = line_of(text, export.span().start);
            let table = export.into_inner();
            match table.check() {
                Err(message) => self.errors.push(ConfigError {
                    at: origin.at(line),
                    message,
                }),
                Ok(()) => {
                    if let Some(Setting {
                        source: Source::File { line: was },
                        ..
                    }) = &self.export
                        && origin.managed
                    {
                        overridden.borrow_mut().push(format!(
                            "{FILE_NAME}:{was}: [export] is overridden by {}",
                            origin.source(line)
                        ));
                    }
                    self.export = Some(Setting {
                        value: table,
                        source: origin.source(line),
                    });
                }
            }
        }
        if let Some(trust) = raw.env.and_then(|e| e.trust) {
            let line = line_of(text, trust.span().start);
            let names = trust.into_inner();
            match names.iter().find(|n| !LOOSENING_VARS.contains(&n.as_str())) {
                Some(bad) => self.errors.push(ConfigError {
                    at: origin.at(line),
                    message: format!(
                        "[env] trust: `{bad}` is not one of {}",
                        LOOSENING_VARS.join(", ")
                    ),
                }),
                None => {
                    set("[env] trust", &mut self.env_trust, line);
                    self.env_trust.value = names;
                }
            }
        }
        self.overridden.extend(overridden.into_inner());
        url
    }
}

/// 1-based line of a byte offset.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map(|t| t.matches('\n').count() + 1)
        .unwrap_or(1)
}

pub(super) fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("invalid TOML")
        .to_string()
}
