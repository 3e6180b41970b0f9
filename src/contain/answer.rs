//! Whether an answer runs fenced: a Bash call that runs project code (its tests, a build, a
//! script) and is allowed runs under `sentinel contain`, or in Claude Code's own sandbox when
//! that is on; where neither can hold it, the answer stays what reading alone decided.

use crate::config::Config;
use crate::contain::lists::{self, List};
use crate::contain::{Availability, availability, contained_command, ports};
use crate::decision::effect::Effect;
use crate::decision::{Contained, Decision, Verdict};
use crate::local::scripts::Lang;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How a run of project code can be fenced for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fencing {
    /// By `sentinel contain` (this binary), the command rewritten. `home` and `sentinel_home`
    /// say which loopback ports it may carry in ([`ports::ports_to_forward`]).
    Contain {
        binary: PathBuf,
        home: Option<PathBuf>,
        sentinel_home: PathBuf,
    },
    /// Already, by Claude Code's own sandbox (`sandbox.enabled`, and the call does not set
    /// `dangerouslyDisableSandbox`).
    AgentSandbox,
    /// Not at all, and why.
    Unfenced(String),
}

impl Fencing {
    pub fn holds(&self) -> bool {
        !matches!(self, Fencing::Unfenced(_))
    }

    /// True when a run that reading leaves uncertain may still be allowed because it is fenced
    /// (what the files it runs would do then counts only for a deny): only sentinel's own
    /// fence, which hides credentials and has no network; Claude Code's sandbox leaves
    /// credentials readable, so there reading decides as it would unfenced.
    pub fn relaxes(&self) -> bool {
        matches!(self, Fencing::Contain { .. })
    }
}

/// What network a run of project code needs for its own work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Network {
    /// None beyond this machine's loopback: the fence's own network holds it.
    Loopback,
    /// Only the package registries its tools fetch dependencies from (`cargo build`, `npm
    /// install`, `go test`): fenced with sentinel's proxy to the hosts of
    /// `rules/contain/registries.txt` and nothing else.
    Registries,
    /// Somewhere else (`git fetch` from its remotes, `curl` of a URL, a send): no fence holds
    /// it, so the call is judged by reading alone, and never allowed on reading alone when the
    /// project's code changed (what reading cannot see, nothing would contain).
    Outside(String),
}

/// Whether the call runs the project's code or a file (its tooling, a task, a script), and if
/// so what network it needs. None: it runs none of the project's code.
pub fn project_run(d: &Decision, project: &Path, sentinel_home: &Path) -> Option<Network> {
    let runs = d.commands.iter().any(|c| {
        c.effects.iter().any(|e| match e {
            // git runs the project's code only through its hooks: with none, a commit runs
            // nothing of the project's (and a fence would only break its signing agent).
            Effect::RunProject if program(&c.text) == "git" => git_hooks(project),
            Effect::RunProject | Effect::RunFile { .. } | Effect::Task { .. } => true,
            // `python -c 'import x'`, `node -e "require('x')"`: what they import is the
            // project's code and its dependencies (a `.pth` runs at every Python start).
            Effect::RunCode { .. } => Lang::of_program(program(&c.text))
                .is_some_and(|l| !matches!(l, Lang::Shell | Lang::Sqlite)),
            _ => false,
        })
    });
    if !runs {
        return None;
    }
    let mut clients: Option<Vec<String>> = None;
    let mut need = Network::Loopback;
    for c in &d.commands {
        let local_only = talks_only_locally(&c.effects);
        for e in &c.effects {
            match e {
                Effect::Fetch => {
                    let clients = clients.get_or_insert_with(|| {
                        let (lines, _) = lists::load(List::RegistryClients, sentinel_home);
                        lines.into_iter().map(|l| l.entry).collect()
                    });
                    // The program, or a wrapper it runs under (`pnpm build` runs `build`).
                    let name = program(&c.text);
                    let known = |n: &str| clients.iter().any(|p| p == n);
                    if !known(name) && !c.via.iter().any(|v| known(program(v))) {
                        return Some(Network::Outside(format!(
                            "`{name}` fetches from places that are not package registries"
                        )));
                    }
                    need = Network::Registries;
                }
                Effect::Receive { .. } | Effect::Send { .. } if !local_only => {
                    return Some(Network::Outside(e.describe()));
                }
                _ => {}
            }
        }
    }
    Some(need)
}

/// True when every network effect of one command stays on this machine (`curl
/// localhost:3000`, a send whose only destinations are local).
fn talks_only_locally(effects: &[Effect]) -> bool {
    let (mut receives, mut sends) = (false, false);
    for e in effects {
        match e {
            Effect::Receive { from } => {
                if !from
                    .known_value()
                    .is_some_and(crate::local::policy::is_local_host)
                {
                    return false;
                }
                receives = true;
            }
            Effect::Send { remote: true, .. } => return false,
            // Sent wherever the command's URLs point: local only when they all are.
            Effect::Send { remote: false, .. } => sends = true,
            _ => {}
        }
    }
    !sends || receives
}

/// The program of a command as the rules print it (its first word).
fn program(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

/// True when the project's git would run hooks: an active file in `.git/hooks` (not a
/// `.sample`), or a `hooksPath` in its config (which may point into the project).
fn git_hooks(project: &Path) -> bool {
    let git = project.join(".git");
    if !git.is_dir() {
        // A worktree's `.git` file, or no repository here: not read, so counted.
        return git.exists();
    }
    let active = std::fs::read_dir(git.join("hooks")).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| !e.file_name().to_string_lossy().ends_with(".sample"))
    });
    // A project's file: never blocking on a FIFO there, bounded.
    let config = crate::config::files::read(
        &git.join("config"),
        crate::config::MAX_CONFIG_BYTES,
        crate::config::files::Links::Follow,
    )
    .map(|b| String::from_utf8_lossy(&b).into_owned())
    .unwrap_or_default();
    active || config.to_ascii_lowercase().contains("hookspath")
}

/// How this call could be fenced. `input` is the agent's tool input; `rewrites` says whether
/// the agent runs a command an `allow` rewrites (Claude Code's `updatedInput`).
pub fn fencing(
    config: &Config,
    project: &Path,
    home: Option<&Path>,
    input: Option<&Value>,
    rewrites: bool,
) -> Fencing {
    if !config.contain.value {
        return Fencing::Unfenced("contain = false in sentinel.toml".into());
    }
    if excepted(&config.contain_except.value, project, home) {
        return Fencing::Unfenced(format!(
            "{} is in contain_except (sentinel.toml)",
            project.display()
        ));
    }
    let unsandboxed = input
        .and_then(|i| i.get("dangerouslyDisableSandbox"))
        .and_then(Value::as_bool)
        == Some(true);
    if !unsandboxed && agent_sandbox_on(project, home, &config.home.value) {
        return Fencing::AgentSandbox;
    }
    if !rewrites {
        return Fencing::Unfenced("this agent cannot run a rewritten command".into());
    }
    if let Availability::Unavailable(why) = availability() {
        return Fencing::Unfenced(why);
    }
    match std::env::current_exe() {
        Ok(binary) => Fencing::Contain {
            binary,
            home: home.map(Path::to_path_buf),
            sentinel_home: config.home.value.clone(),
        },
        Err(e) => Fencing::Unfenced(format!("sentinel's own path is not known ({e})")),
    }
}

/// `answer` (a Tier-1 allow of a run of project code that needs the network `why`) made
/// uncertain: `changed` is a changed file of the project's, which reading may have missed and
/// nothing would contain. The parts that run the project's code are uncertain too, so that no
/// fail path allows them unchecked.
pub fn unfenceable(mut answer: Decision, why: &str, changed: &str) -> Decision {
    answer.verdict = Verdict::Uncertain;
    answer.reason = format!(
        "runs the project's code, which changed ({changed}), and needs the network ({why}): \
         it cannot run fenced, and reading alone does not allow it"
    );
    for c in &mut answer.commands {
        if c.effects.iter().any(|e| {
            matches!(
                e,
                Effect::RunProject
                    | Effect::RunFile { .. }
                    | Effect::Task { .. }
                    | Effect::RunCode { .. }
            )
        }) {
            c.verdict = Verdict::Uncertain;
            c.reason = answer.reason.clone();
        }
    }
    answer
}

/// `answer` (an allow) made to run fenced: the command rewritten (or left to Claude Code's
/// sandbox) and the reason saying so. `original` is the agent's command.
pub fn fence(
    mut answer: Decision,
    how: &Fencing,
    project: &Path,
    registries: bool,
    original: &str,
    input: Option<&Value>,
) -> Decision {
    if answer.verdict != Verdict::Allow {
        return answer;
    }
    match how {
        Fencing::Contain {
            binary,
            home,
            sentinel_home,
        } => {
            let ports = ports::ports_to_forward(home.as_deref(), sentinel_home);
            let command = contained_command(binary, project, &ports, registries, original);
            let mut updated = input
                .cloned()
                .filter(Value::is_object)
                .unwrap_or_else(|| Value::Object(Default::default()));
            updated["command"] = Value::String(command.clone());
            let fence = describe(&ports, registries);
            answer.reason = format!("{}; runs fenced ({fence})", answer.reason);
            answer.contained = Some(Contained {
                command,
                fence,
                updated_input: Some(updated),
            });
        }
        Fencing::AgentSandbox => {
            answer.reason = format!("{}; runs in Claude Code's own sandbox", answer.reason);
        }
        Fencing::Unfenced(_) => {}
    }
    answer
}

/// The fence in a few words, for the reason the agent and the person read: enough to
/// understand a permission error.
fn describe(ports: &[u16], registries: bool) -> String {
    let mut reached = vec!["its own loopback".to_string()];
    if !ports.is_empty() {
        let list: Vec<String> = ports.iter().map(u16::to_string).collect();
        reached.push(format!("this machine's ports {}", list.join(",")));
    }
    if registries {
        reached.push("the package registries (through sentinel's proxy)".into());
    }
    let last = reached.pop().unwrap_or_default();
    let net = if reached.is_empty() {
        format!("no network but {last}")
    } else {
        format!("no network but {} and {last}", reached.join(", "))
    };
    format!(
        "writes kept only in the project and tool caches (the home and temp dirs are copies of its own, gone after); credentials hidden; git's hooks and config and the project's other protected places read-only; {net}"
    )
}

/// True when `project` is one of the person's `contain_except` entries (`~` expands).
fn excepted(list: &[String], project: &Path, home: Option<&Path>) -> bool {
    list.iter().any(|e| {
        let p = match (e.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => h.join(rest),
            _ => PathBuf::from(e),
        };
        let p = std::fs::canonicalize(&p).unwrap_or(p);
        p == project
    })
}

/// Claude Code's settings files, as it reads them: whose they are decides what they may say.
struct AgentSettings {
    /// The organisation's (managed): first in precedence.
    managed: Vec<Value>,
    /// The project's `.claude/settings.local.json` and `.claude/settings.json`: a cloned
    /// repository writes them.
    project: Vec<Value>,
    /// The person's own (`~/.claude/settings.json`, or under `CLAUDE_CONFIG_DIR`).
    user: Vec<Value>,
}

impl AgentSettings {
    fn read(project: &Path, home: Option<&Path>) -> AgentSettings {
        let read = |files: Vec<PathBuf>| -> Vec<Value> {
            files
                .iter()
                .filter_map(|f| {
                    crate::config::files::read(f, 1 << 20, crate::config::files::Links::Follow).ok()
                })
                .filter_map(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
                .collect()
        };
        // Claude Code keeps the person's settings in CLAUDE_CONFIG_DIR when it is set; its
        // user scope has no `settings.local.json`.
        let user_dir = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".claude")));
        AgentSettings {
            managed: read(vec![
                PathBuf::from("/etc/claude-code/managed-settings.json"),
                PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json"),
            ]),
            project: read(vec![
                project.join(".claude/settings.local.json"),
                project.join(".claude/settings.json"),
            ]),
            user: read(
                user_dir
                    .map(|d| d.join("settings.json"))
                    .into_iter()
                    .collect(),
            ),
        }
    }

    fn all(&self) -> impl Iterator<Item = &Value> {
        self.managed.iter().chain(&self.project).chain(&self.user)
    }
}

/// True when Claude Code's own sandbox holds this project's Bash calls, as far as sentinel can
/// tell: `sandbox.enabled` from the managed settings or, when they do not set it, the
/// person's own (never the project's: a cloned repository would switch sentinel's fence off
/// with it; a project that sets it to false does switch the sandbox off, Claude Code reading the
/// project's settings over the person's); and no settings file, the project's included, widens
/// it (`rules/contain/agent_sandbox_widening.txt`, and `Edit(…)`/`Write(…)` allow rules that
/// reach outside the project, which its write list follows). On Linux its bubblewrap must be
/// there, or Claude Code runs the command without it.
fn agent_sandbox_on(project: &Path, home: Option<&Path>, sentinel_home: &Path) -> bool {
    let settings = AgentSettings::read(project, home);
    let enabled = |v: &Value| v.pointer("/sandbox/enabled").and_then(Value::as_bool);
    let on = match settings.managed.iter().find_map(enabled) {
        Some(on) => on,
        None => {
            settings.project.iter().find_map(enabled) != Some(false)
                && settings.user.iter().find_map(enabled) == Some(true)
        }
    };
    if !on {
        return false;
    }
    let (keys, _) = lists::load(List::AgentSandboxWidening, sentinel_home);
    let widened = settings
        .all()
        .any(|v| keys.iter().any(|k| widens(v, &k.entry)))
        || (settings.managed.iter().chain(&settings.user))
            .any(|v| writes_outside(v, project, home, false))
        || (settings.project.iter()).any(|v| writes_outside(v, project, home, true));
    !widened && bubblewrap_there(&settings)
}

/// True when the dotted `key` of the settings `v` is set to anything but false, null or empty.
fn widens(v: &Value, key: &str) -> bool {
    let pointer = format!("/{}", key.replace('.', "/"));
    match v.pointer(&pointer) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// True when an allow rule of `v` lets Claude Code's tools edit outside the project, which its
/// sandbox also lets commands write: `Edit(~/**)`, `Write(//etc/**)`, a bare `Edit`, a path with
/// `..`. A rule `/x` is the settings file's folder's: the project's only in the project's own
/// files (`in_project`).
fn writes_outside(v: &Value, project: &Path, home: Option<&Path>, in_project: bool) -> bool {
    let Some(rules) = v.pointer("/permissions/allow").and_then(Value::as_array) else {
        return false;
    };
    rules.iter().filter_map(Value::as_str).any(|rule| {
        let rule = rule.trim();
        let Some(tool) = ["Edit", "Write", "MultiEdit", "NotebookEdit"]
            .iter()
            .find(|t| {
                rule.strip_prefix(**t)
                    .is_some_and(|r| r.is_empty() || r.starts_with('('))
            })
        else {
            return false;
        };
        let Some(path) = rule[tool.len()..]
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .map(str::trim)
        else {
            // `Edit` alone: every file.
            return true;
        };
        if path.split('/').any(|c| c == "..") {
            return true;
        }
        if let Some(abs) = path.strip_prefix("//") {
            return !crate::local::paths::is_within(&Path::new("/").join(abs), project);
        }
        if let Some(rest) = path.strip_prefix("~/") {
            return home.is_none_or(|h| !crate::local::paths::is_within(&h.join(rest), project));
        }
        path.starts_with('~') || (path.starts_with('/') && !in_project)
    })
}

/// On Linux, Claude Code's sandbox is bubblewrap: without it there, a command runs unsandboxed
/// (unless `failIfUnavailable`, which stops it instead).
fn bubblewrap_there(settings: &AgentSettings) -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let set = |key: &str| settings.all().find_map(|v| v.pointer(key).cloned());
    if set("/sandbox/failIfUnavailable").and_then(|v| v.as_bool()) == Some(true) {
        return true;
    }
    if let Some(path) = set("/sandbox/bwrapPath").and_then(|v| v.as_str().map(PathBuf::from)) {
        return path.is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("bwrap").is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excepted_project_is_named_by_path_or_from_the_home() {
        let home = Path::new("/home/dev");
        assert!(excepted(
            &["~/app".into()],
            Path::new("/home/dev/app"),
            Some(home)
        ));
        assert!(excepted(
            &["/srv/x".into()],
            Path::new("/srv/x"),
            Some(home)
        ));
        assert!(!excepted(
            &["/srv/x".into()],
            Path::new("/srv/y"),
            Some(home)
        ));
    }

    #[test]
    fn the_reason_names_the_ports_that_come_in() {
        assert!(describe(&[], false).contains("no network but its own loopback"));
        assert!(
            describe(&[5432, 6379], false).contains("loopback and this machine's ports 5432,6379")
        );
        assert!(
            describe(&[5432], true).contains("loopback, this machine's ports 5432 and the package")
        );
        assert!(describe(&[], true).contains("package registries"));
    }
}
