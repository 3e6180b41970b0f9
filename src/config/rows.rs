//! The configuration as `sentinel config` and `install` show it.

use super::*;

impl Config {
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
                "approve_edits",
                enum_name(&self.approve_edits.value),
                &self.approve_edits.source,
            ),
            row(
                "contain",
                self.contain.value.to_string(),
                &self.contain.source,
            ),
            row(
                "contain_except",
                self.contain_except.value.join(", "),
                &self.contain_except.source,
            ),
            row(
                "api.enabled",
                self.api_enabled.value.to_string(),
                &self.api_enabled.source,
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
                "env.trust",
                self.env_trust.value.join(", "),
                &self.env_trust.source,
            ),
            row(
                "managed.allow_off",
                self.allow_off.value.to_string(),
                &self.allow_off.source,
            ),
            row(
                "managed.allow_project_trust",
                self.allow_project_trust.value.to_string(),
                &self.allow_project_trust.source,
            ),
            row(
                "logs.max_file_bytes",
                self.log_max_bytes.value.to_string(),
                &self.log_max_bytes.source,
            ),
        ]
    }
}
