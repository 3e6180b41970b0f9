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

/// The folders where people keep their other checkouts, walked deeper than the rest of the
/// home: a `.env` sits at `~/src/github.com/ORG/REPO/.env` (Go's and ghq's layout), five levels
/// down, and in a service's own folder below that. The home walk does not enter them.
const PROJECT_ROOTS: [&str; 8] = [
    "src", "code", "work", "projects", "dev", "go/src", "git", "repos",
];
/// How deep below a root: `github.com/ORG/REPO/services/api/.env` is six levels; deeper than
/// that, a checkout's own folders are source, not where its secrets are kept.
const ROOTS_DEPTH: usize = 6;
/// Entries looked at below all the roots together (installed dependencies and `.git` are not
/// entered): a few dozen checkouts' top folders. Each entry costs a match against the
/// credential list, so this is what bounds the cost every fenced start pays (docs/performance.md).
const MAX_ROOTS_ENTRIES: usize = 30_000;

/// Folders looked through after a run for the places that would run code later (a new `.git`,
/// `.envrc`, `.pth` in any folder). Folders, not entries: a file is passed over by its type
/// (`d_type`) without a `stat`, so a run that makes millions of files costs the look little;
/// one that makes more folders than this leaves the project unverified
/// ([`crate::contain::unverified`]).
pub const MAX_WALK_DIRS: usize = 250_000;

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
    /// The home, when the run gets a copy of its own: it reads as it is, and what the run
    /// writes there (nyc's `~/.node-spawn-wrap-*`, Gradle's `~/.gradle`, a tool's config) lands
    /// in an overlay layer in its private /tmp, gone when it ends. The project, the writable
    /// places and SENTINEL_HOME inside the home are bound back as they are. Where the kernel
    /// refuses the overlay, the home stays read-only instead.
    pub scratch_home: Option<PathBuf>,
    /// Bad lines of the fence's lists (any makes the run refuse to start).
    pub errors: Vec<RuleError>,
    /// Folders bound onto themselves (read-write) before the read-only places inside them: a
    /// mount point cannot be renamed or removed (EBUSY), so a run cannot put a `.git` of its own
    /// (or a `.cargo` holding another `config.toml`) in the place of the person's. Every
    /// repository's `.git`, and each folder above a protected place with a `/`.
    pub pinned: Vec<PathBuf>,
    /// The repositories (`.git` folders) whose places that run code are read-only.
    pub repos: Vec<PathBuf>,
    /// What the pinned folders and read-only places were before the run (`lstat`'s device and
    /// inode): one that is another afterwards was replaced, and is moved aside.
    pub identities: Vec<Identity>,
    /// SENTINEL_HOME, symlinks followed.
    pub sentinel_home: PathBuf,
    /// When the run that left the project unverified started ([`crate::contain::unverified`]):
    /// this run's look after it goes back to then.
    pub unverified_since: Option<(i64, i64)>,
}

/// A place as it was before the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Identity {
    pub path: PathBuf,
    pub dev: u64,
    pub ino: u64,
}

impl Identity {
    /// The place at `path` now (a link is itself, not its target).
    pub fn of(path: &Path) -> Option<Identity> {
        let (dev, ino) = crate::platform::identity::of_path(path).ok()?;
        Some(Identity {
            path: path.to_path_buf(),
            dev,
            ino,
        })
    }
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
        fence.unverified_since = crate::contain::unverified::since(&own, &project);
        fence.sentinel_home = own;

        for l in &hidden {
            if let Some(p) = lists::expand(&l.entry, i.home, i.var) {
                fence.hide(&p);
            }
        }
        // The session's runtime folder where XDG_RUNTIME_DIR is not set.
        #[cfg(unix)]
        {
            // SAFETY: getuid has no preconditions (libc's own is already bound: std uses it).
            let uid = unsafe { libc::getuid() };
            fence.hide(&PathBuf::from(format!("/run/user/{uid}")));
        }
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
            fence.walk_for_credentials(home, home, HOME_DEPTH, &mut left, i.rules, Walk::Home);
            let mut left = MAX_ROOTS_ENTRIES;
            for root in PROJECT_ROOTS {
                let root = home.join(root);
                if root.is_dir() {
                    fence.walk_for_credentials(
                        &root,
                        &root,
                        ROOTS_DEPTH,
                        &mut left,
                        i.rules,
                        Walk::Roots,
                    );
                }
            }
            // The agent sockets ssh is pointed at by name: 1Password's, Bitwarden's … (then
            // SSH_AUTH_SOCK is unset, and the file may sit below the home walk's depth).
            for p in identity_agents(home) {
                fence.hide(&p);
            }
        }
        fence.watched_names = watched_names(i.rules);
        fence
            .watched_names
            .extend(start_files.iter().map(|l| l.entry.clone()));
        let mut left = MAX_PROJECT_ENTRIES;
        fence.walk_for_credentials(
            &project,
            &project,
            usize::MAX,
            &mut left,
            i.rules,
            Walk::Project,
        );

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
        fence.scratch_home = scratch_home(i.home, &fence);
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

    /// Walks `dir` for credentials (a credential folder is hidden whole, not entered) and, in
    /// the home, for sockets.
    fn walk_for_credentials(
        &mut self,
        root: &Path,
        dir: &Path,
        depth: usize,
        left: &mut usize,
        rules: &Rules,
        walk: Walk,
    ) {
        #[cfg(unix)]
        use std::os::unix::fs::FileTypeExt;
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
            if walk == Walk::Project
                && let Some(name) = entry.file_name().to_str()
                && self.watched_names.iter().any(|w| name_matches(w, name))
            {
                self.watched_before.push(path.clone());
            }
            // A socket in the home is a program's door (an SSH agent's, a password manager's,
            // an editor's server): Landlock (ABI 7 and before) does not govern connecting to
            // one, so it is covered.
            #[cfg(unix)]
            let is_socket = kind.is_socket();
            // Windows: no fence, so nothing to cover (contain is unavailable there).
            #[cfg(not(unix))]
            let is_socket = false;
            if walk != Walk::Project && is_socket {
                self.hide(&path);
                continue;
            }
            if credentials::credential(&path, rules).is_some() {
                self.hide(&path);
                continue;
            }
            if !kind.is_dir() {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let name = entry.file_name();
            let skipped = match walk {
                Walk::Home => {
                    HOME_SKIPPED.iter().any(|s| rel == Path::new(s))
                        || PROJECT_ROOTS.iter().any(|s| rel == Path::new(s))
                        || path == self.project
                }
                // Installed dependencies hold no secret of the person's (a `*.pem` there is a
                // public CA bundle a test may load); `.git` none either.
                Walk::Roots => path == self.project || crate::ledger::unobserved::skipped(&name),
                Walk::Project => crate::ledger::unobserved::skipped(&name),
            };
            if !skipped {
                self.walk_for_credentials(root, &path, depth - 1, left, rules, walk);
            }
        }
    }

    /// The project's protected places: read-only when they exist, watched when they do not;
    /// the folders above them pinned; what each was before the run noted.
    fn protect(&mut self, rules: &Rules, git_read_only: &[lists::Line]) {
        // Every repository's `.git` (the project's, and any nested one) stays writable for
        // git's own work; its places that run code do not.
        let git = self.project.join(".git");
        let is_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
        let mut repos: Vec<PathBuf> = self
            .watched_before
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| n == ".git") && is_dir(p))
            .cloned()
            .chain(is_dir(&git).then(|| git.clone()))
            .collect();
        repos.sort();
        repos.dedup();
        for repo in &repos {
            for l in git_read_only {
                let p = repo.join(&l.entry);
                if std::fs::symlink_metadata(&p).is_ok() {
                    self.read_only.push(p);
                } else if !self.must_not_appear.contains(&p) {
                    self.must_not_appear.push(p);
                }
            }
            self.pinned.push(repo.clone());
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
            if literal == ".git" && is_dir(&git) {
                continue;
            }
            // `.cargo/config.toml`, `.github/hooks`: each folder above it in the project is
            // pinned, or renaming `.cargo` would carry the read-only file away and leave room
            // for another.
            let mut above = p.parent();
            while let Some(dir) = above
                && dir != self.project
                && dir.starts_with(&self.project)
            {
                if is_dir(dir) && !self.pinned.iter().any(|d| d == dir) {
                    self.pinned.push(dir.to_path_buf());
                }
                above = dir.parent();
            }
            if std::fs::symlink_metadata(&p).is_ok() {
                self.read_only.push(p);
            } else if !self.must_not_appear.contains(&p) {
                self.must_not_appear.push(p);
            }
        }
        self.read_only.sort();
        self.read_only.dedup();
        // Outer folders first: a folder's mount is made before those inside it. One inside a
        // read-only place is not pinned: the read-only mount holds it already, and a read-write
        // mount inside would stay writable below it.
        self.pinned.sort();
        self.pinned.dedup();
        let read_only = &self.read_only;
        self.pinned
            .retain(|d| !read_only.iter().any(|r| d.starts_with(r)));
        self.identities = self
            .pinned
            .iter()
            .chain(&self.read_only)
            .filter_map(|p| Identity::of(p))
            .collect();
        self.repos = repos;
    }
}

/// Which walk for credentials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// The home, [`HOME_DEPTH`] levels, but the [`PROJECT_ROOTS`].
    Home,
    /// Below the [`PROJECT_ROOTS`], [`ROOTS_DEPTH`] levels.
    Roots,
    /// The project, all of it but its dependencies; the watched names found are noted.
    Project,
}

/// The sockets `~/.ssh/config` names with `IdentityAgent` (`~`, `%d` and `${HOME}` expanded;
/// `none` and `SSH_AUTH_SOCK` are not paths). Its `Include`d files are not read.
fn identity_agents(home: &Path) -> Vec<PathBuf> {
    let Ok(bytes) = crate::config::files::read(
        &home.join(".ssh/config"),
        crate::config::MAX_CONFIG_BYTES,
        crate::config::files::Links::Follow,
    ) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let home_text = home.to_string_lossy();
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let (key, value) = line
                .split_once(|c: char| c == '=' || c.is_whitespace())
                .map(|(k, v)| (k.trim(), v.trim().trim_start_matches('=').trim()))?;
            if !key.eq_ignore_ascii_case("IdentityAgent") {
                return None;
            }
            let value = value.trim_matches('"');
            if value.eq_ignore_ascii_case("none") || value.contains("SSH_AUTH_SOCK") {
                return None;
            }
            let value = value
                .replace("%d", &home_text)
                .replace("${HOME}", &home_text);
            let path = match value.strip_prefix("~/") {
                Some(rest) => home.join(rest),
                None => PathBuf::from(value),
            };
            path.is_absolute().then_some(path)
        })
        .collect()
}

/// A watched name: exact, or `*.EXT` for a suffix.
fn name_matches(watched: &str, name: &str) -> bool {
    match watched.strip_prefix('*') {
        Some(suffix) => name.len() > suffix.len() && name.ends_with(suffix),
        None => watched == name,
    }
}

/// The names `protected_paths.txt` protects in any folder (`**/NAME`, a plain name).
/// The home the run gets a copy of (see [`Fence::scratch_home`]): not when there is none, it is
/// `/`, the project is the home or holds it, or it sits in a temp dir the run gets an empty one
/// of (its copy's layer needs the run's own /tmp).
fn scratch_home(home: Option<&Path>, fence: &Fence) -> Option<PathBuf> {
    let home = std::fs::canonicalize(home?).ok().filter(|h| h.is_dir())?;
    let own_tmp = fence.private_temp.iter().any(|t| t == Path::new("/tmp"));
    (own_tmp
        && home != Path::new("/")
        && !home.starts_with(&fence.project)
        && !fence.private_temp.iter().any(|t| home.starts_with(t)))
    .then_some(home)
}

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

/// The look after a run through the project: at most [`MAX_WALK_DIRS`] folders entered.
pub struct Look {
    /// Folders that may still be entered.
    pub left: usize,
    /// A folder was left unentered: what is below it was not seen.
    pub incomplete: bool,
}

impl Default for Look {
    fn default() -> Look {
        Look {
            left: MAX_WALK_DIRS,
            incomplete: false,
        }
    }
}

/// The entries named in `watched` under `dir` that the run made or changed: their status
/// changed at or after `since` (ctime: a program cannot set it back), or, for a `.git`, that of
/// one of its places that run code (`git_places`). The repositories of `known` (the plan's
/// `repos`: pinned, their places that run code read-only, and checked by identity after the
/// run) are not looked at or entered; links are not followed; folders are counted in `look`,
/// files passed over by their type.
pub fn changed_watched(
    dir: &Path,
    watched: &[String],
    git_places: &[String],
    since: (i64, i64),
    known: &[PathBuf],
    look: &mut Look,
) -> Vec<PathBuf> {
    let changed = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| changed_at(&m) >= since);
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if known.contains(&path) {
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
        // The entry's type from the folder itself (d_type): no stat for a file.
        if entry.file_type().is_ok_and(|k| k.is_dir()) {
            if look.left == 0 {
                look.incomplete = true;
                return out;
            }
            look.left -= 1;
            out.extend(changed_watched(
                &path, watched, git_places, since, known, look,
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

/// When `m` last changed (seconds, nanoseconds): the inode's change time on Unix; on Windows,
/// where contain is unavailable, the last write.
fn changed_at(m: &std::fs::Metadata) -> (i64, i64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.ctime(), m.ctime_nsec())
    }
    #[cfg(not(unix))]
    {
        let since = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .unwrap_or_default();
        (since.as_secs() as i64, i64::from(since.subsec_nanos()))
    }
}
