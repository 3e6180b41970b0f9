//! One call run through the tiers: the layers load, Tier 1 decides, an allow-once grant or the
//! later tiers settle the answer. `sentinel hook`, `check` and `explain` all ask through
//! [`answer`]; they differ only in how the question is put ([`Purpose`]) and in what they do
//! with the answer (print it, render it, explain it, record it).

use crate::call::ToolCall;
use crate::config::{self, Config};
use crate::contain::answer as fence;
use crate::decision::taint::{Mark, Taint};
use crate::decision::{Decision, Tier, Verdict};
use crate::evaluator::edits;
use crate::evaluator::tiers::{self, Session};
use crate::ledger::changed;
use crate::ledger::taint;
use crate::ledger::written::{self, Written};
use crate::ledger::{allow_once, record};
use crate::local::context::Context;
use crate::local::paths::fs::RealFs;
use crate::local::paths::memo_fs::MemoFs;
use crate::local::paths::programs::SearchPath;
use crate::local::rules::project::{self, Layered};
use crate::text;
use std::path::{Path, PathBuf};

/// What the answer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The agent's call (`sentinel hook`): the person's allow-once grant for it is used up, and
    /// a local deny offers a code (not in shadow mode, where sentinel must leave no trace the
    /// agent could see).
    Hook { shadow: bool },
    /// A preview by hand (`check`, `explain`): no grant is used or offered; `offline` stops at
    /// Tier 1's own verdict.
    Preview { offline: bool },
}

/// Where the session's taint comes from.
#[derive(Clone, Copy, Debug)]
pub enum TaintFrom<'a> {
    /// The session's marks in SENTINEL_HOME (the hook's; none without a session id).
    Session,
    /// Assumed by the person (`check --tainted`): as if untrusted content had just come in.
    Assumed(&'a str),
    /// None.
    Clean,
}

/// One call to decide, and what the tiers need to know about where it comes from.
pub struct Question<'a> {
    pub call: &'a ToolCall,
    /// The directory the call runs in, absolute.
    pub cwd: &'a Path,
    pub session: Session<'a>,
    pub taint: TaintFrom<'a>,
    pub purpose: Purpose,
    /// The agent's whole tool input of a Bash call, when it can run a rewritten one (Claude
    /// Code's `updatedInput`): a run of project code may then go fenced.
    pub rewritable: Option<&'a serde_json::Value>,
    /// The agent's hook cannot answer `ask` (Codex CLI, Gemini CLI: it would run the call): a
    /// call that needs the person is refused instead, with an allow-once code (its name).
    pub without_ask: Option<&'a str>,
}

/// The answer and what it was decided from.
pub struct Answered {
    /// The configuration and rules with the project's layer.
    pub layered: Layered,
    /// The person's home directory.
    pub user_home: Option<PathBuf>,
    /// Tier 1's decision (None: sentinel has no opinion on this tool).
    pub local: Option<Decision>,
    /// The answer to give (None: say nothing, the agent's own permission flow decides).
    pub answer: Option<Decision>,
    /// What could not be kept while answering (the session's ledger of written files), one
    /// line each: recorded with the decision, and said on stderr.
    pub unkept: Vec<String>,
    /// Warnings for stderr (a `HOME` the project could have set, set aside).
    pub warnings: Vec<String>,
}

/// Runs `q` through the tiers under the person's configuration `base`.
pub fn answer(base: &Config, q: &Question) -> Answered {
    let project_root = project::root(q.cwd, project::named_by_agent().as_deref());
    // What `~` means: the person's HOME, unless the project could have set it.
    let judged = config::home::judged(&project_root, q.cwd);
    let user_home = judged.home;
    // The project's `.sentinel/` may make the configuration stricter (or laxer, once trusted).
    let layered = Layered::load(base, q.cwd, user_home.as_deref());
    let config = &layered.config;
    let taint = match q.taint {
        TaintFrom::Session => taint::read(
            &config.home.value,
            q.session.id.unwrap_or(""),
            config.taint_max_age_hours.value.saturating_mul(3_600_000),
            crate::clock::now_ms(),
        ),
        TaintFrom::Assumed(by) => Some(Taint {
            marks: vec![Mark {
                tool: by.to_string(),
                ts_ms: crate::clock::now_ms(),
            }],
        }),
        TaintFrom::Clean => None,
    };
    // The session's written files and the project's changed ones, read only when a call runs
    // something (issue 29).
    let writes = SessionLedger {
        home: &config.home.value,
        session: match q.taint {
            TaintFrom::Session => q.session.id.unwrap_or(""),
            _ => "",
        },
        project: &project_root,
        read: std::cell::OnceCell::new(),
    };
    // A bare name runs what the agent's shell finds through PATH, which it inherits.
    let programs = SearchPath::from_env();
    // One decision's look at the file system: each folder resolved once (memo_fs).
    let fs = MemoFs::new();
    let ctx = Context::new(
        q.cwd,
        user_home.as_deref(),
        &config.home.value,
        &fs,
        taint.as_ref(),
    )
    .with_project(&project_root)
    .with_writes(&writes)
    .with_programs(&programs);
    let local = layered
        .decide(q.call, &ctx, user_home.as_deref())
        .map(|d| unverified_project(d, q.call, &config.home.value, ctx.project()))
        .map(|d| {
            crate::carried_secrets::refuse_carried_secrets(
                d,
                q.call,
                &config.home.value,
                q.session.id.unwrap_or(""),
            )
        });
    // A run of project code that reading alone leaves uncertain may still run, fenced: judged
    // again as fenced, what the files it runs would do counts only for a deny.
    let project_run = |local: &Decision| {
        matches!(q.call, ToolCall::Shell { .. })
            .then(|| fence::project_run(local, ctx.project(), &config.home.value))
            .flatten()
    };
    let fencing = std::cell::OnceCell::new();
    let fencing_for = |local: &Decision| {
        let registries = match project_run(local)? {
            fence::Network::Loopback => false,
            fence::Network::Registries => true,
            fence::Network::Outside(_) => return None,
        };
        let how = fencing.get_or_init(|| {
            fence::fencing(
                config,
                ctx.project(),
                user_home.as_deref(),
                q.rewritable,
                q.rewritable.is_some() || matches!(q.purpose, Purpose::Preview { .. }),
            )
        });
        Some((how, registries))
    };
    let local = match local {
        Some(l)
            if l.verdict == Verdict::Uncertain
                && fencing_for(&l).is_some_and(|(how, _)| how.relaxes()) =>
        {
            let fenced_ctx = Context::new(
                q.cwd,
                user_home.as_deref(),
                &config.home.value,
                &fs,
                taint.as_ref(),
            )
            .with_project(ctx.project())
            .with_writes(&writes)
            .with_programs(&programs)
            .with_fenced(true);
            match layered.decide(q.call, &fenced_ctx, user_home.as_deref()) {
                Some(f) if f.verdict == Verdict::Allow => Some(f),
                _ => Some(l),
            }
        }
        // A run of project code that needs the network beyond the registries runs unfenced:
        // reading alone allows it only when none of the project's code changed.
        Some(l) if l.verdict == Verdict::Allow => match project_run(&l) {
            Some(fence::Network::Outside(why)) => match changed_project_file(&ctx) {
                Some(file) => Some(fence::unfenceable(l, &why, &file)),
                None => Some(l),
            },
            _ => Some(l),
        },
        other => other,
    };
    let answer = match (&local, q.purpose) {
        (None, _) => None,
        (Some(local), Purpose::Preview { offline: true }) => Some(local.clone()),
        // An in-project edit where the person's mode asks for edits: their prompt stands. A
        // preview shows it only when given a mode (`check --permission-mode default`).
        (Some(local), purpose)
            if (matches!(purpose, Purpose::Hook { .. }) || q.session.permission_mode.is_some())
                && edits::defer_to_agent(
                    q.call,
                    local,
                    config.approve_edits.value,
                    q.session.permission_mode,
                ) =>
        {
            None
        }
        (Some(local), Purpose::Preview { offline: false }) => {
            tiers::resolve(Some(local.clone()), q.call, config, &q.session)
        }
        (Some(local), Purpose::Hook { shadow }) => match allowed_once(config, q.call, local) {
            Some(pass) => Some(pass),
            None => tiers::resolve(Some(local.clone()), q.call, config, &q.session)
                .map(|answer| match q.without_ask {
                    Some(agent) => refused_for_the_person(answer, agent),
                    None => answer,
                })
                .map(|answer| offer_code(config, q.call, answer, shadow)),
        },
    };
    // The fail path deferred to the agent's own gate: no answer, but the record keeps what
    // Tier 2 did (the error it met).
    let (local, answer) = match (local, answer) {
        (Some(mut local), Some(deferred))
            if deferred.tier == Tier::Fail && deferred.verdict == Verdict::Uncertain =>
        {
            local.tier = deferred.tier;
            local.reason = deferred.reason;
            local.api = deferred.api;
            (Some(local), None)
        }
        other => other,
    };
    // Guard mode never allows: an allow is left to the agent's own permission flow.
    let answer = match answer {
        Some(a) if a.verdict == Verdict::Allow && config.mode.value == config::Mode::Guard => None,
        other => other,
    };
    // Whichever tier allowed it, a run of project code runs fenced where it can be.
    let answer = match (answer, &local, q.call) {
        (Some(a), Some(l), ToolCall::Shell { command }) if a.verdict == Verdict::Allow => {
            match fencing_for(l) {
                Some((how, registries)) => Some(fence::fence(
                    a,
                    how,
                    ctx.project(),
                    registries,
                    command,
                    q.rewritable,
                )),
                None => Some(a),
            }
        }
        (other, _, _) => other,
    };
    let mut answer = answer;
    let mut unkept = Vec::new();
    if let (Some(local), Purpose::Hook { .. }) = (&local, q.purpose)
        && answer.as_ref().is_none_or(|a| a.verdict != Verdict::Deny)
    {
        // The call may run: what it writes becomes the session's, read before it runs later.
        match note_writes(config, q, local, user_home.as_deref()) {
            Ok(None) => {}
            Ok(Some(lost)) => unkept.push(lost),
            // Not remembered, and not marked as forgotten: it does not run unseen.
            Err(why) => {
                answer = Some(unremembered(local, &why));
                unkept.push(why);
            }
        }
    }
    // A broken organisation's policy is never a looser one: every call asks (a deny stays).
    let (local, answer) = match layered.managed_broken() {
        Some(why) => under_broken_policy(q.call, local, answer, &why),
        None => (local, answer),
    };
    Answered {
        layered,
        user_home,
        local,
        answer,
        unkept,
        warnings: judged.warning.into_iter().collect(),
    }
}

/// The decision and answer while the organisation's policy is broken: a deny stands; anything
/// else (an allow, no answer, a call sentinel has no opinion on) asks, saying why.
fn under_broken_policy(
    call: &ToolCall,
    local: Option<Decision>,
    answer: Option<Decision>,
    why: &str,
) -> (Option<Decision>, Option<Decision>) {
    if answer.as_ref().is_some_and(|a| a.verdict == Verdict::Deny) {
        return (local, answer);
    }
    let reason = format!(
        "sentinel[policy]: the organisation's sentinel policy cannot be used ({}); every call asks until it is fixed",
        text::one_line(why)
    );
    let ask = Decision::local(call.tool(), Verdict::Ask, reason, None);
    let local = match local {
        Some(mut l) => {
            l.verdict = Verdict::Ask;
            l.tier = Tier::Local;
            l.reason = ask.reason.clone();
            Some(l)
        }
        None => Some(ask.clone()),
    };
    (local, Some(ask))
}

/// The `ask` for a call whose writes the session's ledger could not take.
fn unremembered(local: &Decision, why: &str) -> Decision {
    let mut d = local.clone();
    d.verdict = Verdict::Ask;
    d.tier = Tier::Local;
    d.contained = None;
    d.warning = None;
    d.reason = format!(
        "sentinel[local]: ask: sentinel cannot remember what this call writes ({why}), so a later run of those files could not be read first; the person decides"
    );
    d
}

/// The files that count as the agent's: the session's ledger of written files and the project's
/// files changed since the person's baseline (any means, any session), read on first use.
struct SessionLedger<'a> {
    home: &'a Path,
    session: &'a str,
    project: &'a Path,
    read: std::cell::OnceCell<Written>,
}

impl crate::local::context::SessionWrites for SessionLedger<'_> {
    fn written(&self) -> &Written {
        self.read.get_or_init(|| {
            let mut both = written::read(self.home, self.session);
            let seen = changed::observe(self.home, self.project, std::time::SystemTime::now());
            both.full |= seen.full;
            let noted: std::collections::HashSet<PathBuf> = both.paths.iter().cloned().collect();
            both.paths
                .extend(seen.paths.into_iter().filter(|p| !noted.contains(p)));
            both
        })
    }
}

/// Adds what `local`'s call writes to the session's ledger (a write that fails is not a verdict:
/// the file is then read as any project file is).
/// A git or direnv call in a project a fenced run left unverified (its look after the run could
/// not go through every folder): a nested repository's config or a `.envrc` it left may be
/// unseen, and git and direnv run what they say (docs/containment.md). Asked, whatever Tier 1
/// found, short of a deny.
fn unverified_project(
    mut d: Decision,
    call: &ToolCall,
    sentinel_home: &Path,
    project: &Path,
) -> Decision {
    use crate::contain::unverified;
    if matches!(call, ToolCall::Shell { .. })
        && d.verdict < Verdict::Ask
        && d.commands
            .iter()
            .any(|c| unverified::runs_hidden_config(&c.text))
        && unverified::since(sentinel_home, project).is_some()
    {
        d.verdict = Verdict::Ask;
        d.rule = None;
        d.reason = format!(
            "sentinel[local]: ask: a fenced run left {} unverified (too many folders to look through for a .git or .envrc it made); git and direnv there run what such files say. A complete look clears it: `sentinel contain --project DIR -- true`",
            project.display()
        );
    }
    d
}

/// A file of the project that changed (the session wrote it, or it differs from what the
/// person had), shown in a reason; None when the project's code is all the person's.
fn changed_project_file(ctx: &Context) -> Option<String> {
    let written = ctx.writes.written();
    if written.full {
        return Some("more changed files than sentinel keeps track of".into());
    }
    written
        .paths
        .iter()
        .find(|p| crate::local::policy::in_project(p, ctx) && ctx.fs.is_dir(p) != Some(true))
        .map(|p| {
            p.strip_prefix(ctx.project())
                .unwrap_or(p)
                .display()
                .to_string()
        })
}

/// Adds what the call writes to the session's ledger. `Ok(Some(why))`: the append failed but
/// the ledger is marked lost (it reads as full); `Err(why)`: not even that.
fn note_writes(
    config: &Config,
    q: &Question,
    local: &Decision,
    home: Option<&Path>,
) -> Result<Option<String>, String> {
    use crate::local::paths::fs::Fs as _;
    let Some(session) = q.session.id.filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let found = crate::local::scripts::writes::written_paths(q.call, local, home);
    if found.is_empty() {
        return Ok(None);
    }
    let real: Vec<PathBuf> = found.iter().map(|p| RealFs.real_path(p)).collect();
    match written::note(&config.home.value, session, &real) {
        Ok(written::Noted::Recorded | written::Noted::Full) => Ok(None),
        Ok(written::Noted::Lost(why)) => Ok(Some(format!(
            "written-file ledger not recorded ({}); it counts every file as the agent's",
            text::one_line(&why)
        ))),
        Err(e) => Err(format!(
            "written-file ledger not recorded ({})",
            text::one_line(&e.to_string())
        )),
    }
}

/// The person's allow-once grant for exactly this refused call, used up now, as the answer.
fn allowed_once(config: &Config, call: &ToolCall, local: &Decision) -> Option<Decision> {
    // A grant exists only for a call refused with its code: a deny, or (for an agent without
    // an ask) a call that needed the person.
    if local.verdict == Verdict::Allow || local.person_only {
        return None;
    }
    let subject = record::subject(call, local);
    let now = crate::clock::now_ms();
    let code = allow_once::consume(&config.home.value, &local.tool, &subject, &local.cwd, now)
        .ok()
        .flatten()?;
    let mut pass = local.clone();
    pass.verdict = Verdict::Allow;
    pass.reason = format!(
        "sentinel[local]: allowed once: the person ran `sentinel allow-once {}` for exactly this call (Tier 1 said: {})",
        code.code, local.reason
    );
    pass.warning = Some(format!(
        "sentinel: allow-once {} used for: {}",
        code.code,
        text::excerpt(&subject)
    ));
    Some(pass)
}

/// The answer for an agent whose hook cannot ask: what needs the person is refused, with a
/// reason that says so (the code to approve it is added by [`offer_code`]). Silence would let
/// it run unasked.
fn refused_for_the_person(mut answer: Decision, agent: &str) -> Decision {
    if matches!(answer.verdict, Verdict::Ask | Verdict::Uncertain) {
        answer.verdict = Verdict::Deny;
        answer.needs_person = true;
        answer.reason = format!(
            "{} — this needs the person's approval, which a {agent} hook cannot ask for.",
            answer.reason
        );
    }
    answer
}

/// A local deny gets a code the person can grant with `sentinel allow-once CODE`; the reason
/// tells the agent so. Not for refusals only the person may override by hand, nor in shadow mode.
fn offer_code(config: &Config, call: &ToolCall, mut answer: Decision, shadow: bool) -> Decision {
    if shadow
        || answer.verdict != Verdict::Deny
        || (answer.tier != Tier::Local && !answer.needs_person)
        || answer.person_only
    {
        return answer;
    }
    let subject = record::subject(call, &answer);
    match allow_once::issue(
        &config.home.value,
        &answer.tool,
        &subject,
        &answer.cwd,
        &answer.reason,
        crate::clock::now_ms(),
    ) {
        Ok(code) => {
            answer.reason = format!(
                "{} If the person wants exactly this call to run, ask them to run `sentinel allow-once {code}` in their own terminal (valid 10 minutes), then try the same call again.",
                answer.reason
            );
        }
        // No code, no harm: the deny stands and says so.
        Err(e) => {
            answer.reason = format!(
                "{} (no allow-once code: {})",
                answer.reason,
                text::one_line(&e.to_string())
            );
        }
    }
    answer
}
