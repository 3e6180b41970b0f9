//! PowerShell text read into the commands it runs: statements, pipelines, `&&`/`||`, commands
//! with their parameters and arguments (arrays flattened, `-Name:value`), redirections,
//! strings with their variables and `$( )`, script blocks and parenthesised pipelines (walked
//! as code of their own), and expressions that only compute and print: variables, member
//! reads, operators, literals, hash tables, and a few methods and static members that only
//! compute (`.Trim()`, `[math]::Round`). Anything else — `if`, loops, functions, a method that
//! may act (`.Delete()`, `[IO.File]::WriteAllText`), splatting, `--%` — is an unknown.

use super::words::{WordBuild, automatic_place, env_place};
use super::{Command, Dialect, Item, powershell_name};
use crate::local::shell::{Redirect, RedirectKind, Word, WordKind, excerpt};

/// How deep blocks, parentheses and subexpressions may nest before the rest is unknown.
const MAX_NESTING: usize = 32;

/// Reads PowerShell text.
pub(crate) fn parse(text: &str, shell: Dialect) -> Vec<Item> {
    let mut p = Parser {
        c: text.chars().map(fold).collect(),
        i: 0,
        depth: 0,
        shell,
        assigned: Vec::new(),
    };
    p.script(None)
}

/// PowerShell reads the typographic dashes and quotes as `-`, `'` and `"`: so does this parser.
fn fold(c: char) -> char {
    match c {
        '\u{2013}' | '\u{2014}' | '\u{2015}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' => '"',
        c => c,
    }
}

/// Statements whose grammar is not read: their text is an unknown.
const UNREAD_KEYWORDS: &[&str] = &[
    "if",
    "elseif",
    "else",
    "foreach",
    "for",
    "while",
    "do",
    "until",
    "switch",
    "function",
    "filter",
    "workflow",
    "configuration",
    "try",
    "catch",
    "finally",
    "trap",
    "param",
    "begin",
    "process",
    "end",
    "dynamicparam",
    "class",
    "enum",
    "using",
    "data",
];

/// Comparison, logical and string operators (`-eq`, `-and`, `-replace`, `-f` …).
const OPERATORS: &[&str] = &[
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
const PURE_METHODS: &[&str] = &[
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
const PURE_STATICS: &[(&str, &str)] = &[
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

struct Parser {
    c: Vec<char>,
    i: usize,
    depth: usize,
    shell: Dialect,
    /// Variables the text assigned so far (`$env:TEMP = …`, `$HOME = …`): what they name later
    /// is not the place they name by default. `*` once a cmdlet may have set any of them.
    assigned: Vec<String>,
}

/// What ends an argument or an expression besides whitespace.
fn ends_word(c: char) -> bool {
    matches!(
        c,
        ';' | '|' | '&' | '(' | ')' | '{' | '}' | ',' | '\n' | '\r'
    ) || c.is_whitespace()
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.c.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn at(&self, s: &str) -> bool {
        s.chars()
            .enumerate()
            .all(|(k, ch)| self.peek_at(k) == Some(ch))
    }

    fn text(&self, from: usize) -> String {
        self.c[from..self.i.min(self.c.len())].iter().collect()
    }

    /// Spaces, tabs and line continuations (a backquote before a newline).
    fn skip_spaces(&mut self) {
        while let Some(c) = self.peek() {
            if c == '`' && matches!(self.peek_at(1), Some('\n' | '\r')) {
                self.i += 2;
            } else if c.is_whitespace() && c != '\n' && c != '\r' {
                self.i += 1;
            } else if c == '<' && self.peek_at(1) == Some('#') {
                self.skip_block_comment();
            } else {
                break;
            }
        }
    }

    fn skip_block_comment(&mut self) {
        self.i += 2;
        while self.i < self.c.len() && !self.at("#>") {
            self.i += 1;
        }
        self.i = (self.i + 2).min(self.c.len());
    }

    fn skip_line(&mut self) {
        while self.peek().is_some_and(|c| c != '\n' && c != '\r') {
            self.i += 1;
        }
    }

    /// Statements up to `close` (not consumed) or the end.
    fn script(&mut self, close: Option<char>) -> Vec<Item> {
        let mut items = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None => break,
                Some(c) if Some(c) == close => break,
                Some(';' | '\n' | '\r') => self.i += 1,
                Some('#') => self.skip_line(),
                Some(_) => {
                    let before = self.i;
                    items.extend(self.statement(close));
                    if self.i == before {
                        // Nothing read: the character is not PowerShell this parser knows.
                        let c = self.c[self.i];
                        items.push(Item::Unknown(format!(
                            "PowerShell text this reader does not follow at `{c}`"
                        )));
                        self.i += 1;
                    }
                }
            }
        }
        items
    }

    /// A bare word at the cursor (letters, digits, `-`, `_`), not consumed.
    fn bare_ahead(&self) -> String {
        self.c[self.i..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
            .collect()
    }

    fn statement(&mut self, close: Option<char>) -> Vec<Item> {
        let start = self.i;
        let mut items = Vec::new();
        let word = self.bare_ahead().to_ascii_lowercase();
        if UNREAD_KEYWORDS.contains(&word.as_str())
            && self
                .peek_at(word.chars().count())
                .is_none_or(|c| !c.is_alphanumeric() && c != '-')
        {
            self.skip_statement(close);
            items.push(Item::Unknown(format!(
                "PowerShell's `{word}` statement is not read: `{}`",
                excerpt(&self.text(start))
            )));
        } else {
            if matches!(
                word.as_str(),
                "exit" | "return" | "throw" | "break" | "continue"
            ) && self
                .peek_at(word.len())
                .is_none_or(|c| c.is_whitespace() || c == ';')
            {
                self.i += word.len();
                self.skip_spaces();
            }
            if let Some(assign) = self.assignment(close) {
                items.extend(assign);
            } else {
                items.extend(self.chain(close));
            }
        }
        let raw = self.text(start);
        if !raw.trim().is_empty() {
            items.push(Item::Raw(raw.trim().to_string()));
        }
        items
    }

    /// Skips to the end of the statement: `;` or a newline outside brackets and quotes.
    fn skip_statement(&mut self, close: Option<char>) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' if depth > 0 => depth -= 1,
                c if depth == 0 && (Some(c) == close || matches!(c, ';' | '\n' | '\r')) => {
                    return;
                }
                '\'' | '"' => {
                    self.i += 1;
                    while self.peek().is_some_and(|q| q != c) {
                        self.i += 1;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
    }

    /// `$name = …`, `$env:NAME += …`: None (nothing consumed) when the statement is not one.
    fn assignment(&mut self, close: Option<char>) -> Option<Vec<Item>> {
        if self.peek() != Some('$') {
            return None;
        }
        let start = self.i;
        self.i += 1;
        let name = self.variable_name();
        self.skip_spaces();
        let op_len = if self.peek() == Some('=') && self.peek_at(1) != Some('=') {
            1
        } else if matches!(self.peek(), Some('+' | '-' | '*' | '/' | '%'))
            && self.peek_at(1) == Some('=')
        {
            2
        } else if self.at("??=") {
            3
        } else {
            self.i = start;
            return None;
        };
        self.i += op_len;
        self.skip_spaces();
        let lower = name.to_ascii_lowercase();
        let (env, var) = match lower.strip_prefix("env:") {
            Some(v) => (true, v.to_string()),
            None => (false, lower.clone()),
        };
        self.assigned.push(if env {
            format!("env:{var}")
        } else {
            var.clone()
        });
        let value_start = self.i;
        let mut items = self.chain(close);
        let value_text = self.text(value_start);
        let value = literal_value(value_text.trim()).unwrap_or_else(|| Word {
            text: value_text.trim().to_string(),
            kind: WordKind::Computed,
            value: None,
        });
        items.push(Item::Assign {
            name: var,
            env,
            value,
        });
        Some(items)
    }

    /// A variable's name after `$`: `name`, `env:NAME`, `{any text}`, `_`, `?`, `$`, `^`.
    fn variable_name(&mut self) -> String {
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
    fn variable(&self, name: &str, w: &mut WordBuild) {
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

    /// Pipelines joined by `&&` and `||`.
    fn chain(&mut self, close: Option<char>) -> Vec<Item> {
        let mut items = self.pipeline(close);
        loop {
            self.skip_spaces();
            if self.at("&&") || self.at("||") {
                self.i += 2;
                self.skip_newlines();
                items.extend(self.pipeline(close));
            } else {
                return items;
            }
        }
    }

    fn skip_newlines(&mut self) {
        loop {
            self.skip_spaces();
            if matches!(self.peek(), Some('\n' | '\r')) {
                self.i += 1;
            } else {
                return;
            }
        }
    }

    fn pipeline(&mut self, close: Option<char>) -> Vec<Item> {
        let mut items = self.element(close);
        loop {
            self.skip_spaces();
            if self.peek() == Some('|') && self.peek_at(1) != Some('|') {
                self.i += 1;
                self.skip_newlines();
                items.extend(self.element(close));
            } else {
                return items;
            }
        }
    }

    /// One stage of a pipeline: a command, or an expression whose value goes on.
    fn element(&mut self, close: Option<char>) -> Vec<Item> {
        self.skip_spaces();
        match self.peek() {
            Some('&') if self.peek_at(1) != Some('&') => {
                self.i += 1;
                self.command(true, close)
            }
            Some('.') if self.peek_at(1).is_some_and(char::is_whitespace) => {
                self.i += 1;
                self.command(true, close)
            }
            Some(c)
                if c.is_alphabetic()
                    || c == '_'
                    || c == '\\'
                    || (c == '.' && matches!(self.peek_at(1), Some('/' | '\\' | '.'))) =>
            {
                self.command(false, close)
            }
            Some(_) => {
                let (words, mut items) = self.expression(close);
                // Its value is written out, as `Write-Output` would: what matters is the
                // variables printed (`$env:GITHUB_TOKEN`), not literals or the pipeline's item.
                let printed: Vec<Word> = words
                    .into_iter()
                    .filter(|w| {
                        w.kind == WordKind::Computed
                            && w.text.contains('$')
                            && !matches!(
                                w.text.to_ascii_lowercase().as_str(),
                                "$_" | "$psitem" | "$(…)" | "$true" | "$false" | "$null"
                            )
                    })
                    .collect();
                if !printed.is_empty() {
                    let mut argv = vec![Word::literal("powershell/write-output")];
                    argv.extend(printed);
                    items.push(Item::Command(Command {
                        argv,
                        redirects: self.redirects(close),
                        own: true,
                    }));
                }
                items
            }
            None => Vec::new(),
        }
    }

    /// Redirections after an expression (`"x" > out.txt`).
    fn redirects(&mut self, close: Option<char>) -> Vec<Redirect> {
        let mut out = Vec::new();
        loop {
            self.skip_spaces();
            match self.redirect(close) {
                Some(r) => out.push(r),
                None => return out,
            }
        }
    }

    /// `>`, `>>`, `2>`, `*>`, `2>&1` and their target, when one is at the cursor.
    fn redirect(&mut self, close: Option<char>) -> Option<Redirect> {
        let start = self.i;
        if self.peek().is_some_and(|c| c.is_ascii_digit() || c == '*')
            && self.peek_at(1) == Some('>')
        {
            self.i += 1;
        }
        if self.peek() != Some('>') {
            self.i = start;
            return None;
        }
        self.i += 1;
        let kind = if self.peek() == Some('>') {
            self.i += 1;
            RedirectKind::Append
        } else {
            RedirectKind::Write
        };
        if self.peek() == Some('&') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 2;
            return Some(Redirect {
                kind: RedirectKind::Duplicate,
                target: Word::literal("&1"),
            });
        }
        self.skip_spaces();
        let (words, _) = self.argument(close);
        let target = words.into_iter().next().unwrap_or_else(|| Word {
            text: String::new(),
            kind: WordKind::Computed,
            value: None,
        });
        let target = if target.text.eq_ignore_ascii_case("$null") {
            Word::literal("/dev/null")
        } else {
            target
        };
        Some(Redirect { kind, target })
    }

    /// A command: its name (after `&` or `.`, any value), its parameters and arguments.
    fn command(&mut self, called: bool, close: Option<char>) -> Vec<Item> {
        self.skip_spaces();
        let mut items = Vec::new();
        let (mut names, inner) = self.argument(close);
        items.extend(inner);
        let Some(name) = names.drain(..).next() else {
            return items;
        };
        let (own, first) = match powershell_name(&name.text) {
            Some(section) if name.is_literal() => (true, Word::literal(section)),
            _ => {
                if called && !name.is_literal() {
                    items.push(Item::Unknown(format!(
                        "`&` runs `{}`, which is not known before it runs",
                        excerpt(&name.text)
                    )));
                }
                (false, name)
            }
        };
        let mut argv = vec![first];
        let mut redirects = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None | Some(';' | '\n' | '\r' | ')' | '}' | '|') => break,
                Some('&') if self.peek_at(1) == Some('&') => break,
                Some('&') => {
                    self.i += 1;
                    items.push(Item::Unknown(
                        "`&` at the end runs the pipeline as a background job".into(),
                    ));
                    break;
                }
                Some('#') => {
                    self.skip_line();
                    break;
                }
                Some('<') => {
                    self.i += 1;
                    items.push(Item::Unknown(
                        "`<` is not a redirection PowerShell has".into(),
                    ));
                }
                Some('-') if self.at("--%") => {
                    self.skip_line();
                    items.push(Item::Unknown(
                        "`--%` stops PowerShell from reading the rest".into(),
                    ));
                    break;
                }
                Some('-') if self.peek_at(1).is_some_and(char::is_alphabetic) => {
                    argv.push(self.parameter(close, &mut items));
                }
                Some(_) => {
                    if let Some(r) = self.redirect(close) {
                        redirects.push(r);
                        continue;
                    }
                    let before = self.i;
                    let (words, inner) = self.argument(close);
                    items.extend(inner);
                    argv.extend(words);
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
        if own {
            if let Some(why) = provider_path(&argv) {
                items.push(Item::Unknown(why));
                // It may have set what a variable names.
                self.assigned.push("*".into());
            }
            if argv[0].text == "powershell/invoke-expression" {
                // A literal string is code of its own: a deny inside it is a deny of the whole.
                for w in argv[1..]
                    .iter()
                    .filter(|w| w.is_literal() && !w.text.starts_with('-'))
                {
                    let text = w.text.clone();
                    items.push(self.nested_text(&text, "Invoke-Expression"));
                }
            }
        }
        if own
            && matches!(
                argv[0].text.as_str(),
                "powershell/set-location" | "powershell/push-location"
            )
        {
            let target = argv[1..].iter().find(|w| !w.text.starts_with('-')).cloned();
            let plain = argv[1..].iter().all(|w| {
                !w.text.starts_with('-')
                    || w.text.eq_ignore_ascii_case("-path")
                    || w.text.eq_ignore_ascii_case("-literalpath")
            });
            items.push(Item::Command(Command {
                argv,
                redirects,
                own,
            }));
            items.push(Item::ChangeDir(if plain { target } else { None }));
            return items;
        }
        if own && argv[0].text == "powershell/pop-location" {
            items.push(Item::ChangeDir(None));
        }
        items.push(Item::Command(Command {
            argv,
            redirects,
            own,
        }));
        items
    }

    /// `-Name` or `-Name:value`, as one word (a program gets `-Dkey=value` whole).
    fn parameter(&mut self, close: Option<char>, items: &mut Vec<Item>) -> Word {
        let from = self.i;
        self.i += 1;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '?'))
        {
            self.i += 1;
        }
        let name = self.text(from);
        let rest = match self.peek() {
            Some(':') => {
                self.i += 1;
                true
            }
            Some(c) if !ends_word(c) && Some(c) != close => true,
            _ => false,
        };
        if !rest {
            return Word::literal(name);
        }
        let colon = self.c.get(self.i.wrapping_sub(1)) == Some(&':');
        let (value, inner) = self.value(close);
        items.extend(inner);
        let sep = if colon { ":" } else { "" };
        match value {
            Some(v) => Word {
                text: format!("{name}{sep}{}", v.text),
                kind: if v.text.eq_ignore_ascii_case("$true")
                    || v.text.eq_ignore_ascii_case("$false")
                {
                    WordKind::Literal
                } else {
                    v.kind
                },
                value: None,
            },
            None => Word::literal(format!("{name}{sep}")),
        }
    }

    /// One argument: a value, or several joined by `,` (an array: each element a word).
    fn argument(&mut self, close: Option<char>) -> (Vec<Word>, Vec<Item>) {
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
    fn value(&mut self, close: Option<char>) -> (Option<Word>, Vec<Item>) {
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
    fn single_quoted(&mut self, w: &mut WordBuild) {
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
    fn double_quoted(&mut self, w: &mut WordBuild, items: &mut Vec<Item>) {
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
    fn dollar(&mut self, w: &mut WordBuild, items: &mut Vec<Item>) {
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

    /// `(…)`, `{…}`: the code inside, one level deeper.
    fn group(&mut self, open: char, close: char, label: &'static str) -> Item {
        debug_assert_eq!(self.peek(), Some(open));
        self.i += 1;
        if self.depth >= MAX_NESTING {
            let from = self.i;
            self.skip_to(close);
            return Item::Unknown(format!(
                "PowerShell code nested deeper than {MAX_NESTING} levels: `{}`",
                excerpt(&self.text(from))
            ));
        }
        self.depth += 1;
        let items = self.script(Some(close));
        self.depth -= 1;
        if self.peek() == Some(close) {
            self.i += 1;
        } else {
            return Item::Nested {
                label,
                items: vec![Item::Unknown(format!("`{open}` is not closed"))],
            };
        }
        Item::Nested { label, items }
    }

    /// Text PowerShell runs as code (`Invoke-Expression 'TEXT'`), one level deeper.
    fn nested_text(&mut self, text: &str, label: &'static str) -> Item {
        if self.depth >= MAX_NESTING {
            return Item::Unknown(format!(
                "PowerShell code nested deeper than {MAX_NESTING} levels: `{}`",
                excerpt(text)
            ));
        }
        let mut inner = Parser {
            c: text.chars().map(fold).collect(),
            i: 0,
            depth: self.depth + 1,
            shell: self.shell,
            assigned: self.assigned.clone(),
        };
        let items = inner.script(None);
        self.assigned = inner.assigned;
        Item::Nested { label, items }
    }

    /// Skips past the bracket that closes the one just opened.
    fn skip_to(&mut self, close: char) {
        let open = match close {
            ')' => '(',
            '}' => '{',
            _ => '[',
        };
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            self.i += 1;
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    /// `@{ key = value; … }`: each value an expression.
    fn hash_table(&mut self) -> Vec<Item> {
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
    fn postfix(&mut self, items: &mut Vec<Item>) -> bool {
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
    fn expression(&mut self, close: Option<char>) -> (Vec<Word>, Vec<Item>) {
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
    fn type_literal(&mut self, items: &mut Vec<Item>) {
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

/// Drives of PowerShell's providers that are not files: what a cmdlet does there is not the
/// file it seems (`Get-ChildItem env:` prints every environment variable, `Set-Item env:PATH`
/// changes what runs, `cert:` holds private keys). Registry drives are only read by the
/// cmdlets that read.
fn provider_path(argv: &[Word]) -> Option<String> {
    const READS_REGISTRY: &[&str] = &[
        "powershell/get-childitem",
        "powershell/get-item",
        "powershell/get-itemproperty",
        "powershell/get-itempropertyvalue",
        "powershell/test-path",
    ];
    for w in &argv[1..] {
        // `-Path:env:X` names one too.
        let value = match w.text.strip_prefix('-') {
            Some(rest) => match rest.split_once(':') {
                Some((_, v)) => v,
                None => continue,
            },
            None => w.text.as_str(),
        };
        let Some((drive, _)) = value.split_once(':') else {
            continue;
        };
        if drive.len() < 2 || !drive.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
            continue;
        }
        let lower = drive.to_ascii_lowercase();
        let registry = matches!(lower.as_str(), "hklm" | "hkcu" | "hkcr" | "hku" | "hkcc");
        if registry && READS_REGISTRY.contains(&argv[0].text.as_str()) {
            continue;
        }
        return Some(format!(
            "`{}` names PowerShell's `{drive}:` drive, not a file: what it reads or changes there is not read",
            excerpt(value)
        ));
    }
    None
}

/// A backquote escape's character.
fn escaped(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        c => c,
    }
}

/// The value of an assignment's right side when it is one literal string or number.
fn literal_value(text: &str) -> Option<Word> {
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
