//! What runs is read first (SPEC 2.3, issue 29). A command that runs a file — directly (`sh f`,
//! `./f`, `source f`, `python3 f`, `node f` …), through a tool that runs the project's files
//! (`make` → the makefile's recipes, `npm test` / `yarn NAME` → `package.json` scripts, `pytest`
//! → `conftest.py`, `cargo build` → `build.rs`, `sqlite3 -init F`), or as text (`python -c`,
//! a here-doc fed to an interpreter, `php artisan tinker --execute`) — is judged by what it runs:
//!
//! - shell text (a script, a recipe line, a package script) by Tier 1 itself, in the directory
//!   it runs in: a deny inside is a deny of the call, naming the file and line;
//! - interpreter code by the calls [`code`] finds in it: a delete or a command whose literal
//!   Tier 1 denies, or a send from code that names a credential file, is a deny; any other
//!   delete, command run or send, or a write outside the project, is uncertain.
//!
//! Whose file it is decides how much of that counts. The agent's files — written in this session
//! ([`crate::ledger::written`]), or by an earlier part of this same command — count in full and
//! are never allowed unread: too big, binary or unreadable is uncertain. The project's other
//! files (sentinel does not ask git what is committed: that would cost a process per hook) only
//! count for a deny. The files the
//! session wrote that a run of the project could load (its code in the languages the run loads,
//! [`loads`]; `.pth`; files without an extension, `node_modules/.bin`) are read when the
//! project's code runs.
//!
//! Bounds: 256 KiB a file, 16 files a command, scripts nested 3 deep, and for one call in all
//! 48 files, 2 MiB and 1 s of reading; past them, what is not read is uncertain.

pub mod bins;
mod code;
mod code_cursor;
pub mod js_code;
mod lang;
mod loads;
mod make;
mod package;
pub mod python_code;
mod sources;
mod texts;
pub mod writes;

pub use lang::Lang;

use crate::decision::Verdict;
use crate::decision::effect::Effect;
use crate::local::context::Context;
use crate::local::paths::fs::FileText;
use crate::local::policy::Part;
use crate::rules::Rules;
use crate::shell::{RedirectKind, SimpleCommand};
use sources::{Body, Source, sources};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use texts::{judge_code, judge_shell, max_part};

/// The largest file read; a larger one of the agent's is uncertain.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Files read for one call, at most.
const MAX_FILES: usize = 16;
/// Scripts that run scripts, at most this deep.
const MAX_DEPTH: u8 = 3;
/// Makefile recipe lines judged for one `make`, at most.
const MAX_RECIPE_LINES: usize = 400;

/// Tier 1 on a shell command, in a context: given by the caller (`decide`), which this module
/// may not import back.
pub type Tier1<'a> = &'a dyn Fn(&str, &Context) -> crate::decision::Decision;

/// A file written by an earlier part of the command being judged, and what it will hold when
/// that is known (`echo TEXT > f`, `cat > f <<EOF`).
#[derive(Clone, Debug)]
pub struct Pending {
    pub path: PathBuf,
    pub text: Option<String>,
}

/// What one call may read in all, nested scripts included: files, bytes, and time.
const MAX_CALL_FILES: u32 = 48;
const MAX_CALL_BYTES: u64 = 2 * 1024 * 1024;
const MAX_CALL_TIME: std::time::Duration = std::time::Duration::from_millis(1000);

thread_local! {
    // How deep in scripts judging scripts this thread is: Tier 1 judges a script by calling
    // itself, and a script that runs itself must end.
    static DEPTH: Cell<u8> = const { Cell::new(0) };
    // What the call being judged may still read (reset for each call at depth 0).
    static BUDGET: Cell<(u32, u64)> = const { Cell::new((0, 0)) };
    static STARTED: Cell<Option<std::time::Instant>> = const { Cell::new(None) };
}

/// Takes one file of `bytes` from the call's budget; false when it is spent.
fn take_budget(bytes: u64) -> bool {
    let (files, left) = BUDGET.with(Cell::get);
    let late = STARTED
        .with(Cell::get)
        .is_some_and(|t| t.elapsed() > MAX_CALL_TIME);
    if files == 0 || left < bytes || late {
        return false;
    }
    BUDGET.with(|b| b.set((files - 1, left - bytes)));
    true
}

/// Whether a command may run a file or code: only such commands are looked at further, so a
/// call that runs nothing pays one scan of its effects.
fn may_run(cmd: &SimpleCommand, effects: &[Effect]) -> bool {
    effects.iter().any(|e| {
        matches!(
            e,
            Effect::RunFile { .. }
                | Effect::RunProject
                | Effect::Task { .. }
                | Effect::RunCode { .. }
        )
    }) || matches!(
        cmd.name(),
        "npm" | "yarn" | "pnpm" | "bun" | "make" | "gmake"
    ) || (Lang::of_program(cmd.name()).is_some()
        && cmd
            .redirects
            .iter()
            .any(|r| matches!(r.kind, RedirectKind::HereDoc | RedirectKind::HereString)))
}

/// The verdict of what `cmd` runs, when reading it finds something; None when it runs nothing
/// or what it runs shows nothing. `effects` are the command's, `cwd` where it runs, `pending`
/// the files earlier parts of the same command write.
pub fn judge(
    cmd: &SimpleCommand,
    effects: &[Effect],
    cwd: Option<&Path>,
    pending: &[Pending],
    rules: &Rules,
    ctx: &Context,
    tier1: Tier1,
) -> Option<Part> {
    if !may_run(cmd, effects) {
        return None;
    }
    let cwd = cwd?;
    let depth = DEPTH.with(Cell::get);
    if depth >= MAX_DEPTH {
        return Some(Part::new(
            Verdict::Uncertain,
            format!("scripts run scripts more than {MAX_DEPTH} deep: not read further"),
            None,
        ));
    }
    if depth == 0 {
        BUDGET.with(|b| b.set((MAX_CALL_FILES, MAX_CALL_BYTES)));
        STARTED.with(|t| t.set(None));
    }
    DEPTH.with(|d| d.set(depth + 1));
    let out = judge_sources(cmd, effects, cwd, pending, rules, ctx, tier1);
    DEPTH.with(|d| d.set(depth));
    // Fenced, the files a call runs count only for what reading them denies: whatever else
    // they do (a delete outside the project, a send, code sentinel cannot follow) meets the
    // fence instead of the person.
    if ctx.fenced && depth == 0 {
        return out.filter(|p| p.verdict >= Verdict::Ask);
    }
    out
}

fn judge_sources(
    cmd: &SimpleCommand,
    effects: &[Effect],
    cwd: &Path,
    pending: &[Pending],
    rules: &Rules,
    ctx: &Context,
    tier1: Tier1,
) -> Option<Part> {
    let mut sources = sources(cmd, effects, cwd, pending, ctx);
    let written = ctx.writes.written();
    for s in &mut sources {
        if let Body::File(p) | Body::Makefile(p, _) = &s.body {
            s.agents |=
                written.full || written.paths.contains(p) || pending.iter().any(|w| &w.path == p);
        }
    }
    let mut worst: Option<Part> = None;
    for (i, s) in sources.iter().enumerate() {
        let part = if i >= MAX_FILES {
            s.agents.then(|| {
                uncertain(format!(
                    "runs more than {MAX_FILES} files sentinel would read first; {} is not read",
                    s.shown
                ))
            })
        } else {
            judge_source(s, pending, rules, ctx, tier1)
        };
        if let Some(p) = part
            && worst.as_ref().is_none_or(|w| p.verdict > w.verdict)
        {
            worst = Some(p);
        }
        if worst.as_ref().is_some_and(|w| w.verdict == Verdict::Deny) {
            break;
        }
    }
    worst
}

/// An uncertain part.
fn uncertain(why: String) -> Part {
    Part::new(Verdict::Uncertain, why, None)
}

/// One source judged.
fn judge_source(
    s: &Source,
    pending: &[Pending],
    rules: &Rules,
    ctx: &Context,
    tier1: Tier1,
) -> Option<Part> {
    if STARTED.with(Cell::get).is_none() {
        STARTED.with(|t| t.set(Some(std::time::Instant::now())));
    }
    let (text, first_line) = match &s.body {
        Body::Text(t, line) => (t.clone(), *line),
        Body::File(p) | Body::Makefile(p, _) => {
            if let Some(w) = pending.iter().find(|w| &w.path == p) {
                match &w.text {
                    Some(t) => (t.clone(), 1),
                    None => {
                        return Some(uncertain(format!(
                            "runs {}, which this same command writes first: what it will hold is not known before it runs",
                            s.shown
                        )));
                    }
                }
            } else {
                match ctx.fs.read_text(p, MAX_FILE_BYTES) {
                    FileText::Text(t) => (t, 1),
                    // A file the session wrote that is not there yet (a Write still waiting for
                    // the person, or running in parallel): it is never run unread. A file
                    // nobody wrote that is not there runs nothing.
                    FileText::Missing if s.direct && s.agents => {
                        return Some(uncertain(format!(
                            "runs {}, which the session writes but is not there yet: it is never run unread",
                            s.shown
                        )));
                    }
                    FileText::Missing => return None,
                    // Read only in case the run loads it: what cannot be read is left out
                    // (a file the call runs directly is never run unread, above and below).
                    _ if s.extra => return None,
                    other if s.agents => {
                        let why = match other {
                            FileText::TooBig => format!("is over {} KiB", MAX_FILE_BYTES / 1024),
                            FileText::Binary => "is not text".to_string(),
                            _ => "cannot be read".to_string(),
                        };
                        return Some(uncertain(format!(
                            "runs {}, written in this session, which {why}: it is never run unread",
                            s.shown
                        )));
                    }
                    _ => return None,
                }
            }
        }
    };
    if !take_budget(text.len() as u64) {
        return (s.agents || s.direct).then(|| {
            uncertain(format!(
                "runs {}, past what sentinel reads for one call ({MAX_CALL_FILES} files, {} MiB, {} ms): not read",
                s.shown,
                MAX_CALL_BYTES >> 20,
                MAX_CALL_TIME.as_millis()
            ))
        });
    }
    if let Body::Makefile(_, targets) = &s.body {
        let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
        let mut worst = None;
        for r in make::recipes(&text, &targets, MAX_RECIPE_LINES) {
            let shown = format!("{}:{}", s.shown, r.line);
            let p = judge_shell(&r.command, 1, &shown, &s.cwd, s.agents, ctx, tier1);
            worst = max_part(worst, p);
        }
        return worst;
    }
    let lang = s
        .lang
        .or_else(|| Lang::of_shebang(&text))
        .or_else(|| match &s.body {
            Body::File(p) => Lang::of_name(p),
            Body::Makefile(..) | Body::Text(..) => None,
        });
    let lang = match (lang, s.direct) {
        (Some(l), _) => l,
        // A file run as a program without a `#!` line is run by the shell.
        (None, true) => Lang::Shell,
        (None, false) => return None,
    };
    // The project's own files count for a deny only: `./gradlew build` runs a script full of
    // `$(…)` and `exec "$JAVACMD"` that Tier 1 cannot follow, and every build would ask.
    let full = s.agents;
    match lang {
        Lang::Shell => judge_shell(&text, first_line, &s.shown, &s.cwd, full, ctx, tier1),
        Lang::Sqlite => {
            let mut worst = None;
            for (i, line) in text.lines().enumerate() {
                let t = line.trim_start();
                let cmd = t
                    .strip_prefix(".shell ")
                    .or_else(|| t.strip_prefix(".system "));
                if let Some(cmd) = cmd {
                    let shown = format!("{}:{}", s.shown, i + 1);
                    worst = max_part(worst, judge_shell(cmd, 1, &shown, &s.cwd, true, ctx, tier1));
                }
            }
            worst
        }
        _ => {
            let found = judge_code(&text, lang, s, full, rules, ctx, tier1);
            // Python or JavaScript that only imports and prints runs the project's modules and
            // packages, as its tests do (`local::scripts::python_code`, `local::scripts::js_code`); other code
            // given as text is never the project's own tooling.
            let imports_only = match lang {
                Lang::Python => crate::local::scripts::python_code::only_imports_and_prints(&text),
                Lang::Js => crate::local::scripts::js_code::reads(&text).is_some(),
                _ => false,
            };
            if found.is_none() && matches!(s.body, Body::Text(..)) && !imports_only {
                return Some(uncertain(format!("runs {}, code given as text", s.shown)));
            }
            found
        }
    }
}

/// `part` (the judgement of `cmd`) raised by what `cmd` runs, and by a write to an instruction
/// file in a tainted session; the files `cmd` writes are added to `pending` when `more` commands
/// follow (the last command's writes are resolved only in a tainted session).
pub fn with_runs(
    cmd: &SimpleCommand,
    mut part: Part,
    pending: &mut Vec<Pending>,
    more: bool,
    rules: &Rules,
    ctx: &Context,
    tier1: Tier1,
) -> Part {
    if part.verdict == Verdict::Deny {
        return part;
    }
    let cwd = crate::local::policy::judge::effective_cwd(cmd, ctx);
    if let Some(p) = judge(
        cmd,
        &part.effects,
        cwd.as_deref(),
        pending,
        rules,
        ctx,
        tier1,
    ) && p.verdict > part.verdict
    {
        part = Part {
            effects: std::mem::take(&mut part.effects),
            ..p
        };
    }
    if !more && ctx.taint.is_none() {
        return part;
    }
    let written = writes::pending_of(cmd, &part.effects, cwd.as_deref(), ctx);
    if ctx.taint.is_some()
        && part.verdict < Verdict::Uncertain
        && let Some(entry) = written
            .iter()
            .find_map(|w| crate::local::paths::instruction_files::matches(&w.path, ctx.project()))
    {
        part.verdict = Verdict::Uncertain;
        part.rule = None;
        part.reason = instruction_reason(entry, ctx);
    }
    pending.extend(written);
    part
}

fn instruction_reason(entry: &str, ctx: &Context) -> String {
    format!(
        "writes {entry}, a file agents read as instructions, in a session that took in untrusted content ({}); it would steer every later session",
        ctx.taint.map(|t| t.describe()).unwrap_or_default()
    )
}

/// The first `@`-import in `text`, written to the instruction file `file`, that names a
/// credential (resolved from the file's folder, `~` from the home), with its list line.
fn credential_import(
    text: &str,
    file: &Path,
    rules: &crate::rules::Rules,
    ctx: &Context,
) -> Option<(String, crate::decision::RuleRef)> {
    let dir = file.parent()?;
    crate::local::paths::instruction_files::imports(text)
        .into_iter()
        .find_map(|import| {
            let path = crate::paths::resolve(import, dir, ctx.home)?;
            let real = ctx.fs.real_path(&path);
            let rule = crate::local::paths::credentials::credential(&real, rules)
                .or_else(|| crate::local::paths::credentials::credential(&path, rules))?;
            Some((import.to_string(), rule.clone()))
        })
}

fn import_reason(import: &str, entry: &str) -> String {
    format!(
        "the text written to {entry}, a file agents read as instructions, imports the credential file `@{import}`: every later session would read the secret into its context (and may send it on); instead: name the setting the project needs without its value, and ask the person to keep the secret where it is"
    )
}

/// A file tool's write to an instruction file whose text `@`-imports a credential is denied, in
/// every session and mode.
pub fn instruction_imports(
    d: &mut crate::decision::Decision,
    text: &str,
    rules: &crate::rules::Rules,
    ctx: &Context,
) {
    if d.verdict == Verdict::Deny || !text.contains('@') {
        return;
    }
    let Some(path) = d.path.as_deref().map(Path::new) else {
        return;
    };
    let Some(entry) = crate::local::paths::instruction_files::matches(path, ctx.project()) else {
        return;
    };
    if let Some((import, rule)) = credential_import(text, path, rules, ctx) {
        d.verdict = Verdict::Deny;
        d.reason = format!(
            "sentinel[local]: blocked: {}",
            import_reason(&import, entry)
        );
        d.rule = Some(rule);
    }
}

/// A shell command that writes an instruction file and whose text `@`-imports a credential
/// (`echo '@~/.ssh/id_rsa' >> CLAUDE.md`, a here-doc) is denied: the words written cannot all
/// be told apart from the rest, so the whole command's text is read.
pub fn instruction_imports_in_command(
    command: &str,
    written: &[PathBuf],
    rules: &crate::rules::Rules,
    ctx: &Context,
) -> Option<String> {
    if !command.contains('@') {
        return None;
    }
    written.iter().find_map(|file| {
        let entry = crate::local::paths::instruction_files::matches(file, ctx.project())?;
        let (import, _) = credential_import(command, file, rules, ctx)?;
        Some(import_reason(&import, entry))
    })
}

/// A file tool's allowed write to an instruction file in a tainted session becomes uncertain.
pub fn instruction_write(d: &mut crate::decision::Decision, ctx: &Context) {
    if ctx.taint.is_none() || d.verdict != Verdict::Allow {
        return;
    }
    let Some(path) = d.path.as_deref() else {
        return;
    };
    if let Some(entry) =
        crate::local::paths::instruction_files::matches(Path::new(path), ctx.project())
    {
        d.verdict = Verdict::Uncertain;
        d.rule = None;
        d.reason = format!(
            "sentinel[local]: uncertain: {}",
            instruction_reason(entry, ctx)
        );
    }
}
