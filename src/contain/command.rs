//! The rewritten command: the original, run by `sentinel contain`, and back.

use std::path::Path;

/// The command that runs `original` fenced: `'BIN' contain --project 'P' [--port N]…
/// [--registries] -- bash -c 'ORIGINAL'`. The original stays whole and readable at the end, for
/// the person and the audit.
pub fn contained_command(
    binary: &Path,
    project: &Path,
    ports: &[u16],
    registries: bool,
    original: &str,
) -> String {
    let mut out = String::with_capacity(original.len() + 128);
    out.push_str(&quote(&binary.to_string_lossy()));
    out.push_str(" contain --project ");
    out.push_str(&quote(&project.to_string_lossy()));
    for p in ports {
        out.push_str(" --port ");
        out.push_str(&p.to_string());
    }
    if registries {
        out.push_str(" --registries");
    }
    out.push_str(" -- bash -c ");
    out.push_str(&quote(original));
    out
}

/// The original command of a rewritten one, when `command` is exactly what
/// [`contained_command`] makes (any other text is not taken for a contained run).
pub fn original_of(command: &str) -> Option<String> {
    let (_, rest) = command.split_once(" contain --project ")?;
    let (_, tail) = rest.split_once(" -- bash -c ")?;
    let original = unquote(tail)?;
    let rebuilt_tail = format!(" -- bash -c {}", quote(&original));
    command.ends_with(&rebuilt_tail).then_some(original)
}

/// `text` in single quotes for a POSIX shell; a quote inside becomes `'\''`.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// The text of one word quoted by [`quote`], which must be all of `word`.
fn unquote(word: &str) -> Option<String> {
    let inner = word.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut out = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(i) = rest.find('\'') {
        out.push_str(&rest[..i]);
        rest = rest[i..].strip_prefix("'\\''")?;
        out.push('\'');
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_survives_the_round_trip() {
        for original in [
            "npm test",
            "pytest -k 'not slow' && echo \"done\"",
            "echo it's; printf '%s\\n' 'a'\\''b'",
            "",
        ] {
            let c = contained_command(
                Path::new("/usr/bin/sentinel"),
                Path::new("/home/dev/my project"),
                &[5432],
                original.len() % 2 == 0,
                original,
            );
            assert_eq!(original_of(&c).as_deref(), Some(original), "{c}");
        }
    }

    #[test]
    fn other_text_is_not_a_contained_run() {
        assert_eq!(original_of("npm test"), None);
        assert_eq!(
            original_of("sentinel contain --project /p -- bash -c 'a' ; rm -rf ~"),
            None
        );
    }
}
