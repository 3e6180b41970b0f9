//! Python source as tokens: names, string literals (their text when plain), numbers and
//! operators; anything a one-liner of imports and prints does not need is refused (`#`, a
//! backslash, decorators, triple quotes, f-strings, an indented line).

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Name(String),
    /// A string literal, with its text when it has no escapes and no prefix.
    Str(Option<String>),
    Num,
    Op(String),
    End,
}

pub(super) fn tokens(src: &str) -> Option<Vec<Tok>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' => i += 1,
            b'\n' | b'\r' => {
                // A newline inside brackets continues the expression; at the top it ends a
                // statement, and the next must not be indented (no blocks).
                i += 1;
                if depth == 0 {
                    out.push(Tok::End);
                    if i < b.len() && matches!(b[i], b' ' | b'\t') {
                        let rest = src[i..].trim_start_matches([' ', '\t']);
                        if !rest.is_empty() && !rest.starts_with(['\n', '\r']) {
                            return None;
                        }
                    }
                }
            }
            b';' => {
                out.push(Tok::End);
                i += 1;
            }
            b'#' | b'\\' | b'@' | b'`' | b'$' | b'!' | b'?' => return None,
            b'\'' | b'"' => {
                let start = i;
                i = string_end(b, i)?;
                let inner = &src[start + 1..i - 1];
                out.push(Tok::Str((!inner.contains('\\')).then(|| inner.to_string())));
            }
            b'0'..=b'9' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_')
                {
                    i += 1;
                }
                out.push(Tok::Num);
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &src[start..i];
                // String prefixes: raw, bytes, unicode; never f-strings (they hold code).
                if i < b.len() && matches!(b[i], b'\'' | b'"') {
                    if !matches!(word, "r" | "b" | "u" | "rb" | "br" | "R" | "B" | "U") {
                        return None;
                    }
                    i = string_end(b, i)?;
                    out.push(Tok::Str(None));
                    continue;
                }
                out.push(Tok::Name(word.to_string()));
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                out.push(Tok::Op((c as char).to_string()));
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                out.push(Tok::Op((c as char).to_string()));
                i += 1;
            }
            _ => {
                let two = src.get(i..i + 2).unwrap_or("");
                if matches!(two, "==" | "!=" | "<=" | ">=" | "//" | "**") {
                    out.push(Tok::Op(two.to_string()));
                    i += 2;
                } else if b".,:=+-*/%<>".contains(&c) {
                    out.push(Tok::Op((c as char).to_string()));
                    i += 1;
                } else {
                    return None;
                }
            }
        }
    }
    if depth != 0 {
        return None;
    }
    out.push(Tok::End);
    Some(out)
}

/// The index after the string literal starting at `i` (single-line quotes only).
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let q = b[i];
    if b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
        return None; // triple quotes: not needed for one-liners
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return None,
            c if c == q => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}
