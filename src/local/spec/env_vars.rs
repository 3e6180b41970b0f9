//! Environment variables set for one command (`NAME=value cmd`), judged from
//! `rules/env_vars.txt`: known inert, known to load config or code, or neither (SPEC 2.2: an
//! environment variable is allowed only when known to be inert).

use std::sync::OnceLock;

/// What sentinel knows of a variable's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Changes output, modes, locale or ports, never what runs or loads.
    Inert,
    /// Loads config or code, or picks a program.
    Loads,
    /// Not in the list.
    Unknown,
}

/// The list's lines: (name or prefix, is a prefix, loads).
type Lines = Vec<(&'static str, bool, bool)>;

fn lines() -> &'static Lines {
    static LINES: OnceLock<Lines> = OnceLock::new();
    LINES.get_or_init(|| {
        include_str!("../../../rules/env_vars.txt")
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (l, loads) = match l.strip_prefix('!') {
                    Some(rest) => (rest, true),
                    None => (l, false),
                };
                match l.strip_suffix('*') {
                    Some(p) => (p, true, loads),
                    None => (l, false, loads),
                }
            })
            .collect()
    })
}

/// What the list says of `name`: an exact line first, then a `!` prefix, then an inert one
/// (`PYTHONUNBUFFERED` is inert though `PYTHON*` loads code).
pub fn known(name: &str) -> Known {
    let lines = lines();
    if let Some(&(_, _, loads)) = lines.iter().find(|(n, p, _)| !p && *n == name) {
        return if loads { Known::Loads } else { Known::Inert };
    }
    let prefixed = |loads: bool| {
        lines.iter().any(|&(n, p, l)| {
            p && l == loads && (name.starts_with(n) || (n.is_empty() && !name.is_empty()))
        })
    };
    // `*_TELEMETRY`: a line that starts with `*` matches the end of a name.
    let suffixed = lines
        .iter()
        .any(|&(n, p, l)| !p && !l && n.starts_with('*') && name.ends_with(&n[1..]));
    if prefixed(true) {
        Known::Loads
    } else if prefixed(false) || suffixed {
        Known::Inert
    } else {
        Known::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_list() {
        for n in [
            "RUST_LOG",
            "NODE_ENV",
            "CI",
            "LC_ALL",
            "PORT",
            "PYTHONUNBUFFERED",
            "EXPO_NO_TELEMETRY",
        ] {
            assert_eq!(known(n), Known::Inert, "{n}");
        }
        for n in [
            "TAR_OPTIONS",
            "CURL_HOME",
            "RUSTUP_TOOLCHAIN",
            "GIT_SSH_COMMAND",
            "LD_PRELOAD",
            "PYTHONSTARTUP",
            "PSQLRC",
        ] {
            assert_eq!(known(n), Known::Loads, "{n}");
        }
        for n in ["MCP_REQUIRE_AUTH", "FOO"] {
            assert_eq!(known(n), Known::Unknown, "{n}");
        }
    }
}
