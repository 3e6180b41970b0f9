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
        // A folder of rule files, in any folder of the project (Cursor and others read nested
        // ones): some `/`-bounded start of the path below the project is it.
        Some(dir) => std::iter::once(0)
            .chain(rel.match_indices('/').map(|(i, _)| i + 1))
            .any(|at| {
                let end = at + dir.len();
                rel.len() > end
                    && rel.is_char_boundary(end)
                    && rel[at..end].eq_ignore_ascii_case(dir)
                    && rel.as_bytes()[end] == b'/'
            }),
        None if e.contains('/') => rel.eq_ignore_ascii_case(e),
        None => name.eq_ignore_ascii_case(e),
    })
}

/// The `@`-imports of an instruction file's text (`@~/.ssh/id_rsa`, `@.env`, `@docs/x.md`):
/// Claude Code and Gemini CLI read the named file into the context of every session. Every
/// `@PATH` that starts a word counts, in code spans and blocks too (a deny there is the careful
/// side); an address such as `me@example.com` does not (the `@` does not start the word).
pub fn imports(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices('@') {
        let starts_word = text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | '"' | '\'' | '`' | ','));
        if !starts_word {
            continue;
        }
        let rest = &text[i + 1..];
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, ')' | ']' | '"' | '\'' | '`' | ',' | ';' | '\\')
            })
            .unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches(['.', ':']);
        if !path.is_empty() && !path.starts_with('@') {
            out.push(path);
        }
    }
    out
}

fn entries() -> impl Iterator<Item = &'static str> {
    crate::lists::entries(LIST)
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
        assert_eq!(
            matches(Path::new("/p/web/.Cursor/Rules/x.mdc"), p),
            Some(".cursor/rules/")
        );
        assert_eq!(matches(Path::new("/p/README.md"), p), None);
        assert_eq!(matches(Path::new("/p/docs/AGENTS-guide.md"), p), None);
        assert_eq!(matches(Path::new("/p/.cursor/rulesx"), p), None);
        assert_eq!(matches(Path::new("/q/CLAUDE.md"), p), None);
    }

    #[test]
    fn imports_are_the_words_that_start_with_an_at() {
        assert_eq!(
            imports("See @README.md and (@~/.ssh/id_rsa).\n- `@.env`, mail me@example.com @"),
            vec!["README.md", "~/.ssh/id_rsa", ".env"]
        );
        assert!(imports("no imports here").is_empty());
    }
}
