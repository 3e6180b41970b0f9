//! Whether an answer runs fenced: a Bash call that runs project code (its tests, a build, a
//! script) and is allowed runs under `sentinel contain`, or in Claude Code's own sandbox when
//! that is on; where neither can hold it, the answer stays what reading alone decided.

use crate::config::Config;
use crate::contain::lists::{self, List};
use crate::contain::{Availability, availability, contained_command, forward};
use crate::decision::effect::Effect;
use crate::decision::{Contained, Decision, Verdict};
use crate::local::scripts::Lang;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How a run of project code can be fenced for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fencing {
    /// By `sentinel contain` (this binary), the command rewritten.
    Contain { binary: PathBuf },
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
    let config = std::fs::read_to_string(git.join("config")).unwrap_or_default();
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
    if !unsandboxed && agent_sandbox_on(project, home) {
        return Fencing::AgentSandbox;
    }
    if !rewrites {
        return Fencing::Unfenced("this agent cannot run a rewritten command".into());
    }
    if let Availability::Unavailable(why) = availability() {
        return Fencing::Unfenced(why);
    }
    match std::env::current_exe() {
        Ok(binary) => Fencing::Contain { binary },
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
        Fencing::Contain { binary } => {
            let ports = forward::listening_loopback_ports();
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
        "writes only in the project, tool caches and temp dirs of its own; credentials hidden; git's hooks and config and the project's other protected places read-only; {net}"
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

/// Claude Code's `sandbox.enabled`, from the first of its settings files that sets it:
/// managed, the project's local, the project's, the person's. A sandbox that any of them lets
/// commands leave (`excludedCommands`, `allowUnsandboxedCommands`) does not count: which
/// command it lets out is not sentinel's to guess.
fn agent_sandbox_on(project: &Path, home: Option<&Path>) -> bool {
    let mut files = vec![
        PathBuf::from("/etc/claude-code/managed-settings.json"),
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json"),
        project.join(".claude/settings.local.json"),
        project.join(".claude/settings.json"),
    ];
    if let Some(h) = home {
        files.push(h.join(".claude/settings.json"));
    }
    let mut enabled = None;
    for f in files {
        let Ok(bytes) =
            crate::config::files::read(&f, 1 << 20, crate::config::files::Links::Follow)
        else {
            continue;
        };
        let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let Some(sandbox) = v.get("sandbox") else {
            continue;
        };
        let leaves = sandbox
            .get("excludedCommands")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
            || sandbox
                .get("allowUnsandboxedCommands")
                .and_then(Value::as_bool)
                == Some(true);
        if leaves {
            return false;
        }
        if enabled.is_none() {
            enabled = sandbox.get("enabled").and_then(Value::as_bool);
        }
    }
    enabled.unwrap_or(false)
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
