//! What a simple command does, as effects: the paths it reads, writes and deletes, the code it
//! runs, the network it uses, the user it acts as. They come from its spec (options and operands
//! as the program reads them) and from its redirections; [`crate::local::policy`] decides over
//! them.

use crate::decision::RuleRef;
use crate::decision::effect::Effect;
use crate::decision::reach::{Reach, Test};
use crate::local::spec::options::{self, Reading};
use crate::local::spec::{Kind, Network, OptKind, Runs, Specs};
use crate::shell::{RedirectKind, SimpleCommand, Word, WordKind};

mod programs;
mod reach;
mod words;
pub use programs::{awk_is_plain, sed_is_plain};
use words::*;

/// A command's effects, and where it works.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// The effects, in the order found.
    pub list: Vec<Effect>,
    /// Directories the program changes into before it works (`git -C a -C b`), in order.
    pub dirs: Vec<Word>,
    /// The spec that was read, when there is one.
    pub spec: Option<RuleRef>,
    /// False when sentinel has no spec for the program.
    pub known: bool,
}

/// The effects of one simple command.
pub fn of(cmd: &SimpleCommand, specs: &Specs) -> Effects {
    let mut out = Effects::default();
    for r in &cmd.redirects {
        match r.kind {
            RedirectKind::Write | RedirectKind::Append => out.list.push(Effect::Write {
                path: r.target.clone(),
            }),
            RedirectKind::Read => out.list.push(Effect::Read {
                path: r.target.clone(),
                tree: false,
            }),
            _ => {}
        }
    }
    if cmd.argv.is_empty() {
        out.known = true;
        return out;
    }
    let Some(reading) = options::read(&cmd.argv, specs) else {
        return out;
    };
    out.known = true;
    let placeholder = cmd
        .extra_args
        .then(|| reach::Placeholder::of(cmd, specs))
        .flatten();
    from_reading(&reading, &cmd.argv, placeholder.as_ref(), &mut out);
    into_directory(&reading, &mut out);
    // `find -exec CMD {} +` puts what it picks in place of `{}`, and appends nothing more.
    let in_place = placeholder
        .as_ref()
        .is_some_and(|p| cmd.argv.iter().any(|w| p.stands_in(w)));
    if cmd.extra_args && !in_place {
        appended(cmd, &reading, specs, &mut out);
    }
    out
}

/// Operands added at run time: under `find`'s roots for `find -exec`, unknown for `xargs`.
fn appended(cmd: &SimpleCommand, reading: &Reading, specs: &Specs, out: &mut Effects) {
    let spec = reading.spec();
    if spec
        .operands
        .first()
        .is_some_and(|s| s.kind == Kind::Subcommand)
    {
        out.list.push(Effect::Unknown {
            why: format!(
                "a word added at run time would choose what `{}` does",
                reading.name()
            ),
        });
        return;
    }
    if !reading.options_closed
        && !cmd.extra_args_from_find
        && !reading.chain.iter().all(|s| s.options_are_inert())
    {
        out.list.push(Effect::Unknown {
            why: format!(
                "words added at run time may be options of `{}` (end its options with `--`)",
                reading.name()
            ),
        });
        return;
    }
    let Some(kind) = reading.appended else {
        out.list.push(Effect::Unknown {
            why: format!(
                "`{}` gets operands at run time it does not take",
                reading.name()
            ),
        });
        return;
    };
    if matches!(
        kind,
        Kind::Text | Kind::Path | Kind::Subcommand | Kind::Args
    ) {
        return;
    }
    if cmd.extra_args_under.is_empty() {
        out.list.push(Effect::Unknown {
            why: format!(
                "`{}` gets paths at run time (xargs) that sentinel cannot see",
                reading.name()
            ),
        });
        return;
    }
    // What the listing hands on, when its tests say (`find . -name '*.py' | xargs grep`): a
    // program that reads a directory whole reads all below one it is handed.
    let whole_dirs = !matches!(kind, Kind::Read);
    let handed = reach::handed(cmd, specs, whole_dirs);
    for root in &cmd.extra_args_under {
        let path = root.clone();
        out.list.push(match (kind, &handed) {
            (Kind::Read | Kind::Tree | Kind::TreeFollow | Kind::TreeVisible, Some(h)) => {
                walk(path, if kind == Kind::Read { Kind::Tree } else { kind }, h)
            }
            (Kind::Read | Kind::Tree, None) => Effect::Read { path, tree: true },
            (Kind::TreeFollow | Kind::TreeVisible | Kind::List | Kind::ListFollow, _) => {
                walk(path, kind, &Reach::default())
            }
            (Kind::Write | Kind::Link | Kind::Symlink, _) => Effect::Write { path },
            (Kind::Mode, _) => Effect::Mode { path },
            (Kind::Delete | Kind::Move, _) => Effect::Delete { path, tree: false },
            (Kind::DeleteTree, _) => Effect::Delete { path, tree: true },
            // A script, task, package, URL … chosen at run time is not known.
            _ => Effect::Unknown {
                why: format!(
                    "`{}` gets a {kind:?} operand chosen at run time",
                    reading.name()
                ),
            },
        });
    }
}

/// `cp SRC… DEST`, `mv`, `install`: when DEST is a directory each source lands at
/// DEST/basename(SRC), so those paths are written too (`cp -r tmpl/.vscode .` writes
/// `./.vscode`). When DEST is a file the extra paths lie under a file and cannot exist: checking
/// them only ever adds caution.
fn into_directory(r: &Reading, out: &mut Effects) {
    let dests: Vec<&Word> = r
        .values
        .iter()
        .filter(|v| v.kind == Kind::Write)
        .map(|v| &v.word)
        .collect();
    let [dest] = dests.as_slice() else {
        return;
    };
    let sources: Vec<&Word> = r
        .values
        .iter()
        .filter(|v| {
            v.from == "operand"
                && matches!(
                    v.kind,
                    Kind::Read
                        | Kind::Tree
                        | Kind::TreeFollow
                        | Kind::Move
                        | Kind::Link
                        | Kind::Symlink
                )
        })
        .map(|v| &v.word)
        .collect();
    for src in sources {
        let base = src
            .text
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("");
        if base.is_empty() || base == "." || base == ".." {
            continue;
        }
        // `cp -r tmpl/* .`: the names that land are those the glob matches in `tmpl`, not
        // whatever the same glob would match in the destination.
        if src.kind == WordKind::Glob && base.contains(['*', '?', '[']) {
            out.list.push(Effect::WriteInto {
                dir: (*dest).clone(),
                from: src.clone(),
            });
            continue;
        }
        out.list.push(Effect::Write {
            path: Word {
                text: format!("{}/{base}", dest.text.trim_end_matches('/')),
                kind: if src.kind == WordKind::Literal {
                    dest.kind
                } else {
                    src.kind
                },
                value: None,
            },
        });
    }
}

/// `argv`: the command's words (for what its walks open); `placeholder`: what find's `{}`
/// stands for in them, when find's tests say.
fn from_reading(
    r: &Reading,
    argv: &[Word],
    placeholder: Option<&reach::Placeholder>,
    out: &mut Effects,
) {
    let spec = r.spec();
    // What its recursive reads open, worked out only for a command that has one.
    let walks = r.values.iter().any(|v| {
        matches!(
            v.kind,
            Kind::Tree | Kind::TreeFollow | Kind::TreeVisible | Kind::DeleteTree
        )
    });
    let own = if walks {
        reach::own(r, argv)
    } else {
        Reach::default()
    };
    let rule = spec.rule.clone();
    out.spec = Some(rule.clone());
    let at = |line: usize| RuleRef {
        line,
        ..rule.clone()
    };
    for p in &r.problems {
        out.list.push(Effect::Unknown { why: p.clone() });
    }
    for s in &r.chain {
        if let Some(why) = &s.deny {
            out.list.push(Effect::Destroy {
                why: why.clone(),
                rule: s.rule.clone(),
            });
        }
        if let Some(why) = &s.review {
            out.list.push(Effect::Review {
                why: why.clone(),
                rule: s.rule.clone(),
            });
        }
    }
    for m in &r.marked {
        match &m.kind {
            OptKind::Deny(why) => out.list.push(Effect::Destroy {
                why: format!("`{}`: {why}", m.name),
                rule: at(m.line),
            }),
            OptKind::Review(why) => out.list.push(Effect::Review {
                why: format!("`{}`: {why}", m.name),
                rule: at(m.line),
            }),
            _ => {}
        }
    }
    if spec.runs == Runs::Project {
        out.list.push(Effect::RunProject);
    }
    // A section with a `logs-in` option logs in only when one is given (`git remote add -f`).
    let gated = spec.options.iter().any(|o| o.kind == OptKind::LogsIn);
    if !gated || r.marked.iter().any(|m| m.kind == OptKind::LogsIn) {
        let remotes = own_remotes(r, argv);
        for p in &spec.logs_in_with {
            out.list.push(Effect::LogsInWith {
                path: Word::literal(p.clone()),
                remotes: remotes.clone(),
            });
        }
    }
    for p in &spec.creates {
        out.list.push(Effect::Creates {
            path: Word::literal(p.clone()),
        });
    }
    match spec.network {
        Network::None => {}
        Network::Fetch => out.list.push(Effect::Fetch),
        Network::Send => out.list.push(Effect::Send {
            what: format!("`{}` sends to a remote", spec.name),
            remote: true,
        }),
    }
    // The directory a new link is made in, for a relative symbolic target.
    let link_dir = r
        .values
        .iter()
        .filter(|v| v.kind == Kind::Write && v.from == "operand")
        .map(|v| v.word.text.trim_end_matches('/'))
        .next_back()
        .and_then(|t| t.rsplit_once('/'))
        .map(|(dir, _)| dir.to_string());
    let picked = picked_entries(r);
    for v in &r.values {
        let w = &v.word;
        if let Some(p) = placeholder
            && p.stands_in(w)
            && let Some(effects) = p.effects(v.kind)
        {
            out.list.extend(effects);
            continue;
        }
        if let Some(pick) = &picked
            && v.kind == Kind::DeleteTree
            && v.from == "operand"
        {
            out.list.push(Effect::DeleteBelow {
                path: w.clone(),
                names: pick.names.clone(),
                ignore_case: pick.ignore_case,
                links: r.follows_links,
                picked_by: pick.shown.clone(),
                tree: false,
            });
            continue;
        }
        // A URL where a file is expected (`ffmpeg -i in.mp4 udp://host:5000`, `-i http://…`):
        // most media and data tools open it as a network stream, not a path.
        if matches!(
            v.kind,
            Kind::Read
                | Kind::Tree
                | Kind::TreeFollow
                | Kind::TreeVisible
                | Kind::Write
                | Kind::Delete
                | Kind::DeleteTree
                | Kind::Move
        ) && has_url_scheme(&w.text)
        {
            out.list.push(if v.kind.is_input_path() {
                Effect::Receive { from: w.clone() }
            } else {
                Effect::Send {
                    what: format!("writes to {}", crate::text::excerpt(&w.text)),
                    remote: true,
                }
            });
            continue;
        }
        let effect = match v.kind {
            // A library is reviewed by its mark; `inplace` turned the operands into writes.
            Kind::Text
            | Kind::Path
            | Kind::Subcommand
            | Kind::Args
            | Kind::AwkLibrary
            | Kind::Filter
            | Kind::NameFilter
            | Kind::PathFilter
            | Kind::Include
            | Kind::Exclude
            | Kind::ExcludeDir => continue,
            Kind::Read => Effect::Read {
                path: w.clone(),
                tree: false,
            },
            Kind::Tree if own.is_everything() => Effect::Read {
                path: w.clone(),
                tree: true,
            },
            Kind::Tree | Kind::TreeFollow | Kind::TreeVisible => walk(w.clone(), v.kind, &own),
            Kind::List | Kind::ListFollow => walk(w.clone(), v.kind, &Reach::default()),
            Kind::Write => Effect::Write { path: w.clone() },
            Kind::Mode => Effect::Mode { path: w.clone() },
            // Checked as a write: a link to a place makes any later write through it land
            // there, and a read through it read there.
            Kind::Link | Kind::Symlink => {
                let relative = !(w.text.starts_with('/')
                    || w.text.starts_with('~')
                    || w.text.starts_with('$'));
                let path = match (&link_dir, v.kind == Kind::Symlink && relative) {
                    (Some(dir), true) => Word {
                        text: format!("{dir}/{}", w.text),
                        kind: w.kind,
                        value: None,
                    },
                    _ => w.clone(),
                };
                out.list.push(Effect::Read {
                    path: path.clone(),
                    tree: false,
                });
                Effect::Write { path }
            }
            Kind::Delete | Kind::Move => Effect::Delete {
                path: w.clone(),
                tree: false,
            },
            Kind::DeleteTree => Effect::Delete {
                path: w.clone(),
                tree: true,
            },
            Kind::Run => Effect::RunProgram {
                program: crate::text::excerpt(&w.text),
            },
            Kind::Repository if is_local_repository(&w.text) => Effect::Read {
                path: w.clone(),
                tree: true,
            },
            Kind::Repository => continue,
            Kind::Code => Effect::RunCode {
                code: crate::text::excerpt(&w.text),
            },
            Kind::PythonCode | Kind::JsCode => match w.known_value().and_then(|c| {
                if v.kind == Kind::PythonCode {
                    crate::local::scripts::python_code::reads(c)
                } else {
                    crate::local::scripts::js_code::reads(c)
                }
            }) {
                Some(files) => {
                    // The literal files it opens are read (a credential among them is seen).
                    for f in files {
                        out.list.push(Effect::Read {
                            path: Word::literal(f),
                            tree: false,
                        });
                    }
                    Effect::RunProject
                }
                None => Effect::RunCode {
                    code: crate::text::excerpt(&w.text),
                },
            },
            Kind::Script => Effect::RunFile { path: w.clone() },
            Kind::Url => Effect::Receive { from: w.clone() },
            Kind::Host if w.known_value().is_some() => continue,
            Kind::Host => Effect::Send {
                what: format!(
                    "a name built when it runs (`{}`): looking it up sends it out",
                    crate::text::excerpt(&w.text)
                ),
                remote: true,
            },
            Kind::Send => {
                // A body that drops, truncates or flushes a database does so wherever it is
                // sent, this machine included (`curl -d 'DROP TABLE users' localhost:8123`).
                if let Some(rule) = w
                    .known_value()
                    .and_then(crate::local::destructive_words::destructive_text)
                {
                    out.list.push(Effect::Destroy {
                        why: rule.why.as_deref().unwrap_or("destroys data").to_string(),
                        rule,
                    });
                }
                // `-d @file`, `-F name=@file`: the file is read to be sent.
                if let Some((_, file)) = w.text.rsplit_once('@') {
                    let file = file.split(';').next().unwrap_or("");
                    if !file.is_empty() && file != "-" {
                        out.list.push(Effect::Read {
                            path: Word {
                                text: file.to_string(),
                                kind: w.kind,
                                value: None,
                            },
                            tree: false,
                        });
                    }
                }
                // A method is a send unless it only reads (`-X GET`); one that changes or
                // deletes what a server holds is reviewed as such (`curl -X DELETE
                // localhost:9200/_all`).
                let method = w.text.to_ascii_uppercase();
                let is_method = matches!(&*v.from, "-X" | "--request" | "--method");
                if is_method && matches!(method.as_str(), "GET" | "HEAD") {
                    continue;
                }
                if is_method && matches!(method.as_str(), "DELETE" | "PUT" | "PATCH") {
                    Effect::Review {
                        why: format!(
                            "`{} {}` changes or deletes data on a server",
                            v.from, w.text
                        ),
                        rule: spec.rule.clone(),
                    }
                } else {
                    Effect::Send {
                        what: format!("{} {}", v.from, crate::text::excerpt(&w.text)),
                        remote: false,
                    }
                }
            }
            Kind::Cwd => {
                out.dirs.push(w.clone());
                continue;
            }
            Kind::Sql => match w.known_value() {
                Some(q) if crate::local::spec::sql::is_read_only(q) => continue,
                _ => Effect::RunCode {
                    code: format!(
                        "SQL `{}` (writes, or reaches beyond what it reads)",
                        crate::text::excerpt(&w.text)
                    ),
                },
            },
            Kind::Database => match database_host(&w.text) {
                Some(host) => Effect::Receive {
                    from: Word {
                        text: host,
                        kind: w.kind,
                        value: None,
                    },
                },
                None => continue,
            },
            Kind::User => Effect::AsUser {
                user: w.text.clone(),
            },
            // `pip install -e .`, `npm install ./pkg`: a local directory is built and installed,
            // which runs its setup code: the project's own when it is in the project.
            Kind::Package if is_local_dir(w) => Effect::RunFile { path: w.clone() },
            Kind::Package => Effect::Install {
                package: w.text.clone(),
            },
            // `make test VERBOSE=1` is fine; `make test PYTEST=./evil` or `SHELL=…` overrides a
            // program the recipes run.
            Kind::Task if w.text.contains('=') => match plain_assignment(w) {
                true => continue,
                false => Effect::Review {
                    why: format!(
                        "`{}` overrides a variable the project's recipes may run as a program",
                        crate::text::excerpt(&w.text)
                    ),
                    rule: spec.rule.clone(),
                },
            },
            Kind::Task => Effect::Task { name: w.clone() },
            Kind::SedScript => match w.known_value() {
                Some(s) if sed_is_plain(s) => continue,
                _ => Effect::RunCode {
                    code: format!(
                        "sed script `{}` (runs commands, or reads or writes files)",
                        crate::text::excerpt(&w.text)
                    ),
                },
            },
            Kind::Assigns => {
                let name = w.text.split('=').next().unwrap_or("");
                let known = w.is_literal()
                    || (w.text.contains('=') && !name.contains(['$', '`']) && !name.is_empty());
                if known && let Some(found) = assigned(name, w) {
                    out.list.extend(found);
                    continue;
                }
                Effect::Review {
                    why: if known {
                        format!("sets `{name}`, which changes what later commands run")
                    } else {
                        format!(
                            "assigns a variable whose name is not known before it runs (`{}`)",
                            crate::text::excerpt(&w.text)
                        )
                    },
                    rule: spec.rule.clone(),
                }
            }
            Kind::Variable => match w.known_value() {
                Some(n) if !crate::local::policy::signs::is_secret_variable_name(n) => continue,
                _ => Effect::Review {
                    why: format!(
                        "prints `{}`, which looks like a secret",
                        crate::text::excerpt(&w.text)
                    ),
                    rule: spec.rule.clone(),
                },
            },
            Kind::Template => match w.known_value() {
                Some(t) if !template_prints_secrets(t) => continue,
                _ => Effect::Review {
                    why: format!(
                        "the template `{}` prints an environment or a whole object, secrets included",
                        crate::text::excerpt(&w.text)
                    ),
                    rule: spec.rule.clone(),
                },
            },
            Kind::AwkProgram => match w.known_value() {
                Some(s) if awk_is_plain(s) => continue,
                _ => Effect::RunCode {
                    code: format!(
                        "awk program `{}` (runs commands, or writes files)",
                        crate::text::excerpt(&w.text)
                    ),
                },
            },
        };
        out.list.push(effect);
    }
}

/// A walk of a directory tree: for names only, or following links (see [`Kind`]).
/// What a reading's tests pick, when it has any.
pub(super) struct Picked {
    names: Vec<String>,
    ignore_case: bool,
    shown: String,
}

/// The tests that pick which entries a `delete-tree` of the operands deletes (`find . -name
/// '*.pyc' -delete` deletes the `.pyc` files below `.`, not `.`). Tests are joined by "and"
/// unless something negates or joins them otherwise (`!`, `( )`: operands to the reader; `-not`,
/// `-o`), so the entries any name pattern picks hold every entry deleted. Only the tests read
/// before the option that deletes count: find evaluates from the left.
fn picked_entries(r: &Reading) -> Option<Picked> {
    let before = r.delete_tree_at.unwrap_or(r.values.len());
    let tests: Vec<&options::Value> = r.values[..before.min(r.values.len())]
        .iter()
        .filter(|v| matches!(v.kind, Kind::Filter | Kind::NameFilter | Kind::PathFilter))
        .collect();
    if tests.is_empty() {
        return None;
    }
    let grouped = r.values.iter().any(|v| {
        (v.from == "operand" && matches!(v.word.text.as_str(), "!" | "(" | ")" | ","))
            || (v.kind == Kind::Filter && matches!(v.word.text.as_str(), "-not" | "-o" | "-or"))
    });
    let names: Option<Vec<String>> = tests
        .iter()
        .filter(|v| v.kind == Kind::NameFilter)
        .map(|v| v.word.known_value().map(str::to_string))
        .collect();
    let shown = tests
        .iter()
        .map(|v| {
            if v.kind == Kind::Filter && v.word.text == v.from {
                v.from.to_string()
            } else {
                format!("{} {}", v.from, crate::text::excerpt(&v.word.text))
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let shown = if grouped {
        format!("{shown}` with `!` or `( )")
    } else {
        shown
    };
    Some(Picked {
        names: names.filter(|_| !grouped).unwrap_or_default(),
        ignore_case: tests
            .iter()
            .any(|v| v.kind == Kind::NameFilter && v.from.starts_with("-i")),
        shown,
    })
}

/// A walk of `path`, opening what `reach` lets through (and, for `tree-visible`, no hidden
/// name).
fn walk(path: Word, kind: Kind, reach: &Reach) -> Effect {
    let mut reach = reach.clone();
    if kind == Kind::TreeVisible {
        reach.tests.push(Test::Visible);
    }
    Effect::Walk {
        path,
        names_only: matches!(kind, Kind::List | Kind::ListFollow),
        links: kind.follows_links(),
        reach,
    }
}

#[cfg(test)]
mod tests;

/// Where a command that logs in goes, when that is the repository's own remotes: the names or
/// URLs of its `repository` slot (none given: the remote it defaults to). None for a command
/// without one (`git clone URL`), or pointed at another repository (`--git-dir`).
fn own_remotes(r: &Reading, argv: &[Word]) -> Option<Vec<Word>> {
    let has_slot = r.spec().operands.iter().any(|s| s.kind == Kind::Repository);
    let elsewhere = argv.iter().any(|w| {
        w.text.starts_with("--git-dir")
            || w.text.starts_with("--work-tree")
            || w.text.starts_with("--upload-pack")
    });
    (has_slot && !elsewhere).then(|| {
        r.values
            .iter()
            .filter(|v| v.kind == Kind::Repository && v.from == "operand")
            .map(|v| v.word.clone())
            .collect()
    })
}

/// What `export NAME=VALUE` (or `declare`, `local` …) does by its name (`rules/env_vars.txt`):
/// nothing for an inert or unknown name; a folder programs run from or code loads from, for
/// each entry of a value that says so (`export PATH="$HOME/.cargo/bin:$PATH"`). None: it
/// changes what later commands run in ways its value does not show.
fn assigned(name: &str, w: &Word) -> Option<Vec<Effect>> {
    use crate::local::spec::env_vars::{self, Known};
    let value = || {
        w.text.split_once('=').map(|(_, v)| Word {
            text: v.to_string(),
            kind: w.kind,
            value: None,
        })
    };
    match env_vars::known(name) {
        Known::Inert | Known::Unknown => Some(Vec::new()),
        Known::Programs => Some(
            env_vars::entries(name, &value()?)
                .into_iter()
                .map(|folder| Effect::RunsFrom {
                    variable: name.to_string(),
                    folder,
                })
                .collect(),
        ),
        // Code loaded by every later run of the interpreter, which each of those runs does not
        // show: reviewed, where `PYTHONPATH=src python …` for one command is judged with it.
        Known::Code | Known::Loads | Known::Command | Known::Options(_) => None,
    }
}
