//! Reading a path-list line as far as it can be read without the home directory: whether it is
//! an exception, a directory or a glob, its normalised text, the literals every path it matches
//! contains, and their [`Mask`]. Shared by `build.rs` (which reads the bundled lists once, at
//! build time) and [`crate::paths`] (a person's and a project's lines), so both read a line the
//! same way. Only std: the build script includes this file as it is.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

/// The characters that make a line a glob.
pub const GLOB_CHARS: [char; 4] = ['*', '?', '[', '{'];

/// What a line is, before the home directory is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// An absolute directory or file: `text` is its clean path.
    Prefix,
    /// A glob: `text` is the glob; `literals` its literal runs.
    Glob,
    /// A `~`, `$HOME` or `${HOME}` line: `text` is what follows the home directory.
    Home,
}

/// A path-list line read without the home directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanned {
    /// A `!` exception.
    pub negated: bool,
    pub form: Form,
    /// See [`Form`]; borrowed from the binary for a bundled line.
    pub text: Cow<'static, str>,
    /// A glob's literal runs joined by `,` (which no run contains), lower case when it matches
    /// case-insensitively; a Home line's, of what follows the home directory.
    pub literals: Cow<'static, str>,
    /// `text` has a glob character (a Glob without one is a plain name).
    pub glob: bool,
    /// A Prefix's path can be compared byte for byte ([`is_simple`]); for a Home line, that what
    /// follows the home directory is clean, so appending it to a plain home gives the clean path.
    pub simple: bool,
    /// The bigrams every path the line matches contains (see [`Mask`]).
    pub mask: Mask,
}

/// Reads an absolute line (`/etc`, `~/.ssh`, `**/.env`, `!/dev/null`); `case_insensitive` for
/// a glob's literals. Errors say what is wrong with the line.
pub fn scan(line: &str, case_insensitive: bool) -> Result<Scanned, String> {
    let (negated, body) = split_negation(line);
    match strip_home(body) {
        Some(rest) => Ok(home(negated, rest, case_insensitive)),
        None => absolute(negated, body, body, case_insensitive),
    }
}

/// A Home line: what follows the home directory, read now; joined to the home when it is known.
fn home(negated: bool, rest: &str, case_insensitive: bool) -> Scanned {
    let glob = rest.contains(GLOB_CHARS);
    let literals = if glob {
        glob_literals(rest, case_insensitive)
    } else {
        String::new()
    };
    // `rest` is empty or starts with `/` (strip_home); then `/h` + rest is clean exactly when
    // any plain home + rest is (the checks of `is_clean` cannot span the join: see `plain_home`).
    let simple = !glob && is_clean(&format!("/h{rest}"));
    let mask = if glob {
        Mask::of_literals(&literals)
    } else {
        Mask::of(rest.as_bytes())
    };
    Scanned {
        negated,
        form: Form::Home,
        text: Cow::Owned(rest.to_string()),
        literals: Cow::Owned(literals),
        glob,
        simple,
        mask,
    }
}

/// Reads `expanded`, a line's body with any home directory put in (`body`: as written, for the
/// error).
pub fn absolute(
    negated: bool,
    expanded: &str,
    body: &str,
    case_insensitive: bool,
) -> Result<Scanned, String> {
    let normalised = if is_windows_path(expanded) {
        expanded.replace('\\', "/")
    } else {
        expanded.to_string()
    };
    if normalised.contains(GLOB_CHARS) {
        return Ok(glob(negated, normalised, case_insensitive));
    }
    if normalised.starts_with('/') || is_windows_path(&normalised) {
        let dir = clean(Path::new(&normalised)).to_string_lossy().into_owned();
        let simple = is_simple(dir.as_bytes());
        return Ok(Scanned {
            negated,
            form: Form::Prefix,
            mask: prefix_mask(&dir, simple),
            text: Cow::Owned(dir),
            literals: Cow::Borrowed(""),
            glob: false,
            simple,
        });
    }
    Err(format!(
        "`{body}` is not an absolute path, `~` path or glob"
    ))
}

/// Reads a line of a list relative to a project root (`.git`, `**/.envrc`, `!x`): always a
/// case-insensitive glob over the path below the root.
pub fn scan_relative(line: &str) -> Result<Scanned, String> {
    let (negated, body) = split_negation(line);
    let body = body.trim_start_matches("./").trim_end_matches('/');
    if body.is_empty() || body.starts_with(['/', '~', '$']) || body.contains("..") {
        return Err(format!("`{body}` is not a path relative to the project"));
    }
    Ok(glob(negated, body.to_string(), true))
}

fn glob(negated: bool, glob: String, case_insensitive: bool) -> Scanned {
    let has_glob = glob.contains(GLOB_CHARS);
    let (literals, mask) = if has_glob {
        let l = glob_literals(&glob, case_insensitive);
        let m = Mask::of_literals(&l);
        (l, m)
    } else {
        // A plain name is matched as a whole ancestor of the path: its text is in the path.
        (String::new(), Mask::of(glob.as_bytes()))
    };
    Scanned {
        negated,
        form: Form::Glob,
        text: Cow::Owned(glob),
        literals: Cow::Owned(literals),
        glob: has_glob,
        simple: false,
        mask,
    }
}

/// A directory's mask: a path inside it starts with it (less a trailing `/`). A directory that
/// is not simple is compared component by component, so its text need not be in the path: no
/// bigram is required.
pub fn prefix_mask(dir: &str, simple: bool) -> Mask {
    if simple {
        Mask::of(dir.trim_end_matches('/').as_bytes())
    } else {
        Mask::EMPTY
    }
}

/// `!x` → (true, `x`).
pub fn split_negation(line: &str) -> (bool, &str) {
    match line.strip_prefix('!') {
        Some(rest) => (true, rest.trim()),
        None => (false, line),
    }
}

/// What follows a leading `~`, `$HOME` or `${HOME}` (empty, or starting with `/`).
pub fn strip_home(raw: &str) -> Option<&str> {
    ["~", "$HOME", "${HOME}"].iter().find_map(|h| {
        raw.strip_prefix(h)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// True for `C:\…`, `C:/…` and `\\server\share` paths, which are absolute on Windows.
pub fn is_windows_path(raw: &str) -> bool {
    let b = raw.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/'))
        || raw.starts_with("\\\\")
}

/// An absolute path with no `.` or `..` component, no doubled or trailing slash: `clean` gives
/// it back as it is.
pub fn is_clean(s: &str) -> bool {
    // One pass over the slashes: what follows each may not be empty (a trailing slash, but
    // for the root), another slash, or a `.` or `..` component.
    let b = s.as_bytes();
    b.first() == Some(&b'/')
        && (b.len() == 1
            || b.iter()
                .enumerate()
                .filter(|&(_, &c)| c == b'/')
                .all(|(i, _)| {
                    !matches!(
                        &b[i + 1..],
                        [] | [b'/', ..]
                            | [b'.']
                            | [b'.', b'/', ..]
                            | [b'.', b'.']
                            | [b'.', b'.', b'/', ..]
                    )
                }))
}

/// Whether a home directory can have a Home line's text appended as it is: the result is then
/// what expanding `~` and cleaning gives, without glob characters, and no check of [`is_clean`]
/// can span the join (the home does not end in `/`, `/.` or `/..`, and the text starts with
/// `/`). Other homes (`/`, a glob character, not UTF-8) take the line the long way.
pub fn plain_home(home: &str) -> bool {
    home.len() > 1 && is_clean(home) && !home.contains(['*', '?', '[', ']', '{', '}', ',', '\\'])
}

/// Removes `.` and `..` components; `..` at the root stays at the root.
pub fn clean(p: &Path) -> PathBuf {
    // Most paths are clean already: returned as they are, not rebuilt component by component.
    if let Some(s) = p.to_str()
        && is_clean(s)
    {
        return p.to_path_buf();
    }
    rebuild(p)
}

/// [`clean`] of a path the caller owns: a clean one is given back without a copy.
pub fn clean_owned(p: PathBuf) -> PathBuf {
    match p.to_str() {
        Some(s) if is_clean(s) => p,
        _ => rebuild(&p),
    }
}

fn rebuild(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

/// Whether `Path` reads these bytes as they are: no `//`, no `/./`, no trailing `/.`.
pub fn is_simple(b: &[u8]) -> bool {
    b.iter()
        .enumerate()
        .filter(|&(_, &c)| c == b'/')
        .all(|(i, _)| match b.get(i + 1) {
            Some(b'/') => false,
            Some(b'.') => !matches!(b.get(i + 2), None | Some(b'/')),
            _ => true,
        })
}

/// The literal runs every path a glob matches contains (lower case when case-insensitive),
/// joined by `,`.
pub fn glob_literals(glob: &str, case_insensitive: bool) -> String {
    let plain;
    let text = if glob.contains(['[', '{']) {
        plain = outside_braces(glob);
        plain.as_str()
    } else {
        glob
    };
    let runs: Vec<String> = text
        .split(['*', '?', '[', ']', '{', '}', ','])
        .map(|l| l.trim_matches('/'))
        .filter(|l| !l.is_empty())
        .map(|l| {
            if case_insensitive {
                l.to_ascii_lowercase()
            } else {
                l.to_string()
            }
        })
        .collect();
    runs.join(",")
}

/// A glob with each `{a,b}` alternation and `[…]` class blanked out: the literal runs left are
/// in every path it matches.
fn outside_braces(glob: &str) -> String {
    let mut depth = 0usize;
    let mut in_class = false;
    glob.chars()
        .map(|c| match c {
            '[' if depth == 0 => {
                in_class = true;
                '*'
            }
            ']' if in_class => {
                in_class = false;
                '*'
            }
            '{' => {
                depth += 1;
                '*'
            }
            '}' if depth > 0 => {
                depth -= 1;
                '*'
            }
            _ if depth > 0 || in_class => '*',
            c => c,
        })
        .collect()
}

/// A set of byte pairs (ASCII case folded), hashed into 256 bits: a line's mask holds the pairs
/// every path it matches contains, a path's the pairs it has. A line whose mask is not within a
/// path's cannot match it: a few instructions decide that for most lines of a list, instead of
/// a substring search or a prefix compare for each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mask(pub [u64; 4]);

impl Mask {
    /// No pair required: passes every path.
    pub const EMPTY: Mask = Mask([0; 4]);
    /// Every pair: a path whose pairs cannot be known admits every line.
    pub const FULL: Mask = Mask([u64::MAX; 4]);

    /// The pairs of `text`.
    pub fn of(text: &[u8]) -> Mask {
        let mut m = Mask::EMPTY;
        m.add(text);
        m
    }

    /// The pairs of each of the `,`-joined literals.
    pub fn of_literals(literals: &str) -> Mask {
        let mut m = Mask::EMPTY;
        for l in literals.split(',') {
            m.add(l.as_bytes());
        }
        m
    }

    fn add(&mut self, text: &[u8]) {
        // Each byte lowered once (it is in two pairs): the same bits as `bit` of each window.
        let Some((&first, rest)) = text.split_first() else {
            return;
        };
        let mut prev = u32::from(first.to_ascii_lowercase());
        for &c in rest {
            let c = u32::from(c.to_ascii_lowercase());
            self.set(Self::hash(prev << 8 | c));
            prev = c;
        }
    }

    /// Adds the pair hashed to `bit`.
    pub fn set(&mut self, bit: usize) {
        self.0[bit >> 6] |= 1 << (bit & 63);
    }

    /// Whether the pair hashed to `bit` is in.
    pub fn has(&self, bit: usize) -> bool {
        self.0[bit >> 6] & (1 << (bit & 63)) != 0
    }

    /// The bit of `literal`'s first pair (None for a literal shorter than two bytes): a text
    /// that contains the literal has it.
    pub fn first_pair_bit(literal: &[u8]) -> Option<usize> {
        match literal {
            [a, b, ..] => Some(Self::bit(*a, *b)),
            _ => None,
        }
    }

    fn bit(a: u8, b: u8) -> usize {
        Self::hash(u32::from(a.to_ascii_lowercase()) << 8 | u32::from(b.to_ascii_lowercase()))
    }

    /// The bit of a lower-cased pair.
    fn hash(pair: u32) -> usize {
        (pair.wrapping_mul(0x9E37_79B1) >> 24) as usize
    }

    /// Whether a text with these pairs may contain `literal`: it has the literal's first and
    /// last pairs (always, for a literal shorter than two bytes).
    pub fn may_contain(&self, literal: &[u8]) -> bool {
        let has = |a: u8, b: u8| self.has(Self::bit(a, b));
        match literal {
            [a, b, .., y, z] => has(*a, *b) && has(*y, *z),
            [a, b] => has(*a, *b),
            _ => true,
        }
    }

    /// The pairs of either.
    pub fn or(&self, other: &Mask) -> Mask {
        Mask(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// The pairs of both.
    pub fn and(&self, other: &Mask) -> Mask {
        Mask(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    /// Every pair of `self` is in `other`.
    pub fn within(&self, other: &Mask) -> bool {
        (self.0[0] & !other.0[0])
            | (self.0[1] & !other.0[1])
            | (self.0[2] & !other.0[2])
            | (self.0[3] & !other.0[3])
            == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_clean` as its doc says it, one search per clause.
    fn is_clean_by_its_definition(s: &str) -> bool {
        s.starts_with('/')
            && !s.contains("/./")
            && !s.contains("/../")
            && !s.contains("//")
            && !s.ends_with("/.")
            && !s.ends_with("/..")
            && (s.len() == 1 || !s.ends_with('/'))
    }

    #[test]
    fn a_mask_has_the_bit_of_each_window() {
        for text in [
            "",
            "a",
            "ab",
            "Git Push --FORCE",
            "rm -rf ~/.ssh",
            "é\u{0}\u{ff}xY",
        ] {
            let mut each = Mask::EMPTY;
            for w in text.as_bytes().windows(2) {
                each.set(Mask::bit(w[0], w[1]));
            }
            assert_eq!(Mask::of(text.as_bytes()), each, "{text:?}");
        }
    }

    #[test]
    fn is_clean_is_its_definition_on_every_short_path() {
        // Every string of up to 8 characters over `/`, `.` and a letter: each clause and every
        // way they meet at the ends.
        let mut all = vec![String::new()];
        for _ in 0..8 {
            let longer: Vec<String> = all
                .iter()
                .filter(|s| s.len() == all.last().map_or(0, String::len))
                .flat_map(|s| ['/', '.', 'a'].map(|c| format!("{s}{c}")))
                .collect();
            all.extend(longer);
        }
        assert!(all.len() > 9_000);
        for s in &all {
            assert_eq!(is_clean(s), is_clean_by_its_definition(s), "{s:?}");
            let p = Path::new(s);
            assert_eq!(clean_owned(p.to_path_buf()), clean(p), "{s:?}");
        }
    }
}
