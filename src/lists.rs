//! The line format of the plain lists under `rules/` (one entry a line, then `# why`): what a
//! person reads and extends is what every reader of a list takes, from one place.

/// The entries of a list's text: each line up to a ` #` (or a tab and `#`) comment, trimmed;
/// blank lines and lines that start with `#` are not entries. An entry may hold `#` after its
/// first character (`C#`) when no blank comes before it.
pub fn entries(text: &str) -> impl Iterator<Item = &str> {
    numbered_entries(text).map(|(entry, _)| entry)
}

/// [`entries`] with the 1-based line each is on (for a `file:line` in an error).
pub fn numbered_entries(text: &str) -> impl Iterator<Item = (&str, usize)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        // The first `#` after a blank (one byte scan; a searcher for each of ` #` and `\t#`
        // cost more than the line).
        let bytes = line.as_bytes();
        let end = line
            .match_indices('#')
            .map(|(at, _)| at)
            .find(|&at| at > 0 && matches!(bytes[at - 1], b' ' | b'\t'))
            .unwrap_or(line.len());
        let entry = line[..end].trim_end();
        (!entry.is_empty()).then_some((entry, i + 1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_are_not_entries() {
        let text =
            "# a list\n\n.bak   # a copy\n  node_modules\t# deps\nC#  # a language\nmake test\n";
        assert_eq!(
            entries(text).collect::<Vec<_>>(),
            [".bak", "node_modules", "C#", "make test"]
        );
        let numbered: Vec<usize> = numbered_entries(text).map(|(_, line)| line).collect();
        assert_eq!(numbered, [3, 4, 5, 6]);
    }
}
