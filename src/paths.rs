//! Paths: making a target absolute, resolving `~`, `..` and symlinks, and matching path lists.
//!
//! Resolution is lexical first (pure), then the existing prefix of the path is passed through a
//! [`Fs`] so symlinks are followed; tests and fuzzing use [`LexicalFs`], which touches nothing.

use std::path::{Component, Path, PathBuf};

/// How the file system is consulted when a path is resolved.
pub trait Fs {
    /// The real path of `p` with symlinks of its longest existing prefix followed.
    fn real_path(&self, p: &Path) -> PathBuf;
}

/// Follows symlinks on the real file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

impl Fs for RealFs {
    fn real_path(&self, p: &Path) -> PathBuf {
        // Walk up to the longest prefix that exists, canonicalise it, and re-append the rest.
        let mut existing = p.to_path_buf();
        let mut rest = Vec::new();
        loop {
            if let Ok(real) = std::fs::canonicalize(&existing) {
                let mut out = real;
                for part in rest.iter().rev() {
                    out.push(part);
                }
                return out;
            }
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent.to_path_buf();
                }
                _ => return p.to_path_buf(),
            }
        }
    }
}

/// Never touches the file system: paths are resolved lexically only.
#[derive(Clone, Copy, Debug, Default)]
pub struct LexicalFs;

impl Fs for LexicalFs {
    fn real_path(&self, p: &Path) -> PathBuf {
        p.to_path_buf()
    }
}

/// True for `C:\…`, `C:/…` and `\\server\share` paths, which are absolute on Windows.
pub fn is_windows_path(raw: &str) -> bool {
    let b = raw.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/'))
        || raw.starts_with("\\\\")
}

/// Makes `raw` absolute against `cwd`, expanding a leading `~`, `$HOME` or `${HOME}` and
/// removing `.` and `..` lexically. Returns None for a path whose value is not known
/// (another variable, `~user`). Windows paths come back with `/` separators.
pub fn resolve(raw: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if raw.is_empty() {
        return Some(clean(cwd));
    }
    if is_windows_path(raw) || is_windows_path(&cwd.to_string_lossy()) {
        return Some(resolve_windows(raw, &cwd.to_string_lossy()));
    }
    let joined = if let Some(rest) = strip_home(raw) {
        let home = home?;
        home.join(rest.trim_start_matches('/'))
    } else if raw.starts_with('~') || raw.contains('$') || raw.contains('`') {
        return None;
    } else {
        cwd.join(raw)
    };
    Some(clean(&joined))
}

fn strip_home(raw: &str) -> Option<&str> {
    ["~", "$HOME", "${HOME}"].iter().find_map(|h| {
        raw.strip_prefix(h)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Removes `.` and `..` components; `..` at the root stays at the root.
fn clean(p: &Path) -> PathBuf {
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

fn resolve_windows(raw: &str, cwd: &str) -> PathBuf {
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
    PathBuf::from(format!("{prefix}/{}", parts.join("/")))
}

/// True when `path` is `dir` or lies below it.
pub fn is_within(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

/// One line of a path list: a directory or file, or a glob; `!` lines are exceptions.
#[derive(Clone, Debug)]
pub struct PathPattern {
    /// The path as written in the file.
    pub raw: String,
    /// The resolved path, or the glob matcher.
    pub matcher: PathMatcher,
    /// An exception (`!/dev/null`): a path it matches is not in the list.
    pub negated: bool,
}

/// How a path-list line matches.
#[derive(Clone, Debug)]
pub enum PathMatcher {
    /// The path and everything below it.
    Prefix(PathBuf),
    /// A glob, matched against the path and each of its ancestors; compiled on first use, and
    /// only for a path that contains every literal run of the glob (lower case when
    /// case-insensitive), so `?:/Windows` costs nothing against a Linux path.
    Glob {
        glob: globset::Glob,
        literals: Vec<String>,
        case_insensitive: bool,
        matcher: std::sync::OnceLock<globset::GlobMatcher>,
    },
}

impl PathPattern {
    /// Parses one path-list line; `~` and `$HOME` expand. Globs match case-insensitively when
    /// `case_insensitive` (used for the excluded list, where matching more is the safe side).
    pub fn parse(line: &str, home: Option<&Path>, case_insensitive: bool) -> Result<Self, String> {
        let (negated, body) = match line.strip_prefix('!') {
            Some(rest) => (true, rest.trim()),
            None => (false, line),
        };
        let expanded = match strip_home(body) {
            Some(rest) => match home {
                Some(h) => format!("{}{}", h.display(), rest),
                None => return Err("`~` used but the home directory is not known".to_string()),
            },
            None => body.to_string(),
        };
        let normalised = if is_windows_path(&expanded) {
            expanded.replace('\\', "/")
        } else {
            expanded
        };
        let matcher = if normalised.contains(['*', '?', '[', '{']) {
            let glob = globset::GlobBuilder::new(&normalised)
                .case_insensitive(case_insensitive)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("bad glob: {e}"))?;
            let literals = normalised
                .split(['*', '?', '[', ']', '{', '}', ','])
                .filter(|l| !l.is_empty())
                .map(|l| {
                    if case_insensitive {
                        l.to_ascii_lowercase()
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            PathMatcher::Glob {
                glob,
                literals,
                case_insensitive,
                matcher: std::sync::OnceLock::new(),
            }
        } else if normalised.starts_with('/') || is_windows_path(&normalised) {
            PathMatcher::Prefix(clean(Path::new(&normalised)))
        } else {
            return Err(format!(
                "`{body}` is not an absolute path, `~` path or glob"
            ));
        };
        Ok(PathPattern {
            raw: line.to_string(),
            matcher,
            negated,
        })
    }

    /// True when `path` is this entry or lies below it.
    pub fn matches(&self, path: &Path) -> bool {
        let windows = is_windows_path(&path.to_string_lossy());
        match &self.matcher {
            PathMatcher::Prefix(dir) if windows => {
                let p = path.to_string_lossy().to_ascii_lowercase();
                let d = dir.to_string_lossy().to_ascii_lowercase();
                p == d || p.starts_with(&format!("{}/", d.trim_end_matches('/')))
            }
            PathMatcher::Prefix(dir) => is_within(path, dir),
            PathMatcher::Glob {
                glob,
                literals,
                case_insensitive,
                matcher,
            } => {
                let text = path.to_string_lossy();
                let text = if *case_insensitive {
                    text.to_ascii_lowercase()
                } else {
                    text.into_owned()
                };
                if !literals.iter().all(|l| text.contains(l.as_str())) {
                    return false;
                }
                let m = matcher.get_or_init(|| glob.compile_matcher());
                path.ancestors().any(|a| m.is_match(a))
            }
        }
    }
}

/// The entry of `list` that `path` falls under, unless a `!` exception covers it.
pub fn list_matches<'a, T>(list: &'a [(PathPattern, T)], path: &Path) -> Option<&'a T> {
    if list.iter().any(|(p, _)| p.negated && p.matches(path)) {
        return None;
    }
    list.iter()
        .find(|(p, _)| !p.negated && p.matches(path))
        .map(|(_, t)| t)
}

/// Files whose contents are credentials: reading one is asked about, not allowed.
/// Names are matched anywhere; home-relative paths below the home directory.
const CREDENTIAL_NAMES: &[&str] = &[
    ".env",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials.json",
    "service-account.json",
    ".htpasswd",
];
const CREDENTIAL_EXTENSIONS: &[&str] =
    &[".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk"];
const CREDENTIAL_HOME_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker/config.json",
    ".config/gcloud",
    ".azure",
    ".config/gh/hosts.yml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d",
    ".oci",
    ".config/doctl",
    ".password-store",
];
/// `.env` variants that are templates, not secrets.
const ENV_TEMPLATES: &[&str] = &["example", "sample", "template", "dist", "defaults"];

/// Names the credential a path points at, if it does.
pub fn credential(path: &Path, home: Option<&Path>) -> Option<String> {
    // Called for every argument of every command: string comparisons, no allocation until a
    // credential is found.
    let name = path.file_name()?.to_string_lossy();
    let is = |s: &str| name.eq_ignore_ascii_case(s);
    let ends = |s: &str| {
        name.len() >= s.len()
            && name.is_char_boundary(name.len() - s.len())
            && name[name.len() - s.len()..].eq_ignore_ascii_case(s)
    };
    // Public keys and the list of known hosts are not secrets.
    if ends(".pub") || is("known_hosts") {
        return None;
    }
    if name.len() > 5 && name.is_char_boundary(5) && name[..5].eq_ignore_ascii_case(".env.") {
        let rest = &name[5..];
        if !ENV_TEMPLATES.iter().any(|t| rest.eq_ignore_ascii_case(t)) {
            return Some(name.into_owned());
        }
    }
    if CREDENTIAL_NAMES.iter().any(|n| is(n)) || CREDENTIAL_EXTENSIONS.iter().any(|e| ends(e)) {
        return Some(name.into_owned());
    }
    let rel = path.strip_prefix(home?).ok()?;
    let rel = rel.to_str()?;
    CREDENTIAL_HOME_DIRS
        .iter()
        .find(|d| {
            rel.strip_prefix(**d)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
        .map(|d| format!("~/{d}"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            r("C:\\Windows\\System32\\x.dll").as_deref(),
            Some("C:/Windows/System32/x.dll")
        );
        assert_eq!(r("c:/a/../Windows").as_deref(), Some("C:/Windows"));
        let p = PathPattern::parse("C:/Windows", None, true).unwrap();
        assert!(p.matches(Path::new("C:/WINDOWS/system32")));
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
    fn credentials_are_recognised() {
        let home = Some(Path::new("/home/u"));
        assert!(credential(Path::new("/home/u/.ssh/id_rsa"), home).is_some());
        assert!(credential(Path::new("/p/.env"), home).is_some());
        assert!(credential(Path::new("/p/.env.production"), home).is_some());
        assert!(credential(Path::new("/p/.env.example"), home).is_none());
        assert!(credential(Path::new("/home/u/.aws/credentials"), home).is_some());
        assert!(credential(Path::new("/p/src/main.rs"), home).is_none());
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
