//! The organisation's policy as `explain`, `doctor` and `config` show it: where it is, whether
//! it can be used, what it pins, and what below it has no effect because of it.

use crate::config::Config;
use crate::rules::Rules;
use serde::Serialize;

/// The managed layer in force.
#[derive(Debug, Serialize)]
pub struct PolicyView {
    /// The folder, and what named it.
    pub dir: String,
    /// Why it cannot be used (every call asks), if it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broken: Option<String>,
    /// Its files, by path.
    pub files: Vec<String>,
    /// The settings it pins: `key = value (managed FILE:LINE)`.
    pub pinned: Vec<String>,
    /// What a lower layer says and the policy makes void, one line each.
    pub no_effect: Vec<String>,
}

/// The policy over `config` and `rules` (the rules with the policy layered, see
/// `Layered::load`), or None when this system has none.
pub fn view(config: &Config, rules: &Rules, broken: Option<String>) -> Option<PolicyView> {
    let managed = config.managed.as_ref()?;
    let pinned = config
        .rows()
        .into_iter()
        .filter(|(_, _, source)| source.starts_with("managed "))
        .map(|(key, value, source)| format!("{key} = {value} ({source})"))
        .collect();
    let mut no_effect: Vec<String> = config.overridden.clone();
    for layer in &rules.layers {
        for (line, pattern, why) in &layer.refused_off {
            no_effect.push(format!(
                "{}:{line}: off: {pattern} has no effect: {why}",
                layer.origin
            ));
        }
    }
    no_effect.extend(
        config
            .warnings
            .iter()
            .filter(|w| w.contains("pinned by the organisation's policy"))
            .cloned(),
    );
    Some(PolicyView {
        dir: managed.whence(),
        broken: broken.or_else(|| config.managed_broken.clone()),
        files: managed
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect(),
        pinned,
        no_effect,
    })
}
