//! Whether a file is a program a shell's PATH search would run.

use std::path::Path;

/// Unix: a file (links followed) with an execute bit.
#[cfg(unix)]
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Windows has no execute bit: a file is a program by its extension, as `PATHEXT` has it by
/// default (Git Bash runs the same ones).
#[cfg(windows)]
pub fn is_executable(p: &Path) -> bool {
    const PROGRAM_EXTENSIONS: [&str; 5] = ["exe", "com", "bat", "cmd", "ps1"];
    let by_name = p
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| PROGRAM_EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)));
    by_name && std::fs::metadata(p).is_ok_and(|m| m.is_file())
}
