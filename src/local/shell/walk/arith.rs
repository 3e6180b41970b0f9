//! Bash re-evaluates text in arithmetic and subscript contexts: with `x='a[$(cmd)]'`, `$((x))`,
//! `(( x ))`, `[[ $x -eq 0 ]]`, `let x`, `declare -i n=$x`, `${s:$x}`, `read "a[$x]"`, a C-style
//! `for` all run `cmd`. So a variable read there is code unless its value is a known number: one
//! this script assigned a literal number, or one bash itself keeps a number (`RANDOM`).

use super::Walker;
use crate::text::excerpt;

/// Variables bash keeps as numbers itself.
const BASH_NUMBERS: &[&str] = &[
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "EPOCHSECONDS",
    "PPID",
    "UID",
    "EUID",
    "OPTIND",
    "SHLVL",
    "HISTCMD",
];

/// Builtins that take variable names, where a subscript `a[…]` is arithmetic.
pub(super) const NAME_TAKING: &[&str] = &[
    "read",
    "printf",
    "test",
    "[",
    "unset",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "mapfile",
    "readarray",
    "let",
    "wait",
];

/// The variable names `text` reads as arithmetic: bare names, `$x`, `${x…}`, and the array of
/// `a[i]`; the second list holds those it assigns a literal number (`i=0`).
fn names(text: &str) -> (Vec<&str>, Vec<&str>) {
    let b = text.as_bytes();
    let (mut read, mut set) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            // A number, in any base (`0x1f`, `2#101`, `16#ff`): letters in it are digits.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'#' | b'_')) {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let name = &text[start..i];
            let rest = &text[i..];
            let assigned = rest.trim_start().strip_prefix('=');
            match assigned {
                Some(value) if !value.starts_with('=') => {
                    let v = value.trim_start();
                    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
                    let end = v[digits..].trim_start();
                    if digits > 0 && (end.is_empty() || end.starts_with([';', ',', ')'])) {
                        set.push(name);
                    } else {
                        read.push(name);
                    }
                }
                _ => read.push(name),
            }
            continue;
        }
        i += 1;
    }
    (read, set)
}

impl Walker {
    /// A variable `text` reads as arithmetic whose value is not a known number makes the
    /// command uncertain.
    pub(super) fn arithmetic_names(&mut self, text: &str, context: &str) {
        let (read, set) = names(text);
        for n in &set {
            if !self.numbers.iter().any(|k| k == n) {
                self.numbers.push((*n).to_string());
            }
        }
        for n in read {
            if BASH_NUMBERS.contains(&n) || self.numbers.iter().any(|k| k == n) {
                continue;
            }
            self.unknown(format!(
                "`{n}` in {context} `{}`: bash evaluates its value as arithmetic, which can run commands",
                excerpt(text)
            ));
            return;
        }
    }

    /// Records what a plain assignment leaves in a variable: a literal number, or anything else.
    pub(super) fn assigned(&mut self, name: &str, literal_number: bool) {
        self.numbers.retain(|k| k != name);
        if literal_number {
            self.numbers.push(name.to_string());
        }
    }

    /// A builtin that takes variable names or arithmetic: `let EXPR…`, `declare -i n=EXPR`, and
    /// the `name[SUBSCRIPT]` words that are names: `read`'s operands, `printf -v NAME`, `test -v
    /// NAME`, `unset`'s and `declare`'s operands.
    pub(super) fn name_taking(&mut self, argv: &[crate::shell::Word]) {
        let command = argv[0].text.as_str();
        if !NAME_TAKING.contains(&command) {
            return;
        }
        let args = &argv[1..];
        // Options of `read`/`mapfile` whose value is not a name (`read -p "ok [y/n]? "`).
        let valued: &[&str] = match command {
            "read" => &["-p", "-d", "-t", "-n", "-N", "-u", "-i"],
            "mapfile" | "readarray" => &["-d", "-n", "-O", "-s", "-u", "-C", "-c"],
            _ => &[],
        };
        let integer = args
            .iter()
            .any(|w| w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains('i'));
        let mut i = 0;
        while i < args.len() {
            let w = &args[i].text;
            i += 1;
            match command {
                "let" => self.arithmetic_names(w, "`let`"),
                "printf" | "test" | "[" | "wait" => {
                    if w == "-v"
                        && let Some(name) = args.get(i)
                    {
                        self.name_word(name, command);
                    }
                }
                _ if valued.contains(&w.as_str()) => i += 1,
                _ if w.starts_with('-') => {}
                "declare" | "typeset" | "local" | "readonly" | "export" => {
                    let (name, value) = w.split_once('=').unwrap_or((w, ""));
                    if integer && !value.is_empty() {
                        self.arithmetic_names(value, "an integer variable's value");
                    }
                    if integer
                        && !self.integers.iter().any(|n| n == name)
                        && self.integers.len() < 64
                    {
                        self.integers.push(name.to_string());
                    }
                    self.subscripts(name, command);
                }
                _ => {
                    // `read n` into an integer variable: what is read is evaluated as arithmetic.
                    let target = args[i - 1].text.as_str();
                    if self.integers.iter().any(|n| n == target) {
                        self.unknown(format!(
                            "`{command}` sets the integer variable `{target}`: bash evaluates what it gets as arithmetic, which can run commands"
                        ));
                        return;
                    }
                    self.name_word(&args[i - 1], command)
                }
            }
        }
    }

    /// A word given to a builtin as a variable name: its subscript is arithmetic. A name that
    /// is an expansion (`test -v "$x"`) is the expanded text: when its value is known, that is
    /// checked; when it is not, it is code sentinel cannot see.
    pub(super) fn name_word(&mut self, word: &crate::shell::Word, command: &str) {
        match (word.kind, &word.value) {
            (crate::shell::WordKind::Computed, Some(value)) => {
                let value = value.clone();
                self.subscripts(&value, command);
            }
            (crate::shell::WordKind::Computed, None) => self.unknown(format!(
                "`{command}` takes the variable name `{}`, known only when it runs: a subscript in it is arithmetic, which can run commands",
                excerpt(&word.text)
            )),
            _ => self.subscripts(&word.text, command),
        }
    }

    /// The subscript of an array element in a parameter expansion (`${a[$i]}`, `${#a[i]}`,
    /// `${a[i]:-x}`): arithmetic for an indexed array (`@` and `*` are not).
    pub(super) fn expansion_subscript(&mut self, source: &str) {
        let inner = source.strip_prefix("${").unwrap_or(source);
        let inner = inner.trim_start_matches(['!', '#']);
        let name_len = inner
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let Some(rest) = inner[name_len..].strip_prefix('[') else {
            return;
        };
        // Up to the matching `]`.
        let mut depth = 1;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let index = match end {
            Some(e) => &rest[..e],
            None => rest,
        };
        if matches!(index, "@" | "*") || index.bytes().all(|c| c.is_ascii_digit()) {
            return;
        }
        self.arithmetic_names(index, "an array subscript");
    }

    /// The subscripts of `name[…]` words given to a builtin that takes variable names.
    pub(super) fn subscripts(&mut self, word: &str, command: &str) {
        if let Some(open) = word.find('[')
            && let Some(close) = word.rfind(']')
            && close > open
        {
            let inside = &word[open + 1..close];
            if !inside.bytes().all(|c| c.is_ascii_digit()) {
                self.arithmetic_names(inside, &format!("a subscript given to `{command}`"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn names_read_and_set() {
        assert_eq!(names("1+2"), (vec![], vec![]));
        assert_eq!(names("x"), (vec!["x"], vec![]));
        assert_eq!(names("$x + ${y}"), (vec!["x", "y"], vec![]));
        assert_eq!(names("i=0"), (vec![], vec!["i"]));
        assert_eq!(names("i<10"), (vec!["i"], vec![]));
        assert_eq!(names("0x1f + 16#ff"), (vec![], vec![]));
        assert_eq!(names("a[$(id)]"), (vec!["a", "id"], vec![]));
        assert_eq!(names("x == 1"), (vec!["x"], vec![]));
    }
}
