//! The mounts the fence makes in its own mount namespace: places pinned or made read-only,
//! the temp dir, the home and the package stores as copies of the run's own, credentials
//! covered by empty files and folders.

use crate::contain::plan::Fence;
use crate::contain::sys;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// statfs's relatime flag (the kernel's `ST_RELATIME`), which the libc crate names for glibc only.
const ST_RELATIME: libc::c_ulong = 0x1000;

/// Mount flags a bind mount inherits and a remount must keep (the kernel refuses to drop them
/// in a user namespace).
fn kept_flags(path: &Path) -> libc::c_ulong {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return 0;
    };
    let Some(f) = sys::mount_flags(&c) else {
        return 0;
    };
    let mut out = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f & st_flag != 0 {
            out |= ms_flag;
        }
    }
    out
}

/// `path` bound onto itself, read-write as it was: it cannot be renamed or removed inside the
/// fence (EBUSY), what is in it stays writable.
pub(super) fn pin(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    sys::mount(Some(&c), &c, None, libc::MS_BIND | libc::MS_REC, None).is_ok()
}

pub(super) fn bind_read_only(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // A bind mount of an existing path onto itself, then made read-only.
    if sys::mount(Some(&c), &c, None, libc::MS_BIND | libc::MS_REC, None).is_err() {
        return false;
    }
    let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | kept_flags(path);
    sys::mount(None, &c, None, flags, None).is_ok()
}

/// An empty temp dir of the run's own over `temp`; a project inside it is bound back in place.
pub(super) fn private_temp(temp: &Path, project: &Path) -> bool {
    let Ok(t) = CString::new(temp.as_os_str().as_bytes()) else {
        return false;
    };
    let inside = project.starts_with(temp);
    // The project's folder, held open across the mount that hides it.
    let held = if inside {
        match std::fs::File::open(project) {
            Ok(f) => Some(f),
            Err(_) => return false,
        }
    } else {
        None
    };
    // SAFETY: a tmpfs mount on an existing folder.
    let mounted = sys::mount(
        Some(c"tmpfs"),
        &t,
        Some(c"tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(c"mode=1777"),
    )
    .is_ok();
    if !mounted {
        return false;
    }
    let Some(held) = held else {
        return true;
    };
    if std::fs::create_dir_all(project).is_err() {
        return false;
    }
    let from = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&held));
    let (Ok(from), Ok(to)) = (
        CString::new(from),
        CString::new(project.as_os_str().as_bytes()),
    ) else {
        return false;
    };
    // A recursive bind of the held folder onto its own path in the new temp dir.
    sys::mount(Some(&from), &to, None, libc::MS_BIND | libc::MS_REC, None).is_ok()
}

/// Set in the fence's first child when the home is the run's own copy (its children, the
/// command's process among them, are forks of it and see the same value).
pub(super) static HOME_COPIED: AtomicBool = AtomicBool::new(false);

/// Where the run's own layer of the home lives: in its private /tmp, gone with it.
const HOME_LAYER: &str = "/tmp/.sentinel-home";

/// The home as the run sees it: an overlay of the home as it is with a layer of the run's own
/// above it, then the places inside it whose writes must stay real bound back as they are
/// (the project, the writable caches) and SENTINEL_HOME read-only. `Ok(false)`: the kernel
/// refused the overlay and nothing changed; `Err`: a step after it failed (the run must not
/// start: its writes to the project would be lost).
pub(super) fn private_home(home: &Path, fence: &Fence) -> Result<bool, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // The places bound back, held open across the mount that covers them.
    let mut kept: Vec<&Path> = fence
        .writable
        .iter()
        .map(PathBuf::as_path)
        .filter(|w| w.starts_with(home) && !w.starts_with(&fence.project))
        .collect();
    if fence.project.starts_with(home) {
        kept.push(&fence.project);
    }
    let mut held = Vec::with_capacity(kept.len());
    for place in kept {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_NOFOLLOW)
            .open(place)
            .map_err(|e| format!("holding {} open: {e}", place.display()))?;
        held.push((file, place));
    }
    if !overlay(home, Path::new(HOME_LAYER)) {
        return Ok(false);
    }
    // Each as it is, on its path in the copy (a place inside another comes back with it).
    for (file, place) in &held {
        let from = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file));
        let (Ok(from), Ok(to)) = (
            CString::new(from),
            CString::new(place.as_os_str().as_bytes()),
        ) else {
            return Err(format!("binding {} back", place.display()));
        };
        if sys::mount(Some(&from), &to, None, libc::MS_BIND | libc::MS_REC, None).is_err() {
            return Err(format!(
                "binding {} back in the home's copy",
                place.display()
            ));
        }
    }
    let own = &fence.sentinel_home;
    if own.starts_with(home)
        && !own.starts_with(&fence.project)
        && own.is_dir()
        && !bind_read_only(own)
    {
        return Err(format!("making {} read-only", own.display()));
    }
    Ok(true)
}

/// A place to cover that the home's copy does not show (it was on another file system
/// mounted inside the home, which an overlay does not carry): nothing to cover.
pub(super) fn out_of_view(path: &Path) -> bool {
    HOME_COPIED.load(Ordering::Relaxed) && std::fs::symlink_metadata(path).is_err()
}

/// Where the run's own layers of the package stores live: in its private /tmp, gone with it.
const STORE_LAYERS: &str = "/tmp/.sentinel-package-stores";

/// `store` as the run sees it: an overlay of the store as it is (read-only below) and a layer
/// of the run's own in its private /tmp above, where whatever it adds or changes lands.
pub(super) fn private_store(store: &Path, n: usize) -> bool {
    overlay(store, Path::new(&format!("{STORE_LAYERS}/{n}")))
}

/// Mounts over `place` an overlay of it as it is (read-only below) with a layer in `layers`
/// (`upper` and `work` made there) above, where whatever the run adds or changes lands. False
/// when the layer cannot be made or the kernel refuses the mount: nothing was mounted.
pub(super) fn overlay(place: &Path, layers: &Path) -> bool {
    let (upper, work) = (layers.join("upper"), layers.join("work"));
    if std::fs::create_dir_all(&upper).is_err() || std::fs::create_dir_all(&work).is_err() {
        return false;
    }
    let options = format!(
        "lowerdir={},upperdir={},workdir={},userxattr",
        escape_overlay(place),
        escape_overlay(&upper),
        escape_overlay(&work)
    );
    let (Ok(target), Ok(options)) = (
        CString::new(place.as_os_str().as_bytes()),
        CString::new(options),
    ) else {
        return false;
    };
    sys::mount(
        Some(c"overlay"),
        &target,
        Some(c"overlay"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&options),
    )
    .is_ok()
}

/// A path in overlayfs's options: `,`, `:` and `\` escaped.
fn escape_overlay(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        if matches!(c, ',' | ':' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An empty read-only folder over `path`.
pub(super) fn cover_dir(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    sys::mount(
        Some(c"tmpfs"),
        &c,
        Some(c"tmpfs"),
        libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some(c"size=4k,mode=0555"),
    )
    .is_ok()
}

/// `/dev/null` (empty, whatever is written to it lost) over the file `path`.
pub(super) fn cover_file(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    sys::mount(Some(c"/dev/null"), &c, None, libc::MS_BIND, None).is_ok()
}
