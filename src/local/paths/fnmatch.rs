//! Wildcards as fnmatch(3) reads them with no flags: how grep's `--include`/`--exclude`, find's
//! `-name`/`-path` and git's pathspecs match a name. `*` and `?` match any character, a leading
//! dot and `/` included (no `FNM_PERIOD`, no `FNM_PATHNAME`); `[…]` is a class (`!` or `^`
//! negates it, `a-z` ranges, `[:alpha:]` and the other POSIX classes); `\` quotes the next
//! character; `{a,b}` is no alternation, just those characters.

/// Whether `pattern` matches all of `text`, ASCII case ignored when `fold`. None when the
/// pattern holds what this matcher does not read (a `[=a=]` or `[.a.]` in a class, an unknown
/// class name): the caller takes the careful side, which depends on what the pattern is for.
pub fn fnmatch(pattern: &str, text: &str, fold: bool) -> Option<bool> {
    let p: Vec<char> = pattern.chars().collect();
    readable(&p)?;
    let t: Vec<char> = text.chars().collect();
    let same = |a: char, b: char| {
        if fold {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    let (mut pi, mut ti) = (0, 0);
    // The last `*` and where in the text it was last tried up to: on a mismatch it takes one
    // character more (the classic single-star backtrack, enough since a later star supersedes).
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => match class(&p, pi + 1)? {
                Some((set, next)) => set.matches(t[ti], fold).then_some(next),
                // No closing `]`: a plain `[`.
                None => same('[', t[ti]).then_some(pi + 1),
            },
            Some('\\') if pi + 1 < p.len() => same(p[pi + 1], t[ti]).then_some(pi + 2),
            Some(&c) => same(c, t[ti]).then_some(pi + 1),
            None => None,
        };
        match step {
            Some(next) => {
                pi = next;
                ti += 1;
            }
            None => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return Some(false),
            },
        }
    }
    Some(p[pi..].iter().all(|&c| c == '*'))
}

/// Some when every class of the pattern is one this matcher reads.
fn readable(p: &[char]) -> Option<()> {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '\\' => i += 2,
            '[' => match class(p, i + 1)? {
                Some((_, next)) => i = next,
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    Some(())
}

/// Whether `pattern` has a wildcard at all (otherwise it matches only itself).
pub fn has_wildcard(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// A bracket expression, read.
struct Set {
    negated: bool,
    items: Vec<Item>,
}

enum Item {
    Char(char),
    Range(char, char),
    Class(fn(char) -> bool),
}

impl Set {
    fn matches(&self, c: char, fold: bool) -> bool {
        let hit = |c: char| {
            self.items.iter().any(|i| match *i {
                Item::Char(x) => x == c,
                Item::Range(a, b) => a <= c && c <= b,
                Item::Class(f) => f(c),
            })
        };
        let found =
            hit(c) || (fold && (hit(c.to_ascii_lowercase()) || hit(c.to_ascii_uppercase())));
        found != self.negated
    }
}

/// The class starting after a `[` at `start`: Some(Some((set, index after `]`))), Some(None)
/// when it has no closing `]` (the `[` is then a plain character), None when it holds what
/// this matcher does not read.
#[allow(clippy::option_option)]
fn class(p: &[char], start: usize) -> Option<Option<(Set, usize)>> {
    let mut i = start;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let Some(&c) = p.get(i) else {
            return Some(None);
        };
        if c == ']' && !first {
            return Some(Some((Set { negated, items }, i + 1)));
        }
        first = false;
        if c == '[' && matches!(p.get(i + 1), Some(':' | '=' | '.')) {
            let kind = p[i + 1];
            let rest: String = p[i + 2..].iter().collect();
            let Some(end) = rest.find(&format!("{kind}]")) else {
                return Some(None);
            };
            if kind != ':' {
                return None;
            }
            let f: fn(char) -> bool = match &rest[..end] {
                "alpha" => |c| c.is_ascii_alphabetic(),
                "digit" => |c| c.is_ascii_digit(),
                "alnum" => |c| c.is_ascii_alphanumeric(),
                "upper" => |c| c.is_ascii_uppercase(),
                "lower" => |c| c.is_ascii_lowercase(),
                "space" => |c| c.is_ascii_whitespace() || c == '\u{b}',
                "blank" => |c| c == ' ' || c == '\t',
                "punct" => |c| c.is_ascii_punctuation(),
                "xdigit" => |c| c.is_ascii_hexdigit(),
                "cntrl" => |c| c.is_ascii_control(),
                "graph" => |c| c.is_ascii_graphic(),
                "print" => |c| c.is_ascii_graphic() || c == ' ',
                _ => return None,
            };
            items.push(Item::Class(f));
            i += 2 + rest[..end].chars().count() + 2;
            continue;
        }
        let c = if c == '\\' && i + 1 < p.len() {
            i += 1;
            p[i]
        } else {
            c
        };
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            let mut e = p[i + 2];
            let mut skip = 3;
            if e == '\\' && i + 3 < p.len() {
                e = p[i + 3];
                skip = 4;
            }
            items.push(Item::Range(c, e));
            i += skip;
        } else {
            items.push(Item::Char(c));
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn reads_wildcards_as_fnmatch_without_flags() {
        let yes = [
            ("*.go", "main.go"),
            ("*.env", ".env"),
            ("*", ".env"),
            (".env*", ".env.local"),
            ("*", "a/b"),
            ("./src/*", "./src/x/y.py"),
            ("?.py", "a.py"),
            ("[abc].txt", "b.txt"),
            ("[!abc].txt", "d.txt"),
            ("[^abc].txt", "d.txt"),
            ("[a-c]x", "bx"),
            ("[]]", "]"),
            ("[[:digit:]]*", "7up"),
            ("\\*x", "*x"),
            ("a[", "a["),
            ("*.{ts,js}", "x.{ts,js}"),
            ("**/x", "a/b/x"),
            ("*a*b*c", "xxaxxbxxc"),
        ];
        for (p, t) in yes {
            assert_eq!(fnmatch(p, t, false), Some(true), "{p} {t}");
        }
        let no = [
            ("*.go", "main.rs"),
            ("*.ts", ".env"),
            ("[!.]*", ".env"),
            ("*.{ts,js}", "x.ts"),
            ("?.py", "ab.py"),
            ("\\*x", "ax"),
            ("*a*b*c", "xxaxxbxx"),
            ("", "a"),
        ];
        for (p, t) in no {
            assert_eq!(fnmatch(p, t, false), Some(false), "{p} {t}");
        }
        assert_eq!(fnmatch("*.GO", "main.go", true), Some(true));
        assert_eq!(fnmatch("[A-C]x", "bx", true), Some(true));
        assert_eq!(fnmatch("[[=a=]]", "a", false), None);
        assert_eq!(fnmatch("x[[:nope:]]", "xa", false), None);
        assert_eq!(fnmatch("x[[:nope:]]", "y", false), None);
    }
}
