//! One policy over effects (SPEC 2.2–2.4). Allowed: reads that are not credentials; writes and
//! deletes inside the project (or a safe path) but not in its protected places; the project's
//! own tooling; local-machine network and the routine fetches a spec names. Denied: destructive
//! spec entries, writes into excluded paths, and anything that would loosen sentinel itself.
//! Everything else is uncertain: Tier 2 or the person decides.

pub mod delete_below;
pub(in crate::local) mod embedded;
pub mod folded;
pub mod judge;
pub mod listing;
pub mod outcome;
mod outside;
mod places;
mod reach;
mod reads;
pub use reads::search_reaches_credential;
mod remotes;
mod repository;
pub use repository::{git_reach, staging_reaches_credential, unprotected_repository};
pub mod signs;
mod tasks;
pub mod token_hosts;
mod toolchain;
mod writes;

use crate::decision::effect::Effect;
use crate::decision::{CommandReport, RuleRef, Verdict};
use crate::local::context::Context;
use crate::local::paths;
use crate::local::paths::credentials;
use crate::local::paths::fs::FileText;
use crate::local::spec::effects::Effects;
use crate::rules::Rules;
use crate::shell::{self, Word, WordKind};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

use places::is_url_like;
pub use places::{
    excluded, guard_file, in_project, in_safe_area, is_local_host, is_temp_ref, protected,
    protected_why, resolve_all, resolve_all_unfollowed, resolve_word, resolve_word_unfollowed,
    socket_path,
};
use reads::{Walking, read};
pub(crate) use writes::landed;
use writes::{delete_below, write};

/// One part's conclusion while a command is being judged.
#[derive(Clone, Debug)]
pub struct Part {
    /// Its verdict.
    pub verdict: Verdict,
    /// Why, in a few words.
    pub reason: String,
    /// The rule or spec line that decided, when one did.
    pub rule: Option<RuleRef>,
    /// Refused because it would loosen sentinel itself: only the person may do it.
    pub person_only: bool,
    /// The command's effects as its spec reads them, for the record.
    pub effects: Vec<Effect>,
}

impl Part {
    /// The report of the command `text` (unwrapped from `via`, run in `cwd` when not the
    /// session's) that this part judged.
    pub fn into_report(self, text: String, via: Vec<String>, cwd: Option<String>) -> CommandReport {
        CommandReport {
            text,
            via,
            verdict: self.verdict,
            reason: self.reason,
            rule: self.rule,
            person_only: self.person_only,
            cwd,
            effects: self.effects,
        }
    }

    /// A part.
    pub fn new(verdict: Verdict, reason: impl Into<String>, rule: Option<RuleRef>) -> Part {
        Part {
            verdict,
            reason: reason.into(),
            rule,
            person_only: false,
            effects: Vec::new(),
        }
    }

    /// A refusal of something that would loosen sentinel itself: only the person may do it.
    pub fn person_only(reason: impl Into<String>) -> Part {
        Part {
            person_only: true,
            ..Part::new(Verdict::Deny, reason, None)
        }
    }

    fn uncertain(reason: impl Into<String>) -> Part {
        Part::new(Verdict::Uncertain, reason, None)
    }
}

/// Writes to these never count as writes to a file.
pub const SINKS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Temporary directories: scratch space, not the project, so writes there are uncertain.
pub const TEMP_DIRS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/private/var/tmp",
    "/private/var/folders",
    "/dev/shm",
];

/// The verdict over a command's effects: the first effect at the highest verdict decides.
/// `cwd` is where the command runs (None after a `cd` sentinel cannot follow).
pub fn judge(effects: &Effects, cwd: Option<&Path>, rules: &Rules, ctx: &Context) -> Part {
    let base = work_dir(effects, cwd, ctx);
    let mut worst: Option<Part> = None;
    // A request body or a method other than GET/HEAD is a send to whatever host it reaches,
    // this machine's included: local HTTP APIs drop databases, start containers and replicate
    // data out as readily as remote ones (issue 28), so no port is exempt.
    for e in &effects.list {
        if let Some(p) = effect(e, base.as_deref(), rules, ctx)
            && worst.as_ref().is_none_or(|w| p.verdict > w.verdict)
        {
            worst = Some(p);
        }
    }
    worst.unwrap_or_else(|| Part::new(Verdict::Allow, "safe", effects.spec.clone()))
}

/// Where the program works: the command's cwd, then each directory its options change into.
/// Borrowed when no option changes it (most commands: nothing to copy).
pub(crate) fn work_dir<'a>(
    effects: &Effects,
    cwd: Option<&'a Path>,
    ctx: &Context,
) -> Option<Cow<'a, Path>> {
    let mut dir = cwd.map(Cow::Borrowed);
    for d in &effects.dirs {
        dir = resolve_word(d, dir.as_deref(), ctx).map(Cow::Owned);
    }
    dir
}

fn effect(e: &Effect, base: Option<&Path>, rules: &Rules, ctx: &Context) -> Option<Part> {
    match e {
        Effect::Read { path, tree } => {
            read(path, tree.then_some(Walking::CONTENT), base, rules, ctx)
        }
        Effect::Walk {
            path,
            names_only,
            links,
            reach,
        } => {
            let walk = Walking {
                names_only: *names_only,
                links: *links,
                reach,
            };
            read(path, Some(walk), base, rules, ctx)
        }
        Effect::Write { path } => write(path, "writes", base, rules, ctx),
        Effect::Mode { path } => write(path, "changes the mode of", base, rules, ctx),
        Effect::RunsFrom { variable, folder } => {
            toolchain::runs_from(variable, folder, base, rules, ctx)
        }
        Effect::WriteInto { dir, from } => {
            let names = landed(dir, from, base, ctx);
            names
                .iter()
                .find_map(|w| write(w, "writes", base, rules, ctx))
        }
        Effect::Delete { path, tree: false } => write(path, "deletes", base, rules, ctx),
        Effect::Delete { path, tree: true } => write(path, "deletes the tree", base, rules, ctx),
        Effect::DeleteBelow {
            path,
            names,
            ignore_case,
            links,
            picked_by,
            tree,
        } => delete_below(
            path,
            (names, *ignore_case, *links, *tree),
            picked_by,
            base,
            rules,
            ctx,
        ),
        Effect::LogsInWith { path, remotes } => {
            let p = resolve_word(path, base, ctx)?;
            let rule = credentials::credential(&p, rules)?;
            // The person's own login sent to the remote their repository names is what it is
            // for; to any other place it is a question.
            if let Some(names) = remotes
                && remotes::all_configured(names, base, ctx)
            {
                return None;
            }
            matches!(
                ctx.fs.read_text(&p, 0),
                FileText::Text(_) | FileText::TooBig | FileText::Binary
            )
            .then(|| {
                Part::uncertain(format!(
                    "reads the credential file {} on its own, to log in with it",
                    credentials::describe(&p, rule)
                ))
            })
        }
        Effect::Creates { path } => {
            let p = resolve_word(path, base, ctx)?;
            (ctx.fs.is_dir(&p) == Some(false) && !in_safe_area(&p, rules, ctx)).then(|| {
                Part::uncertain(format!(
                    "creates {} outside the project on its first run",
                    p.display()
                ))
            })
        }
        Effect::RunProject => {
            let Some(dir) = base else {
                return Some(Part::uncertain(
                    "runs project tooling in a directory not known before it runs",
                ));
            };
            let dir = ctx.fs.real_path(dir);
            (!in_project(&dir, ctx)).then(|| {
                Part::uncertain(format!(
                    "runs the tooling of {}, which is not this project",
                    dir.display()
                ))
            })
        }
        Effect::UsesRepository => match base {
            Some(dir) => unprotected_repository(dir, rules, ctx),
            // `env -C DIR git …`, `cd "$X" && git …`: which repository's config runs is not known.
            None => Some(Part::uncertain(
                "runs git in a directory not known before it runs, whose repository's config and hooks sentinel cannot see",
            )),
        },
        Effect::RunFile { path } => {
            if is_url_like(&path.text) {
                return Some(Part::uncertain(format!(
                    "runs `{}`, code fetched from outside the project",
                    shell::excerpt(&path.text)
                )));
            }
            if path.text == "-" {
                return Some(Part::uncertain("runs code read from stdin"));
            }
            if path.text.trim_start().starts_with(['{', '[']) {
                // `jest --config '{"transform": …}'`: a config that names code, given as text.
                return Some(Part::uncertain(format!(
                    "runs with a config given as text: {}",
                    shell::excerpt(&path.text)
                )));
            }
            if path.kind == WordKind::Computed {
                return Some(Part::uncertain(format!(
                    "runs `{}`, a file chosen at run time",
                    shell::excerpt(&path.text)
                )));
            }
            // A file run is read first: `source .env` reads a credential into the shell.
            if let Some(p) = read(path, None, base, rules, ctx) {
                return Some(p);
            }
            let Some(found) = resolve_all(path, base, ctx) else {
                return Some(Part::uncertain(format!(
                    "runs `{}`, which is not known before it runs",
                    path.text
                )));
            };
            for p in found {
                if !in_project(&p, ctx) || protected(&p, rules, ctx).is_some() {
                    return Some(Part::uncertain(format!(
                        "runs {}, which is not the project's own",
                        p.display()
                    )));
                }
            }
            None
        }
        Effect::RunProgram { program } => {
            Some(Part::uncertain(format!("runs another program: {program}")))
        }
        Effect::RunCode { code } => {
            Some(Part::uncertain(format!("runs code given as text: {code}")))
        }
        Effect::Fetch => None,
        // The person's own remote, by its URL, is what a fetch is for; any other is a question.
        // This machine is as local a source as for any other fetch.
        Effect::FetchFrom { from } if from.known_value().is_some_and(is_local_host) => None,
        Effect::FetchFrom { from } => {
            (!remotes::all_configured(std::slice::from_ref(from), base, ctx)).then(|| {
                Part::uncertain(format!(
                    "fetches from `{}`, a repository that is not one of the project's remotes",
                    shell::excerpt(&from.text)
                ))
            })
        }
        Effect::Receive { from } => match from.known_value() {
            Some(v) if is_local_host(v) => destroying_query(v),
            _ => Some(Part::uncertain(format!(
                "fetches from `{}` over the network",
                shell::excerpt(&from.text)
            ))),
        },
        Effect::Send { what, .. } => Some(Part::uncertain(format!(
            "sends data over the network ({what})"
        ))),
        Effect::AsUser { user } => Some(Part::uncertain(format!("acts as the user `{user}`"))),
        Effect::Install { package } => Some(Part::uncertain(format!(
            "installs `{package}`, a new dependency named on the command line"
        ))),
        Effect::Task { name } => {
            let Some(task) = name.known_value().filter(|n| !n.is_empty()) else {
                return Some(Part::uncertain(format!(
                    "runs the project task `{}`, whose name is not known until it runs",
                    name.text
                )));
            };
            tasks::judge(task).map(|(verdict, why, rule)| {
                Part::new(
                    verdict,
                    format!("runs the project task `{task}`: {why}"),
                    rule,
                )
            })
        }
        Effect::Destroy { why, rule } => {
            let mut rule = rule.clone();
            rule.why = Some(why.clone().into());
            let shown = why.split("; instead:").next().unwrap_or(why).trim();
            Some(Part::new(Verdict::Deny, shown.to_string(), Some(rule)))
        }
        Effect::Review { why, rule } => Some(Part::new(
            Verdict::Uncertain,
            why.clone(),
            Some(rule.clone()),
        )),
        Effect::Unknown { why } => Some(Part::uncertain(why.clone())),
    }
}

/// The first credential the effects read, if any (for the exfiltration check).
pub fn credential_read(
    effects: &Effects,
    cwd: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<String> {
    let base = work_dir(effects, cwd, ctx);
    effects.list.iter().find_map(|e| match e {
        Effect::Read { path, .. } | Effect::Walk { path, .. } => {
            resolve_all(path, base.as_deref(), ctx)?
                .into_iter()
                .find_map(|p| {
                    credentials::credential(&p, rules).map(|r| credentials::describe(&p, r))
                })
        }
        _ => None,
    })
}

/// True when the command names network destinations and every one is on this machine.
fn talks_only_locally(effects: &Effects) -> bool {
    let mut any = false;
    for e in &effects.list {
        match e {
            Effect::Receive { from } => {
                if !from.known_value().is_some_and(is_local_host) {
                    return false;
                }
                any = true;
            }
            Effect::Send { remote: true, .. } => return false,
            _ => {}
        }
    }
    any
}

/// What the effects send off this machine, if anything: data sent, or a fetch from another host
/// (a URL can carry data out in its query).
pub fn egress(effects: &Effects) -> Option<String> {
    if talks_only_locally(effects) {
        return None;
    }
    effects.list.iter().find_map(|e| match e {
        Effect::Send { what, .. } => Some(what.clone()),
        Effect::Receive { from } if !from.known_value().is_some_and(is_local_host) => {
            Some(format!("a request to {}", shell::excerpt(&from.text)))
        }
        _ => None,
    })
}

/// A query string sent to this machine is judged as a body is:
/// `localhost:8123/?query=DROP%20TABLE%20users` drops the table on a database's HTTP interface
/// (ClickHouse, CrateDB, InfluxDB). One to another host is reviewed as a request out anyway (a
/// search for "drop table" is no wipe).
fn destroying_query(url: &str) -> Option<Part> {
    let (_, query) = url.split_once('?')?;
    let rule = crate::local::destructive_words::destructive_text(
        &crate::ledger::secrets::percent_decoded(query),
    )?;
    let why = rule.why.as_deref().unwrap_or("destroys data").to_string();
    let shown = why.split("; instead:").next().unwrap_or(&why).trim();
    Some(Part::new(Verdict::Deny, shown.to_string(), Some(rule)))
}

#[cfg(test)]
mod tests;
