//! The fence on macOS, as a Seatbelt profile for `sandbox-exec -p PROFILE -- COMMAND` (the
//! mechanism Apple's own tools and codex use there). **Written, not proven**: no macOS machine
//! has run it, so `availability()` reports containment unavailable on macOS and this profile is
//! never used. It is kept beside the Linux fence so that both say the same thing: read
//! everywhere but the credential places; write in the project, the temp dirs and the caches; no
//! network but loopback.

use crate::contain::plan::Fence;
use std::fmt::Write as _;
use std::path::Path;

/// The profile text for `fence`.
pub fn profile(fence: &Fence) -> String {
    let mut p = String::from("(version 1)\n(deny default)\n");
    p.push_str("(allow process-exec process-fork signal (target same-sandbox))\n");
    p.push_str("(allow sysctl-read mach-lookup ipc-posix-shm)\n");
    p.push_str("(allow file-read*)\n");
    for d in fence.hidden_dirs.iter() {
        let _ = writeln!(p, "(deny file-read* (subpath {}))", literal(d));
    }
    for f in fence.hidden_files.iter() {
        let _ = writeln!(p, "(deny file-read* (literal {}))", literal(f));
    }
    p.push_str("(allow file-write* (subpath \"/private/tmp\") (subpath \"/private/var/folders\")");
    let _ = write!(p, " (subpath {})", literal(&fence.project));
    for w in &fence.writable {
        let _ = write!(p, " (subpath {})", literal(w));
    }
    p.push_str(")\n(allow file-write-data (literal \"/dev/null\") (literal \"/dev/tty\"))\n");
    for r in fence.read_only.iter().chain(&fence.must_not_appear) {
        let _ = writeln!(p, "(deny file-write* (subpath {}))", literal(r));
    }
    p.push_str("(allow network-bind network-inbound (local ip \"localhost:*\"))\n");
    p.push_str("(allow network-outbound (remote ip \"localhost:*\"))\n");
    p.push_str("(allow network-outbound (remote unix-socket))\n");
    p
}

/// A path as a Seatbelt string literal.
fn literal(path: &Path) -> String {
    let s = path.to_string_lossy();
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_profile_denies_by_default_and_names_every_place() {
        let fence = Fence {
            project: PathBuf::from("/Users/dev/app"),
            hidden_dirs: vec![PathBuf::from("/Users/dev/.ssh")],
            hidden_files: vec![PathBuf::from("/Users/dev/app/.env")],
            read_only: vec![PathBuf::from("/Users/dev/app/.git")],
            must_not_appear: vec![PathBuf::from("/Users/dev/app/.vscode")],
            ..Fence::default()
        };
        let p = profile(&fence);
        assert!(p.starts_with("(version 1)\n(deny default)"));
        assert!(p.contains("(deny file-read* (subpath \"/Users/dev/.ssh\"))"));
        assert!(p.contains("(deny file-read* (literal \"/Users/dev/app/.env\"))"));
        assert!(p.contains("(subpath \"/Users/dev/app\")"));
        assert!(p.contains("(deny file-write* (subpath \"/Users/dev/app/.git\"))"));
        assert!(p.contains("(deny file-write* (subpath \"/Users/dev/app/.vscode\"))"));
        assert!(literal(Path::new("/a\"b")).contains("\\\""));
    }
}
