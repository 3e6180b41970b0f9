//! The project files that changed since the person's baseline (SPEC 2.3: which files differ from
//! what the person had is *observed*, by any means, in any session, not inferred from who wrote
//! them). The session's ledger ([`super::written`]) knows what sentinel saw a call write; a tree
//! copy, a computed name, an interpreter's write or an earlier session are seen only here.
//!
//! - **The baseline** is the time sentinel first observed the project, kept in
//!   `SENTINEL_HOME/projects/<sha256 of the project's real path>.baseline` (a state file: 0600 in
//!   a 0700 folder, never through a link). What is there at that first look is what the person
//!   had, except what git shows as not committed then ([`super::uncommitted`]: untracked,
//!   modified or staged), which is recorded in the baseline and counts as changed while it
//!   exists. A damaged or unreadable baseline, or a `projects/`
//!   that is not a plain folder, makes every file count as changed, and is left as it is.
//! - **Changed** is a file whose ctime is at or after the baseline. Not mtime: `touch -d` sets
//!   mtime, nothing but the kernel sets ctime.
//! - **The walk** sees every file (ignored ones too: `.gitignore` is not what the person had),
//!   lstat's each regular file and link, follows no link, and skips `.git/`, SENTINEL_HOME and
//!   the dependency folders of `rules/contain/dependency_dirs.txt`. Past [`MAX_ENTRIES`] it stops,
//!   and any file may be changed.

use super::unobserved::skipped;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The most directory entries one observation looks at.
pub const MAX_ENTRIES: usize = 50_000;

/// How far the file system's clock may lag `now`: Linux stamps files from a coarse clock, up to a
/// tick (at most 10 ms) behind. The baseline is set back by this, so that a change made just
/// after it is never stamped before it (a file changed just before it counts: the stricter side).
const FILE_CLOCK_LAG: Duration = Duration::from_millis(20);

/// A ctime with no nanoseconds may come from a file system that keeps whole seconds (FAT keeps
/// two): it may stand for any time up to this much later.
#[cfg_attr(not(unix), allow(dead_code))]
const COARSE_STAMP: Duration = Duration::from_secs(2);

/// The project files that changed since the baseline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changed {
    /// Absolute, through the project's real path, sorted.
    pub paths: Vec<PathBuf>,
    /// The walk's bound was reached, or the baseline or a folder could not be read: any file of
    /// the project may be changed.
    pub full: bool,
}

impl Changed {
    fn any_file() -> Changed {
        Changed {
            paths: Vec::new(),
            full: true,
        }
    }
}

/// The baseline file's content.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Baseline {
    /// The project's real path, for the person reading the file (the name is its hash).
    project: String,
    /// Files changed at or after this time (ns since the epoch) count as changed.
    since_ns: u64,
    /// Files not committed at the first look, relative to the project: changed too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    uncommitted: Vec<PathBuf>,
    /// More were not committed than are recorded: any file may be changed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    uncommitted_beyond_record: bool,
}

/// The files of `project` that changed since the baseline kept in `sentinel_home`; the first
/// observation of a project records the baseline at `now` and reports what was not committed
/// then.
pub fn observe(sentinel_home: &Path, project: &Path, now: SystemTime) -> Changed {
    let Ok(project) = std::fs::canonicalize(project) else {
        return Changed::any_file();
    };
    let own = std::fs::canonicalize(sentinel_home).ok();
    let (mut seen, first) = match baseline(sentinel_home, &project, own.as_deref(), now) {
        Since::Recorded(b) => (walk(&project, own.as_deref(), b.since_ns, MAX_ENTRIES), b),
        Since::FirstLook(b) => (Changed::default(), b),
        Since::Unknown => return Changed::any_file(),
    };
    seen.full |= first.uncommitted_beyond_record;
    for rel in first.uncommitted {
        let path = project.join(rel);
        // Still there (a link counts as itself), and not already seen.
        if std::fs::symlink_metadata(&path).is_ok() && !seen.paths.contains(&path) {
            seen.paths.push(path);
        }
    }
    seen.paths.sort();
    seen
}

enum Since {
    Recorded(Baseline),
    /// Recorded now: everything there is the person's but what was not committed.
    FirstLook(Baseline),
    Unknown,
}

/// Where the baseline of `project` (its real path) is kept.
fn baseline_path(sentinel_home: &Path, project: &Path) -> PathBuf {
    let key = crate::digest::sha256_hex(project.as_os_str().as_encoded_bytes());
    sentinel_home
        .join("projects")
        .join(format!("{key}.baseline"))
}

fn baseline(sentinel_home: &Path, project: &Path, own: Option<&Path>, now: SystemTime) -> Since {
    let path = baseline_path(sentinel_home, project);
    // The folder is sentinel's own: a link there (or anything but a folder) is not followed.
    match std::fs::symlink_metadata(sentinel_home.join("projects")) {
        Ok(m) if m.is_dir() => {}
        Err(e) if crate::config::is_absent(&e) => {}
        _ => return Since::Unknown,
    }
    let shown = project.to_string_lossy().into_owned();
    let fits = |b: &Baseline| b.project == shown && b.since_ns <= ns(now);
    match crate::ledger::state::read::<Baseline>(&path) {
        Ok(Some(b)) if fits(&b) => return Since::Recorded(b),
        Ok(None) => {}
        // Damaged, from another project, in the future, refused: never a fresh start.
        _ => return Since::Unknown,
    }
    let since_ns = ns(now.checked_sub(FILE_CLOCK_LAG).unwrap_or(UNIX_EPOCH));
    // Looked at before the time is taken: a file changed meanwhile is in one or the other.
    let open = super::uncommitted::now(project, own, MAX_ENTRIES);
    // Under the state's lock: of two first looks at once, the first one's record stays.
    let kept = crate::ledger::state::update(&path, |b: &mut Option<Baseline>| {
        let first = b.is_none();
        let b = b.get_or_insert_with(|| Baseline {
            project: shown.clone(),
            since_ns,
            uncommitted: open.paths,
            uncommitted_beyond_record: open.full,
        });
        (first, fits(b).then(|| b.clone()))
    });
    match kept {
        Ok((true, Some(b))) => Since::FirstLook(b),
        Ok((false, Some(b))) => Since::Recorded(b),
        _ => Since::Unknown,
    }
}

fn ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The latest time a file's ctime may stand for, in ns since the epoch.
#[cfg(unix)]
fn changed_at(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    latest(meta.ctime(), meta.ctime_nsec())
}

/// Without a ctime, every file may have changed.
#[cfg(not(unix))]
fn changed_at(_: &std::fs::Metadata) -> u64 {
    u64::MAX
}

/// The latest time a stamp of `secs` and `nanos` may stand for, in ns since the epoch.
#[cfg_attr(not(unix), allow(dead_code))]
fn latest(secs: i64, nanos: i64) -> u64 {
    let secs = u64::try_from(secs).unwrap_or(0);
    let nanos = u64::try_from(nanos).unwrap_or(0);
    let late = if nanos == 0 {
        COARSE_STAMP.as_nanos() as u64 - 1
    } else {
        nanos
    };
    secs.saturating_mul(1_000_000_000).saturating_add(late)
}

/// The files under `root` changed at or after `since` (ns), looking at `max` entries at most.
fn walk(root: &Path, own: Option<&Path>, since: u64, max: usize) -> Changed {
    let mut out = Changed::default();
    let mut dirs = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = dirs.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            // Removed while walked: nothing there to run.
            Err(e) if crate::config::is_absent(&e) && dir != root => continue,
            // One this user cannot even enter (another user's data volume): nothing in it can
            // be opened or run by the agent, who runs as this user.
            Err(e)
                if e.kind() == std::io::ErrorKind::PermissionDenied
                    && std::fs::symlink_metadata(dir.join(".")).is_err() =>
            {
                continue;
            }
            // A folder that cannot be read may hold anything.
            Err(_) => {
                out.full = true;
                continue;
            }
        };
        for entry in entries {
            let Ok(entry) = entry else {
                out.full = true;
                continue;
            };
            seen += 1;
            if seen > max {
                out.full = true;
                out.paths.sort();
                return out;
            }
            let Ok(kind) = entry.file_type() else {
                out.full = true;
                continue;
            };
            if kind.is_dir() {
                let path = entry.path();
                if !skipped(&entry.file_name()) && Some(path.as_path()) != own {
                    dirs.push(path);
                }
            } else if kind.is_file() || kind.is_symlink() {
                // lstat, through the folder's descriptor.
                match entry.metadata() {
                    Ok(meta) if changed_at(&meta) >= since => out.paths.push(entry.path()),
                    Ok(_) => {}
                    Err(e) if crate::config::is_absent(&e) => {}
                    Err(_) => out.full = true,
                }
            }
        }
    }
    out.paths.sort();
    out
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn create_projects_dir(sentinel_home: &Path) -> std::io::Result<()> {
        crate::config::files::create_dir(&sentinel_home.join("projects"))
    }

    fn now() -> SystemTime {
        SystemTime::now()
    }

    fn put(root: &Path, rel: &str) -> PathBuf {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "x").unwrap();
        p
    }

    #[test]
    fn the_first_look_is_the_baseline_and_later_changes_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let (home, project) = (dir.path().join("home"), dir.path().join("proj"));
        put(&project, "old.py");
        assert_eq!(observe(&home, &project, now()), Changed::default());
        let kept = baseline_path(&home, &std::fs::canonicalize(&project).unwrap());
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&kept), 0o600);
        assert_eq!(mode(kept.parent().unwrap()), 0o700);
        // A baseline an hour ago: everything since is changed, whatever its mtime says.
        let hour_ago = now() - Duration::from_secs(3600);
        let real = std::fs::canonicalize(&project).unwrap();
        std::fs::write(
            &kept,
            serde_json::json!({"project": real, "since_ns": ns(hour_ago)}).to_string(),
        )
        .unwrap();
        let new = put(&project, "sub/new.sh");
        std::fs::File::options()
            .write(true)
            .open(&new)
            .unwrap()
            .set_modified(UNIX_EPOCH + Duration::from_secs(1_000_000))
            .unwrap();
        let seen = observe(&home, &project, now());
        assert_eq!(seen.paths, [real.join("old.py"), real.join("sub/new.sh")]);
        assert!(!seen.full);
    }

    #[test]
    fn a_damaged_baseline_or_a_linked_folder_means_any_file() {
        let dir = tempfile::tempdir().unwrap();
        let (home, project) = (dir.path().join("home"), dir.path().join("proj"));
        put(&project, "a.py");
        let real = std::fs::canonicalize(&project).unwrap();
        let kept = baseline_path(&home, &real);
        create_projects_dir(&home).unwrap();
        for text in [
            "garbage",
            "{\"since_ns\": 1}",
            "{\"project\": \"/else\", \"since_ns\": 1}",
        ] {
            std::fs::write(&kept, text).unwrap();
            assert!(observe(&home, &project, now()).full, "{text}");
            assert_eq!(
                std::fs::read_to_string(&kept).unwrap(),
                text,
                "not rewritten"
            );
        }
        // A baseline in the future would hide every change.
        let later = now() + Duration::from_secs(3600);
        let text = serde_json::json!({"project": real, "since_ns": ns(later)}).to_string();
        std::fs::write(&kept, &text).unwrap();
        assert!(observe(&home, &project, now()).full);
        // A link where the folder should be is not followed, and nothing is written there.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let home2 = dir.path().join("home2");
        std::fs::create_dir(&home2).unwrap();
        std::os::unix::fs::symlink(&elsewhere, home2.join("projects")).unwrap();
        assert!(observe(&home2, &project, now()).full);
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        // A link at the baseline itself is refused.
        let home3 = dir.path().join("home3");
        create_projects_dir(&home3).unwrap();
        std::os::unix::fs::symlink(&kept, baseline_path(&home3, &real)).unwrap();
        assert!(observe(&home3, &project, now()).full);
    }

    #[test]
    fn the_walk_skips_git_dependencies_and_sentinel_and_follows_no_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        for rel in [
            "src/a.py",
            ".git/hooks/pre-commit",
            "node_modules/x/index.js",
            "web/node_modules/y/index.js",
            ".venv/bin/activate",
            "pkg/__pycache__/a.pyc",
            "target/debug/build.rs",
            ".agentos/stats.jsonl",
            "outside/z.sh",
            ".gitignored-but-there.sh",
        ] {
            put(&root, rel);
        }
        std::os::unix::fs::symlink(root.join("outside"), root.join("linked")).unwrap();
        let seen = walk(&root, Some(&root.join(".agentos")), 0, MAX_ENTRIES);
        assert!(!seen.full);
        let rel: Vec<_> = seen
            .paths
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            rel,
            [
                ".gitignored-but-there.sh",
                "linked",
                "outside/z.sh",
                "src/a.py"
            ]
        );
        // Nothing changed after the end of time.
        assert_eq!(walk(&root, None, u64::MAX, MAX_ENTRIES), Changed::default());
    }

    #[test]
    fn an_unreadable_folder_is_full_unless_it_cannot_be_entered() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        put(root, "hidden/x.py");
        let chmod = |mode| {
            std::fs::set_permissions(root.join("hidden"), std::fs::Permissions::from_mode(mode))
                .unwrap()
        };
        chmod(0o300);
        // Root reads every folder: nothing to see then.
        let as_root = std::fs::read_dir(root.join("hidden")).is_ok();
        let entered = walk(root, None, 0, MAX_ENTRIES);
        chmod(0o000);
        let shut = walk(root, None, 0, MAX_ENTRIES);
        chmod(0o700);
        if !as_root {
            assert!(entered.full, "written and run through, never listed");
            assert!(!shut.full, "nothing in it can be opened");
        }
    }

    #[test]
    fn past_the_bound_any_file_may_be_changed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for i in 0..30 {
            put(root, &format!("d{}/f{i}.py", i % 3));
        }
        // 3 folders and 30 files: 33 entries.
        let all = walk(root, None, 0, 33);
        assert!(!all.full);
        assert_eq!(all.paths.len(), 30);
        let cut = walk(root, None, 0, 32);
        assert!(cut.full);
        assert!(cut.paths.len() < 30);
    }

    #[test]
    fn a_whole_second_stamp_may_stand_for_the_next_two() {
        assert_eq!(latest(10, 5), 10_000_000_005);
        assert_eq!(latest(10, 0), 11_999_999_999);
        assert_eq!(latest(-1, 5), 5);
    }
}
