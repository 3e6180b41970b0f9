//! `sentinel doctor`: the organisation's policy — where it is, whether it can be used, what it
//! pins, and what of the person's and the project's it makes void.

use sentinel::agents::doctor::{Check, Status};
use sentinel::config::{self, Config, managed};
use sentinel::rules::Rules;

/// The checks of the managed layer (one `ok` line when this system has none).
pub fn checks(config: &Config) -> Vec<Check> {
    let Some(m) = &config.managed else {
        return vec![Check::new(
            "policy",
            Status::Ok,
            format!(
                "no organisation policy ({} does not exist): your own settings decide",
                managed::SYSTEM_DIR
            ),
        )];
    };
    let mut rules = Rules::load_with(
        &config.home.value,
        config::user_home().as_deref(),
        config.allow_off.value,
    );
    rules.add_managed(m);
    let dir = m.dir.display().to_string();
    let broken = config.managed_broken.clone().or_else(|| {
        rules
            .errors
            .iter()
            .find(|e| e.file.starts_with(&dir))
            .map(ToString::to_string)
    });
    let Some(view) = sentinel::report::policy::view(config, &rules, broken) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(why) = &view.broken {
        out.push(
            Check::new(
                "policy",
                Status::Fail,
                format!(
                    "the organisation's policy in {} cannot be used: {why}; every call asks until it is fixed",
                    view.dir
                ),
            )
            .fix(format!(
                "ask whoever manages this machine to fix it: every folder down to {dir} and every file in it owned by root, not writable by group or others (sudo chown -R root:root {dir} && sudo chmod -R go-w {dir}), each file parsing (sentinel rules lint)"
            )),
        );
    } else {
        let pins = match view.pinned.is_empty() {
            true => "it pins no setting".to_string(),
            false => format!("it pins {}", view.pinned.join("; ")),
        };
        out.push(Check::new(
            "policy",
            Status::Ok,
            format!(
                "the organisation's policy in {} applies above yours and every project's ({} file(s): {}); {pins}",
                view.dir,
                view.files.len(),
                view.files.join(", ")
            ),
        ));
    }
    if m.named_by.is_some() {
        out.push(Check::new(
            "policy",
            Status::Warn,
            format!(
                "the policy folder is named by {} (honoured only while {} does not exist): set it only to test a policy",
                managed::DIR_VAR,
                managed::SYSTEM_DIR
            ),
        ));
    }
    for n in &view.no_effect {
        out.push(Check::new("policy", Status::Warn, n.clone()));
    }
    out
}
