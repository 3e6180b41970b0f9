//! A project's `.sentinel/sentinel.toml` layered over the person's configuration: a stricter
//! value always applies, a laxer one only once the person trusts the project.

use super::load::{first_line, line_of};
use super::*;

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

/// How strict a setting's value is: higher is stricter.
pub(super) trait Strictness {
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

impl Config {
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
            if let Source::Managed { .. } = target.source {
                held.push(format!(
                    ".sentinel/{FILE_NAME}:{line}: {key} = {} has no effect: {key} is pinned by the organisation's policy ({})",
                    enum_name(&value),
                    target.source
                ));
                return;
            }
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
}
