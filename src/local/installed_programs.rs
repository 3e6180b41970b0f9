//! Folders where toolchains install the programs they put on the person's PATH
//! (`rules/installed_programs.txt`): a program run by its path in one is judged by its name, as
//! a program in a system bin folder is. Bundled only: a line loosens.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::path::Path;
use std::sync::OnceLock;

const TEXT: &str = include_str!("../../rules/installed_programs.txt");

/// The globs, compiled once; a bad bundled line (a test holds there is none) matches nothing.
fn globs() -> &'static GlobSet {
    static GLOBS: OnceLock<GlobSet> = OnceLock::new();
    GLOBS.get_or_init(|| {
        let mut set = GlobSetBuilder::new();
        for line in crate::lists::entries(TEXT) {
            let glob = line.split_whitespace().next().unwrap_or(line);
            if let Ok(g) = GlobBuilder::new(glob).literal_separator(true).build() {
                set.add(g);
            }
        }
        set.build().unwrap_or_else(|_| GlobSet::empty())
    })
}

/// Whether `program` (a resolved absolute path) is one a toolchain installed: its path, with
/// the home written `~`, matches a line of the list.
pub fn holds(program: &Path, home: Option<&Path>) -> bool {
    let Some(text) = program.to_str() else {
        return false;
    };
    let under_home = home
        .and_then(|h| program.strip_prefix(h).ok())
        .and_then(Path::to_str)
        .map(|rest| format!("~/{rest}"));
    let set = globs();
    set.is_match(text) || under_home.is_some_and(|t| set.is_match(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_line_compiles() {
        for line in crate::lists::entries(TEXT) {
            let glob = line.split_whitespace().next().unwrap_or(line);
            assert!(
                GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .is_ok(),
                "installed_programs.txt: bad glob {glob}"
            );
        }
        assert!(globs().len() > 20);
    }

    #[test]
    fn toolchain_folders_hold_programs_and_nothing_else_does() {
        let home = Some(Path::new("/home/dev"));
        for p in [
            "/home/dev/.cargo/bin/cargo-nextest",
            "/home/dev/Library/Android/sdk/platform-tools/adb",
            "/opt/homebrew/opt/grafana/bin/grafana",
            "/opt/homebrew/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/arm64-darwin/rg",
        ] {
            assert!(holds(Path::new(p), home), "{p}");
        }
        for p in [
            "/home/dev/proj/bin/rm",
            "/home/dev/.cargo/bin/sub/rm",
            "/opt/homebrew/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/arm64-darwin/sh",
            "/tmp/.cargo/bin/x",
            "/home/other/.cargo/bin/cargo",
        ] {
            assert!(!holds(Path::new(p), home), "{p}");
        }
    }
}
