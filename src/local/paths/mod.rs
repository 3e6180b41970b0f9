//! Paths: making a target absolute, resolving `~`, `..` and symlinks, and matching path lists.
//!
//! Resolution here is lexical (pure); the caller then passes the existing prefix of the path
//! through a [`Fs`](crate::local::paths::fs::Fs) so symlinks are followed.

pub mod credentials;
pub mod fnmatch;
pub mod fs;
pub mod git;
pub mod instruction_files;
pub mod list;
pub mod memo_fs;
pub mod programs;
pub mod scan;
pub mod windows;

pub use crate::local::paths::scan::is_windows_path;
use crate::local::paths::scan::{
    Form, Mask, Scanned, clean, clean_owned, glob_literals, is_simple, strip_home,
};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// Makes `raw` absolute against `cwd`, expanding a leading `~`, `$HOME` or `${HOME}` (the home
/// directory) and `~+`, `$PWD` or `${PWD}` (the directory the command runs in), and removing `.`
/// and `..` lexically. Returns None for a path whose value is not known (another variable,
/// `~user`). On an event from Windows, paths come back with `/` separators; on any other, a
/// Windows path is mapped onto this machine (`windows::on_this_machine`: `C:\Users\NAME` is
/// the home).
pub fn resolve(raw: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if raw.is_empty() {
        return Some(clean(cwd));
    }
    let cwd_text = cwd.to_string_lossy();
    if is_windows_path(&cwd_text) {
        return resolve_windows(raw, &cwd_text, home);
    }
    // `C:\…`, `C:/…`, Git Bash's `/c/…`, `\\server\…`: the first byte says it is none.
    if matches!(
        raw.as_bytes().first(),
        Some(b'/' | b'\\' | b'A'..=b'Z' | b'a'..=b'z')
    ) && let Some(w) = windows::parse(raw, true)
    {
        return Some(windows::on_this_machine(w, home));
    }
    let joined = if let Some(rest) = strip_home(raw) {
        let home_dir = home?;
        let joined = home_dir.join(rest.trim_start_matches('/'));
        // `~/AppData/Local/Temp` is the temp dir, as `C:\Users\NAME\AppData\Local\Temp` is.
        if rest.len() > 8 && rest[1..].starts_with(['A', 'a']) {
            return Some(windows::temp_in_home(clean_owned(joined), home));
        }
        joined
    } else if let Some(rest) = strip_pwd(raw) {
        cwd.join(rest.trim_start_matches('/'))
    } else if raw.starts_with('~') || raw.contains('$') || raw.contains('`') {
        return None;
    } else {
        cwd.join(raw)
    };
    Some(clean_owned(joined))
}

/// `~+`, `$PWD` or `${PWD}` at the start of a word: the directory the command runs in.
pub fn is_pwd_ref(raw: &str) -> bool {
    strip_pwd(raw).is_some()
}

fn strip_pwd(raw: &str) -> Option<&str> {
    ["~+", "$PWD", "${PWD}"].iter().find_map(|h| {
        raw.strip_prefix(h)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// A path on an event from Windows (its cwd is a Windows path): `~` and `$HOME` are the home,
/// Git Bash's `/c/…` is `C:/…`, and what is not known (another variable) is None.
fn resolve_windows(raw: &str, cwd: &str, home: Option<&Path>) -> Option<PathBuf> {
    let raw = if let Some(rest) = strip_home(raw) {
        format!("{}{rest}", home?.to_string_lossy())
    } else if raw.starts_with('~') || raw.contains('$') || raw.contains('`') {
        return None;
    } else if let Some(windows::WindowsPath::Drive(drive, parts)) = windows::parse(raw, true)
        && raw.starts_with('/')
    {
        format!("{drive}:/{}", parts.join("/"))
    } else {
        raw.to_string()
    };
    let raw = raw.replace('\\', "/");
    let joined = if is_windows_path(&raw) || raw.starts_with("//") {
        raw
    } else {
        format!("{}/{}", cwd.replace('\\', "/"), raw)
    };
    let (prefix, rest) = match joined.get(..2) {
        Some(p) if p.ends_with(':') => (p.to_ascii_uppercase(), &joined[2..]),
        _ => (String::new(), joined.as_str()),
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    Some(PathBuf::from(format!("{prefix}/{}", parts.join("/"))))
}

/// True when `path` is `dir` or lies below it.
pub fn is_within(path: &Path, dir: &Path) -> bool {
    let (p, d) = (
        path.as_os_str().as_encoded_bytes(),
        dir.as_os_str().as_encoded_bytes(),
    );
    if is_simple(p) && is_simple(d) {
        return within_bytes(p, d);
    }
    path.starts_with(dir)
}

/// `Path::starts_with` on simple byte strings: `d` is `p` or one of its ancestors.
fn within_bytes(p: &[u8], d: &[u8]) -> bool {
    let d = match d.strip_suffix(b"/") {
        Some(rest) if !rest.is_empty() => rest,
        _ => d,
    };
    p.starts_with(d) && (p.len() == d.len() || d == b"/" || p[d.len()] == b'/')
}

/// One line of a path list: a directory or file, or a glob; `!` lines are exceptions.
#[derive(Clone, Debug)]
pub struct PathPattern {
    /// The path as written in the file.
    pub raw: Cow<'static, str>,
    /// The resolved path, or the glob matcher.
    pub matcher: PathMatcher,
    /// An exception (`!/dev/null`): a path it matches is not in the list.
    pub negated: bool,
    /// The byte pairs every path this line matches contains: a path without them is passed
    /// over at once.
    mask: Mask,
}

/// How a path-list line matches.
#[derive(Clone, Debug)]
pub enum PathMatcher {
    /// The path and everything below it; `simple`: its bytes can be compared as they are (see
    /// `is_simple`), decided once here rather than for every path it is checked against.
    Prefix {
        dir: Cow<'static, Path>,
        simple: bool,
    },
    /// A glob, matched against the path and each of its ancestors; compiled on first use, and
    /// only for a path that contains every literal run of the glob (lower case when
    /// case-insensitive), so `?:/Windows` costs nothing against a Linux path.
    Glob {
        /// The glob as written (normalised).
        glob: Cow<'static, str>,
        /// No glob character: a name the path or one of its ancestors is (`.vscode`).
        plain: bool,
        /// The literal runs, `,`-joined (`scan::glob_literals`).
        literals: Cow<'static, str>,
        case_insensitive: bool,
        /// Boxed: most lines never build theirs, and a list is moved about line by line.
        matcher: std::sync::OnceLock<Option<Box<globset::GlobMatcher>>>,
    },
}

impl PathPattern {
    /// Parses one path-list line; `~` and `$HOME` expand. Globs match case-insensitively when
    /// `case_insensitive` (used for the excluded list, where matching more is the safe side).
    pub fn parse(line: &str, home: Option<&Path>, case_insensitive: bool) -> Result<Self, String> {
        let scanned = scan::scan(line, case_insensitive)?;
        let home = home.map(Home::new);
        PathPattern::read(
            Cow::Owned(line.to_string()),
            scanned,
            home.as_ref(),
            case_insensitive,
        )
    }

    /// Parses a line of a list relative to a project root (`.git`, `**/.envrc`, `!x`): always a
    /// case-insensitive glob over the path below the root.
    pub fn parse_relative(line: &str) -> Result<Self, String> {
        let scanned = scan::scan_relative(line)?;
        PathPattern::read(Cow::Owned(line.to_string()), scanned, None, true)
    }

    /// A line as [`scan::scan`] read it (at build time, for a bundled line: nothing is
    /// copied), with the home directory put in. `raw` is the line as written.
    pub fn read(
        raw: Cow<'static, str>,
        s: Scanned,
        home: Option<&Home>,
        case_insensitive: bool,
    ) -> Result<Self, String> {
        let matcher = match s.form {
            Form::Prefix => PathMatcher::Prefix {
                dir: match s.text {
                    Cow::Borrowed(t) => Cow::Borrowed(Path::new(t)),
                    Cow::Owned(t) => Cow::Owned(PathBuf::from(t)),
                },
                simple: s.simple,
            },
            Form::Glob => PathMatcher::Glob {
                plain: !s.glob,
                glob: s.text,
                literals: s.literals,
                case_insensitive,
                matcher: std::sync::OnceLock::new(),
            },
            Form::Home => return PathPattern::at_home(raw, s, home, case_insensitive, true),
        };
        Ok(PathPattern {
            raw,
            matcher,
            negated: s.negated,
            mask: s.mask,
        })
    }

    /// [`parse`](Self::parse) that reads a `~` line the long way whatever the home (the tests
    /// compare the two).
    #[doc(hidden)]
    pub fn parse_slowly(
        line: &str,
        home: Option<&Path>,
        case_insensitive: bool,
    ) -> Result<Self, String> {
        let scanned = scan::scan(line, case_insensitive)?;
        let raw = Cow::Owned(line.to_string());
        let home = home.map(Home::new);
        match scanned.form {
            Form::Home => {
                PathPattern::at_home(raw, scanned, home.as_ref(), case_insensitive, false)
            }
            _ => PathPattern::read(raw, scanned, None, case_insensitive),
        }
    }

    /// A `~` line: appended to a plain home as it is (its mask and cleanliness were known
    /// without the home) when `fast`; with any other home, expanded and read again.
    fn at_home(
        raw: Cow<'static, str>,
        s: Scanned,
        home: Option<&Home>,
        case_insensitive: bool,
        fast: bool,
    ) -> Result<Self, String> {
        let Some(home) = home else {
            return Err("`~` used but the home directory is not known".to_string());
        };
        let glob = s.glob;
        if fast
            && let Some(h) = home.plain
            && (glob || s.simple)
        {
            let mut expanded = String::with_capacity(h.len() + s.text.len());
            expanded.push_str(h);
            expanded.push_str(&s.text);
            let (matcher, mask) = if glob {
                let m = PathMatcher::Glob {
                    literals: Cow::Owned(glob_literals(&expanded, case_insensitive)),
                    glob: Cow::Owned(expanded),
                    plain: false,
                    case_insensitive,
                    matcher: std::sync::OnceLock::new(),
                };
                (m, s.mask)
            } else {
                // A clean path is simple: no `//`, `/./` or trailing `/.` (the tests compare
                // this with the long way).
                let dir = Cow::Owned(PathBuf::from(expanded));
                (PathMatcher::Prefix { dir, simple: true }, s.mask)
            };
            return Ok(PathPattern {
                raw,
                matcher,
                negated: s.negated,
                mask,
            });
        }
        let (negated, body) = scan::split_negation(&raw);
        let mut expanded = home.path.to_string_lossy().into_owned();
        expanded.push_str(&s.text);
        let again = scan::absolute(negated, &expanded, body, case_insensitive)?;
        PathPattern::read(raw, again, None, case_insensitive)
    }

    /// What the line was read as (form, texts, literals and, `with_mask`, its mask), for the
    /// tests that compare the build's tables with what the runtime reads.
    #[doc(hidden)]
    pub fn fingerprint(&self, with_mask: bool) -> String {
        let matcher = match &self.matcher {
            PathMatcher::Prefix { dir, simple } => format!("prefix {dir:?} {simple}"),
            PathMatcher::Glob {
                glob,
                plain,
                literals,
                case_insensitive,
                ..
            } => {
                format!("glob {glob:?} {plain} {literals:?} {case_insensitive}")
            }
        };
        let mask = if with_mask {
            format!(" {:?}", self.mask)
        } else {
            String::new()
        };
        format!("{:?} {} {matcher}{mask}", self.raw, self.negated)
    }

    /// Builds the glob now: a person's line is checked when it is loaded (bundled lines by the
    /// tests), and the work is skipped for lists a call never consults.
    pub fn check(&self) -> Result<(), String> {
        match &self.matcher {
            PathMatcher::Glob {
                glob,
                case_insensitive,
                ..
            } => build_glob(glob, *case_insensitive).map(|_| ()),
            PathMatcher::Prefix { .. } => Ok(()),
        }
    }

    /// The byte pairs every path this line matches contains.
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// True when `path` is this entry or lies below it.
    pub fn matches(&self, path: &Path) -> bool {
        self.matches_probe(&Probe::new(path))
    }

    /// [`matches`](Self::matches) for a path prepared once for a whole list.
    pub fn matches_probe(&self, probe: &Probe) -> bool {
        self.mask.within(&probe.mask) && self.matches_plainly(probe)
    }

    /// [`matches_probe`](Self::matches_probe) without the mask (the tests compare the two).
    #[doc(hidden)]
    pub fn matches_plainly(&self, probe: &Probe) -> bool {
        let path = probe.path;
        match &self.matcher {
            PathMatcher::Prefix { dir, .. } if probe.windows => {
                let p = probe.lower();
                let d = dir.to_string_lossy().to_ascii_lowercase();
                p == d || p.starts_with(&format!("{}/", d.trim_end_matches('/')))
            }
            PathMatcher::Prefix { dir, simple } => {
                if probe.simple && *simple {
                    within_bytes(probe.bytes, dir.as_os_str().as_encoded_bytes())
                } else {
                    path.starts_with(dir)
                }
            }
            PathMatcher::Glob {
                glob,
                plain,
                literals,
                case_insensitive,
                matcher,
            } => {
                if *plain {
                    // A plain relative name (`.vscode`): the path or one of its ancestors is it.
                    return path.ancestors().any(|a| {
                        let a = a.as_os_str().as_encoded_bytes();
                        if *case_insensitive {
                            a.eq_ignore_ascii_case(glob.as_bytes())
                        } else {
                            a == glob.as_bytes()
                        }
                    });
                }
                let hay = if *case_insensitive {
                    probe.lower().as_bytes()
                } else {
                    probe.text.as_bytes()
                };
                if !literals
                    .split(',')
                    .filter(|l| !l.is_empty())
                    .all(|l| crate::local::contains_bytes(hay, l.as_bytes()))
                {
                    return false;
                }
                // `**/NAME` (`**/.git`): one of the path's ancestors ends in the name. Compiling
                // the glob costs ~0.5M instructions, more than the rest of a call. Without case,
                // only an ASCII path: another is left to the glob's own folding.
                if let Some(name) = anywhere_name(glob)
                    && (!*case_insensitive || (name.is_ascii() && probe.bytes.is_ascii()))
                {
                    return path
                        .ancestors()
                        .any(|a| ends_in(a, name, *case_insensitive));
                }
                // A glob that does not build matches nothing here; `check` reported it.
                let Some(m) = matcher
                    .get_or_init(|| build_glob(glob, *case_insensitive).ok().map(Box::new))
                    .as_ref()
                else {
                    return false;
                };
                path.ancestors().any(|a| m.is_match(a))
            }
        }
    }
}

/// The home directory `~` lines are read with, looked at once for a whole list.
pub struct Home<'a> {
    path: &'a Path,
    /// The home as text when `~` lines can be appended to it as they are
    /// ([`scan::plain_home`]).
    plain: Option<&'a str>,
}

impl<'a> Home<'a> {
    pub fn new(path: &'a Path) -> Home<'a> {
        Home {
            path,
            plain: path.to_str().filter(|h| scan::plain_home(h)),
        }
    }

    /// True when `~` lines are appended to this home as they are (their byte pairs as the
    /// build found them).
    pub fn is_plain(&self) -> bool {
        self.plain.is_some()
    }
}

/// A path prepared once for matching against every line of a path list: its text, whether it
/// is a Windows path, whether its bytes can be compared as they are, its byte pairs and (on
/// first need) its lower-case form. A list of 60 lines checked per word of a command made these
/// the cost.
pub struct Probe<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    text: std::borrow::Cow<'a, str>,
    windows: bool,
    simple: bool,
    /// The pairs of the text; every pair when a line could match without its text being in
    /// the path's as it is (a path `Path` compares by component, or not UTF-8).
    mask: Mask,
    lower: std::sync::OnceLock<String>,
}

impl<'a> Probe<'a> {
    /// Prepares `path`.
    pub fn new(path: &'a Path) -> Probe<'a> {
        let text = path.to_string_lossy();
        let bytes = path.as_os_str().as_encoded_bytes();
        let simple = is_simple(bytes);
        let mask = match &text {
            Cow::Borrowed(t) if simple => Mask::of(t.as_bytes()),
            _ => Mask::FULL,
        };
        Probe {
            path,
            bytes,
            windows: is_windows_path(&text),
            simple,
            text,
            mask,
            lower: std::sync::OnceLock::new(),
        }
    }

    /// The path's byte pairs ([`Mask::FULL`] when lines must be tried whatever their pairs).
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    fn lower(&self) -> &str {
        self.lower.get_or_init(|| self.text.to_ascii_lowercase())
    }
}

/// The name of a `**/NAME` glob whose NAME (one component or several) holds no glob
/// character: it matches what ends in `/NAME`, or is `NAME`.
fn anywhere_name(glob: &str) -> Option<&str> {
    let name = glob.strip_prefix("**/")?;
    let special = |b: u8| matches!(b, b'*' | b'?' | b'[' | b']' | b'{' | b'}' | b'\\');
    (!name.is_empty()
        && !name.starts_with('/')
        && !name.ends_with('/')
        && !name.bytes().any(special))
    .then_some(name)
}

/// True when `path` is `name` or ends in `/name`, compared as bytes (ASCII letters in any case
/// when `any_case`).
fn ends_in(path: &Path, name: &str, any_case: bool) -> bool {
    let (p, n) = (path.as_os_str().as_encoded_bytes(), name.as_bytes());
    if p.len() < n.len() || (p.len() > n.len() && p[p.len() - n.len() - 1] != b'/') {
        return false;
    }
    let tail = &p[p.len() - n.len()..];
    if any_case {
        tail.eq_ignore_ascii_case(n)
    } else {
        tail == n
    }
}

fn build_glob(glob: &str, case_insensitive: bool) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(glob)
        .case_insensitive(case_insensitive)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("bad glob: {e}"))
}

/// The entry of `list` that `path` falls under, unless a `!` exception covers it.
pub fn list_matches<'a, T>(list: &'a [(PathPattern, T)], path: &Path) -> Option<&'a T> {
    let probe = Probe::new(path);
    first_unexcepted(list.iter(), |p| p.matches_probe(&probe))
}

/// The entry of the first positive line of `lines` that `matches`, unless a `!` line matches
/// too: how every path list is read, whichever of its lines are tried.
pub(crate) fn first_unexcepted<'a, T: 'a>(
    lines: impl Iterator<Item = &'a (PathPattern, T)> + Clone,
    matches: impl Fn(&PathPattern) -> bool,
) -> Option<&'a T> {
    if lines.clone().any(|(p, _)| p.negated && matches(p)) {
        return None;
    }
    lines
        .into_iter()
        .find(|(p, _)| !p.negated && matches(p))
        .map(|(_, t)| t)
}

/// [`list_matches`] without the byte-pair masks: each line tried in full (for the tests).
#[doc(hidden)]
pub fn list_matches_plainly<'a, T>(list: &'a [(PathPattern, T)], path: &Path) -> Option<&'a T> {
    let probe = Probe::new(path);
    first_unexcepted(list.iter(), |p| p.matches_plainly(&probe))
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::local::paths::fs::{Fs, RealFs};

    #[test]
    fn is_within_agrees_with_the_component_walk() {
        let paths = [
            "/",
            "/a",
            "/a/",
            "/a/b",
            "/a/b/",
            "/ab",
            "/ab/c",
            "/a//b",
            "/a/./b",
            "/a/.",
            "/a/..",
            "/a/../b",
            "/home/dev/proj",
            "/home/dev/project",
            "/home/dev/proj/.git/config",
            "a/b",
            "/a/.b",
            "/a/.b/c",
            "/.",
            "./a",
            "//a",
            "/a/./",
            ".",
        ];
        for p in paths {
            for d in paths {
                assert_eq!(
                    is_within(Path::new(p), Path::new(d)),
                    Path::new(p).starts_with(d),
                    "{p} within {d}"
                );
            }
        }
    }

    fn r(raw: &str) -> Option<String> {
        resolve(raw, Path::new("/home/u/proj"), Some(Path::new("/home/u")))
            .map(|p| p.to_string_lossy().to_string())
    }

    #[test]
    fn resolves_relative_home_and_dotdot() {
        assert_eq!(
            r("src/main.rs").as_deref(),
            Some("/home/u/proj/src/main.rs")
        );
        assert_eq!(r("~/.bashrc").as_deref(), Some("/home/u/.bashrc"));
        assert_eq!(r("$HOME/.ssh").as_deref(), Some("/home/u/.ssh"));
        assert_eq!(r("${HOME}").as_deref(), Some("/home/u"));
        assert_eq!(r("../../../etc/passwd").as_deref(), Some("/etc/passwd"));
        assert_eq!(r("./a/../b").as_deref(), Some("/home/u/proj/b"));
        assert_eq!(r("$OTHER/x"), None);
        assert_eq!(r("~root/x"), None);
    }

    #[test]
    fn windows_paths_are_absolute_and_normalised() {
        // On a non-Windows event a drive path is a place of its own (`paths::windows`).
        assert_eq!(
            r("C:\\Windows\\System32\\x.dll").as_deref(),
            Some("/C:/Windows/System32/x.dll")
        );
        assert_eq!(r("c:/a/../Windows").as_deref(), Some("/C:/Windows"));
        let p = PathPattern::parse("C:/Windows", None, true).unwrap();
        assert!(p.matches(Path::new("C:/WINDOWS/system32")));
        let list: list::PathList<()> = list::PathList::new(vec![(p, ())]);
        assert!(list.matches(Path::new("/C:/WINDOWS/system32")).is_some());
        // On an event from Windows they stay Windows paths, `~` the home.
        let home = Path::new("C:/Users/me");
        assert_eq!(
            resolve("~/x", Path::new("C:/Users/me/proj"), Some(home)),
            Some(PathBuf::from("C:/Users/me/x"))
        );
        assert_eq!(
            resolve("/c/Users/me/x", Path::new("C:/Users/me/proj"), Some(home)),
            Some(PathBuf::from("C:/Users/me/x"))
        );
    }

    #[test]
    fn globs_skip_paths_without_their_literals() {
        let p = PathPattern::parse("?:/Users/*/AppData", None, true).unwrap();
        assert!(p.matches(Path::new("C:/Users/bob/AppData/Roaming/x")));
        assert!(p.matches(Path::new("c:/users/bob/appdata")));
        assert!(!p.matches(Path::new("/home/bob/AppData")));
        let q = PathPattern::parse("/home/*/secret-*", None, false).unwrap();
        assert!(q.matches(Path::new("/home/u/secret-x/y")));
        assert!(!q.matches(Path::new("/home/u/public")));
    }

    #[test]
    fn symlinks_of_the_existing_prefix_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/etc", &link).unwrap();
        let got = RealFs.real_path(&link.join("new/file"));
        assert_eq!(got, Path::new("/etc/new/file"));
    }
}

#[cfg(test)]
mod anywhere_name_tests {
    use super::*;

    /// The `**/NAME` shortcut answers what the compiled glob answers, over the path and its
    /// ancestors, as `matches_plainly` asks.
    #[test]
    fn a_name_anywhere_matches_as_the_glob_does() {
        let globs = [
            "**/.git",
            "**/.git/hooks",
            "**/.idea",
            "**/node_modules/.bin",
            "**/a.b",
        ];
        let paths = [
            ".git",
            ".git/config",
            "a/.git",
            "/abs/x/.git/hooks/pre-commit",
            "x.git",
            "a/b.git/c",
            "/.git",
            "a/.gitx",
            "a/.git/hooksx",
            ".idea/workspace.xml",
            "x/.idea",
            "node_modules/.bin/jest",
            "/p/node_modules/.binx",
            "/p/sub/node_modules/.bin",
            "a.b",
            "axb",
            "/q/a.b/c",
            "",
            "/",
        ];
        let upper: Vec<String> = paths.iter().map(|p| p.to_ascii_uppercase()).collect();
        for glob in globs {
            let name = anywhere_name(glob).expect(glob);
            for any_case in [false, true] {
                let m = build_glob(glob, any_case).unwrap();
                for p in paths
                    .iter()
                    .copied()
                    .chain(upper.iter().map(String::as_str))
                {
                    let path = Path::new(p);
                    assert_eq!(
                        path.ancestors().any(|a| ends_in(a, name, any_case)),
                        path.ancestors().any(|a| m.is_match(a)),
                        "{glob} against {p}, any case: {any_case}"
                    );
                }
            }
        }
        // Not ASCII: the compiled glob decides, as it did before the shortcut.
        let pattern = PathPattern::parse("**/.git/hooks", None, true).unwrap();
        let m = build_glob("**/.git/hooks", true).unwrap();
        for p in [
            "p/.git/hoo\u{212A}s/pre-commit",
            "p/.GIT/hoOks/é",
            "é/.git/hooks",
        ] {
            let path = Path::new(p);
            assert_eq!(
                pattern.matches(path),
                path.ancestors().any(|a| m.is_match(a)),
                "{p}"
            );
        }
        for not_plain in [
            "**/*.ppk",
            "**/id_rsa.*",
            "**/a/**",
            "**/x[ab]",
            "**/",
            "a/**/b",
        ] {
            assert!(anywhere_name(not_plain).is_none(), "{not_plain}");
        }
    }
}
