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

/// `s` as one shell word that reads back as `s`: as it is when every byte is plain (letters,
/// digits, `-_./=:,@+%~`), else single-quoted. A `~` stays as written, which the shell and
/// sentinel's reading both take for the home directory.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'-' | b'_' | b'.' | b'/' | b'=' | b':' | b',' | b'@' | b'+' | b'%' | b'~'
                )
        });
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
