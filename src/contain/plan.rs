//! The fence for one run, worked out before it starts: what may be written, what is hidden,
//! what is read-only, which protected places must not appear, which ports come in.

use crate::contain::lists::{self, List};
use crate::decision::RuleError;
use crate::local::paths::credentials;
use crate::local::paths::scan::GLOB_CHARS;
use crate::rules::Rules;
use std::path::{Path, PathBuf};

/// The temp dirs every contained run may write (a program's scratch space).
pub const TEMP_DIRS: [&str; 3] = ["/tmp", "/var/tmp", "/dev/shm"];

/// Devices a program writes or opens for its terminal: granted one by one (a disk's device
/// node is never writable).
pub const DEVICES: [&str; 8] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// Entries looked at for credentials in the home (four levels deep) and in the project.
const MAX_HOME_ENTRIES: usize = 20_000;
const MAX_PROJECT_ENTRIES: usize = 100_000;
const HOME_DEPTH: usize = 4;

/// Folders of the home not walked for credentials: big, and holding none the list names
/// (a line that names a place inside them, such as `~/.cache/huggingface/token`, is hidden by
/// its literal path all the same).
const HOME_SKIPPED: [&str; 9] = [
    ".cache",
    ".cargo",
    ".rustup",
    ".npm",
    ".nvm",
    ".local/lib",
    "go",
    ".m2",
    ".gradle",
];

/// One run's fence.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Fence {
    /// The project root, symlinks followed.
    pub project: PathBuf,
    /// Folders (and files) writable beside the project: temp dirs, tool caches, devices.
    pub writable: Vec<PathBuf>,
    /// Files covered by an empty file: credentials, sockets.
    pub hidden_files: Vec<PathBuf>,
    /// Folders covered by an empty folder.
    pub hidden_dirs: Vec<PathBuf>,
    /// The project's protected places that exist: read-only inside the fence.
    pub read_only: Vec<PathBuf>,
    /// The project's protected places that do not exist: moved aside if the run creates them.
    pub must_not_appear: Vec<PathBuf>,
    /// Names protected in any folder of the project (`**/.git`, `**/.envrc`): one the run
    /// creates anywhere is moved aside when it ends.
    pub watched_names: Vec<String>,
    /// The entries of those names found before the run (a nested repository's `.git` gets the
    /// same read-only places as the project's).
    pub watched_before: Vec<PathBuf>,
    /// The places inside a `.git` that run code (`git_read_only.txt`).
    pub git_places: Vec<String>,
    /// Temp dirs replaced by empty ones of the run's own: the sockets other programs keep there
    /// (tmux, screen, X11, editors' servers: each types or runs code in the person's session)
    /// are out of reach, and nothing the run leaves there outlives it.
    pub private_temp: Vec<PathBuf>,
    /// Loopback TCP ports forwarded in.
    pub ports: Vec<u16>,
    /// The registry proxy, when the run may fetch packages.
    pub proxy: Option<Proxy>,
    /// Package stores the run adds to in a copy of its own (an overlay whose upper layer is in
    /// its private /tmp), when it may fetch packages; for a missing one, the home's folder it
    /// would be made in.
    pub stores: Vec<PathBuf>,
    /// Bad lines of the fence's lists (any makes the run refuse to start).
    pub errors: Vec<RuleError>,
}

/// What the plan needs from the world: the environment and where things are.
pub struct Inputs<'a> {
    pub project: &'a Path,
    pub home: Option<&'a Path>,
    pub sentinel_home: &'a Path,
    pub rules: &'a Rules,
    pub ports: &'a [u16],
    /// The run may reach the package registries through the proxy.
    pub registries: bool,
    pub var: &'a dyn Fn(&str) -> Option<String>,
}

/// sentinel's HTTPS proxy for a run that fetches packages: inside, a listener on
/// 127.0.0.1:`port` that the command's `HTTPS_PROXY` names; outside, `sentinel contain`
/// reaches the hosts of `registries.txt` for it, and nothing else.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Proxy {
    pub port: u16,
    pub hosts: Vec<lists::HostPattern>,
}

impl Fence {
    /// The fence for a run in `i.project`; reads the file system (what exists, what is a
    /// credential) but changes nothing.
    pub fn plan(i: &Inputs) -> Fence {
        let project = std::fs::canonicalize(i.project).unwrap_or_else(|_| i.project.into());
        let mut fence = Fence {
            project: project.clone(),
            ..Fence::default()
        };
        let (writable, e1) = lists::load(List::Writable, i.sentinel_home);
        let (hidden, e2) = lists::load(List::Hidden, i.sentinel_home);
        let (refused, e3) = lists::load(List::RefusedPorts, i.sentinel_home);
        let (git_read_only, e4) = lists::load(List::GitReadOnly, i.sentinel_home);
        let (start_files, e5) = lists::load(List::StartFiles, i.sentinel_home);
        fence
            .errors
            .extend(e1.into_iter().chain(e2).chain(e3).chain(e4).chain(e5));

        for t in TEMP_DIRS {
            push_existing(&mut fence.writable, Path::new(t));
            push_existing(&mut fence.private_temp, Path::new(t));
        }
        if let Some(t) = (i.var)("TMPDIR").filter(|t| t.starts_with('/')) {
            push_existing(&mut fence.writable, Path::new(&t));
        }
        for d in DEVICES {
            push_existing(&mut fence.writable, Path::new(d));
        }
        for l in &writable {
            if let Some(p) = lists::expand(&l.entry, i.home, i.var) {
                push_existing(&mut fence.writable, &p);
            }
        }
        // SENTINEL_HOME is never writable from inside, even where it sits in a writable place.
        let own = std::fs::canonicalize(i.sentinel_home).unwrap_or_else(|_| i.sentinel_home.into());
        fence
            .writable
            .retain(|w| !own.starts_with(w) || w == Path::new("/dev/null"));
        if own.starts_with(&project) {
            fence.read_only.push(own.clone());
        }

        for l in &hidden {
            if let Some(p) = lists::expand(&l.entry, i.home, i.var) {
                fence.hide(&p);
            }
        }
        // The session's runtime folder where XDG_RUNTIME_DIR is not set.
        // SAFETY: getuid has no preconditions (libc's own is already bound: std uses it).
        let uid = unsafe { libc::getuid() };
        fence.hide(&PathBuf::from(format!("/run/user/{uid}")));
        // The credential list's literal places (`~/.aws`, `/etc/shadow`), then what its globs
        // match in the home and the project.
        for (_, rule) in i.rules.credential_paths().lines() {
            let text = rule.pattern.as_ref();
            if text.starts_with('!') || text.contains(GLOB_CHARS) {
                continue;
            }
            if let Some(p) = lists::expand(text, i.home, i.var) {
                fence.hide(&p);
            }
        }
        if let Some(home) = i.home {
            let mut left = MAX_HOME_ENTRIES;
            fence.walk_for_credentials(home, home, HOME_DEPTH, &mut left, i.rules, true);
        }
        fence.watched_names = watched_names(i.rules);
        fence
            .watched_names
            .extend(start_files.iter().map(|l| l.entry.clone()));
        let mut left = MAX_PROJECT_ENTRIES;
        fence.walk_for_credentials(&project, &project, usize::MAX, &mut left, i.rules, false);

        fence.git_places = git_read_only.iter().map(|l| l.entry.clone()).collect();
        fence.protect(i.rules, &git_read_only);
        let refused: Vec<u16> = refused
            .iter()
            .filter_map(|l| l.entry.parse().ok())
            .collect();
        fence.ports = i
            .ports
            .iter()
            .copied()
            .filter(|p| !refused.contains(p))
            .collect();
        fence.ports.sort_unstable();
        fence.ports.dedup();
        if i.registries {
            let (hosts, e6) = lists::load(List::Registries, i.sentinel_home);
            fence.errors.extend(e6);
            // A port of the fence's own network that no forwarded port takes.
            let port = (3128..u16::MAX)
                .find(|p| !fence.ports.contains(p))
                .unwrap_or(3128);
            let (stores, e7) = lists::load(List::PackageStores, i.sentinel_home);
            fence.errors.extend(e7);
            for l in &stores {
                let Some(p) = lists::expand(&l.entry, i.home, i.var) else {
                    continue;
                };
                // The store (links followed); when it is missing, the folder it would be made
                // in, when that is inside the home but not the home itself (`~/.cache` for a
                // missing `~/.cache/pip`): the run gets its own copy of that whole folder, and
                // nothing is made in the person's home.
                let home = i.home.and_then(|h| std::fs::canonicalize(h).ok());
                let real = std::fs::canonicalize(&p)
                    .ok()
                    .filter(|r| r.is_dir())
                    .or_else(|| {
                        let parent = std::fs::canonicalize(p.parent()?).ok()?;
                        let home = home.as_ref()?;
                        (parent.is_dir() && parent.starts_with(home) && &parent != home)
                            .then_some(parent)
                    });
                // Never the project or a place around it: the run writes there anyway.
                if let Some(real) = real
                    && !real.starts_with(&project)
                    && !project.starts_with(&real)
                {
                    fence.stores.push(real);
                }
            }
            // One copy of a folder covers what is below it.
            fence.stores.sort();
            fence.stores.dedup();
            let all = std::mem::take(&mut fence.stores);
            for s in all {
                if !fence.stores.iter().any(|kept| s.starts_with(kept)) {
                    fence.stores.push(s);
                }
            }
            fence.proxy = Some(Proxy {
                port,
                hosts: hosts
                    .iter()
                    .filter_map(|l| lists::HostPattern::parse(&l.entry))
                    .collect(),
            });
        }
        fence.hidden_files.sort();
        fence.hidden_files.dedup();
        fence.hidden_dirs.sort();
        fence.hidden_dirs.dedup();
        fence
    }

    /// Hides `path` when it exists (through a link: the target is what is covered).
    fn hide(&mut self, path: &Path) {
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.into());
        // The fence has a /proc of its own (and Landlock keeps other processes' out of reach).
        if real.starts_with("/proc") {
            return;
        }
        // The project itself, or a place above it, is never hidden whole: the run works there.
        if self.project.starts_with(&real) {
            return;
        }
        if meta.is_dir() {
            self.hidden_dirs.push(real);
        } else {
            self.hidden_files.push(real);
        }
    }

    /// Walks `dir` for credentials (a credential folder is hidden whole, not entered).
    fn walk_for_credentials(
        &mut self,
        root: &Path,
        dir: &Path,
        depth: usize,
        left: &mut usize,
        rules: &Rules,
        in_home: bool,
    ) {
        if depth == 0 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if *left == 0 {
                return;
            }
            *left -= 1;
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if !in_home
                && let Some(name) = entry.file_name().to_str()
                && self.watched_names.iter().any(|w| name_matches(w, name))
            {
                self.watched_before.push(path.clone());
            }
            if credentials::credential(&path, rules).is_some() {
                self.hide(&path);
                continue;
            }
            if !kind.is_dir() {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let skipped = if in_home {
                HOME_SKIPPED.iter().any(|s| rel == Path::new(s)) || path == self.project
            } else {
                // Installed dependencies hold no secret of the person's (a `*.pem` there is a
                // public CA bundle a test may load); `.git` none either.
                crate::ledger::changed::skipped(&entry.file_name())
            };
            if !skipped {
                self.walk_for_credentials(root, &path, depth - 1, left, rules, in_home);
            }
        }
    }

    /// The project's protected places: read-only when they exist, watched when they do not.
    fn protect(&mut self, rules: &Rules, git_read_only: &[lists::Line]) {
        // Every repository's `.git` (the project's, and any nested one) stays writable for
        // git's own work; its places that run code do not.
        let git = self.project.join(".git");
        let repos: Vec<PathBuf> = self
            .watched_before
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| n == ".git") && p.is_dir())
            .cloned()
            .chain(git.is_dir().then(|| git.clone()))
            .collect();
        for repo in repos {
            for l in git_read_only {
                let p = repo.join(&l.entry);
                if std::fs::symlink_metadata(&p).is_ok() {
                    self.read_only.push(p);
                } else if !self.must_not_appear.contains(&p) {
                    self.must_not_appear.push(p);
                }
            }
        }
        for (_, rule) in rules.protected_paths().lines() {
            let text = rule.pattern.as_ref();
            if text.starts_with('!') {
                continue;
            }
            let literal = text.strip_prefix("**/").unwrap_or(text);
            if literal.contains(GLOB_CHARS) {
                continue;
            }
            let p = self.project.join(literal);
            if literal == ".git" && git.is_dir() {
                continue;
            }
            if std::fs::symlink_metadata(&p).is_ok() {
                self.read_only.push(p);
            } else if !self.must_not_appear.contains(&p) {
                self.must_not_appear.push(p);
            }
        }
        self.read_only.sort();
        self.read_only.dedup();
    }
}

/// A watched name: exact, or `*.EXT` for a suffix.
fn name_matches(watched: &str, name: &str) -> bool {
    match watched.strip_prefix('*') {
        Some(suffix) => name.len() > suffix.len() && name.ends_with(suffix),
        None => watched == name,
    }
}

/// The names `protected_paths.txt` protects in any folder (`**/NAME`, a plain name).
fn watched_names(rules: &Rules) -> Vec<String> {
    let mut out: Vec<String> = rules
        .protected_paths()
        .lines()
        .iter()
        .filter_map(|(_, rule)| {
            let name = rule.pattern.strip_prefix("**/")?;
            (!name.contains(GLOB_CHARS) && !name.contains('/')).then(|| name.to_string())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The entries named in `watched` under `dir` that the run made or changed: their status
/// changed at or after `since` (ctime: a program cannot set it back), or, for a `.git`, that of
/// one of its places that run code (`git_places`). The project's own `.git` (`skip`) is
/// fenced by its read-only mounts instead; links are not followed; at most `left` entries.
pub fn changed_watched(
    dir: &Path,
    watched: &[String],
    git_places: &[String],
    since: (i64, i64),
    skip: &Path,
    left: &mut usize,
) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let changed =
        |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| (m.ctime(), m.ctime_nsec()) >= since);
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        if *left == 0 {
            return out;
        }
        *left -= 1;
        let path = entry.path();
        if path == skip {
            continue;
        }
        let name = entry.file_name();
        if name
            .to_str()
            .is_some_and(|n| watched.iter().any(|w| name_matches(w, n)))
            && (changed(&path)
                || (name == ".git" && git_places.iter().any(|g| changed(&path.join(g)))))
        {
            out.push(path.clone());
            continue;
        }
        if entry.file_type().is_ok_and(|k| k.is_dir()) {
            out.extend(changed_watched(
                &path, watched, git_places, since, skip, left,
            ));
        }
    }
    out
}

fn push_existing(out: &mut Vec<PathBuf>, p: &Path) {
    if std::fs::symlink_metadata(p).is_ok() {
        let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.into());
        if !out.contains(&real) {
            out.push(real);
        }
    }
}
