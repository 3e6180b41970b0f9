//! The files a call runs, shown to Tier 2 (issue 29): a script's text is what the call does, so
//! the evaluator reads it as it reads a `-c` body. Taken from Tier 1's effects (the files run
//! directly) and the tooling's own files (`make` → the makefile, `npm`/`yarn`/`pnpm`/`bun` →
//! `package.json`), each cut to a bound, as data like the rest of the action.

use crate::decision::Decision;
use crate::decision::effect::Effect;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most of one file shown.
pub const MAX_SHOWN_BYTES: usize = 8 * 1024;
/// Files shown for one call, at most.
const MAX_FILES: usize = 4;

/// One file the call runs, as the evaluator sees it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FileRun {
    /// The file, absolute.
    pub path: String,
    /// Its text (lossy UTF-8), cut at [`MAX_SHOWN_BYTES`].
    pub text: String,
    /// It was longer than what is shown.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// The files Tier 1 found `d`'s commands run, read now (unreadable ones are left out).
pub fn of(d: &Decision, home: Option<&Path>) -> Vec<FileRun> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for c in &d.commands {
        let base = match c.cwd.as_deref() {
            None => PathBuf::from(&d.cwd),
            Some("unknown") => continue,
            Some(dir) => PathBuf::from(dir),
        };
        for e in &c.effects {
            if let Effect::RunFile { path } = e
                && let Some(p) = resolve(&path.text, &base, home)
            {
                paths.push(p);
            }
        }
        let name = c.text.split_whitespace().next().unwrap_or("");
        match name {
            "make" | "gmake" => paths.extend(
                ["GNUmakefile", "makefile", "Makefile"]
                    .iter()
                    .map(|n| base.join(n))
                    .find(|p| p.is_file()),
            ),
            "npm" | "yarn" | "pnpm" | "bun" => paths.push(base.join("package.json")),
            _ => {}
        }
    }
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|p| read(&p))
        .take(MAX_FILES)
        .collect()
}

/// A literal path as the shell reads it (Tier 2 does not use Tier 1's resolver: the two tiers
/// do not know each other); None for anything computed.
fn resolve(text: &str, base: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if text.contains('$') || text.contains('`') {
        return None;
    }
    Some(match text.strip_prefix("~/") {
        Some(rest) => home?.join(rest),
        None => base.join(text),
    })
}

fn read(p: &Path) -> Option<FileRun> {
    // Never blocking on a FIFO, never a device or a folder.
    let (f, _) = crate::config::files::open_with_len(
        p,
        std::fs::OpenOptions::new().read(true),
        crate::config::files::Links::Follow,
    )
    .ok()?;
    let mut bytes = Vec::new();
    f.take(MAX_SHOWN_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    let cut = bytes.len() > MAX_SHOWN_BYTES;
    bytes.truncate(MAX_SHOWN_BYTES);
    Some(FileRun {
        path: p.display().to_string(),
        text: String::from_utf8_lossy(&bytes).into_owned(),
        cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::word::Word;
    use crate::decision::{CommandReport, Verdict};

    #[test]
    fn the_files_a_call_runs_are_shown_cut_to_the_bound() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        std::fs::write(dir.path().join("a.sh"), "rm -rf build\n").unwrap();
        std::fs::write(dir.path().join("big.sh"), "x".repeat(MAX_SHOWN_BYTES + 10)).unwrap();
        let mut d = Decision::local("Bash", Verdict::Uncertain, "", None);
        d.cwd = dir.path().display().to_string();
        for f in ["a.sh", "big.sh", "missing.sh"] {
            d.commands.push(CommandReport {
                text: format!("sh {f}"),
                via: Vec::new(),
                verdict: Verdict::Uncertain,
                reason: String::new(),
                rule: None,
                person_only: false,
                cwd: None,
                effects: vec![Effect::RunFile {
                    path: Word::literal(f),
                }],
            });
        }
        let shown = of(&d, None);
        assert_eq!(shown.len(), 2);
        assert_eq!(shown[0].text, "rm -rf build\n");
        assert!(!shown[0].cut);
        assert!(shown[1].cut && shown[1].text.len() == MAX_SHOWN_BYTES);
    }
}
