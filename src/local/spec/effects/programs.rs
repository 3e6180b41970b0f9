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

/// Perl code given with `-e` that only substitutes or transliterates (`s/a/b/g`, `tr/a-z/A-Z/`,
/// several joined by `;`): with `-p` or `-n` an edit of each line, as sed's `s` is. Refused:
/// the `e` flag (it runs the replacement as code), anything interpolated but `$1`…`$9` and `$&`
/// (`${\ …}` and `@{[ … ]}` run code, `$x` reads what the program holds), code in the pattern
/// (`(?{ … })`, `(??{ … })`, `(*{ … })`), bracketing or quoting delimiters, and any other
/// statement.
pub fn perl_is_substitution(code: &str) -> bool {
    let c: Vec<char> = code.chars().collect();
    let mut i = 0;
    let mut any = false;
    loop {
        while i < c.len() && (c[i].is_whitespace() || c[i] == ';') {
            i += 1;
        }
        if i >= c.len() {
            return any;
        }
        let substitutes = c[i] == 's';
        i += if substitutes || c[i] == 'y' {
            1
        } else if c[i] == 't' && c.get(i + 1) == Some(&'r') {
            2
        } else {
            return false;
        };
        let Some(&d) = c.get(i) else {
            return false;
        };
        if !"/|#,!:%".contains(d) {
            return false;
        }
        let mut parts: Vec<String> = Vec::new();
        i += 1;
        for _ in 0..2 {
            let mut part = String::new();
            loop {
                let Some(&ch) = c.get(i) else {
                    return false;
                };
                i += 1;
                if ch == d {
                    break;
                }
                part.push(ch);
                if ch == '\\' {
                    let Some(&next) = c.get(i) else {
                        return false;
                    };
                    part.push(next);
                    i += 1;
                }
            }
            parts.push(part);
        }
        let flags: &str = if substitutes { "gimsxn" } else { "cdsr" };
        while i < c.len() && c[i].is_ascii_alphabetic() {
            if !flags.contains(c[i]) {
                return false;
            }
            i += 1;
        }
        // A transliteration interpolates nothing; a substitution's two parts do.
        if substitutes
            && (!perl_plain_interpolation(&parts[0], true)
                || !perl_plain_interpolation(&parts[1], false))
        {
            return false;
        }
        any = true;
        if i < c.len() && !c[i].is_whitespace() && c[i] != ';' {
            return false;
        }
    }
}

/// A pattern (`in_pattern`) or replacement of `s///` that interpolates nothing but captures.
fn perl_plain_interpolation(part: &str, in_pattern: bool) -> bool {
    if in_pattern && (part.contains("(?{") || part.contains("(??{") || part.contains("(*{")) {
        return false;
    }
    let c: Vec<char> = part.chars().collect();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '@' => return false,
            '$' => {
                let next = c.get(i + 1).copied();
                let capture = matches!(next, Some('1'..='9' | '&'));
                // `$` ends a line in a pattern; `$)` and `$|` are not interpolated there.
                let anchor = in_pattern && matches!(next, None | Some(')' | '|'));
                if !capture && !anchor {
                    return false;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    true
}
