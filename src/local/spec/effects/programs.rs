//! sed scripts and awk programs that only edit text: no command run, no file read or written
//! besides their operands.

/// A sed script that only edits the text it is given: no `e` (run), `w`/`W` (write), `r`/`R`
/// (read) and no `s///e` or `s///w`. Anything this reader does not follow is not plain.
pub fn sed_is_plain(script: &str) -> bool {
    let c: Vec<char> = script.chars().collect();
    let mut i = 0;
    // Skips a delimited part starting after its opening delimiter; returns the index after the
    // closing one.
    let delimited = |mut i: usize, d: char| -> Option<usize> {
        while i < c.len() {
            if c[i] == '\\' {
                i += 2;
                continue;
            }
            if c[i] == d {
                return Some(i + 1);
            }
            if c[i] == '\n' {
                return None;
            }
            i += 1;
        }
        None
    };
    while i < c.len() {
        let ch = c[i];
        match ch {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' => i += 1,
            '0'..='9' | '$' | ',' | '~' | '+' => i += 1,
            '/' => match delimited(i + 1, '/') {
                Some(n) => {
                    i = n;
                    // `I` and `M` modify an address regex.
                    while i < c.len() && matches!(c[i], 'I' | 'M') {
                        i += 1;
                    }
                }
                None => return false,
            },
            '\\' if i + 1 < c.len() => match delimited(i + 2, c[i + 1]) {
                Some(n) => i = n,
                None => return false,
            },
            's' | 'y' => {
                let Some(&d) = c.get(i + 1) else {
                    return false;
                };
                if d == '\\' || d == '\n' {
                    return false;
                }
                let Some(n) = delimited(i + 2, d) else {
                    return false;
                };
                let Some(n) = delimited(n, d) else {
                    return false;
                };
                i = n;
                if ch == 's' {
                    while i < c.len() && (c[i].is_ascii_digit() || "gpiImM".contains(c[i])) {
                        i += 1;
                    }
                }
            }
            'd' | 'D' | 'p' | 'P' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | '=' | 'l' | 'z'
            | 'q' | 'Q' => i += 1,
            // Labels and text run to the end of the line (or `;` for labels).
            'b' | 't' | 'T' | ':' => {
                while i < c.len() && c[i] != ';' && c[i] != '\n' {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' | '#' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            _ => return false,
        }
    }
    true
}

/// An awk program that only prints: no `system()`, no pipes to or from commands, no
/// `getline` and no `print > file`.
pub fn awk_is_plain(program: &str) -> bool {
    if program.contains("system") || program.contains('|') || program.contains("getline") {
        return false;
    }
    // `>` is a comparison unless it follows a print in the same statement.
    for stmt in program.split([';', '{', '}', '\n']) {
        let s = stmt.trim_start();
        if (s.starts_with("print") || s.contains(" print")) && s.contains('>') {
            return false;
        }
    }
    true
}
