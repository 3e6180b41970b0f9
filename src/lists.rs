//! The line format of the plain lists under `rules/` (one entry a line, then `# why`): what a
//! person reads and extends is what every reader of a list takes, from one place.

/// The entries of a list's text: each line up to a ` #` (or a tab and `#`) comment, trimmed;
/// blank lines and lines that start with `#` are not entries. An entry may hold `#` after its
/// first character (`C#`) when no blank comes before it.
pub fn entries(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|line| {
        let line = line.trim();
        if line.starts_with('#') {
            return None;
        }
        let end = line
            .find(" #")
            .into_iter()
            .chain(line.find("\t#"))
            .min()
            .unwrap_or(line.len());
        let entry = line[..end].trim();
        (!entry.is_empty()).then_some(entry)
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
    }
}
