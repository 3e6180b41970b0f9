//! The environment's layer of the configuration: the variables that set or loosen a setting,
//! which loosen only when the person's own `sentinel.toml` trusts them (a project's agent
//! settings can set variables too), and never against what the organisation's policy pins.

use super::*;

/// The variables that could loosen sentinel, honoured only when `[env] trust` in the person's
/// own sentinel.toml names them: a project's committed agent settings (`.claude/settings.json`
/// `env`) reach the hook's environment too.
pub const LOOSENING_VARS: [&str; 5] = [
    "SENTINEL_SHADOW",
    "SENTINEL_FAIL_MODE",
    "SENTINEL_API_URL",
    "ANTHROPIC_BASE_URL",
    // Names another policy folder where none is deployed (tests): it can pin a looser mode.
    crate::config::managed::DIR_VAR,
];

/// Whether `url` is Anthropic's own API (a trailing slash allowed).
pub fn is_official(url: &str) -> bool {
    url.trim_end_matches('/') == DEFAULT_API_URL
}

impl Config {
    /// The variables over the file's settings; `file_url` is the file's `[api] url`, which
    /// ranks between `SENTINEL_API_URL` and `ANTHROPIC_BASE_URL`.
    pub(super) fn apply_env(
        &mut self,
        env: &dyn Fn(&str) -> Option<String>,
        file_url: Option<Setting<String>>,
    ) {
        let from = |name: &str| Source::Env {
            name: name.to_string(),
        };
        if let Some(v) = env("SENTINEL_SHADOW").filter(|v| !v.is_empty())
            && !self.pinned_against("SENTINEL_SHADOW", &v, "mode", &self.mode.source.clone())
        {
            match v.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => {
                    if self.mode.value == Mode::Shadow
                        || self.loosening("SENTINEL_SHADOW", &v, "it turns enforcement off")
                    {
                        self.mode = Setting {
                            value: Mode::Shadow,
                            source: from("SENTINEL_SHADOW"),
                        }
                    }
                }
                // Off turns shadow mode into enforce; guard mode (stricter) stays guard.
                "0" | "false" | "no" | "off" => {
                    if self.mode.value == Mode::Shadow {
                        self.mode = Setting {
                            value: Mode::Enforce,
                            source: from("SENTINEL_SHADOW"),
                        }
                    }
                }
                _ => self.errors.push(ConfigError {
                    at: "SENTINEL_SHADOW".into(),
                    message: format!("`{v}` is not 1/true or 0/false"),
                }),
            }
        }
        if let Some(v) = env("SENTINEL_FAIL_MODE").filter(|v| !v.is_empty())
            && !self.pinned_against(
                "SENTINEL_FAIL_MODE",
                &v,
                "fail_mode",
                &self.fail_mode.source.clone(),
            )
        {
            let value = match v.as_str() {
                "open" => Some(FailMode::Open),
                "closed" => Some(FailMode::Closed),
                "ask" => Some(FailMode::Ask),
                _ => {
                    self.errors.push(ConfigError {
                        at: "SENTINEL_FAIL_MODE".into(),
                        message: format!("`{v}` is not open, closed or ask"),
                    });
                    None
                }
            };
            if let Some(value) = value
                && (value.strictness() >= self.fail_mode.value.strictness()
                    || self.loosening(
                        "SENTINEL_FAIL_MODE",
                        &v,
                        &format!(
                            "it is laxer than fail_mode = {}",
                            enum_name(&self.fail_mode.value)
                        ),
                    ))
            {
                self.fail_mode = Setting {
                    value,
                    source: from("SENTINEL_FAIL_MODE"),
                }
            }
        }
        for name in ["SENTINEL_API_KEY", "ANTHROPIC_API_KEY"] {
            if !self.api_enabled.value {
                break;
            }
            if let Some(v) = env(name).filter(|v| !v.trim().is_empty()) {
                self.api_key = Some(Setting {
                    value: v,
                    source: from(name),
                });
                break;
            }
        }
        // Base URL, first found: SENTINEL_API_URL, [api] url, ANTHROPIC_BASE_URL, the default;
        // a variable's URL other than Anthropic's own only when the person trusts it. Without a
        // key nothing is sent, so a variable's URL is neither used nor warned about.
        let keyed = self.api_key.is_some();
        let what = "it sends the API key and every judged call to another server";
        if is_pinned(&self.api_url) {
            for name in ["SENTINEL_API_URL", "ANTHROPIC_BASE_URL"] {
                if let Some(v) = env(name).filter(|v| keyed && !v.is_empty()) {
                    let source = self.api_url.source.clone();
                    self.pinned_against(name, &v, "[api] url", &source);
                }
            }
        } else if let Some(v) = env("SENTINEL_API_URL").filter(|v| keyed && !v.is_empty())
            && (is_official(&v) || self.loosening("SENTINEL_API_URL", &v, what))
        {
            self.api_url = Setting {
                value: v,
                source: from("SENTINEL_API_URL"),
            };
        } else if let Some(u) = file_url {
            self.api_url = u;
        } else if let Some(v) = env("ANTHROPIC_BASE_URL").filter(|v| keyed && !v.is_empty())
            && (is_official(&v) || self.loosening("ANTHROPIC_BASE_URL", &v, what))
        {
            self.api_url = Setting {
                value: v,
                source: from("ANTHROPIC_BASE_URL"),
            };
        }
    }

    /// A variable that would change a setting the organisation's policy pins: ignored, and
    /// said once. True when pinned.
    fn pinned_against(&mut self, name: &str, value: &str, key: &str, source: &Source) -> bool {
        if !matches!(source, Source::Managed { .. }) {
            return false;
        }
        let value = crate::text::excerpt_to(value, 80);
        self.warnings.push(format!(
            "{name}={value} is ignored: {key} is pinned by the organisation's policy ({source})"
        ));
        true
    }

    /// A variable that would loosen sentinel: honoured when `[env] trust` names it, ignored
    /// otherwise; either way one warning names it.
    fn loosening(&mut self, name: &str, value: &str, what: &str) -> bool {
        let value = crate::text::excerpt_to(value, 80);
        if self.env_trust.value.iter().any(|t| t == name) {
            self.warnings.push(format!(
                "{name}={value} is honoured ({what}): [env] trust in {}",
                self.env_trust.source
            ));
            return true;
        }
        self.warnings.push(format!(
            "{name}={value} is ignored: {what}, and a project's agent settings can set variables; if you set it yourself, add `[env] trust = [\"{name}\"]` to {FILE_NAME}"
        ));
        false
    }
}

/// Whether the text of a person's `sentinel.toml` lists `name` in `[env] trust` (a file that
/// does not parse trusts nothing).
pub(super) fn trusts_variable(text: &str, name: &str) -> bool {
    toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|t| t.get("env")?.get("trust")?.as_array().cloned())
        .is_some_and(|list| list.iter().any(|v| v.as_str() == Some(name)))
}
