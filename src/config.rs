//! Where sentinel keeps its files.

use std::path::PathBuf;

/// The directory of rule files, config and state: `SENTINEL_HOME`, else `~/.agentos`.
pub fn sentinel_home() -> Option<PathBuf> {
    match std::env::var_os("SENTINEL_HOME") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::home_dir().map(|h| h.join(".agentos")),
    }
}

/// The user's home directory, for `~` in commands and path lists.
pub fn user_home() -> Option<PathBuf> {
    dirs::home_dir()
}
