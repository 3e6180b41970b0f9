//! PowerShell expressions: what only computes and prints (variables, member reads, operators,
//! literals, hash tables, and the methods and static members that only compute); a call that
//! may act is an unknown.

use super::*;

/// Comparison, logical and string operators (`-eq`, `-and`, `-replace`, `-f` …).
pub(super) const OPERATORS: &[&str] = &[
    "eq",
    "ne",
    "gt",
    "ge",
    "lt",
    "le",
    "like",
    "notlike",
    "match",
    "notmatch",
    "contains",
    "notcontains",
    "in",
    "notin",
    "replace",
    "split",
    "join",
    "is",
    "isnot",
    "as",
    "and",
    "or",
    "not",
    "xor",
    "band",
    "bor",
    "bxor",
    "bnot",
    "shl",
    "shr",
    "f",
];

/// Methods that only compute a value from the object they are called on.
pub(super) const PURE_METHODS: &[&str] = &[
    "tostring",
    "trim",
    "trimstart",
    "trimend",
    "tolower",
    "toupper",
    "tolowerinvariant",
    "toupperinvariant",
    "split",
    "replace",
    "substring",
    "contains",
    "startswith",
    "endswith",
    "indexof",
    "lastindexof",
    "padleft",
    "padright",
    "equals",
    "gettype",
    "compareto",
    "tostring",
];

/// Static members (`[math]::Round`) that only compute: (type without `System.`, member).
pub(super) const PURE_STATICS: &[(&str, &str)] = &[
    ("math", "*"),
    ("string", "join"),
    ("string", "isnullorempty"),
    ("string", "isnullorwhitespace"),
    ("string", "format"),
    ("string", "concat"),
    ("string", "empty"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("int", "maxvalue"),
    ("environment", "machinename"),
    ("environment", "osversion"),
    ("environment", "processorcount"),
    ("environment", "is64bitoperatingsystem"),
    ("environment", "is64bitprocess"),
    ("environment", "newline"),
    ("environment", "version"),
    ("io.path", "combine"),
    ("io.path", "getfilename"),
    ("io.path", "getfilenamewithoutextension"),
    ("io.path", "getextension"),
    ("io.path", "getdirectoryname"),
    ("io.path", "directoryseparatorchar"),
];

impl Parser {
    /// `@{ key = value; … }`: each value an expression.
    pub(super) fn hash_table(&mut self) -> Vec<Item> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None => {
                    items.push(Item::Unknown("`@{` is not closed".into()));
                    return items;
                }
                Some('}') => {
                    self.i += 1;
                    return items;
                }
                Some(';' | '\n' | '\r') => self.i += 1,
                Some(_) => {
                    let before = self.i;
                    // The key: a bare name or a string.
                    let (_, inner) = self.value(Some('}'));
                    items.extend(inner);
                    self.skip_spaces();
                    if self.peek() == Some('=') {
                        self.i += 1;
                        let (_, inner) = self.expression(Some('}'));
                        items.extend(inner);
                    } else {
                        items.push(Item::Unknown("a hash table entry without `=`".into()));
                        self.skip_to('}');
                        return items;
                    }
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
    }

    /// What follows a value: `.Member`, `.Method(…)`, `[index]`, `::Static`. Returns whether
    /// anything did. A method call that may act is an unknown.
    pub(super) fn postfix(&mut self, items: &mut Vec<Item>) -> bool {
        let mut any = false;
        loop {
            if self.peek() == Some('.')
                && self
                    .peek_at(1)
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
            {
                self.i += 1;
                let member = self.bare_ahead();
                self.i += member.chars().count();
                any = true;
                if self.peek() == Some('(') {
                    if !PURE_METHODS.contains(&member.to_ascii_lowercase().as_str()) {
                        items.push(Item::Unknown(format!(
                            "calls the method `.{member}()`, which may act"
                        )));
                    }
                    items.push(self.group('(', ')', "( )"));
                }
            } else if self.peek() == Some('[') {
                self.i += 1;
                let (_, inner) = self.expression(Some(']'));
                items.extend(inner);
                if self.peek() == Some(']') {
                    self.i += 1;
                }
                any = true;
            } else {
                return any;
            }
        }
    }

    /// An expression up to the end of its statement (or `close`): the words whose value it
    /// prints (variables, strings), and the code inside it.
    pub(super) fn expression(&mut self, close: Option<char>) -> (Vec<Word>, Vec<Item>) {
        let mut words = Vec::new();
        let mut items = Vec::new();
        loop {
            self.skip_spaces();
            let Some(c) = self.peek() else { break };
            if Some(c) == close || matches!(c, ';' | '\n' | '\r' | ')' | '}') {
                break;
            }
            if c == '|'
                || self.at("&&")
                || c == '>'
                || (c.is_ascii_digit() && self.peek_at(1) == Some('>'))
            {
                break;
            }
            let before = self.i;
            match c {
                '-' if self.peek_at(1).is_some_and(char::is_alphabetic) => {
                    self.i += 1;
                    let op = self.bare_ahead().to_ascii_lowercase();
                    self.i += op.chars().count();
                    let bare = op.trim_start_matches(['i', 'c']);
                    if !OPERATORS.contains(&op.as_str()) && !OPERATORS.contains(&bare) {
                        items.push(Item::Unknown(format!(
                            "`-{op}` is not a PowerShell operator this reader knows"
                        )));
                    }
                }
                '[' => self.type_literal(&mut items),
                c if c.is_ascii_digit()
                    || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit())) =>
                {
                    while self.peek().is_some_and(|d| d.is_alphanumeric() || d == '.') {
                        self.i += 1;
                    }
                }
                '+' | '*' | '/' | '%' | '!' | '=' | ',' | '.' | '-' => self.i += 1,
                c if c.is_alphabetic() => {
                    let word = self.bare_ahead();
                    self.i += word.chars().count().max(1);
                    items.push(Item::Unknown(format!(
                        "`{word}` in a PowerShell expression"
                    )));
                }
                _ => {
                    let (w, inner) = self.value(close);
                    items.extend(inner);
                    words.extend(w);
                    self.postfix(&mut items);
                }
            }
            if self.i == before {
                items.push(Item::Unknown(format!(
                    "PowerShell text this reader does not follow at `{c}`"
                )));
                self.i += 1;
            }
        }
        (words, items)
    }

    /// `[type]`, then a cast or `::Member` / `::Method(…)`.
    pub(super) fn type_literal(&mut self, items: &mut Vec<Item>) {
        self.i += 1;
        let from = self.i;
        let mut depth = 1;
        let mut end = self.c.len();
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = self.i - 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let ty = self.c[from..end.max(from)].iter().collect::<String>();
        let ty = ty.to_ascii_lowercase();
        let ty = ty.strip_prefix("system.").unwrap_or(&ty).to_string();
        if !self.at("::") {
            return;
        }
        self.i += 2;
        let member = self.bare_ahead().to_ascii_lowercase();
        self.i += member.chars().count();
        let pure = PURE_STATICS
            .iter()
            .any(|(t, m)| *t == ty && (*m == "*" || *m == member));
        if !pure {
            items.push(Item::Unknown(format!(
                "uses `[{ty}]::{member}`, which may act"
            )));
        }
        if self.peek() == Some('(') {
            items.push(self.group('(', ')', "( )"));
        }
    }
}
