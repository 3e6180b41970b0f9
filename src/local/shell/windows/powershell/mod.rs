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
use words::literal_value;

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
            items.extend(self.unread_statement(close));
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

    /// A statement whose grammar is not read (`if`, `foreach`, `function` …), to its end (`;`
    /// or a newline outside brackets): the code in its blocks and parentheses is still read, so
    /// a deny inside stands.
    fn unread_statement(&mut self, close: Option<char>) -> Vec<Item> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                '{' => items.push(self.group('{', '}', "{ }")),
                '(' => items.push(self.group('(', ')', "( )")),
                '[' => {
                    self.i += 1;
                    self.skip_to(']');
                }
                c if Some(c) == close || matches!(c, ';' | '\n' | '\r' | ')' | '}') => {
                    return items;
                }
                '\'' | '"' => {
                    self.i += 1;
                    while self.peek().is_some_and(|q| q != c) {
                        self.i += 1;
                    }
                    self.i = (self.i + 1).min(self.c.len());
                }
                _ => self.i += 1,
            }
        }
        items
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
        let mut items = Vec::new();
        // Where the items of a file listing earlier in the pipeline lie.
        let mut roots: Option<Vec<Word>> = None;
        let mut first = true;
        loop {
            let mut stage = self.element(close);
            if let Some(c) = piped::stage_command(&mut stage) {
                let unknown = if first {
                    None
                } else {
                    piped::piped(c, roots.as_ref())
                };
                if let Some(r) = piped::listed_roots(c) {
                    roots = Some(r);
                }
                stage.extend(unknown);
            }
            items.extend(stage);
            first = false;
            self.skip_spaces();
            if self.peek() == Some('|') && self.peek_at(1) != Some('|') {
                self.i += 1;
                self.skip_newlines();
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
                        piped_under: None,
                    }));
                }
                items
            }
            None => Vec::new(),
        }
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
}

mod command;
mod expression;
mod piped;
mod words;
