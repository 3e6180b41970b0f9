//! When a script will not parse, or would not parse safely: the bound on nesting that keeps the
//! parser's recursion off the stack's end, and the walk of what can still be read of a script
//! that does not parse (each line, then each rough piece), so the policy applies to it.

use super::*;

impl Walker {
    /// After the whole text failed to parse: walks what can still be read, so that the policy
    /// applies to it (a credential sent out, a destructive command, a hard block). Each line is
    /// tried alone, and each rough segment (`rough_segments`) of a line that still fails. What
    /// this finds can only add denies: the call as a whole stays unparsed, which asks. A piece
    /// read out of its context (inside a quote, a here-doc) may be judged as a command; that
    /// errs toward refusing a call that is refused to the person's judgement anyway.
    pub(in crate::local::shell) fn salvage(&mut self, src: &str) {
        let lines: Vec<&str> = src.lines().filter(|l| !l.trim().is_empty()).collect();
        for line in &lines {
            if lines.len() > 1 && self.script(line).is_ok() {
                continue;
            }
            for segment in rough_segments(line) {
                let segment = without_leading_keywords(&segment);
                if !segment.is_empty() && self.script(segment).is_err() {
                    self.keep_unparsed(segment);
                }
            }
        }
    }
}

impl Walker {
    /// Keeps a piece for the hard-block rules, within `MAX_UNPARSED_BYTES` in all.
    pub(in crate::local::shell) fn keep_unparsed(&mut self, segment: &str) {
        let kept = self.nested_walked.2 + segment.len();
        if kept <= crate::local::shell::MAX_UNPARSED_BYTES {
            self.nested_walked.2 = kept;
            self.out.unparsed.push(segment.to_string());
        } else {
            self.over_bound = true;
        }
    }
}

/// A rough segment without the reserved words that start it (`then git push` is `git push`):
/// what follows them is a command.
fn without_leading_keywords(mut s: &str) -> &str {
    const KEYWORDS: &[&str] = &[
        "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "time", "esac",
    ];
    loop {
        let (first, rest) = s.split_once(' ').unwrap_or((s, ""));
        if !KEYWORDS.contains(&first) {
            return s;
        }
        s = rest.trim_start();
    }
}

/// Operator bytes and line breaks in the text (`;`, `&`, `|`, `<`, `>`, newline), quoted or
/// not: a bound on the commands and redirections its syntax tree can hold.
pub(super) fn operators(s: &str) -> usize {
    s.bytes()
        .filter(|b| matches!(b, b';' | b'&' | b'|' | b'<' | b'>' | b'\n'))
        .count()
}

/// The deepest nesting in the text, counted without regard to quoting: brackets, and the
/// compound commands that close with a word of their own (`if … fi`, `case … esac`, `while`,
/// `until`, `for` and `select` … `done`). The parser recurses once a level, so this bounds its
/// stack; a word that only looks like a keyword (inside quotes, say) counts too, which can only
/// turn an odd command into a parse error, never into an allow.
pub(super) fn nesting(s: &str) -> usize {
    // Counted apart, so that a `case` pattern's lone `)` cannot cancel a keyword's level.
    let (mut brackets, mut keywords, mut max) = (0usize, 0usize, 0usize);
    let bytes = s.as_bytes();
    let mut word_start = None;
    // Unary operators recurse too (`! ! ! cmd`, `[[ ! ! x ]]`, `$(( - - 1 ))`, `$((!!!1))`): a
    // run of `!` or `~`, or of `-` and `+` standing alone as words, counts as nesting.
    let mut unary = 0usize;
    for (i, &b) in bytes.iter().chain(std::iter::once(&b' ')).enumerate() {
        match b {
            b'!' | b'~' => unary += 1,
            b'-' | b'+'
                if bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace)
                    && (i == 0 || bytes[i - 1].is_ascii_whitespace()) =>
            {
                unary += 1
            }
            _ if b.is_ascii_whitespace() => {}
            _ => unary = 0,
        }
        let boundary = b.is_ascii_whitespace()
            || matches!(
                b,
                b';' | b'&' | b'|' | b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'`' | b'<' | b'>'
            );
        if boundary {
            if let Some(start) = word_start.take() {
                match &bytes[start..i] {
                    b"if" | b"case" | b"while" | b"until" | b"for" | b"select" => keywords += 1,
                    b"fi" | b"esac" | b"done" => keywords = keywords.saturating_sub(1),
                    _ => {}
                }
            }
        } else if word_start.is_none() {
            word_start = Some(i);
        }
        match b {
            b'(' | b'{' | b'[' => brackets += 1,
            b')' | b'}' | b']' => brackets = brackets.saturating_sub(1),
            _ => {}
        }
        max = max.max(brackets + keywords + unary);
    }
    max
}
