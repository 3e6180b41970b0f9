//! A PowerShell argument: its values (an array is several), strings with their variables and
//! `$( )`, and what a variable names.

use super::*;

/// A backquote escape's character.
pub(super) fn escaped(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        c => c,
    }
}

/// The value of an assignment's right side when it is one literal string or number.
pub(super) fn literal_value(text: &str) -> Option<Word> {
    let inner = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .filter(|t| !t.contains('\''))
        .or_else(|| {
            text.strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .filter(|t| !t.contains(['"', '$', '`']))
        })
        .or_else(|| {
            text.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.')
                .then_some(text)
        })?;
    Some(Word::literal(inner))
}

impl Parser {
    /// One argument: a value, or several joined by `,` (an array: each element a word).
    pub(super) fn argument(&mut self, close: Option<char>) -> (Vec<Word>, Vec<Item>) {
        let mut words = Vec::new();
        let mut items = Vec::new();
        loop {
            self.skip_spaces();
            let (w, inner) = self.value(close);
            items.extend(inner);
            words.extend(w);
            self.skip_spaces();
            if self.peek() == Some(',') {
                self.i += 1;
                self.skip_newlines();
            } else {
                return (words, items);
            }
        }
    }

    /// One value of an argument: a generic word with its strings and variables, or a
    /// parenthesised pipeline, a subexpression, a script block or a hash table.
    pub(super) fn value(&mut self, close: Option<char>) -> (Option<Word>, Vec<Item>) {
        let mut items = Vec::new();
        let computed = |text: &str| Word {
            text: text.to_string(),
            kind: WordKind::Computed,
            value: None,
        };
        match (self.peek(), self.peek_at(1)) {
            (Some('('), _) => {
                let inner = self.group('(', ')', "( )");
                items.push(inner);
                self.postfix(&mut items);
                return (Some(computed("(…)")), items);
            }
            (Some('$' | '@'), Some('(')) => {
                self.i += 1;
                let inner = self.group('(', ')', "$( )");
                items.push(inner);
                self.postfix(&mut items);
                return (Some(computed("$(…)")), items);
            }
            (Some('@'), Some('{')) => {
                self.i += 1;
                items.extend(self.hash_table());
                return (Some(computed("@{…}")), items);
            }
            (Some('{'), _) => {
                items.push(self.group('{', '}', "{ }"));
                return (Some(computed("{…}")), items);
            }
            (Some('@'), Some(c)) if c.is_alphanumeric() => {
                self.i += 1;
                let name = self.variable_name();
                items.push(Item::Unknown(format!(
                    "`@{name}` passes a variable's contents as arguments (splatting)"
                )));
                return (Some(computed(&format!("@{name}"))), items);
            }
            _ => {}
        }
        let mut w = WordBuild::default();
        let starts_with_variable = self.peek() == Some('$');
        while let Some(c) = self.peek() {
            match c {
                '\'' => self.single_quoted(&mut w),
                '"' => self.double_quoted(&mut w, &mut items),
                '`' => {
                    self.i += 1;
                    if let Some(n) = self.peek() {
                        w.char(escaped(n), true);
                        self.i += 1;
                    }
                }
                '$' => {
                    let at_start = w.is_empty();
                    self.dollar(&mut w, &mut items);
                    // `$x.Length`, `$x[0]`, `$x.Trim()`: an expression in an argument.
                    if at_start && starts_with_variable {
                        let before = items.len();
                        if self.postfix(&mut items) || items.len() > before {
                            w.unknown("");
                        }
                    }
                }
                '>' => break,
                c if ends_word(c) => break,
                c if Some(c) == close => break,
                c => {
                    w.char(c, false);
                    self.i += 1;
                }
            }
        }
        if w.is_empty() {
            return (None, items);
        }
        (Some(w.finish()), items)
    }

    /// `'…'`: literal; `''` is a quote.
    pub(super) fn single_quoted(&mut self, w: &mut WordBuild) {
        self.i += 1;
        let mut s = String::new();
        while let Some(c) = self.peek() {
            self.i += 1;
            if c == '\'' {
                if self.peek() == Some('\'') {
                    s.push('\'');
                    self.i += 1;
                    continue;
                }
                break;
            }
            s.push(c);
        }
        w.text(&s, true);
    }

    /// `"…"`: variables and `$( )` expand, a backquote escapes.
    pub(super) fn double_quoted(&mut self, w: &mut WordBuild, items: &mut Vec<Item>) {
        self.i += 1;
        w.text("", true);
        while let Some(c) = self.peek() {
            match c {
                '"' if self.peek_at(1) == Some('"') => {
                    w.char('"', true);
                    self.i += 2;
                }
                '"' => {
                    self.i += 1;
                    return;
                }
                '`' => {
                    self.i += 1;
                    if let Some(n) = self.peek() {
                        w.char(escaped(n), true);
                        self.i += 1;
                    }
                }
                '$' if self.peek_at(1).is_some_and(|n| {
                    n.is_alphanumeric() || matches!(n, '_' | '{' | '(' | '?' | '$' | '^')
                }) =>
                {
                    self.dollar(w, items);
                }
                c => {
                    w.char(c, true);
                    self.i += 1;
                }
            }
        }
    }

    /// `$name` or `$( … )` inside a word.
    pub(super) fn dollar(&mut self, w: &mut WordBuild, items: &mut Vec<Item>) {
        if self.peek_at(1) == Some('(') {
            self.i += 1;
            items.push(self.group('(', ')', "$( )"));
            w.unknown("$(…)");
            return;
        }
        self.i += 1;
        if self
            .peek()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '{' | '?' | '$' | '^')))
        {
            w.char('$', false);
            return;
        }
        let name = self.variable_name();
        self.variable(&name, w);
    }

    /// A variable's name after `$`: `name`, `env:NAME`, `{any text}`, `_`, `?`, `$`, `^`.
    pub(super) fn variable_name(&mut self) -> String {
        if self.peek() == Some('{') {
            self.i += 1;
            let from = self.i;
            while self.peek().is_some_and(|c| c != '}') {
                self.i += 1;
            }
            let name = self.text(from);
            self.i = (self.i + 1).min(self.c.len());
            return name;
        }
        if let Some(c @ ('?' | '$' | '^')) = self.peek() {
            self.i += 1;
            return c.to_string();
        }
        let from = self.i;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '_' {
                self.i += 1;
            } else if c == ':'
                && self
                    .peek_at(1)
                    .is_some_and(|n| n.is_alphanumeric() || n == '_')
                && self.i > from
            {
                // `env:NAME`, `global:x`: a scope or drive, then the name.
                self.i += 1;
            } else {
                break;
            }
        }
        self.text(from)
    }

    /// The word a variable stands for: a known place, or an unknown `$NAME`.
    pub(super) fn variable(&self, name: &str, w: &mut WordBuild) {
        let lower = name.to_ascii_lowercase();
        let dirty = self.assigned.iter().any(|a| *a == lower || a == "*");
        if let Some(var) = lower.strip_prefix("env:") {
            if dirty || self.assigned.iter().any(|a| a == &format!("env:{var}")) {
                w.unknown(&format!("${}", &name[4..]));
            } else if env_place(var).is_some() {
                w.env(var);
            } else {
                w.unknown(&format!("${}", &name[4..]));
            }
            return;
        }
        match (dirty, automatic_place(&lower, self.shell)) {
            (false, Some(place)) => w.text(place, false),
            _ if matches!(lower.as_str(), "true" | "false" | "null") => {
                w.text(&format!("${lower}"), false)
            }
            _ => w.unknown(&format!("${name}")),
        }
    }
}
