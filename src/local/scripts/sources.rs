//! Which files and texts a command runs, for [`super::judge`]: a file run directly, code given
//! as text, the makefile's recipes, the package scripts, `conftest.py`, `build.rs`, and the
//! session's own code files the run may load when the project's code runs.

use super::loads::Loads;
use super::make;
use super::package;
use super::{Lang, MAX_FILE_BYTES, Pending};
use crate::decision::effect::Effect;
use crate::local::context::Context;
use crate::local::paths::fs::FileText;
use crate::local::policy;
use crate::paths;
use crate::shell::{RedirectKind, SimpleCommand, WordKind};
use std::path::{Path, PathBuf};

/// What one thing that runs is.
pub(super) struct Source {
    /// Shown in reasons: `scripts/x.sh`, `Makefile:12`, `package.json:5 (scripts.test)`.
    pub(super) shown: String,
    pub(super) body: Body,
    /// The language, when the runner says it.
    pub(super) lang: Option<Lang>,
    /// Where it runs.
    pub(super) cwd: PathBuf,
    /// Run directly by this command (a missing file is then a problem, not a file not there).
    pub(super) direct: bool,
    /// Counts in full: the agent's own text.
    pub(super) agents: bool,
    /// Read only because the session wrote it and the run may load it: when it cannot be read
    /// (too big, a program the agent built) it is left out.
    pub(super) extra: bool,
}

pub(super) enum Body {
    File(PathBuf),
    /// A makefile and the targets made (none: its first).
    Makefile(PathBuf, Vec<String>),
    /// Text, with the line it starts on in its file.
    Text(String, usize),
}

/// Everything `cmd` runs that sentinel reads first.
pub(super) fn sources(
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
    // The languages of the session's files the run may load; None: it runs no project code.
    let mut loads: Option<Loads> = None;
    let mut load = |l: Loads| loads = Some(loads.unwrap_or(Loads::NONE).with(l));
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
                let lang = if cmd.name() == "sqlite3" {
                    Some(Lang::Sqlite)
                } else {
                    runner
                };
                if policy::in_project(&p, ctx) {
                    // A script sources what it names through recursion; by a name it builds
                    // (`. "$DIR/lib.sh"`), a file of its own language.
                    load(
                        lang.or_else(|| Lang::of_name(&p))
                            .map_or(Loads::ALL, Loads::of),
                    );
                }
                out.push(file(p, path.text.clone(), lang, cwd, true));
            }
            Effect::RunProject | Effect::Task { .. } | Effect::RunCode { .. } => {
                load(Loads::of_runner(cmd.name()))
            }
            _ => {}
        }
    }
    if let Some((lang, code)) = inline_code(cmd) {
        load(Loads::of(lang));
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
    if let Some(loads) = loads {
        // The session's own code files in the project that the run may load (loads.rs); a file
        // without an extension may be anything a run starts by name.
        for p in &ctx.writes.written().paths {
            if policy::in_project(p, ctx)
                && !out
                    .iter()
                    .any(|s| matches!(&s.body, Body::File(q) if q == p))
                && Lang::of_name(p).map_or(p.extension().is_none(), |l| loads.holds(l))
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
pub(super) fn up_to_project<'a>(
    cwd: &'a Path,
    ctx: &'a Context,
) -> impl Iterator<Item = PathBuf> + 'a {
    let inside = policy::in_project(cwd, ctx);
    cwd.ancestors()
        .take_while(move |d| !inside || paths::is_within(d, ctx.project()))
        .take(if inside { 16 } else { 1 })
        .map(Path::to_path_buf)
}

/// Code given as text to an interpreter: `-c`/`-e` bodies, here-docs, `tinker --execute`.
pub(super) fn inline_code(cmd: &SimpleCommand) -> Option<(Lang, String)> {
    // `./artisan tinker --execute=…` (and `php artisan …`, judged as `artisan …`): PHP.
    let lang =
        Lang::of_program(cmd.name()).or_else(|| (cmd.name() == "artisan").then_some(Lang::Php))?;
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
pub(super) fn make_sources(
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
pub(super) fn package_sources(
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
