//! `sentinel doctor` (SPEC 1.3): is sentinel really in the way of every tool call it should
//! judge? Each check says what it found and, when something is wrong, the command that fixes it.
//! The checks read files only; nothing is changed.

use crate::config::Config;
use crate::rules::Rules;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// As it should be.
    Ok,
    /// Works, but not as intended (judged twice, Tier 2 off …).
    Warn,
    /// sentinel does not guard what it should.
    Fail,
}

/// One check.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    /// What was checked.
    pub name: &'static str,
    /// How it came out.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// The command or edit that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    /// A check's outcome.
    pub fn new(name: &'static str, status: Status, detail: impl Into<String>) -> Check {
        Check {
            name,
            status,
            detail: detail.into(),
            fix: None,
        }
    }

    /// With the command or edit that fixes it.
    pub fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

/// Where sentinel is registered, as the CLI found it.
pub struct Found<'a> {
    /// The agent's settings file to look in.
    pub settings: &'a Path,
    /// Where the plugin is enabled: (settings file, plugin id).
    pub plugin: &'a [(PathBuf, String)],
    /// The arguments that name the same settings file again in a fix (`--settings FILE`).
    pub again: &'a str,
    /// `sentinel` on PATH, if anywhere.
    pub on_path: Option<PathBuf>,
}

/// Runs every check.
pub fn run(found: &Found, config: &Config, rules: &Rules) -> Vec<Check> {
    let Found {
        settings,
        plugin: plugins,
        again,
        on_path,
    } = found;
    let mut out = Vec::new();
    let value = match std::fs::read_to_string(settings) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                out.push(
                    Check::new(
                        "settings",
                        Status::Fail,
                        format!("{} is not valid JSON ({e})", settings.display()),
                    )
                    .fix(format!("repair {} by hand", settings.display())),
                );
                None
            }
        },
        Err(_) => None,
    };
    let plugin = !plugins.is_empty();
    let handlers = value.as_ref().map(registered).unwrap_or_default();
    let pre: Vec<&Registered> = handlers
        .iter()
        .filter(|h| h.event == "PreToolUse")
        .collect();

    // Registered at all, and only once.
    match (pre.is_empty(), plugin) {
        (true, false) => out.push(
            Check::new(
                "hook",
                Status::Fail,
                format!(
                    "sentinel is not registered in {} and its plugin is not enabled: no call is checked",
                    settings.display()
                ),
            )
            .fix(format!("sentinel install{again}   (or: claude plugin install sentinel@sentinel)")),
        ),
        (false, true) => out.push(
            Check::new(
                "hook",
                Status::Warn,
                format!(
                    "registered in {} and enabled as the plugin {} in {}: every call is judged twice",
                    settings.display(),
                    plugins[0].1,
                    plugins[0].0.display()
                ),
            )
            .fix(format!(
                "sentinel uninstall{again}   (the plugin stays), or: {}",
                crate::agents::install_plugin::uninstall_command(&plugins[0].1)
            )),
        ),
        (false, false) => out.push(Check::new(
            "hook",
            Status::Ok,
            format!("registered in {}", settings.display()),
        )),
        (true, true) => out.push(Check::new(
            "hook",
            Status::Ok,
            format!(
                "enabled as the Claude Code plugin {} in {}",
                plugins[0].1,
                plugins[0].0.display()
            ),
        )),
    }

    // The binary each registration runs.
    for h in &handlers {
        if !h.program.exists() {
            out.push(
                Check::new(
                    "binary",
                    Status::Fail,
                    format!(
                        "{} runs {}, which does not exist: Claude Code lets every call through",
                        h.event,
                        h.program.display()
                    ),
                )
                .fix(format!(
                    "sentinel install{again}   (registers the binary you run it with)"
                )),
            );
        }
    }
    if !handlers.is_empty() && handlers.iter().all(|h| h.program.exists()) {
        out.push(Check::new(
            "binary",
            Status::Ok,
            format!(
                "the registered binary {} exists",
                handlers[0].program.display()
            ),
        ));
    }
    if plugin {
        out.push(match &on_path {
            Some(p) => Check::new(
                "binary",
                Status::Ok,
                format!("the plugin runs {}", p.display()),
            ),
            None => Check::new(
                "binary",
                Status::Fail,
                "the plugin is enabled but `sentinel` is not on PATH: it refuses every call",
            )
            .fix(
                "./install/install.sh   (SENTINEL_NO_REGISTER=1 to leave the settings file alone)",
            ),
        });
    }

    // The matchers cover every judged tool.
    for h in &pre {
        let missing = crate::call::tools::missing_from(&h.matcher);
        if missing.is_empty() {
            out.push(Check::new(
                "matcher",
                Status::Ok,
                "the PreToolUse matcher names every tool sentinel judges",
            ));
        } else {
            out.push(
                Check::new(
                    "matcher",
                    Status::Fail,
                    format!(
                        "the PreToolUse matcher `{}` leaves out {}: those calls never reach sentinel",
                        h.matcher,
                        missing.join(", ")
                    ),
                )
                .fix(format!("sentinel install{again}   (rewrites sentinel's entries, keeps everything else)")),
            );
        }
    }
    if !pre.is_empty() {
        for event in ["PostToolUse", "SessionEnd"] {
            if !handlers.iter().any(|h| h.event == event) {
                out.push(
                    Check::new(
                        "matcher",
                        Status::Fail,
                        format!(
                            "no {event} entry: untrusted content or the session summary is missed"
                        ),
                    )
                    .fix(format!("sentinel install{again}")),
                );
            }
        }
    }

    // Rules and configuration.
    let errors = rules.lint();
    if errors.is_empty() {
        out.push(Check::new(
            "rules",
            Status::Ok,
            format!(
                "the rule files and command specs lint clean ({} files)",
                rules.origins.len()
            ),
        ));
    } else {
        out.push(
            Check::new(
                "rules",
                Status::Fail,
                format!(
                    "{} error(s), first {}: until fixed every local allow becomes ask",
                    errors.len(),
                    errors[0]
                ),
            )
            .fix(format!(
                "edit {}:{}; sentinel rules lint lists them all",
                errors[0].file, errors[0].line
            )),
        );
    }
    for layer in rules.layers.iter().filter(|l| l.seeded_copy) {
        out.push(
            Check::new(
                "rules",
                Status::Warn,
                format!(
                    "{} is an unchanged copy of an earlier bundled file and is ignored",
                    layer.origin
                ),
            )
            .fix(format!("rm {}", layer.origin)),
        );
    }
    let seeded = config.home.value.join(crate::config::FILE_NAME).exists();
    if config.errors.is_empty() {
        out.push(Check::new(
            "config",
            Status::Ok,
            if seeded {
                "sentinel.toml and the environment are valid"
            } else {
                "no sentinel.toml: the defaults apply; the environment is valid"
            },
        ));
    } else {
        out.push(
            Check::new(
                "config",
                Status::Fail,
                format!(
                    "{} error(s), first {}",
                    config.errors.len(),
                    config.errors[0]
                ),
            )
            .fix(format!(
                "fix {}; sentinel config shows every value",
                config.errors[0].at
            )),
        );
    }

    // SENTINEL_HOME must take the stats, audit and session files.
    let home = &config.home.value;
    let probe = home.join(format!(".doctor-{}", std::process::id()));
    match crate::config::kept::open(&probe, crate::config::kept::Access::Fresh) {
        Ok(_) => {
            let _ = crate::config::kept::remove(&probe);
            out.push(Check::new(
                "home",
                Status::Ok,
                format!("SENTINEL_HOME {} is writable", home.display()),
            ));
            // The plugin route registers without `sentinel install`, which is what seeds it.
            if !seeded {
                out.push(
                    Check::new(
                        "home",
                        Status::Warn,
                        format!(
                            "SENTINEL_HOME {} is not seeded (no sentinel.toml, no starter rule files): the bundled rules and defaults apply, and there is nothing to edit",
                            home.display()
                        ),
                    )
                    .fix("sentinel install --seed-only   (writes the commented starters, registers nothing)"),
                );
            }
        }
        Err(e) => out.push(
            Check::new(
                "home",
                Status::Fail,
                format!(
                    "SENTINEL_HOME {} is not writable ({e}): stats and audit are lost",
                    home.display()
                ),
            )
            .fix(format!("chown -R \"$USER\" {}", home.display())),
        ),
    }

    // The mode: shadow enforces nothing, guard never allows; both are said, with the way back.
    match config.mode.value {
        crate::config::Mode::Enforce => {}
        crate::config::Mode::Shadow => out.push(
            Check::new(
                "mode",
                Status::Warn,
                format!(
                    "shadow mode ({}): every call is decided and recorded, and nothing is enforced",
                    config.mode.source
                ),
            )
            .fix("set mode = \"enforce\" in sentinel.toml"),
        ),
        crate::config::Mode::Guard => out.push(
            Check::new(
                "mode",
                Status::Warn,
                format!(
                    "guard mode ({}): sentinel only denies and asks; every call it would allow goes to the agent's own prompt",
                    config.mode.source
                ),
            )
            .fix("set mode = \"enforce\" in sentinel.toml (if guard is not what you chose)"),
        ),
    }

    // Tier 2: where the key and the URL come from.
    match &config.api_key {
        Some(k) => out.push(Check::new(
            "tier2",
            Status::Ok,
            format!(
                "on: the key comes from {}, requests go to {} ({})",
                k.source, config.api_url.value, config.api_url.source
            ),
        )),
        None if !config.api_enabled.value => out.push(Check::new(
            "tier2",
            Status::Ok,
            format!(
                "off ([api] enabled = false, {}): uncertain calls go to on_uncertain",
                config.api_enabled.source
            ),
        )),
        None => out.push(Check::new(
            "tier2",
            Status::Ok,
            "off (no SENTINEL_API_KEY or ANTHROPIC_API_KEY): uncertain calls go to on_uncertain",
        )),
    }
    out
}

/// One of sentinel's handlers in the settings file.
#[derive(Debug)]
struct Registered {
    event: String,
    matcher: String,
    program: PathBuf,
    /// The exec form's arguments (`hook`, `--shadow` …).
    args: Vec<String>,
}

fn registered(settings: &Value) -> Vec<Registered> {
    let mut out = Vec::new();
    let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in events {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            for h in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if crate::agents::install::is_ours(h) {
                    out.push(Registered {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        program: resolve(h.get("command").and_then(Value::as_str).unwrap_or("")),
                        args: h
                            .get("args")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(String::from)
                            .collect(),
                    });
                }
            }
        }
    }
    out
}

/// A registered command as Claude Code runs it: a bare name is looked up on PATH.
fn resolve(command: &str) -> PathBuf {
    if command.contains('/') {
        return PathBuf::from(command);
    }
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join(command))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| PathBuf::from(command))
}

/// The program sentinel's PreToolUse entry in `settings` runs, if registered there.
pub fn hook_program(settings: &Path) -> Option<PathBuf> {
    let value: Value = serde_json::from_str(&std::fs::read_to_string(settings).ok()?).ok()?;
    registered(&value)
        .into_iter()
        .find(|h| h.event == "PreToolUse")
        .map(|h| h.program)
}

/// The program and arguments sentinel's PreToolUse entry in `settings` runs (exec form; a
/// shell-form command line's words after the program are taken as its arguments).
pub fn hook_command(settings: &Path) -> Option<(PathBuf, Vec<String>)> {
    let value: Value = serde_json::from_str(&std::fs::read_to_string(settings).ok()?).ok()?;
    registered(&value)
        .into_iter()
        .find(|h| h.event == "PreToolUse")
        .map(|h| (h.program, h.args))
}

/// `sentinel` on PATH.
pub fn on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("sentinel"))
        .find(|p| p.is_file())
}
