//! Which file an open file or a path is, across renames: Unix's (device, inode); Windows' (volume
//! serial number, file index) from `GetFileInformationByHandle`, the same pair. (Creation time
//! would not do: Windows' "tunneling" gives a file created under a name just renamed away the
//! old file's creation time, which is what a journal's rotation does.)

use std::fs::File;
use std::path::Path;

/// A file's identity: equal for the same file, under any name.
pub type FileId = (u64, u64);

#[cfg(unix)]
pub fn of_file(f: &File) -> std::io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = f.metadata()?;
    Ok((m.dev(), m.ino()))
}

/// The identity of what is at `path`, a link itself rather than its target.
#[cfg(unix)]
pub fn of_path(path: &Path) -> std::io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

#[cfg(windows)]
pub fn of_file(f: &File) -> std::io::Result<FileId> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{
        BY_HANDLE_FILE_INFORMATION, GetFileInformationByHandle,
    };
    // SAFETY: a zeroed plain-data struct filled by the call, on a handle `f` keeps open.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    if unsafe { GetFileInformationByHandle(f.as_raw_handle(), &mut info) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    let index = (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow);
    Ok((u64::from(info.dwVolumeSerialNumber), index))
}

/// The identity of what is at `path`, a link (reparse point) itself rather than its target.
#[cfg(windows)]
pub fn of_path(path: &Path) -> std::io::Result<FileId> {
    use std::os::windows::fs::OpenOptionsExt;
    use windows_sys::Win32::Storage::FileSystem::{
        FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT,
    };
    // No access asked (0): enough to query, and folders open with backup semantics.
    let f = std::fs::OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    of_file(&f)
}
