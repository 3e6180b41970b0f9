//! What a simple command does, as effects: the paths it reads, writes and deletes, the code it
//! runs, the network it uses, the user it acts as. They come from its spec (options and operands
//! as the program reads them) and from its redirections; [`crate::local::policy`] decides over
//! them.

use crate::decision::RuleRef;
use crate::decision::effect::Effect;
use crate::decision::reach::{Reach, Test};
use crate::local::known::Known;
use crate::local::spec::options::{self, Reading};
use crate::local::spec::{Kind, Network, OptKind, Runs, Specs};
use crate::shell::{RedirectKind, SimpleCommand, Word, WordKind};

mod appended;
mod carried;
mod copies;
mod picked;
mod programs;
mod reach;
mod request;
mod words;
use appended::appended;
use copies::into_directory;
use picked::{Picked, picked_entries};
pub use programs::{awk_is_plain, perl_is_substitution, sed_is_plain};
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
pub fn of(cmd: &SimpleCommand, specs: &Specs, known: &Known) -> Effects {
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
    from_reading(&reading, &cmd.argv, placeholder.as_ref(), known, &mut out);
    out.list.extend(request::destroying(&reading, &cmd.argv));
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

/// `argv`: the command's words (for what its walks open); `placeholder`: what find's `{}`
/// stands for in them, when find's tests say.
fn from_reading(
    r: &Reading,
    argv: &[Word],
    placeholder: Option<&reach::Placeholder>,
    known: &Known,
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
    if r.chain.iter().any(|s| s.repository) {
        out.list.push(Effect::UsesRepository);
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
        Network::Fetch => {
            out.list.push(Effect::Fetch);
            out.list.extend(carried::built_name(r));
        }
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
    // git matches its path operands itself, as pathspecs: a pattern (`'*.env'`, `:/`) picks
    // files no shell expansion shows.
    let pathspecs = r.chain.iter().any(|s| s.repository);
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
        if pathspecs
            && matches!(v.kind, Kind::Read | Kind::Tree)
            && v.from == "operand"
            && let Some(pattern) = pathspec_pattern(w)
        {
            out.list.push(match pattern {
                Some((dir, name)) => {
                    let mut reach = own.clone();
                    reach.tests.extend(name.map(|n| Test::Name {
                        any_of: vec![n],
                        ignore_case: false,
                    }));
                    walk(Word::literal(dir), Kind::Tree, &reach)
                }
                None => Effect::Unknown {
                    why: format!(
                        "`{}`: a pathspec with magic picks files sentinel does not work out",
                        crate::text::excerpt(&w.text)
                    ),
                },
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
            | Kind::ExcludeDir
            // Read as an operand (`spec::options`); never a value of its own.
            | Kind::FirstOperand => continue,
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
            // A URL or `host:path`: routine only when it is one of the project's remotes (the
            // policy reads its config); a remote's name is the section's `network`.
            Kind::Repository if names_remote_by_url(&w.text) => Effect::FetchFrom { from: w.clone() },
            Kind::Repository => continue,
            Kind::History => match committed_path(w) {
                Some(path) => Effect::Read { path, tree: false },
                None => continue,
            },
            Kind::Code => Effect::RunCode {
                code: crate::text::excerpt(&w.text),
            },
            Kind::PerlCode => match w.known_value() {
                Some(c) if perl_is_substitution(c) => continue,
                _ => Effect::RunCode {
                    code: crate::text::excerpt(&w.text),
                },
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
            Kind::FilterProgram => match filter_reaches_out(w.known_value()) {
                None => continue,
                Some(why) => Effect::Review {
                    why,
                    rule: spec.rule.clone(),
                },
            },
            Kind::TextOrFile | Kind::WriteOut => {
                let text = w.known_value().unwrap_or(&w.text);
                let file = |t: &str| Word {
                    text: t.to_string(),
                    kind: w.kind,
                    value: None,
                };
                // `@FILE`, or curl's `--variable NAME@FILE`.
                let named = text.split_once('@').filter(|(name, _)| {
                    !name.is_empty()
                        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'%')
                });
                let at_file = text.strip_prefix('@').or(named.map(|(_, f)| f));
                if let Some(f) = at_file.filter(|f| !f.is_empty() && *f != "-") {
                    out.list.push(Effect::Read {
                        path: file(f),
                        tree: false,
                    });
                }
                if v.kind == Kind::WriteOut {
                    for (at, _) in text.match_indices("%output{") {
                        let rest = &text[at + "%output{".len()..];
                        let name = rest.split('}').next().unwrap_or("");
                        let name = name.trim_start_matches(">>");
                        out.list.push(if name.is_empty() || !rest.contains('}') {
                            Effect::Review {
                                why: "`-w %output{…}` writes to a file not known before it runs".into(),
                                rule: spec.rule.clone(),
                            }
                        } else {
                            Effect::Write { path: file(name) }
                        });
                    }
                }
                continue;
            }
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
                // The request line (`DELETE …/_all`) is judged apart (`request.rs`).
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
                Some(q) if crate::local::spec::sql::is_read_only(q, known) => continue,
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
            Kind::Property => {
                // A property whose text is not known is judged on what is known of it (its key).
                let text = w.known_value().unwrap_or(&w.text);
                match crate::local::spec::build_properties::judge(text) {
                    None => continue,
                    Some((verdict, why, rule)) => {
                        let why =
                            format!("the build property `{}`: {why}", crate::text::excerpt(text));
                        let rule = rule.unwrap_or_else(|| spec.rule.clone());
                        if verdict == crate::decision::Verdict::Deny {
                            Effect::Destroy { why, rule }
                        } else {
                            Effect::Review { why, rule }
                        }
                    }
                }
            }
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

/// A walk of `path`, opening what `reach` lets through (and, for `tree-visible`, no hidden
/// name).
fn walk(path: Word, kind: Kind, reach: &Reach) -> Effect {
    let mut reach = reach.clone();
    if kind == Kind::TreeVisible && !reach.tests.contains(&Test::Visible) {
        reach.tests.push(Test::Visible);
    }
    Effect::Walk {
        path,
        names_only: matches!(kind, Kind::List | Kind::ListFollow),
        links: kind.follows_links(),
        reach,
    }
}

/// The file a git object name reads: `PATH` of `REV:PATH` (`:PATH` and `:N:PATH` in the
/// index), else the word itself as a pathspec. A `./` or `../` path is relative to the cwd as
/// git reads it; another is relative to the repository's top, which the cwd stands in for here
/// (credential names are matched on the path's tail, so the difference does not hide one).
/// None: a name that reads no file (`:/message` finds a commit by its message, `REV:` is a
/// tree).
fn committed_path(w: &Word) -> Option<Word> {
    let Some(text) = w.known_value() else {
        return Some(w.clone());
    };
    let Some((rev, path)) = text.split_once(':') else {
        return Some(w.clone());
    };
    if rev.is_empty() && path.starts_with('/') {
        return None;
    }
    let path = match (rev.is_empty(), path.split_once(':')) {
        (true, Some(("0" | "1" | "2" | "3", rest))) => rest,
        _ => path,
    };
    (!path.is_empty()).then(|| Word::literal(path))
}

#[cfg(test)]
mod tests;

/// What a jq or yq filter reads beyond its input, as a review's reason: a module or data file
/// (`import`, `include`, yq's `load*`), or the environment (`env`, `$ENV`, `strenv`,
/// `envsubst`). A name after `.` is a field (`.env.NODE_ENV`), and one in a string literal is
/// text, not the builtin. A filter not
/// known before it runs reaches out as far as it likes.
fn filter_reaches_out(text: Option<&str>) -> Option<String> {
    let Some(text) = text else {
        return Some("a filter not known before it runs".into());
    };
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let mut i = 0;
    while i < b.len() {
        // A string literal (`"env"`) names nothing, unless it interpolates (`"\\(env.X)"`).
        if b[i] == b'"' {
            let mut end = i + 1;
            while end < b.len() && b[end] != b'"' {
                end += if b[end] == b'\\' { 2 } else { 1 };
            }
            let interpolates = b[i..end.min(b.len())].windows(2).any(|w| w == b"\\(");
            i = if interpolates { i + 1 } else { end + 1 };
            continue;
        }
        if !word(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && word(b[i]) {
            i += 1;
        }
        if start > 0 && b[start - 1] == b'.' {
            continue;
        }
        let name = &text[start..i];
        let what = match name {
            "import" | "include" => "imports a module or data file",
            "env" | "$ENV" | "strenv" | "envsubst" => "reads the environment, secrets included",
            n if n.starts_with("load") => "loads a file",
            _ => continue,
        };
        return Some(format!(
            "the filter {what} (`{name}`), which sentinel does not read"
        ));
    }
    None
}
