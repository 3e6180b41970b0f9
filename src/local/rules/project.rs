//! A project's own rules in `.sentinel/`, and the person's trust in them.
//!
//! A cloned repository is untrusted input, so its rules are split by what they do: rules that
//! tighten (hard block, conditional block, excluded paths, `!` exceptions to safe commands, a
//! stricter setting) always apply; rules that loosen (safe commands, safe paths, `!` exceptions to
//! excluded paths, a laxer setting) apply only while the SHA-256 of every file in `.sentinel/`
//! is what the person recorded with `sentinel trust`. Any change suspends them until the person
//! trusts the files again.

use crate::call::ToolCall;
use crate::config::Config;
use crate::decide;
use crate::decision::{Decision, Verdict};
use crate::digest::sha256_hex;
use crate::local::context::Context;
use crate::rules::{ProjectRules, RuleFile, Rules};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The directory a project keeps its rules in.
pub const DIR: &str = crate::config::PROJECT_DIR;
/// The trust store in SENTINEL_HOME.
pub const TRUST_FILE: &str = "trusted_projects.json";
/// The files sentinel reads from `.sentinel/`: the rule files and `sentinel.toml`.
pub const FILES: [&str; 8] = [
    "hard_block_commands.txt",
    "safe_commands.txt",
    "conditional_block_commands.txt",
    "safe_paths.txt",
    "excluded_paths.txt",
    "credential_paths.txt",
    "protected_paths.txt",
    crate::config::FILE_NAME,
];

/// One file of a project's `.sentinel/` as read now.
#[derive(Clone, Debug)]
pub struct ProjectFile {
    /// The file name, one of [`FILES`].
    pub name: &'static str,
    /// Where it is.
    pub path: PathBuf,
    /// Its text, or why it could not be read.
    pub text: Result<String, String>,
    /// SHA-256 of its bytes, in hex (of nothing when unreadable).
    pub sha256: String,
}

/// A project that carries `.sentinel/`: where it is, its files, and whether they are trusted.
#[derive(Clone, Debug)]
pub struct Project {
    /// The directory that holds `.sentinel/`, symlinks followed.
    pub root: PathBuf,
    /// The files found in `.sentinel/`, in [`FILES`] order.
    pub files: Vec<ProjectFile>,
    /// Whether the loosening rules apply.
    pub trust: Trust,
}

/// The person's trust in a project's current `.sentinel/` files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "state")]
pub enum Trust {
    /// Every file is as the person trusted it.
    Trusted {
        /// When `sentinel trust` was run, ms since the epoch.
        since_ms: u64,
    },
    /// `sentinel trust` was never run here.
    Untrusted,
    /// Trusted once, changed since: the named files differ (added, removed or edited).
    Changed {
        /// The files whose digest differs.
        files: Vec<String>,
    },
    /// The trust store cannot be read: nothing loosens.
    Unknown {
        /// Why.
        why: String,
    },
}

impl Trust {
    /// True when the loosening rules apply.
    pub fn is_trusted(&self) -> bool {
        matches!(self, Trust::Trusted { .. })
    }

    /// Why the loosening rules do not apply, for reasons; None when they do.
    pub fn suspended_because(&self, root: &Path) -> Option<String> {
        let dir = root.join(DIR);
        match self {
            Trust::Trusted { .. } => None,
            Trust::Untrusted => Some(format!(
                "{} is not trusted; the person can run `sentinel trust` there after reading it",
                dir.display()
            )),
            Trust::Changed { files } => Some(format!(
                "{} changed since `sentinel trust` ({}), so its loosening rules are suspended until the person runs `sentinel trust` again",
                dir.display(),
                files.join(", ")
            )),
            Trust::Unknown { why } => Some(format!(
                "the trust store cannot be read ({why}), so the loosening rules of {} are suspended",
                dir.display()
            )),
        }
    }
}

impl Project {
    /// The nearest directory at or above `cwd` that holds a `.sentinel/` directory, read now and
    /// checked against the trust store in `sentinel_home`. None when there is none.
    pub fn find(cwd: &Path, sentinel_home: &Path) -> Option<Project> {
        let root = cwd.ancestors().find(|dir| dir.join(DIR).is_dir())?;
        Some(Project::read(root, sentinel_home))
    }

    /// Every directory from `cwd` up to the project's root that holds a `.sentinel/`, nearest
    /// first: a vendored subdirectory's own `.sentinel/` must not hide the project's tightening
    /// rules. The walk stops at the project root: the directory the agent names (`named`), else
    /// the first with `.git` (the git top-level); without either it goes up to `/`. When there
    /// is none up to the root, the nearest above it counts, as it always did.
    pub fn find_all(cwd: &Path, sentinel_home: &Path, named: Option<&Path>) -> Vec<Project> {
        let mut found = Vec::new();
        let mut above = None;
        for dir in cwd.ancestors() {
            if dir.join(DIR).is_dir() {
                found.push(Project::read(dir, sentinel_home));
            }
            let top = match named {
                Some(n) => dir == n,
                None => dir.join(".git").exists(),
            };
            if top {
                above = dir.parent();
                break;
            }
        }
        if found.is_empty()
            && let Some(p) = above.and_then(|dir| Project::find(dir, sentinel_home))
        {
            found.push(p);
        }
        found
    }

    fn read(root: &Path, sentinel_home: &Path) -> Project {
        let root = root.canonicalize().unwrap_or(root.to_path_buf());
        let files = read_files(&root.join(DIR));
        let trust = trust_state(&root, &files, sentinel_home);
        Project { root, files, trust }
    }

    /// The project's rule files, as the rules take them.
    pub fn rule_files(&self) -> Vec<ProjectRules<'_>> {
        RuleFile::ALL
            .iter()
            .filter_map(|&file| {
                let f = self.files.iter().find(|f| f.name == file.name())?;
                Some(ProjectRules {
                    file,
                    path: &f.path,
                    text: f.text.as_deref().map_err(String::as_str),
                    sha256: &f.sha256,
                })
            })
            .collect()
    }

    /// Layers the project's rule files over `rules` (see [`Rules::add_project`]).
    pub fn layer_rules(&self, rules: &mut Rules, trusted: bool) {
        rules.add_project(&self.root, &self.rule_files(), trusted);
    }

    /// The project's `sentinel.toml`, if it has one.
    pub fn config(&self) -> Option<&ProjectFile> {
        self.files
            .iter()
            .find(|f| f.name == crate::config::FILE_NAME)
    }
}

/// The configuration and rules in force for calls made in one directory: SENTINEL_HOME's (or the
/// bundled defaults), with the project's `.sentinel/` layered over them.
pub struct Layered {
    /// The configuration, with the project's stricter (or trusted) settings.
    pub config: Config,
    /// The rules, with the project's tightening (or trusted) rules.
    pub rules: Rules,
    /// The project, when the directory is inside one that carries `.sentinel/`.
    pub project: Option<Project>,
    /// The project's laxer settings held back for want of trust, one line each.
    pub held: Vec<String>,
    /// The directories above the nearest `.sentinel/`, up to the project root, that hold one
    /// too: their rules are layered as well.
    pub outer: Vec<Project>,
}

impl Layered {
    /// Loads SENTINEL_HOME's rules and the project's (if any) for a call made in `cwd`.
    pub fn load(base: &Config, cwd: &Path, user_home: Option<&Path>) -> Layered {
        let home = &base.home.value;
        if let Some(inside) = home_inside_project(base, named_by_agent().as_deref()) {
            return Layered::unusable_home(base, user_home, inside);
        }
        let mut config = base.clone();
        let mut rules = Rules::load_with(home, user_home, base.allow_off.value);
        let mut held = Vec::new();
        let named = named_by_agent();
        let named = named.as_deref().map(Path::new).filter(|p| p.is_absolute());
        let mut found = Project::find_all(cwd, home, named);
        // The outer ones first, the nearest last; each by its own trust, where the
        // organisation's policy lets trust loosen anything.
        for p in found.iter().rev() {
            let trusted = p.trust.is_trusted() && base.allow_project_trust.value;
            if p.trust.is_trusted() && !trusted {
                held.push(format!(
                    "{}: `sentinel trust` has no effect: the organisation's policy sets allow_project_trust = false ({})",
                    p.root.join(DIR).display(),
                    base.allow_project_trust.source
                ));
            }
            p.layer_rules(&mut rules, trusted);
            if let Some(f) = p.config() {
                held.extend(config.add_project(f.text.as_deref().map_err(String::as_str), trusted));
            }
        }
        // The organisation's policy last: above the person's and every project's.
        if let Some(m) = &base.managed {
            rules.add_managed(m);
        }
        let project = (!found.is_empty()).then(|| found.remove(0));
        Layered {
            config,
            rules,
            project,
            held,
            outer: found,
        }
    }

    /// A SENTINEL_HOME inside the project the agent works in is not the person's: the project
    /// (or the agent, which may write there) would choose the rules and settings. Neither its
    /// rules nor its sentinel.toml are read: the bundled rules decide, with an error, so every
    /// local allow becomes `ask` and the fail path asks, until the person moves the home.
    fn unusable_home(base: &Config, user_home: Option<&Path>, project: PathBuf) -> Layered {
        let env = |name: &str| std::env::var(name).ok();
        let mut config = Config::from_layers(
            &base.home.value,
            base.home.source.clone(),
            None,
            base.managed.clone(),
            &env,
        );
        let message = format!(
            "{} is inside the project {}: a project cannot be the person's home (its files would be the rules); refused, every local allow asks",
            base.home.value.display(),
            project.display()
        );
        config.errors.push(crate::config::ConfigError {
            at: "SENTINEL_HOME".into(),
            message: message.clone(),
        });
        config.fail_mode = crate::config::Setting {
            value: crate::config::FailMode::Ask,
            source: crate::config::Source::Fallback,
        };
        config.mode.value = crate::config::Mode::Enforce;
        let mut rules = Rules::bundled(user_home);
        if let Some(m) = &base.managed {
            rules.add_managed(m);
        }
        rules.errors.push(crate::decision::RuleError {
            file: "SENTINEL_HOME".into(),
            line: 0,
            message,
        });
        Layered {
            config,
            rules,
            project: None,
            held: Vec::new(),
            outer: Vec::new(),
        }
    }

    /// Why the organisation's policy cannot be used, when it cannot: it is unreadable, not
    /// root's alone, or a file of it does not parse. Every call asks while it is so.
    pub fn managed_broken(&self) -> Option<String> {
        let managed = self.config.managed.as_ref()?;
        if let Some(why) = &self.config.managed_broken {
            return Some(why.clone());
        }
        let dir = managed.dir.display().to_string();
        self.rules
            .errors
            .iter()
            .find(|e| e.file.starts_with(&dir))
            .map(|e| e.to_string())
    }

    /// Tier 1 under these rules. When the answer is not allow and the project's suspended rules
    /// would have allowed the call, the reason says so and what the person can do about it.
    pub fn decide(
        &self,
        call: &ToolCall,
        ctx: &Context,
        user_home: Option<&Path>,
    ) -> Option<Decision> {
        let mut decision = decide::decide(call, &self.rules, ctx)?;
        let Some(project) = &self.project else {
            return Some(decision);
        };
        // Where the organisation's policy forbids trust, `sentinel trust` is no way out: say so
        // rather than suggest it.
        let why = match self.config.allow_project_trust.value {
            true => project.trust.suspended_because(&project.root),
            false => Some(format!(
                "the organisation's policy sets allow_project_trust = false ({}), so no `sentinel trust` makes them apply",
                self.config.allow_project_trust.source
            )),
        };
        let Some(why) = why else {
            return Some(decision);
        };
        if decision.verdict == Verdict::Uncertain && !self.rules.suspended.is_empty() {
            let mut trusting = Rules::load(&self.config.home.value, user_home);
            project.layer_rules(&mut trusting, true);
            if let Some(would) = decide::decide(call, &trusting, ctx)
                && would.verdict == Verdict::Allow
            {
                let by = would
                    .commands
                    .iter()
                    .filter_map(|c| c.rule.as_ref())
                    .chain(would.rule.as_ref())
                    .find(|r| r.file.starts_with(DIR))
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                decision.reason = format!(
                    "{}; the project's own rules would allow it{by}, but {why}",
                    decision.reason
                );
            }
        }
        Some(decision)
    }
}

/// The project the agent names, when SENTINEL_HOME comes from the environment and lies inside
/// it (symlinks followed). Only a project the agent names: Claude Code passes
/// `CLAUDE_PROJECT_DIR` to every hook, and a person's own shell (`sentinel check`) is not a
/// project's to set.
pub fn home_inside_project(config: &Config, named: Option<&str>) -> Option<PathBuf> {
    if !matches!(config.home.source, crate::config::Source::Env { .. }) {
        return None;
    }
    let project = Path::new(named?);
    if !project.is_absolute() {
        return None;
    }
    let project = project.canonicalize().ok()?;
    let home = &config.home.value;
    let home = home
        .canonicalize()
        .unwrap_or_else(|_| std::path::absolute(home).unwrap_or(home.clone()));
    home.starts_with(&project).then_some(project)
}

pub use crate::config::{PROJECT_DIR_VARS, named_by_agent};

/// The project a call is judged against (SPEC 2.3): the directory the agent names
/// (`CLAUDE_PROJECT_DIR`), else the git top-level of `cwd`, else `cwd`. A named directory that
/// is not absolute or does not exist is ignored, so a stray value cannot widen anything.
pub fn root(cwd: &Path, named: Option<&str>) -> PathBuf {
    if let Some(dir) = named.map(Path::new)
        && dir.is_absolute()
        && dir.is_dir()
    {
        return dir.to_path_buf();
    }
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// Largest file a project's `.sentinel/` may hold: a cloned repository is hostile input, and a
/// hook must answer well inside the agent's timeout (a 30 MB rule file took 44 s to compile).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Most lines a project's file may have (each a regex or a glob to check and compile).
pub const MAX_LINES: usize = 10_000;
/// Longest line a project's file may have.
pub const MAX_LINE_BYTES: usize = 4096;

/// A project file's text, or why it is refused: a link to something other than a regular file
/// (a FIFO, `/dev/zero`), over a bound, not UTF-8.
fn read_bounded(path: &Path) -> std::io::Result<Result<(String, Vec<u8>), String>> {
    use crate::config::files::{self, Links};
    let bytes = match files::read(path, MAX_FILE_BYTES, Links::Follow) {
        Ok(bytes) => bytes,
        Err(e) if crate::config::is_absent(&e) => return Err(e),
        Err(e) => return Ok(Err(format!("cannot read: {e}"))),
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(Err("not valid UTF-8".to_string()));
    };
    if let Some((i, _)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.len() > MAX_LINE_BYTES)
    {
        return Ok(Err(format!(
            "line {} is over the {MAX_LINE_BYTES}-byte bound of a project's line: the file is not read",
            i + 1
        )));
    }
    let lines = text.lines().count();
    if lines > MAX_LINES {
        return Ok(Err(format!(
            "has {lines} lines, over the {MAX_LINES}-line bound of a project's file: not read"
        )));
    }
    Ok(Ok((text.to_string(), bytes)))
}

fn read_files(dir: &Path) -> Vec<ProjectFile> {
    FILES
        .iter()
        .filter_map(|&name| {
            let path = dir.join(name);
            let (text, digest) = match read_bounded(&path) {
                Ok(Ok((text, bytes))) => (Ok(text), sha256_hex(&bytes)),
                Ok(Err(why)) => (Err(why), sha256_hex(b"")),
                Err(_) => return None,
            };
            Some(ProjectFile {
                name,
                path,
                text,
                sha256: digest,
            })
        })
        .collect()
}

/// What the trust store keeps: for each project root, the digests the person trusted.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TrustStore {
    /// Project root → its trusted files.
    pub projects: BTreeMap<String, TrustRecord>,
}

/// One trusted project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustRecord {
    /// When the person ran `sentinel trust`, ms since the epoch.
    pub since_ms: u64,
    /// File name → SHA-256 of its bytes then.
    pub files: BTreeMap<String, String>,
}

fn digests(files: &[ProjectFile]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|f| (f.name.to_string(), f.sha256.clone()))
        .collect()
}

fn trust_state(root: &Path, files: &[ProjectFile], sentinel_home: &Path) -> Trust {
    let store: TrustStore = match crate::ledger::state::read(&sentinel_home.join(TRUST_FILE)) {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => return Trust::Unknown { why: e.to_string() },
    };
    let Some(record) = store.projects.get(&root.display().to_string()) else {
        return Trust::Untrusted;
    };
    let now = digests(files);
    let mut changed: Vec<String> = now
        .iter()
        .filter(|(name, digest)| record.files.get(*name) != Some(digest))
        .map(|(name, _)| name.clone())
        .chain(
            record
                .files
                .keys()
                .filter(|name| !now.contains_key(*name))
                .map(|name| format!("{name} (removed)")),
        )
        .collect();
    changed.sort();
    if changed.is_empty() {
        Trust::Trusted {
            since_ms: record.since_ms,
        }
    } else {
        Trust::Changed { files: changed }
    }
}

/// Records the project's current files as trusted. Returns the record written.
pub fn trust(project: &Project, sentinel_home: &Path, now_ms: u64) -> std::io::Result<TrustRecord> {
    let record = TrustRecord {
        since_ms: now_ms,
        files: digests(&project.files),
    };
    let key = project.root.display().to_string();
    let written = record.clone();
    crate::ledger::state::update(&sentinel_home.join(TRUST_FILE), |store: &mut TrustStore| {
        store.projects.insert(key, written);
    })?;
    Ok(record)
}

/// Forgets the project's trust. Returns whether it was trusted.
pub fn revoke(root: &Path, sentinel_home: &Path) -> std::io::Result<bool> {
    let key = root.display().to_string();
    crate::ledger::state::update(&sentinel_home.join(TRUST_FILE), |store: &mut TrustStore| {
        store.projects.remove(&key).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_follows_every_byte_of_every_file() {
        let home = tempfile::tempdir().unwrap();
        let proj = tempfile::tempdir().unwrap();
        let dir = proj.path().join(DIR);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("safe_commands.txt"), "^make( \\S+)*$\n").unwrap();
        let sub = proj.path().join("src/deep");
        std::fs::create_dir_all(&sub).unwrap();

        let p = Project::find(&sub, home.path()).unwrap();
        assert_eq!(p.root, proj.path().canonicalize().unwrap());
        assert_eq!(p.trust, Trust::Untrusted);
        trust(&p, home.path(), 7).unwrap();
        let p = Project::find(&sub, home.path()).unwrap();
        assert_eq!(p.trust, Trust::Trusted { since_ms: 7 });

        std::fs::write(dir.join("safe_commands.txt"), "^make( \\S+)*$ \n").unwrap();
        let p = Project::find(&sub, home.path()).unwrap();
        assert_eq!(
            p.trust,
            Trust::Changed {
                files: vec!["safe_commands.txt".into()]
            }
        );
        trust(&p, home.path(), 8).unwrap();
        // A new file also suspends the trust.
        std::fs::write(dir.join("safe_paths.txt"), "/\n").unwrap();
        let p = Project::find(&sub, home.path()).unwrap();
        assert_eq!(
            p.trust,
            Trust::Changed {
                files: vec!["safe_paths.txt".into()]
            }
        );
        assert!(revoke(&p.root, home.path()).unwrap());
        let p = Project::find(&sub, home.path()).unwrap();
        assert_eq!(p.trust, Trust::Untrusted);
    }

    #[test]
    fn a_damaged_trust_store_trusts_nothing() {
        let home = tempfile::tempdir().unwrap();
        let proj = tempfile::tempdir().unwrap();
        std::fs::create_dir(proj.path().join(DIR)).unwrap();
        std::fs::write(home.path().join(TRUST_FILE), "{not json").unwrap();
        let p = Project::find(proj.path(), home.path()).unwrap();
        assert!(matches!(p.trust, Trust::Unknown { .. }));
        assert!(!p.trust.is_trusted());
    }
}
