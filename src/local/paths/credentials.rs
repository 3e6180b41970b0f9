//! Credentials: the paths whose content is a secret (`credential_paths.txt`), applied to resolved
//! paths by every tool.

use crate::decision::RuleRef;
use crate::local::paths::scan::GLOB_CHARS;
use crate::local::paths::{self, PathMatcher};
use crate::rules::Rules;
use std::path::Path;

/// The credential-list line `path` falls under, if it is a credential.
pub fn credential<'r>(path: &Path, rules: &'r Rules) -> Option<&'r RuleRef> {
    let list = rules.credential_paths();
    let name = path.file_name().and_then(|n| n.to_str());
    let originals = || {
        backup_suffixes().iter().filter_map(move |suffix| {
            let original = name?.strip_suffix(suffix).filter(|o| !o.is_empty())?;
            Some(path.with_file_name(original))
        })
    };
    if let Some(rule) = list.matches(path) {
        // A copy of a file an exception names is what that file is: `.env.example.bak` is a
        // template, though `**/.env.*` matches its name.
        if originals().any(|o| list.excepted(&o)) {
            return None;
        }
        return Some(rule);
    }
    // A copy of a credential file is one (`~/.git-credentials.bak`, `.env.orig`, `id_rsa~`).
    originals().find_map(|o| list.matches(&o))
}

/// The endings of `rules/backup_suffixes.txt`, read once.
fn backup_suffixes() -> &'static [&'static str] {
    static SUFFIXES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    SUFFIXES.get_or_init(|| crate::lists::entries(BACKUP_SUFFIXES).collect())
}

/// The endings a copy of a file gets (`rules/backup_suffixes.txt`).
const BACKUP_SUFFIXES: &str = include_str!("../../../rules/backup_suffixes.txt");

/// A short name for the credential, for reasons: the list line's path.
pub fn describe(path: &Path, rule: &RuleRef) -> String {
    format!("{} ({})", path.display(), rule.pattern)
}

/// True when reading `dir` recursively reaches credentials, decided from the list alone: it is
/// the root, a system directory that holds them, the home directory or one above it, a
/// credential itself, or a directory a credential line names a place below (`~/.config` holds
/// `~/.config/gh`, `/etc/ssl` holds `/etc/ssl/private`, `/proc` holds `/proc/*/environ`).
pub fn tree_holds_credentials(dir: &Path, home: Option<&Path>, rules: &Rules) -> bool {
    if dir == Path::new("/") || credential(dir, rules).is_some() {
        return true;
    }
    if let Some(h) = home
        && paths::is_within(h, dir)
    {
        return true;
    }
    if ["/etc", "/proc", "/var/lib", "/run"]
        .iter()
        .any(|d| Path::new(d) == dir)
    {
        return true;
    }
    // A line's bytes must start with the directory's before the path comparison is worth it:
    // most lines differ from a project path within a few bytes.
    let d = dir.as_os_str().as_encoded_bytes();
    let under = |line: &Path| {
        line.as_os_str().as_encoded_bytes().starts_with(d) && paths::is_within(line, dir)
    };
    rules
        .credential_paths()
        .iter()
        .filter(|(p, _)| !p.negated)
        .any(|(p, _)| match &p.matcher {
            PathMatcher::Prefix { dir: line, .. } => under(line),
            PathMatcher::Glob { glob, .. } => {
                literal_lead(glob).is_some_and(|l| under(Path::new(l)))
            }
        })
}

/// The directories of an absolute glob before its first glob character (`/proc/*/environ` →
/// `/proc`); None for one that can match anywhere (`**/.env`) or right under `/`.
fn literal_lead(glob: &str) -> Option<&str> {
    let first = glob.find(GLOB_CHARS)?;
    let lead = &glob[..glob[..first].rfind('/')?];
    (lead.len() > 1 && lead.starts_with('/')).then_some(lead)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_list() {
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        let is = |p: &str| credential(Path::new(p), &rules).is_some();
        for p in [
            "/home/u/.ssh/id_rsa",
            "/home/u/.ssh/config",
            "/p/.env",
            "/p/.env.production",
            "/p/config/.ENV.local",
            "/home/u/.aws/credentials",
            "/p/.jwt_secret",
            "/p/android/keystore.properties",
            "/etc/shadow",
            "/proc/1234/environ",
            "/p/k8s/secrets.yaml",
            "/p/certs/server.key",
            "/home/u/.claude/.credentials.json",
            "/p/terraform.tfstate",
            "/home/u/.config/gh/config.yml",
            "/home/u/.cache/huggingface/token",
            "/p/.env-production",
            "/p/.dev.vars",
            "/p/firebase/serviceAccountKey.json",
            "/p/keys/AuthKey_AB12.p8",
            "/home/u/.ssh/id_rsa.bak",
            "/p/.env.bak",
            "/p/.env.local.old",
            "/etc/wireguard/wg0.conf",
            "/home/u/.config/google-chrome/Default/Cookies",
        ] {
            assert!(is(p), "{p} is a credential");
        }
        for p in [
            "/home/u/.ssh/id_rsa.pub",
            // A copy of a template is a template.
            "/p/.env.example.bak",
            "/p/.env.sample.orig",
            "/p/.env.dist~",
            "/home/u/.ssh/known_hosts",
            "/p/.env.example",
            "/p/src/main.rs",
            "/p/src/secrets.rs",
            "/p/src/secrets/mod.rs",
            "/p/docs/secret-management.md",
            "/etc/hosts",
            "/home/u/.ssh/id_rsa.pub",
            "/p/.env-example",
            "/p/src/cookies.rs",
        ] {
            assert!(!is(p), "{p} is not a credential");
        }
    }

    #[test]
    fn directories_a_credential_line_lies_below() {
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        let home = Some(Path::new("/home/u"));
        let holds = |p: &str| tree_holds_credentials(Path::new(p), home, &rules);
        for p in [
            "/",
            "/home",
            "/home/u",
            "/home/u/.config",
            "/home/u/.claude",
            "/etc/ssl",
            "/proc",
            "/etc/kubernetes",
            "/home/u/.cache",
        ] {
            assert!(holds(p), "{p} holds credentials");
        }
        for p in [
            "/p",
            "/p/src",
            "/home/u/proj/src",
            "/usr/share",
            "/home/u/.cargo/registry",
        ] {
            assert!(!holds(p), "{p} holds none by the list");
        }
    }
}
