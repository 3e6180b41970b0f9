//! Windows paths, as Claude Code on Windows writes them through Git Bash, cmd and PowerShell:
//! `C:\Users\me\x`, `C:/Users/me/x`, Git Bash's `/c/Users/me/x`, and `\\server\share`.
//!
//! On an event from a Windows machine they are compared as Windows paths. On any other event
//! (tests and the oracle run on Linux) the places that matter are mapped onto its file system:
//! a user's folder `C:\Users\NAME` is the home (so `~/.ssh` is a credential and `rd /s /q
//! C:\Users\me` deletes the home, whichever name the person has there), and its
//! `AppData\Local\Temp` is the temp dir. Any other drive path names nothing here: it stays a
//! path of its own (`/C:/…`), never inside the project, so a write or delete there is never
//! allowed. A drive-relative path (`C:`, `C:x`: the current folder of that drive) is not known.

use std::path::{Path, PathBuf};

/// A Windows path split into its drive letter (upper case) and its components (`..` resolved),
/// or a UNC path's components; None for a path of another form.
#[derive(Debug, PartialEq, Eq)]
pub enum WindowsPath {
    /// `C:\a\b`, `C:/a/b`, `/c/a/b`.
    Drive(char, Vec<String>),
    /// `\\server\share\a`, `//server/share/a`.
    Unc(Vec<String>),
}

/// Reads `raw` as a Windows path. `git_bash`: `/c/…` is Git Bash's drive C (true where the
/// event is not Windows: a Linux path under a one-letter root folder is that rare).
pub fn parse(raw: &str, git_bash: bool) -> Option<WindowsPath> {
    let b = raw.as_bytes();
    let rest = if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        match b.get(2) {
            Some(b'\\' | b'/') => &raw[3..],
            // `C:x` is relative to drive C's current folder in cmd and PowerShell (their words
            // say so themselves); to Bash it is a file name.
            _ => return None,
        }
    } else if git_bash
        && b.len() >= 2
        && b[0] == b'/'
        && b[1].is_ascii_alphabetic()
        && (b.len() == 2 || b[2] == b'/')
    {
        raw.get(3..).unwrap_or("")
    } else if let Some(unc) = raw.strip_prefix("\\\\") {
        return Some(WindowsPath::Unc(components(unc)));
    } else {
        return None;
    };
    let drive = (b[if b[0] == b'/' { 1 } else { 0 }] as char).to_ascii_uppercase();
    Some(WindowsPath::Drive(drive, components(rest)))
}

/// The components of a path with `\` or `/` separators, `.` dropped and `..` resolved (never
/// above the root).
fn components(rest: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for part in rest.split(['\\', '/']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p.to_string()),
        }
    }
    parts
}

/// What a Windows path names on a non-Windows event whose home is `home`: Some(path) (the
/// home and below for `C:\Users\NAME\…`, the temp dir for its `AppData\Local\Temp`, else
/// `/C:/…`, a place of its own).
pub fn on_this_machine(path: WindowsPath, home: Option<&Path>) -> PathBuf {
    let (drive, parts) = match path {
        WindowsPath::Unc(parts) => return PathBuf::from(format!("//{}", parts.join("/"))),
        WindowsPath::Drive(drive, parts) => (drive, parts),
    };
    if parts.len() >= 2
        && parts[0].eq_ignore_ascii_case("Users")
        && let Some(home) = home
    {
        return in_home(home, &parts[2..]);
    }
    PathBuf::from(format!("/{drive}:/{}", parts.join("/")))
}

/// `rest` below the home, with the user's `AppData\Local\Temp` read as the temp dir (`%TEMP%`
/// on Windows; sentinel treats temp dirs as scratch space).
pub fn in_home(home: &Path, rest: &[String]) -> PathBuf {
    let temp = ["AppData", "Local", "Temp"];
    if rest.len() >= 3
        && rest
            .iter()
            .zip(temp)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
    {
        let mut p = PathBuf::from("/tmp");
        p.extend(&rest[3..]);
        return p;
    }
    let mut p = home.to_path_buf();
    p.extend(rest);
    p
}

/// The home's `AppData\Local\Temp` (however `~/…` reached it) as the temp dir.
pub fn temp_in_home(path: PathBuf, home: Option<&Path>) -> PathBuf {
    let Some(home) = home else { return path };
    let Ok(rest) = path.strip_prefix(home) else {
        return path;
    };
    let rest: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if rest.len() >= 3 && rest[0].eq_ignore_ascii_case("AppData") {
        return in_home(home, &rest);
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapped(raw: &str) -> String {
        let p = parse(raw, true).expect("a Windows path");
        on_this_machine(p, Some(Path::new("/home/dev")))
            .display()
            .to_string()
    }

    #[test]
    fn a_users_folder_is_the_home() {
        assert_eq!(mapped(r"C:\Users\me\.ssh\id_rsa"), "/home/dev/.ssh/id_rsa");
        assert_eq!(mapped("C:/Users/dev/proj/src"), "/home/dev/proj/src");
        assert_eq!(mapped("/c/Users/dev/proj"), "/home/dev/proj");
        assert_eq!(mapped(r"c:\users\Someone"), "/home/dev");
        assert_eq!(mapped(r"C:\Users\me\..\..\Windows"), "/C:/Windows");
    }

    #[test]
    fn the_users_temp_folder_is_the_temp_dir() {
        assert_eq!(
            mapped(r"C:\Users\me\AppData\Local\Temp\build"),
            "/tmp/build"
        );
        assert_eq!(
            mapped(r"C:\Users\me\AppData\Roaming\gh"),
            "/home/dev/AppData/Roaming/gh"
        );
    }

    #[test]
    fn other_drive_paths_are_places_of_their_own() {
        assert_eq!(mapped(r"C:\"), "/C:/");
        assert_eq!(mapped("D:/work/x"), "/D:/work/x");
        assert_eq!(mapped("/d"), "/D:/");
        assert_eq!(mapped(r"\\server\share\x"), "//server/share/x");
    }

    #[test]
    fn other_forms_are_not_windows_paths() {
        for raw in [
            "/usr/bin",
            "/cd/x",
            "src/main.rs",
            "~/x",
            "/c:",
            "C:",
            "c:foo",
        ] {
            assert_eq!(parse(raw, true), None, "{raw}");
        }
        assert_eq!(parse("/c/x", false), None);
    }
}
