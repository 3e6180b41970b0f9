//! Files agents read as instructions (`CLAUDE.md`, `AGENTS.md`, `.cursor/rules/` …,
//! `rules/instruction_files.txt`): in a session that has taken in untrusted content, a write to
//! one is never allowed locally (SPEC 2.5), since it steers every later session.

use std::path::Path;

const LIST: &str = include_str!("../../../rules/instruction_files.txt");

/// The list's entry that `path` (inside `project`) falls under.
pub fn matches(path: &Path, project: &Path) -> Option<&'static str> {
    let rel = path.strip_prefix(project).ok()?;
    let rel = rel.to_str()?;
    let name = path.file_name()?.to_str()?;
    entries().find(|e| match e.strip_suffix('/') {
        Some(dir) => {
            rel.len() > dir.len()
                && rel[..dir.len()].eq_ignore_ascii_case(dir)
                && rel.as_bytes()[dir.len()] == b'/'
        }
        None if e.contains('/') => rel.eq_ignore_ascii_case(e),
        None => name.eq_ignore_ascii_case(e),
    })
}

fn entries() -> impl Iterator<Item = &'static str> {
    LIST.lines()
        .map(|l| l.split("   #").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_files_are_known_anywhere_in_the_project() {
        let p = Path::new("/p");
        assert_eq!(matches(Path::new("/p/CLAUDE.md"), p), Some("CLAUDE.md"));
        assert_eq!(matches(Path::new("/p/sub/agents.md"), p), Some("AGENTS.md"));
        assert_eq!(
            matches(Path::new("/p/.cursor/rules/x.mdc"), p),
            Some(".cursor/rules/")
        );
        assert_eq!(
            matches(Path::new("/p/.github/copilot-instructions.md"), p),
            Some(".github/copilot-instructions.md")
        );
        assert_eq!(matches(Path::new("/p/README.md"), p), None);
        assert_eq!(matches(Path::new("/p/.cursor/rulesx"), p), None);
        assert_eq!(matches(Path::new("/q/CLAUDE.md"), p), None);
    }
}
