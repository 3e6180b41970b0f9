//! After the run: protected places it created or replaced are moved aside, so that nothing it
//! left there runs later outside the fence.

use crate::contain::plan::Fence;
use std::path::{Path, PathBuf};

/// True for a `.pth` file that runs no code: Python's `site` adds each of its lines to the
/// import path and executes only those that begin with `import`. An editable install writes
/// one (`pip install -e .`, `uv sync`): the project's path, or setuptools' finder, whose import
/// line runs a module the same install left in site-packages (as any installed module, it runs
/// when used; the finder line is let through so that editable installs keep working).
fn pth_runs_nothing(place: &Path) -> bool {
    if place.extension().is_none_or(|e| e != "pth") {
        return false;
    }
    let Ok(meta) = std::fs::symlink_metadata(place) else {
        return false;
    };
    if !meta.is_file() || meta.len() > 64 * 1024 {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(place) else {
        return false;
    };
    text.lines().all(|line| {
        let runs = line.starts_with("import ") || line.starts_with("import\t");
        !runs || editable_finder(line)
    })
}

/// setuptools' editable finder line: `import __editable___NAME_finder;
/// __editable___NAME_finder.install('PATH')`.
fn editable_finder(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("import __editable___") else {
        return false;
    };
    let Some((name, call)) = rest.split_once("_finder; __editable___") else {
        return false;
    };
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let Some(arg) = call
        .strip_prefix(name)
        .and_then(|c| c.strip_prefix("_finder.install("))
        .and_then(|c| c.strip_suffix(')'))
    else {
        return false;
    };
    // Nothing, or one quoted path: nothing that calls or joins anything else.
    let quoted = |q: char| {
        arg.len() >= 2
            && arg.starts_with(q)
            && arg.ends_with(q)
            && !arg[1..arg.len() - 1].contains([q, '\\'])
    };
    ident(name) && (arg.is_empty() || quoted('\'') || quoted('"'))
}

/// A protected place the run created (it did not exist before), or replaced (it is not the one
/// that was there: another device or inode), is moved into `quarantine`, so that nothing it
/// holds runs later outside the fence; the person is told on stderr. A look through the whole
/// project that could not be completed leaves it unverified ([`crate::contain::unverified`]).
pub(super) fn move_aside_new_places(fence: &Fence, quarantine: &Path, started: (i64, i64)) {
    use crate::contain::plan::{Look, changed_watched};
    use crate::contain::unverified;
    // After a run whose look was incomplete, what changed since that run began.
    let since = fence.unverified_since.map_or(started, |u| u.min(started));
    // A lower bound may be asked for (the tests do, so as not to make 250,000 folders); never
    // a higher one.
    let budget = std::env::var("SENTINEL_CONTAIN_MAX_DIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(crate::contain::plan::MAX_WALK_DIRS, |n: usize| {
            n.min(crate::contain::plan::MAX_WALK_DIRS)
        });
    let mut look = Look {
        left: budget,
        incomplete: false,
    };
    // The repositories the plan found are pinned and checked by identity, so not looked at
    // again; after an unverified run, a nested one may be what that run made (the plan found it
    // since): only the project's own is left out then.
    let own_git = fence.project.join(".git");
    let known: Vec<PathBuf> = fence
        .repos
        .iter()
        .filter(|r| fence.unverified_since.is_none() || **r == own_git)
        .cloned()
        .collect();
    let nested = changed_watched(
        &fence.project,
        &fence.watched_names,
        &fence.git_places,
        since,
        &known,
        &mut look,
    );
    if look.incomplete {
        let recorded = unverified::record(&fence.sentinel_home, &fence.project, since);
        crate::errln!(
            "sentinel contain: the run left more than {} folders in the project: the look for places it made that run code later (.git, .envrc, .pth in any folder) could not be completed, so {} is recorded as unverified{}: no git or direnv there is allowed without you until a fenced run's look completes (`sentinel contain --project DIR -- true`, once the folders are gone) or you delete {}",
            budget,
            fence.project.display(),
            match &recorded {
                Ok(()) => String::new(),
                Err(e) => format!(" (COULD NOT BE RECORDED: {e}; look before anything runs there)"),
            },
            unverified::record_path(&fence.sentinel_home, &fence.project).display()
        );
    } else if fence.unverified_since.is_some() {
        unverified::clear(&fence.sentinel_home, &fence.project);
        crate::errln!(
            "sentinel contain: {} was unverified; this run's look went back to the run that left it so and was complete: verified",
            fence.project.display()
        );
    }
    let mut places: Vec<(PathBuf, &str)> = Vec::new();
    for p in fence.must_not_appear.iter().chain(&nested) {
        places.push((p.clone(), "created"));
    }
    for p in replaced(fence) {
        places.push((p, "replaced"));
    }
    // A place inside another one moved aside goes with it.
    places.sort();
    places.dedup_by(|b, a| b.0.starts_with(&a.0));
    for (place, what) in &places {
        if std::fs::symlink_metadata(place).is_err()
            || (*what == "created" && pth_runs_nothing(place))
        {
            continue;
        }
        if fence.sentinel_home.starts_with(place) {
            crate::errln!(
                "sentinel contain: the run {what} {}, which holds sentinel's home: look at it before anything runs there",
                place.display()
            );
            continue;
        }
        let rel = place.strip_prefix(&fence.project).unwrap_or(place);
        let to = quarantine.join(rel);
        let moved = crate::contain::quarantine::move_into(place, &to).is_ok();
        if moved {
            crate::errln!(
                "sentinel contain: the run {what} {}, a protected place (it would run code later): moved to {}",
                place.display(),
                to.display()
            );
        } else {
            let removed = std::fs::remove_dir_all(place)
                .or_else(|_| std::fs::remove_file(place))
                .is_ok();
            crate::errln!(
                "sentinel contain: the run {what} {}, a protected place (it would run code later): {}",
                place.display(),
                if removed {
                    "removed (it could not be moved aside)"
                } else {
                    "COULD NOT BE REMOVED: delete it before anything runs there"
                }
            );
        }
    }
}

/// Keeps the quarantine bounded (the folder above this run's).
pub(super) fn bound_quarantine(quarantine: &Path) {
    if let Some(all) = quarantine.parent()
        && let Err(e) = crate::contain::quarantine::bound(all, crate::clock::now_ms())
    {
        crate::errln!("sentinel contain: warning: the quarantine could not be kept bounded: {e}");
    }
}

/// The places that are not what they were before the run (their pins make this impossible
/// inside the fence; checked all the same). A repository's `.git` that is another is not the
/// person's: moved aside whole, as a new nested one is. Another folder above protected places
/// (`.cargo`): the protected places in it. A read-only place: itself.
pub(super) fn replaced(fence: &Fence) -> Vec<PathBuf> {
    use crate::contain::plan::Identity;
    let mut out = Vec::new();
    for before in &fence.identities {
        let Some(now) = Identity::of(&before.path) else {
            continue;
        };
        if now == *before {
            continue;
        }
        if fence.repos.contains(&before.path) || !fence.pinned.contains(&before.path) {
            out.push(before.path.clone());
        } else {
            out.extend(
                fence
                    .read_only
                    .iter()
                    .chain(&fence.must_not_appear)
                    .filter(|p| p.starts_with(&before.path))
                    .cloned(),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::editable_finder;

    #[test]
    fn only_setuptools_finder_line_is_taken_for_an_editable_install() {
        assert!(editable_finder(
            "import __editable___py1_0_1_finder; __editable___py1_0_1_finder.install('/p/src/py1')"
        ));
        assert!(editable_finder(
            "import __editable___py1_0_1_finder; __editable___py1_0_1_finder.install()"
        ));
        for bad in [
            "import os; os.system('x')",
            "import __editable___a_finder; __editable___b_finder.install('/p')",
            "import __editable___a_finder; __editable___a_finder.install('/p'); import os",
            "import __editable___a_finder; __editable___a_finder.install(__import__('os'))",
            "import __editable___a_finder; __editable___a_finder.install('/p') or 1",
            "import __editable___a_finder; __editable___a_finder.install('/p\\'+x+'')",
        ] {
            assert!(!editable_finder(bad), "{bad}");
        }
    }
}
