//! The managed layer: an organisation's policy at a system path, beside Claude Code's managed
//! settings, above the person's SENTINEL_HOME and every project's `.sentinel/`.
//!
//! - **Where**: `/etc/sentinel/` (Linux, WSL), `/Library/Application Support/Sentinel/` (macOS),
//!   `C:\ProgramData\sentinel\` (Windows, beside Claude Code's `C:\ProgramData\ClaudeCode\`).
//!   It holds what SENTINEL_HOME holds: `sentinel.toml`, the rule files, `commands/*.toml`.
//! - **Whose**: root's alone. The folder, every folder above it and every file in it must be
//!   owned by root and not writable by group or others; a file must be a regular file (a link
//!   could lead anywhere). Anything else is a broken policy: the person could rewrite it.
//! - **Broken is not absent**: a policy that cannot be read, fails those checks or does not
//!   parse makes every call `ask` with the reason ([`Managed::broken`]), never a fall back to
//!   the looser policy below it.
//! - **Moving it, for tests**: `SENTINEL_MANAGED_DIR` names another folder only while the
//!   system folder does not exist and the person's `sentinel.toml` trusts it (`[env] trust`,
//!   checked by the caller), and that folder is held to the same checks. A variable that
//!   anything setting the environment can set (a project's agent settings) therefore cannot
//!   drop a deployed policy: where one is deployed, the variable is ignored; where none is, it
//!   can only name a folder root wrote.
//! - **Windows** has no uid 0 and std cannot read an ACL: there the folder and each file must
//!   not be writable by this process (a write open of each file, a delete-on-close file in each
//!   folder, made and gone at once); a layer that is, is broken (every call asks). The folders
//!   above it are not checked (users may create folders in `C:\` and `C:\ProgramData`, but
//!   not rename or delete another's). docs/windows.md says what this does not cover.
//! - **Cost**: when there is no policy (the usual case) a hook pays one failed `stat`.

use std::fs::Metadata;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where an organisation puts its policy on this system.
pub const SYSTEM_DIR: &str = if cfg!(target_os = "macos") {
    "/Library/Application Support/Sentinel"
} else if cfg!(windows) {
    "C:\\ProgramData\\sentinel"
} else {
    "/etc/sentinel"
};

/// Names another folder for the policy, honoured only while [`SYSTEM_DIR`] does not exist.
pub const DIR_VAR: &str = "SENTINEL_MANAGED_DIR";

/// Largest managed file read.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The folder of command specs (as in SENTINEL_HOME).
const SPEC_DIR: &str = "commands";

/// Most spec files read from `commands/`.
const MAX_SPEC_FILES: usize = 1000;

/// The files a managed folder may hold besides `commands/*.toml`.
pub const FILES: [&str; 11] = [
    super::FILE_NAME,
    "hard_block_commands.txt",
    "safe_commands.txt",
    "conditional_block_commands.txt",
    "safe_paths.txt",
    "excluded_paths.txt",
    "credential_paths.txt",
    "protected_paths.txt",
    "signs.txt",
    "program_roles.txt",
    "sql_words.txt",
];

/// The organisation's policy as found on this system.
#[derive(Debug)]
pub struct Managed {
    /// The folder.
    pub dir: PathBuf,
    /// The variable that named it, when not the system folder.
    pub named_by: Option<&'static str>,
    /// Its files, read and checked (name relative to the folder, e.g. `commands/git.toml`).
    pub files: Vec<ManagedFile>,
    /// Why the policy cannot be used (None: it can). Every call asks while this is set.
    pub broken: Option<String>,
}

/// One file of the policy.
#[derive(Debug, Clone)]
pub struct ManagedFile {
    /// Its name in the folder (`sentinel.toml`, `commands/git.toml`).
    pub name: String,
    /// Where it is.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

impl Managed {
    /// The policy of this system: None when there is none (the usual case, one failed stat).
    pub fn find() -> Option<Managed> {
        Managed::find_with(Path::new(SYSTEM_DIR), &|name| std::env::var_os(name))
    }

    /// [`Managed::find`] with the system folder and the environment given.
    pub fn find_with(
        system: &Path,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Option<Managed> {
        match look(system) {
            Ok(()) => Some(Managed::read(system, None)),
            Err(e) if super::is_absent(&e) => {
                let named = env(DIR_VAR).filter(|v| !v.is_empty())?;
                let dir = PathBuf::from(named);
                if !dir.is_absolute() {
                    return Some(Managed::refused(
                        dir.clone(),
                        Some(DIR_VAR),
                        format!("{DIR_VAR}={} is not an absolute path", dir.display()),
                    ));
                }
                match std::fs::symlink_metadata(&dir) {
                    Err(e) if super::is_absent(&e) => None,
                    _ => Some(Managed::read(&dir, Some(DIR_VAR))),
                }
            }
            // Cannot tell whether a policy is there: it may be.
            Err(e) => Some(Managed::refused(
                system.to_path_buf(),
                None,
                format!("{system}: cannot be read ({e})", system = system.display()),
            )),
        }
    }

    fn refused(dir: PathBuf, named_by: Option<&'static str>, why: String) -> Managed {
        Managed {
            dir,
            named_by,
            files: Vec::new(),
            broken: Some(why),
        }
    }

    /// Reads the folder `dir`: each file checked as root's, or the reason it is broken.
    fn read(dir: &Path, named_by: Option<&'static str>) -> Managed {
        match read_files(dir) {
            Ok(files) => Managed {
                dir: dir.to_path_buf(),
                named_by,
                files,
                broken: None,
            },
            Err(why) => Managed::refused(dir.to_path_buf(), named_by, why),
        }
    }

    /// The policy's file `name`, when it has one.
    pub fn file(&self, name: &str) -> Option<&ManagedFile> {
        self.files.iter().find(|f| f.name == name)
    }

    /// The spec files (`commands/*.toml`), in name order.
    pub fn spec_files(&self) -> impl Iterator<Item = &ManagedFile> {
        self.files
            .iter()
            .filter(|f| f.name.starts_with(SPEC_DIR) && f.name[SPEC_DIR.len()..].starts_with('/'))
    }

    /// Where the folder came from, in a few words.
    pub fn whence(&self) -> String {
        match self.named_by {
            Some(var) => format!(
                "{} (named by {var}: {SYSTEM_DIR} does not exist)",
                self.dir.display()
            ),
            None => self.dir.display().to_string(),
        }
    }
}

/// Whether `path` is there (a link itself counts): one `stat` call, nothing else (std's first
/// failed `statx` of a process probes the kernel with a second call; this is every hook's
/// path).
#[cfg(windows)]
fn look(path: &Path) -> std::io::Result<()> {
    std::fs::symlink_metadata(path).map(drop)
}

#[cfg(unix)]
fn look(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: fstatat (no link followed) of a NUL-terminated path into a zeroed struct. fstatat,
    // not lstat: the binary imports it already, and each new import costs every start a lookup.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let flags = libc::AT_SYMLINK_NOFOLLOW;
    match unsafe { libc::fstatat(libc::AT_FDCWD, c.as_ptr(), &mut st, flags) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Why `meta` (of `path`) is not root's alone, if it is not.
#[cfg(unix)]
pub fn not_roots(path: &Path, meta: &Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != 0 {
        return Some(format!(
            "{} is owned by uid {}, not root: the person could change the organisation's policy",
            path.display(),
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Some(format!(
            "{} is writable by group or others (mode {mode:04o}): anyone could change the organisation's policy",
            path.display()
        ));
    }
    None
}

/// Windows: why `path` is not out of this process's reach, if it is not: a link (reparse
/// point), or a file this process can open for writing, or a folder it can create a file in.
#[cfg(windows)]
pub fn not_roots(path: &Path, meta: &Metadata) -> Option<String> {
    use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
    const FILE_ATTRIBUTE_REPARSE_POINT: u32 = 0x400;
    const FILE_FLAG_DELETE_ON_CLOSE: u32 = 0x0400_0000;
    if meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
        return Some(format!(
            "{} is a link (reparse point): a managed folder or file must be itself",
            path.display()
        ));
    }
    let writable = if meta.is_dir() {
        let probe = path.join(format!(".sentinel-write-probe-{}", std::process::id()));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(FILE_FLAG_DELETE_ON_CLOSE)
            .open(probe)
            .is_ok()
    } else {
        std::fs::OpenOptions::new().write(true).open(path).is_ok()
    };
    writable.then(|| {
        format!(
            "{} can be written by this user: the person could change the organisation's policy",
            path.display()
        )
    })
}

/// Every folder from `/` down to `dir` (links resolved) must be root's alone (on Windows, the
/// folder itself: see the module doc).
fn check_folders(dir: &Path) -> Result<PathBuf, String> {
    let real = dir
        .canonicalize()
        .map_err(|e| format!("{}: cannot be read ({e})", dir.display()))?;
    let folders = real
        .ancestors()
        .take(if cfg!(windows) { 1 } else { usize::MAX });
    for folder in folders {
        let meta = std::fs::metadata(folder)
            .map_err(|e| format!("{}: cannot be read ({e})", folder.display()))?;
        if !meta.is_dir() {
            return Err(format!("{} is not a folder", folder.display()));
        }
        if let Some(why) = not_roots(folder, &meta) {
            return Err(why);
        }
    }
    Ok(real)
}

fn read_files(dir: &Path) -> Result<Vec<ManagedFile>, String> {
    let real = check_folders(dir)?;
    let mut files = Vec::new();
    for name in FILES {
        if let Some(f) = read_one(&real, dir, name)? {
            files.push(f);
        }
    }
    let commands = real.join(SPEC_DIR);
    match std::fs::symlink_metadata(&commands) {
        Err(e) if super::is_absent(&e) => {}
        Err(e) => return Err(format!("{}: cannot be read ({e})", commands.display())),
        Ok(meta) => {
            if !meta.is_dir() {
                return Err(format!(
                    "{} is not a folder (a link is refused)",
                    commands.display()
                ));
            }
            if let Some(why) = not_roots(&commands, &meta) {
                return Err(why);
            }
            let mut names: Vec<String> = std::fs::read_dir(&commands)
                .map_err(|e| format!("{}: cannot be read ({e})", commands.display()))?
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".toml"))
                .collect();
            names.sort();
            if names.len() > MAX_SPEC_FILES {
                return Err(format!(
                    "{} holds {} spec files, over the bound of {MAX_SPEC_FILES}",
                    commands.display(),
                    names.len()
                ));
            }
            for n in names {
                let name = format!("{}/{n}", SPEC_DIR);
                if let Some(f) = read_one(&real, dir, &name)? {
                    files.push(f);
                }
            }
        }
    }
    Ok(files)
}

/// Reads `name` in the folder `real` (shown under `shown`): None when absent; an error when it
/// is a link, not a regular file, not root's alone, over the bound or not UTF-8. The checks are
/// made on the open file, so a file swapped after them is not the one read.
fn read_one(real: &Path, shown: &Path, name: &str) -> Result<Option<ManagedFile>, String> {
    let path = real.join(name);
    let shown = shown.join(name);
    let file = open_no_link(&path);
    let file = match file {
        Ok(f) => f,
        Err(e) if super::is_absent(&e) => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(format!(
                "{} is a symbolic link: a managed file must be a regular file root owns",
                shown.display()
            ));
        }
        Err(e) => return Err(format!("{}: cannot be read ({e})", shown.display())),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: cannot be read ({e})", shown.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", shown.display()));
    }
    if let Some(why) = not_roots(&shown, &meta) {
        return Err(why);
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} is {} bytes, over the {MAX_FILE_BYTES}-byte bound",
            shown.display(),
            meta.len()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: cannot be read ({e})", shown.display()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{} is not valid UTF-8", shown.display()))?;
    Ok(Some(ManagedFile {
        name: name.to_string(),
        path: shown,
        text,
    }))
}

/// Opens `path` to read without following a link there (on Windows the reparse point itself is
/// opened, and [`not_roots`] refuses it).
fn open_no_link(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
    );
    #[cfg(windows)]
    std::os::windows::fs::OpenOptionsExt::custom_flags(&mut options, 0x0020_0000);
    options.open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_variable_moves_nothing_while_a_system_policy_exists() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("system");
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        let env = |_: &str| Some(other.clone().into_os_string());
        // No system folder: the variable's folder is read (and held to the checks).
        let m = Managed::find_with(&system, &env).unwrap();
        assert_eq!(
            (m.dir.as_path(), m.named_by),
            (other.as_path(), Some(DIR_VAR))
        );
        // A system folder: the variable is ignored.
        std::fs::create_dir_all(&system).unwrap();
        let m = Managed::find_with(&system, &env).unwrap();
        assert_eq!((m.dir.as_path(), m.named_by), (system.as_path(), None));
        // Neither: no policy. A variable naming nothing: no policy. A relative one: broken.
        let absent = dir.path().join("absent");
        assert!(Managed::find_with(&absent, &|_| None).is_none());
        let nothing = |_: &str| Some(dir.path().join("nothing").into_os_string());
        assert!(Managed::find_with(&absent, &nothing).is_none());
        let rel = |_: &str| Some("policy".into());
        let m = Managed::find_with(&absent, &rel).unwrap();
        assert!(m.broken.unwrap().contains("not an absolute path"));
    }

    #[test]
    fn a_folder_or_file_others_can_write_is_not_roots_alone() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, "").unwrap();
        let check = |mode: u32| {
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(mode)).unwrap();
            not_roots(&f, &std::fs::metadata(&f).unwrap())
        };
        // SAFETY: geteuid has no failure.
        let root = unsafe { libc::geteuid() } == 0;
        for (mode, writable) in [(0o644, false), (0o600, false), (0o664, true), (0o646, true)] {
            let why = check(mode);
            match (root, writable) {
                (true, false) => assert_eq!(why, None),
                (true, true) => assert!(why.unwrap().contains(&format!("mode {mode:04o}"))),
                (false, _) => assert!(why.unwrap().contains("not root")),
            }
        }
        // /tmp and its like (sticky, world-writable) never hold a policy.
        let tmp = std::fs::metadata("/tmp").unwrap();
        assert!(not_roots(Path::new("/tmp"), &tmp).is_some());
    }
}
