//! Text as sentinel shows it in a reason, a warning or an error: short, on one line.

/// How many characters of a text a reason shows.
pub const EXCERPT: usize = 60;

/// A short excerpt of some text for a reason: [`EXCERPT`] characters.
pub fn excerpt(s: &str) -> String {
    excerpt_to(s, EXCERPT)
}

/// The text on one line (whitespace as spaces), cut to `max` characters with an ellipsis.
pub fn excerpt_to(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4) + '…'.len_utf8());
    push_excerpt(&mut out, s, max);
    out
}

/// [`excerpt_to`] written onto the end of `out`, for a reason built in place.
pub fn push_excerpt(out: &mut String, s: &str, max: usize) {
    for (n, c) in s.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        out.push(if c.is_whitespace() { ' ' } else { c });
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
