//! Text as sentinel shows it in a reason, a warning or an error: short, on one line, and inert.
//!
//! **Inert**: text that came from the agent (a command, a path, a reason quoting one, a session
//! id) reaches the person's terminal and pages, where a control character acts instead of being
//! read: ESC starts sequences that set the clipboard (OSC 52), retitle or hide text; CR and
//! backspace write over what was shown; BEL rings; the C1 controls (U+0080–U+009F) are the
//! same escapes in one character on some terminals; bidi overrides (U+202A–U+202E,
//! U+2066–U+2069) reorder what is shown; zero-width characters hide text in plain sight. Every
//! command that prints agent text shows it through [`inert`] (or [`inert_lines`], which keeps
//! line breaks), where each of those is written as an escape (`\e`, `\r`, `\u{202e}`) and does
//! nothing.

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

/// [`excerpt_to`] written onto the end of `out`, for a reason built in place. Inert: a control,
/// bidi or invisible character is written as its escape.
pub fn push_excerpt(out: &mut String, s: &str, max: usize) {
    for (n, c) in s.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        if acts(c) && !matches!(c, '\n' | '\t' | '\r') {
            push_escape(out, c);
        } else {
            out.push(if c.is_whitespace() { ' ' } else { c });
        }
    }
}

/// Whether `c` does something on a terminal or a page instead of being read: a C0 or C1
/// control, DEL, a bidi control, or an invisible or separator character.
pub fn acts(c: char) -> bool {
    // Most text is ASCII: two comparisons.
    if c.is_ascii() {
        return c < ' ' || c == '\u{7f}';
    }
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        // Soft hyphen, Arabic letter mark, Mongolian vowel separator.
        | '\u{ad}' | '\u{61c}' | '\u{180e}'
        // Zero-width space, non-joiner, joiner; left-to-right and right-to-left marks.
        | '\u{200b}'..='\u{200f}'
        // Line and paragraph separators; bidi embeddings and overrides.
        | '\u{2028}'..='\u{202e}'
        // Word joiner, invisible operators; bidi isolates; deprecated format characters.
        | '\u{2060}'..='\u{206f}'
        // Byte order mark (zero-width no-break space); interlinear annotations.
        | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        // Tag characters (invisible ASCII, read by models, not by people).
        | '\u{e0000}'..='\u{e007f}')
}

/// The escape `c` is shown as: `\e`, `\r`, `\n`, `\t`, `\a`, `\b` for the common controls,
/// `\uXXXX` for the rest (a UTF-16 pair above U+FFFF), which is also how JSON writes it: a
/// JSON text made inert is still JSON, with the same strings.
fn push_escape(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let _ = match c {
        '\u{1b}' => write!(out, "\\e"),
        '\r' => write!(out, "\\r"),
        '\n' => write!(out, "\\n"),
        '\t' => write!(out, "\\t"),
        '\u{7}' => write!(out, "\\a"),
        '\u{8}' => write!(out, "\\b"),
        c => {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
            Ok(())
        }
    };
}

/// `eprintln!`, inert ([`inert_lines`]): for messages that carry a path, a host or a command
/// the agent chose.
#[macro_export]
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($t)*);
        let _ = writeln!(std::io::stderr(), "{}", $crate::text::inert_lines(&text));
    }};
}

/// `s` with every character that [`acts`] written as an escape (line breaks too), so that
/// printing it shows it and does nothing else. Borrowed when there is nothing to escape.
pub fn inert(s: &str) -> std::borrow::Cow<'_, str> {
    escaped(s, false)
}

/// [`inert`], keeping line breaks (`\n`) as they are: for text shown over several lines.
pub fn inert_lines(s: &str) -> std::borrow::Cow<'_, str> {
    escaped(s, true)
}

fn escaped(s: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    let kept = |c: char| keep_lines && c == '\n';
    if !s.chars().any(|c| acts(c) && !kept(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if acts(c) && !kept(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The first `max` characters of `s`, as they are.
pub fn prefix(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((at, _)) => &s[..at],
        None => s,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_text_is_shown_and_does_nothing() {
        let hostile = "ls\u{1b}]52;c;cm0gLXJmIH4=\u{7}\rok\u{202e}txt.exe\u{200b}\u{85}\u{8}";
        let shown = inert(hostile);
        assert_eq!(
            shown,
            "ls\\e]52;c;cm0gLXJmIH4=\\a\\rok\\u202etxt.exe\\u200b\\u0085\\b"
        );
        assert!(!shown.chars().any(acts));
        assert_eq!(inert_lines("a\nb\u{1b}"), "a\nb\\e");
        assert!(matches!(inert("git status"), std::borrow::Cow::Borrowed(_)));
        // Excerpts in reasons are inert too (whitespace still a space).
        assert_eq!(excerpt("a\tb\u{1b}[2Jc\u{2067}"), "a b\\e[2Jc\\u2067");
        // JSON made inert is the same JSON.
        let v = serde_json::json!({"s": "x\u{202e}y\u{e0041}\u{7f}\u{1b}"});
        let text = inert_lines(&v.to_string()).into_owned();
        assert!(!text.chars().any(acts), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
        // Ordinary text, other scripts and emoji are left alone.
        for s in ["naïve café", "日本語", "שלום", "🙂", "C:\\Users"] {
            assert_eq!(inert(s), s);
        }
    }
}
