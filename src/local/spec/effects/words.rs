//! What a word names: a template that prints secrets, a database host, a URL, a local
//! repository or directory, a plain assignment.

use super::*;

/// A Go template that reaches an environment (`.Env`, `.Config`) or prints a whole object
/// (`{{json .}}`, `{{.}}`).
pub(super) fn template_prints_secrets(t: &str) -> bool {
    let squeezed: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed.contains("Env")
        || squeezed.contains(".Config}}")
        || squeezed.contains("{{.}}")
        || squeezed.contains("json.}}")
        || squeezed.contains("{{json.")
            && !squeezed.contains("json.State")
            && !squeezed.contains("json.NetworkSettings")
}

/// The host a connection string names (`postgres://u@db.example/app`, `host=db.example
/// dbname=app`), as `host[:port]`; None for a plain database name.
pub(super) fn database_host(text: &str) -> Option<String> {
    if let Some((_, rest)) = text.split_once("://") {
        return Some(rest.to_string());
    }
    text.split_whitespace()
        .find_map(|kv| kv.strip_prefix("host=").or(kv.strip_prefix("hostaddr=")))
        .map(str::to_string)
}

/// `scheme://…`: a URL, not a path.
pub(super) fn has_url_scheme(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, _)| {
        scheme.len() > 1
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// A repository written as a local path (`../other`, `/srv/repo.git`, `~/x`, `keys/id_rsa`),
/// not a remote's name (`origin`), a URL (`https://…`) or an scp-like `host:path`.
pub(super) fn is_local_repository(text: &str) -> bool {
    if text.contains("://") {
        return text.starts_with("file://");
    }
    let scp_like = text
        .split_once(':')
        .is_some_and(|(host, _)| !host.contains('/'));
    !scp_like && (text.contains('/') || matches!(text, "." | "..") || text.starts_with('~'))
}

/// A repository written as a URL or an scp-like `host:path`, not a local path or a remote's name.
pub(super) fn names_remote_by_url(text: &str) -> bool {
    !is_local_repository(text)
        && (text.contains("://")
            || text
                .split_once(':')
                .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/')))
}

/// A git pathspec that is a pattern git matches itself: `Some(Some((DIR, NAME)))` for a
/// wildcard, whose matches lie below DIR (the part before it: `src/*.env` → `src`) and, when
/// the wildcard is in the last part only, have a base name NAME matches at any depth (git's `*`
/// crosses `/`: `'*.env'` takes `config/.env`); `Some(None)` for magic (`:/`, `:(exclude)src`,
/// `:!x`: the whole repository, or not plain); None for a plain path. A word bash leaves
/// unexpanded is what git gets, so an unquoted glob counts too (`*.env` matches no name for
/// bash, then `.env` for git), while what bash expands it to matches NAME as well.
pub(super) type Pathspec = Option<(String, Option<String>)>;

pub(super) fn pathspec_pattern(w: &Word) -> Option<Pathspec> {
    let text = match w.kind {
        WordKind::Computed => w.value.as_deref()?,
        _ => w.text.as_str(),
    };
    if text.starts_with(':') {
        return Some(None);
    }
    let first = text.find(['*', '?', '['])?;
    let cut = text[..first].rfind('/');
    let dir = match cut {
        Some(0) => "/",
        Some(at) => &text[..at],
        None => ".",
    };
    let rest = &text[cut.map_or(0, |at| at + 1)..];
    let name = (!rest.contains('/')).then(|| rest.to_string());
    Some(Some((dir.to_string(), name)))
}

/// `.`, `./x`, `../x`, `/abs`: a local directory, not a package name.
pub(super) fn is_local_dir(w: &Word) -> bool {
    w.is_literal()
        && (w.text == "."
            || w.text == ".."
            || w.text.starts_with("./")
            || w.text.starts_with("../")
            || w.text.starts_with('/'))
}

/// `NAME=VALUE` whose name is not one that picks a program or loads code, and whose value is a
/// plain word (no path, space, quote or expansion) that cannot name a program elsewhere.
pub(super) fn plain_assignment(w: &Word) -> bool {
    let Some((name, value)) = w.text.split_once('=') else {
        return false;
    };
    w.is_literal()
        && !crate::shell::is_dangerous_variable(name)
        // A name that picks a program or loads code (`CC`, `SHELL`, `AR`: a `!` line of
        // `rules/env_vars.txt`), as the recipes read it.
        && !crate::local::spec::env_vars::known(name).may_change_what_runs()
        // make's special variables (`.SHELLFLAGS`, `.RECIPEPREFIX`) change how recipes run.
        && !name.starts_with('.')
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.,:+-=@%".contains(c))
}

/// Where a command that logs in goes, when that is the repository's own remotes: the names or
/// URLs of its `repository` slot (none given: the remote it defaults to). None for a command
/// without one (`git clone URL`), or pointed at another repository (`--git-dir`).
pub(super) fn own_remotes(r: &Reading, argv: &[Word]) -> Option<Vec<Word>> {
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
pub(super) fn assigned(name: &str, w: &Word) -> Option<Vec<Effect>> {
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
