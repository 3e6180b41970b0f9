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
//! count for a deny. Every file the
//! session wrote that a run of the project could load (its code, `.pth`, `node_modules/.bin`)
//! is read when the project's code runs.
//!
//! Bounds: 256 KiB a file, 16 files a command, scripts nested 3 deep, and for one call in all
//! 48 files, 2 MiB and 1 s of reading; past them, what is not read is uncertain.

mod code;
mod lang;
mod make;
mod package;
pub mod writes;

pub use lang::Lang;

use crate::decision::Verdict;
use crate::decision::effect::Effect;
use crate::local::context::Context;
use crate::local::credentials;
use crate::local::fs::FileText;
use crate::local::policy::{self, Part};
use crate::paths;
use crate::rules::Rules;
use crate::shell::{RedirectKind, SimpleCommand, WordKind};
use std::cell::Cell;
use std::path::{Path, PathBuf};

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

/// What one thing that runs is.
struct Source {
    /// Shown in reasons: `scripts/x.sh`, `Makefile:12`, `package.json:5 (scripts.test)`.
    shown: String,
    body: Body,
    /// The language, when the runner says it.
    lang: Option<Lang>,
    /// Where it runs.
    cwd: PathBuf,
    /// Run directly by this command (a missing file is then a problem, not a file not there).
    direct: bool,
    /// Counts in full: the agent's own text.
    agents: bool,
    /// Read only because the session wrote it and the run may load it: when it cannot be read
    /// (too big, a program the agent built) it is left out.
    extra: bool,
}

enum Body {
    File(PathBuf),
    /// A makefile and the targets made (none: its first).
    Makefile(PathBuf, Vec<String>),
    /// Text, with the line it starts on in its file.
    Text(String, usize),
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

fn uncertain(why: String) -> Part {
    Part::new(Verdict::Uncertain, why, None)
}

/// Everything `cmd` runs that sentinel reads first.
fn sources(
    cmd: &SimpleCommand,
    effects: &[Effect],
    cwd: &Path,
    pending: &[Pending],
    ctx: &Context,
) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    let runner = if cmd.name_dir.is_none() {
        Lang::of_program(cmd.name())
    } else {
        None
    };
    let mut runs_project_code = false;
    let file = |path: PathBuf, shown: String, lang, cwd: &Path, direct| Source {
        shown,
        body: Body::File(path),
        lang,
        cwd: cwd.to_path_buf(),
        direct,
        agents: false,
        extra: false,
    };
    for e in effects {
        match e {
            Effect::RunFile { path } if path.kind != WordKind::Computed => {
                let Some(p) = policy::resolve_word(path, Some(cwd), ctx) else {
                    continue;
                };
                runs_project_code |= policy::in_project(&p, ctx);
                let lang = if cmd.name() == "sqlite3" {
                    Some(Lang::Sqlite)
                } else {
                    runner
                };
                out.push(file(p, path.text.clone(), lang, cwd, true));
            }
            Effect::RunProject | Effect::Task { .. } => runs_project_code = true,
            Effect::RunCode { .. } => runs_project_code = true,
            _ => {}
        }
    }
    if let Some((lang, code)) = inline_code(cmd) {
        runs_project_code = true;
        out.push(Source {
            shown: format!("the code given to {}", cmd.name()),
            body: Body::Text(code, 1),
            lang: Some(lang),
            cwd: cwd.to_path_buf(),
            direct: true,
            agents: true,
            extra: false,
        });
    }
    match cmd.name() {
        "make" | "gmake" => make_sources(cmd, cwd, pending, ctx, &mut out),
        "npm" | "yarn" | "pnpm" | "bun" => package_sources(cmd, cwd, pending, ctx, &mut out),
        "pytest" | "py.test" => {
            for dir in up_to_project(cwd, ctx) {
                for sub in ["", "tests", "test"] {
                    let p = dir.join(sub).join("conftest.py");
                    // Only those there (or being written), so they do not crowd out the rest.
                    if pending.iter().any(|w| w.path == p)
                        || !matches!(ctx.fs.read_text(&p, 0), FileText::Missing)
                    {
                        let shown = p.display().to_string();
                        out.push(file(p, shown, Some(Lang::Python), cwd, false));
                    }
                }
            }
        }
        "cargo" => {
            if let Some(dir) = up_to_project(cwd, ctx).next() {
                let p = dir.join("build.rs");
                let shown = p.display().to_string();
                out.push(file(p, shown, Some(Lang::Rust), &dir, false));
            }
        }
        _ => {}
    }
    if runs_project_code {
        // The session's own code files in the project: any run of the project may load them.
        for p in &ctx.writes.written().paths {
            if policy::in_project(p, ctx)
                && !out
                    .iter()
                    .any(|s| matches!(&s.body, Body::File(q) if q == p))
                && (Lang::of_name(p).is_some() || p.extension().is_none())
                && ctx.fs.is_dir(p) != Some(true)
            {
                let mut s = file(p.clone(), p.display().to_string(), None, cwd, false);
                s.agents = true;
                s.extra = true;
                out.push(s);
            }
        }
    }
    out
}

/// The directories from `cwd` up to the project root (just `cwd` outside the project).
fn up_to_project<'a>(cwd: &'a Path, ctx: &'a Context) -> impl Iterator<Item = PathBuf> + 'a {
    let inside = policy::in_project(cwd, ctx);
    cwd.ancestors()
        .take_while(move |d| !inside || paths::is_within(d, ctx.project()))
        .take(if inside { 16 } else { 1 })
        .map(Path::to_path_buf)
}

/// Code given as text to an interpreter: `-c`/`-e` bodies, here-docs, `tinker --execute`.
fn inline_code(cmd: &SimpleCommand) -> Option<(Lang, String)> {
    let lang = Lang::of_program(cmd.name())?;
    let args = cmd.args();
    if lang == Lang::Php && args.iter().any(|w| w.text == "tinker") {
        for (i, w) in args.iter().enumerate() {
            if let Some(code) = w.text.strip_prefix("--execute=") {
                return Some((lang, code.to_string()));
            }
            if w.text == "--execute" {
                return Some((lang, args.get(i + 1)?.text.clone()));
            }
        }
    }
    let flags: &[&str] = match lang {
        Lang::Python => &["-c"],
        Lang::Js => &["-e", "--eval", "-p", "--print"],
        Lang::Ruby => &["-e"],
        Lang::Perl => &["-e", "-E"],
        Lang::Php => &["-r"],
        _ => &[],
    };
    for (i, w) in args.iter().enumerate() {
        if flags.contains(&w.text.as_str()) {
            return Some((lang, args.get(i + 1)?.text.clone()));
        }
        if let Some((flag, code)) = w.text.split_once('=')
            && flags.contains(&flag)
        {
            return Some((lang, code.to_string()));
        }
    }
    if lang != Lang::Shell {
        for r in &cmd.redirects {
            if matches!(r.kind, RedirectKind::HereDoc | RedirectKind::HereString) {
                return Some((lang, r.target.text.clone()));
            }
        }
    }
    None
}

/// The makefile's recipes for the targets `make` is given.
fn make_sources(
    cmd: &SimpleCommand,
    cwd: &Path,
    pending: &[Pending],
    ctx: &Context,
    out: &mut Vec<Source>,
) {
    let args = cmd.args();
    let mut dir = cwd.to_path_buf();
    let mut file = None;
    let mut targets = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let w = args[i].text.as_str();
        match w {
            "-C" | "--directory" => {
                if let Some(d) = args
                    .get(i + 1)
                    .and_then(|d| paths::resolve(&d.text, &dir, ctx.home))
                {
                    dir = d;
                }
                i += 1;
            }
            "-f" | "--file" | "--makefile" => {
                file = args.get(i + 1).map(|f| f.text.clone());
                i += 1;
            }
            "-o" | "-W" | "-I" | "--include-dir" | "--old-file" | "--what-if" => i += 1,
            "-j" | "-l"
                if args
                    .get(i + 1)
                    .is_some_and(|n| n.text.parse::<u32>().is_ok()) =>
            {
                i += 1
            }
            _ if w.starts_with('-') || w.contains('=') => {}
            _ => targets.push(w),
        }
        i += 1;
    }
    let path = match file {
        Some(f) => paths::resolve(&f, &dir, ctx.home),
        None => make::NAMES.iter().map(|n| dir.join(n)).find(|p| {
            pending.iter().any(|w| &w.path == p)
                || !matches!(
                    ctx.fs.read_text(p, 0),
                    FileText::Missing | FileText::Unknown
                )
        }),
    };
    let Some(path) = path else { return };
    out.push(Source {
        shown: path.display().to_string(),
        body: Body::Makefile(path, targets.iter().map(|t| t.to_string()).collect()),
        lang: None,
        cwd: dir,
        direct: false,
        agents: false,
        extra: false,
    });
}

/// The `package.json` scripts a package manager runs.
fn package_sources(
    cmd: &SimpleCommand,
    cwd: &Path,
    pending: &[Pending],
    ctx: &Context,
    out: &mut Vec<Source>,
) {
    let Some(name) = package::script_name(cmd) else {
        return;
    };
    for dir in up_to_project(cwd, ctx) {
        let manifest = dir.join("package.json");
        let written = ctx.writes.written();
        let mut agents = written.full || written.paths.contains(&manifest);
        let text = match pending.iter().find(|w| w.path == manifest) {
            Some(Pending { text: Some(t), .. }) => {
                agents = true;
                t.clone()
            }
            // Rewritten by this same command in a way not known: judged as such.
            Some(Pending { text: None, .. }) => {
                out.push(Source {
                    shown: manifest.display().to_string(),
                    body: Body::File(manifest),
                    lang: None,
                    cwd: dir,
                    direct: true,
                    agents: true,
                    extra: false,
                });
                return;
            }
            None => match ctx.fs.read_text(&manifest, MAX_FILE_BYTES) {
                FileText::Text(t) => t,
                FileText::Missing => continue,
                _ => return,
            },
        };
        for (key, script) in package::scripts(&text, &name).unwrap_or_default() {
            let line = package::line_of(&text, &key).unwrap_or(1);
            out.push(Source {
                shown: format!("{}:{line} (scripts.{key})", manifest.display()),
                body: Body::Text(script, line),
                lang: Some(Lang::Shell),
                cwd: dir.clone(),
                direct: false,
                agents,
                extra: false,
            });
        }
        return;
    }
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
            if found.is_none() && matches!(s.body, Body::Text(..)) {
                // Code given as text is never the project's own tooling (`python -c` is not).
                return Some(uncertain(format!("runs {}, code given as text", s.shown)));
            }
            found
        }
    }
}

fn max_part(a: Option<Part>, b: Option<Part>) -> Option<Part> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.verdict > a.verdict { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Shell text judged by Tier 1 in `cwd`. `full`: an uncertain inside makes the call uncertain
/// (otherwise only a deny counts).
fn judge_shell(
    text: &str,
    first_line: usize,
    shown: &str,
    cwd: &Path,
    full: bool,
    ctx: &Context,
    tier1: Tier1,
) -> Option<Part> {
    let d = tier1_in(text, cwd, ctx, tier1);
    if d.verdict == Verdict::Allow || (!full && d.verdict != Verdict::Deny) {
        return None;
    }
    let worst = d
        .commands
        .iter()
        .filter(|c| c.verdict == d.verdict)
        .find(|c| !c.text.is_empty());
    let (inner, reason) = match worst {
        Some(c) => (c.text.as_str(), c.reason.as_str()),
        None => (text, d.reason.as_str()),
    };
    let line = locate(text, inner).map(|l| l + first_line - 1);
    let at = match line {
        Some(l) if !shown.contains(':') => format!("{shown}:{l}"),
        _ => shown.to_string(),
    };
    // With a rule, the rule's own why and alternative follow in the reason (outcome.rs).
    let rule = worst
        .and_then(|c| c.rule.clone())
        .or_else(|| d.rule.clone());
    let mut why = format!("it runs {at}, which runs `{}`", crate::text::excerpt(inner));
    if rule.is_none() || d.verdict != Verdict::Deny {
        why = format!("{why}: {}", reason.trim_start_matches("sentinel[local]: "));
    }
    let mut part = Part::new(d.verdict.max(Verdict::Uncertain), why, rule);
    part.person_only = d.person_only;
    Some(part)
}

/// Tier 1's decision of `text` as a command run in `cwd`.
fn tier1_in(text: &str, cwd: &Path, ctx: &Context, tier1: Tier1) -> crate::decision::Decision {
    let inner = Context::new(cwd, ctx.home, ctx.sentinel_home, ctx.fs, ctx.taint)
        .with_project(ctx.project())
        .with_writes(ctx.writes);
    tier1(text, &inner)
}

/// The line of `text` where the command `inner` (as Tier 1 rendered it) is written.
fn locate(text: &str, inner: &str) -> Option<usize> {
    let words: Vec<&str> = inner.split_whitespace().take(2).collect();
    let name = words.first()?.rsplit('/').next()?;
    text.lines()
        .position(|l| l.contains(name) && words.get(1).is_none_or(|w| l.contains(w)))
        .or_else(|| text.lines().position(|l| l.contains(name)))
        .map(|i| i + 1)
}

/// Interpreter code judged by the calls it makes. `full`: uncertain findings count.
fn judge_code(
    text: &str,
    lang: Lang,
    s: &Source,
    full: bool,
    rules: &Rules,
    ctx: &Context,
    tier1: Tier1,
) -> Option<Part> {
    let findings = code::scan(text, lang, code::bundled());
    if findings.is_empty() {
        return None;
    }
    let credential = code::literals(text).find_map(|lit| {
        let p = paths::resolve(lit, &s.cwd, ctx.home)?;
        credentials::credential(&p, rules).map(|_| lit.to_string())
    });
    let mut worst: Option<Part> = None;
    for f in &findings {
        let at = format!("{}:{}", s.shown, f.line);
        let why = f.pattern.why.split("; instead").next().unwrap_or("");
        let shown = crate::text::excerpt(&f.text);
        let as_command = match (f.pattern.class, &f.literal) {
            (code::Class::Delete, Some(lit)) => Some(format!("rm -rf -- {}", shell_word(lit))),
            (code::Class::Run, _) => run_literal(&f.text).or_else(|| f.literal.clone()),
            (code::Class::Write, Some(lit)) => Some(format!(": > {}", shell_word(lit))),
            _ => None,
        };
        let denied = as_command.as_ref().and_then(|c| {
            let d = tier1_in(c, &s.cwd, ctx, tier1);
            (d.verdict == Verdict::Deny).then(|| (c.clone(), d))
        });
        let part = if let Some((c, d)) = denied {
            let rule = d
                .commands
                .iter()
                .find_map(|c| c.rule.clone())
                .or(d.rule.clone());
            let mut reason = format!(
                "it runs {at}, `{shown}`, which {why}: as a command, `{}`",
                crate::text::excerpt(&c)
            );
            if rule.is_none() {
                reason = format!(
                    "{reason}: {}",
                    d.reason.trim_start_matches("sentinel[local]: ")
                );
            }
            let mut p = Part::new(Verdict::Deny, reason, rule);
            p.person_only = d.person_only;
            Some(p)
        } else if f.pattern.class == code::Class::Send && credential.is_some() {
            Some(Part::new(
                Verdict::Deny,
                format!(
                    "it runs {at}, `{shown}`, which sends data out, in code that names the credential `{}`; keep secrets out of code that talks to the network",
                    credential.as_deref().unwrap_or("")
                ),
                None,
            ))
        } else if !full {
            None
        } else if f.pattern.class == code::Class::Write {
            let outside = f
                .literal
                .as_deref()
                .and_then(|l| paths::resolve(l, &s.cwd, ctx.home))
                .is_some_and(|p| !policy::in_safe_area(&ctx.fs.real_path(&p), rules, ctx));
            outside.then(|| {
                uncertain(format!(
                    "it runs {at}, `{shown}`, which writes outside the project"
                ))
            })
        } else {
            Some(uncertain(format!(
                "it runs {at}, `{shown}`, which {why} [{}]",
                f.pattern.at
            )))
        };
        worst = max_part(worst, part);
        if worst.as_ref().is_some_and(|w| w.verdict == Verdict::Deny) {
            break;
        }
    }
    if worst.is_none()
        && full
        && let Some(c) = credential
    {
        worst = Some(uncertain(format!(
            "it runs {}, which names the credential `{c}`",
            s.shown
        )));
    }
    worst
}

/// A literal as one shell word: `~`, `/x`, `$HOME/x` stay as written (they mean what they mean
/// in the code: `expanduser('~')`), anything else is quoted.
fn shell_word(lit: &str) -> String {
    if !lit.is_empty()
        && lit
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "~/._-$+@%:".contains(c))
    {
        lit.to_string()
    } else {
        format!("'{}'", lit.replace('\'', "'\\''"))
    }
}

/// `subprocess.run(['rm', '-rf', '/'])`: the list's literals as one command.
fn run_literal(line: &str) -> Option<String> {
    let open = line.find('[')?;
    let first_quote = line.find(['\'', '"'])?;
    if open > first_quote {
        return None;
    }
    let close = line[open..].find(']')? + open;
    let words: Vec<String> = code::literals(&line[open..close]).map(shell_word).collect();
    (!words.is_empty()).then(|| words.join(" "))
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
    let cwd = crate::local::judge::effective_cwd(cmd, ctx);
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
            .find_map(|w| crate::local::instruction_files::matches(&w.path, ctx.project()))
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

/// A file tool's allowed write to an instruction file in a tainted session becomes uncertain.
pub fn instruction_write(d: &mut crate::decision::Decision, ctx: &Context) {
    if ctx.taint.is_none() || d.verdict != Verdict::Allow {
        return;
    }
    let Some(path) = d.path.as_deref() else {
        return;
    };
    if let Some(entry) = crate::local::instruction_files::matches(Path::new(path), ctx.project()) {
        d.verdict = Verdict::Uncertain;
        d.rule = None;
        d.reason = format!(
            "sentinel[local]: uncertain: {}",
            instruction_reason(entry, ctx)
        );
    }
}
