//! Text as sentinel shows it in a reason, a warning or an error: short, on one line.

/// A short excerpt of some text for a reason: 60 characters.
pub fn excerpt(s: &str) -> String {
    excerpt_to(s, 60)
}

/// The text on one line (whitespace as spaces), cut to `max` characters with an ellipsis.
pub fn excerpt_to(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}

/// The text on one line: its lines trimmed and joined with spaces, empty ones dropped.
pub fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
