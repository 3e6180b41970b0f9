//! Environment variables a command is given (`NAME=value cmd`, `export NAME=value`), judged from
//! `rules/env_vars.txt`: known inert, known to load config or code, a class whose value is
//! judged (folders programs run from, folders code loads from, a command line, a program's
//! options), or none of these (SPEC 2.2: an environment variable is allowed only when known to
//! be inert, or its value is).

use crate::call::word::{Word, WordKind};
use std::sync::OnceLock;

/// What sentinel knows of a variable's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Changes output, modes, locale or ports, never what runs or loads.
    Inert,
    /// Loads config or code, or picks a program.
    Loads,
    /// Folders programs are run from (`PATH`, `JAVA_HOME`): each must be a known place outside
    /// the project, the temp dirs and the safe paths.
    Programs,
    /// Folders or files code is loaded from (`PYTHONPATH`): each is a file the command runs.
    Code,
    /// A command line a program runs (`PAGER`): never inert; the command is judged too.
    Command,
    /// Options this program reads (`NODE_OPTIONS`: node's): inert when its spec reads them so.
    Options(&'static str),
    /// Not in the list.
    Unknown,
}

impl Known {
    /// Whether setting it may change what runs or loads, beyond the project's configuration.
    pub fn may_change_what_runs(self) -> bool {
        !matches!(self, Known::Inert | Known::Unknown)
    }
}

/// One line: the name or its prefix (`*` at the end) or suffix (`*` at the start), and what
/// it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Line {
    name: &'static str,
    shape: Shape,
    known: Known,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Exact,
    Prefix,
    Suffix,
}

const TEXT: &str = include_str!("../../../rules/env_vars.txt");

/// Reads the list; an error names `env_vars.txt:LINE`.
fn parse(text: &'static str, check: bool) -> Result<Vec<Line>, String> {
    // Read at the start of every hook that meets a variable: one pass over the bytes, the
    // words of a line sliced out of the text, an error formatted only when there is one.
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(320);
    let (mut at, mut line_no) = (0, 0);
    while at < b.len() {
        line_no += 1;
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |n| at + n);
        let body_end = memchr::memchr(b'#', &b[at..end]).map_or(end, |n| at + n);
        let mut words: [&'static str; 4] = [""; 4];
        let mut count = 0;
        let mut i = at;
        while i < body_end && count < 4 {
            while i < body_end && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'\r') {
                i += 1;
            }
            let start = i;
            while i < body_end && !(b[i] == b' ' || b[i] == b'\t' || b[i] == b'\r') {
                i += 1;
            }
            if i > start {
                words[count] = &text[start..i];
                count += 1;
            }
        }
        at = end + 1;
        if count == 0 {
            continue;
        }
        let place = || format!("env_vars.txt:{line_no}");
        let first = words[0];
        let (loads, name) = match first.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, first),
        };
        let (name, shape) = if let Some(p) = name.strip_suffix('*') {
            (p, Shape::Prefix)
        } else if let Some(s) = name.strip_prefix('*') {
            (s, Shape::Suffix)
        } else {
            (name, Shape::Exact)
        };
        // The names' spelling is checked by the test of the bundled list, not on every start.
        if check
            && (name.is_empty() && shape != Shape::Prefix
                || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
        {
            return Err(format!("{}: `{first}` is not a variable name", place()));
        }
        let known = match (count, words[1], words[2]) {
            (1, ..) if loads => Known::Loads,
            (1, ..) => Known::Inert,
            (..) if loads => {
                return Err(format!("{}: a `!` line takes no class", place()));
            }
            (2, "programs", _) => Known::Programs,
            (2, "code", _) => Known::Code,
            (2, "command", _) => Known::Command,
            (3, "options", program) => Known::Options(program),
            (_, other, _) => {
                return Err(format!(
                    "{}: `{other}` is not a class (programs, code, command, options PROGRAM)",
                    place()
                ));
            }
        };
        out.push(Line { name, shape, known });
    }
    Ok(out)
}

fn lines() -> &'static [Line] {
    static LINES: OnceLock<Vec<Line>> = OnceLock::new();
    // The bundled list is checked by a test: a bad line there never ships.
    LINES.get_or_init(|| parse(TEXT, false).unwrap_or_default())
}

/// What the list says of `name`: an exact line first, then a `!` prefix, then another line
/// that matches it (`PYTHONUNBUFFERED` is inert though `PYTHON*` loads code).
pub fn known(name: &str) -> Known {
    let lines = lines();
    if let Some(l) = lines
        .iter()
        .find(|l| l.shape == Shape::Exact && l.name == name)
    {
        return l.known;
    }
    let matches = |l: &&Line| match l.shape {
        Shape::Exact => false,
        Shape::Prefix => name.starts_with(l.name) && name.len() > l.name.len(),
        Shape::Suffix => name.ends_with(l.name) && name.len() > l.name.len(),
    };
    // A `!` line first, then one with a class, then an inert one.
    let rank = |k: Known| match k {
        Known::Loads => 0,
        Known::Inert => 2,
        _ => 1,
    };
    lines
        .iter()
        .filter(matches)
        .min_by_key(|l| rank(l.known))
        .map_or(Known::Unknown, |l| l.known)
}

/// The entries of a `:`-separated value (`/opt/x/bin:$PATH`), each a word of its own: an empty
/// one is `.` (the folder the command runs in), and `$NAME` or `${NAME}` (what the variable
/// already held) is left out.
pub fn entries(name: &str, value: &Word) -> Vec<Word> {
    let own = [format!("${name}"), format!("${{{name}}}")];
    value
        .text
        .split([':', ';'])
        .filter(|e| !own.iter().any(|o| o == e))
        .map(|e| {
            let text = if e.is_empty() { "." } else { e };
            Word {
                text: text.to_string(),
                kind: if value.kind == WordKind::Literal || !text.contains(['$', '`']) {
                    WordKind::Literal
                } else {
                    WordKind::Computed
                },
                value: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_list() {
        parse(TEXT, true).unwrap_or_else(|e| panic!("{e}"));
        for n in [
            "RUST_LOG",
            "NODE_ENV",
            "CI",
            "LC_ALL",
            "PORT",
            "PYTHONUNBUFFERED",
            "PYTHONWARNINGS",
            "EXPO_NO_TELEMETRY",
            "CARGO_TERM_COLOR",
        ] {
            assert_eq!(known(n), Known::Inert, "{n}");
        }
        for n in [
            "TAR_OPTIONS",
            "CURL_HOME",
            "RUSTUP_TOOLCHAIN",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "BASH_ENV",
            "ENV",
            "PSQLRC",
            "CC",
            "GIT_DIR",
            "PYTHONHOME",
            "CARGO_BUILD_RUSTC",
        ] {
            assert_eq!(known(n), Known::Loads, "{n}");
        }
        for n in ["PATH", "JAVA_HOME", "ANDROID_HOME", "GOPATH", "CARGO_HOME"] {
            assert_eq!(known(n), Known::Programs, "{n}");
        }
        for n in ["PYTHONPATH", "NODE_PATH", "PYTHONSTARTUP"] {
            assert_eq!(known(n), Known::Code, "{n}");
        }
        for n in ["PAGER", "EDITOR", "GIT_SSH_COMMAND", "GIT_PAGER"] {
            assert_eq!(known(n), Known::Command, "{n}");
        }
        assert_eq!(known("NODE_OPTIONS"), Known::Options("node"));
        for n in ["MCP_REQUIRE_AUTH", "FOO"] {
            assert_eq!(known(n), Known::Unknown, "{n}");
        }
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(
            parse("A\n!B programs\n", true).unwrap_err(),
            "env_vars.txt:2: a `!` line takes no class"
        );
        assert!(
            parse("X frob\n", true)
                .unwrap_err()
                .starts_with("env_vars.txt:1:")
        );
        assert!(
            parse("A-B\n", true)
                .unwrap_err()
                .contains("not a variable name")
        );
    }
}
