//! cmd.exe text read into the commands it runs: `&`, `&&`, `||`, `|`, `( )` groups, `^`
//! escapes, `"` quotes, `%NAME%` variables (a known place, or unknown), redirections (`> nul`
//! writes nothing), and the internal commands that change how the rest reads: `rem` (a
//! comment), `cd`/`pushd`/`popd` (the current folder), `call` and `start` (run what follows),
//! `if` (its commands are judged as if the condition held), `set NAME=…` (a variable for what
//! follows). A `for` loop's body is judged with its variable unknown, and the loop is an
//! unknown itself.

use super::words::WordBuild;
use super::{Command, Item, cmd_name};
use crate::local::shell::{Redirect, RedirectKind, Word, WordKind, excerpt};

/// Reads the text `cmd /c` runs; `delayed`: `/v:on` was given (`!NAME!` expands too).
pub(crate) fn parse(text: &str, delayed: bool) -> Vec<Item> {
    let mut p = Parser {
        c: text.chars().collect(),
        i: 0,
        delayed,
        assigned: Vec::new(),
        depth: 0,
    };
    let mut items = Vec::new();
    p.line(&mut items, false);
    if p.i < p.c.len() {
        items.push(Item::Unknown(format!(
            "cmd text this reader does not follow: `{}`",
            excerpt(&p.rest())
        )));
    }
    items.push(Item::Raw(text.trim().to_string()));
    items
}

/// How deep `( )` groups may nest.
const MAX_NESTING: usize = 32;

struct Parser {
    c: Vec<char>,
    i: usize,
    delayed: bool,
    /// Variables `set` assigned so far: what they name later is not known.
    assigned: Vec<String>,
    depth: usize,
}

/// One word with whether any of it was quoted (`start "title" prog`).
struct Token {
    word: Word,
    quoted: bool,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.c.get(self.i).copied()
    }

    fn rest(&self) -> String {
        self.c[self.i.min(self.c.len())..].iter().collect()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.i += 1;
        }
    }

    /// Commands joined by `&`, `&&`, `||` and `|`, up to the end (or the `)` of a group).
    fn line(&mut self, items: &mut Vec<Item>, in_group: bool) {
        loop {
            self.skip_spaces();
            match self.peek() {
                None => return,
                Some(')') if in_group => return,
                Some('&' | '|' | '\n' | '\r') => self.i += 1,
                Some('(') => {
                    self.i += 1;
                    if self.depth >= MAX_NESTING {
                        items.push(Item::Unknown(format!(
                            "cmd groups nested deeper than {MAX_NESTING}"
                        )));
                        self.i = self.c.len();
                        return;
                    }
                    self.depth += 1;
                    self.line(items, true);
                    self.depth -= 1;
                    if self.peek() == Some(')') {
                        self.i += 1;
                    } else {
                        items.push(Item::Unknown("a `(` group that is not closed".into()));
                    }
                    // A group's redirection applies to every command in it.
                    let mut redirects = Vec::new();
                    loop {
                        self.skip_spaces();
                        match self.redirect() {
                            Some(r) => redirects.push(r),
                            None => break,
                        }
                    }
                    if !redirects.is_empty() {
                        items.push(Item::Command(Command {
                            argv: Vec::new(),
                            redirects,
                            own: true,
                            piped_under: None,
                        }));
                    }
                }
                Some(_) if self.keyword("if") => self.condition(items),
                Some(_) if self.keyword("else") => {}
                Some(_) => {
                    let before = self.i;
                    let (tokens, redirects) = self.simple(in_group);
                    self.command(tokens, redirects, items, in_group);
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
    }

    /// One simple command's words and redirections, up to an operator.
    fn simple(&mut self, in_group: bool) -> (Vec<Token>, Vec<Redirect>) {
        let mut tokens = Vec::new();
        let mut redirects = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None | Some('&' | '|' | '\n' | '\r') => break,
                Some(')') if in_group => break,
                Some(_) => {
                    if let Some(r) = self.redirect() {
                        redirects.push(r);
                        continue;
                    }
                    let before = self.i;
                    let t = self.token(in_group, tokens.is_empty());
                    if self.i == before {
                        break;
                    }
                    tokens.push(t);
                }
            }
        }
        (tokens, redirects)
    }

    /// `>`, `>>`, `<`, `2>`, `2>&1`, `>nul` and their target.
    fn redirect(&mut self) -> Option<Redirect> {
        let start = self.i;
        if self.peek().is_some_and(|c| c.is_ascii_digit())
            && matches!(self.c.get(self.i + 1), Some('>' | '<'))
        {
            self.i += 1;
        }
        let kind = match self.peek() {
            Some('>') if self.c.get(self.i + 1) == Some(&'>') => {
                self.i += 2;
                RedirectKind::Append
            }
            Some('>') => {
                self.i += 1;
                RedirectKind::Write
            }
            Some('<') => {
                self.i += 1;
                RedirectKind::Read
            }
            _ => {
                self.i = start;
                return None;
            }
        };
        if self.peek() == Some('&') {
            self.i += 1;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            return Some(Redirect {
                kind: RedirectKind::Duplicate,
                target: Word::literal("&1"),
            });
        }
        self.skip_spaces();
        let target = self.token(false, false).word;
        // `nul` is the null device, in any case and with any extension.
        let lower = target.text.to_ascii_lowercase();
        let target = if lower == "nul" || lower.starts_with("nul.") {
            Word::literal("/dev/null")
        } else {
            target
        };
        Some(Redirect { kind, target })
    }

    /// One word: quotes removed, `^` escapes, `%NAME%` variables.
    /// `first`: the command's name, which ends at an unquoted `/` (`rd/s/q x` is `rd /s/q x`).
    fn token(&mut self, in_group: bool, first: bool) -> Token {
        let mut w = WordBuild::default();
        let mut quoted = false;
        let mut in_quotes = false;
        while let Some(c) = self.peek() {
            if in_quotes {
                match c {
                    '"' => {
                        in_quotes = false;
                        self.i += 1;
                    }
                    '%' => self.percent(&mut w, true),
                    '!' if self.delayed => self.bang(&mut w),
                    '\n' | '\r' => break,
                    c => {
                        w.char(c, true);
                        self.i += 1;
                    }
                }
                continue;
            }
            match c {
                '"' => {
                    in_quotes = true;
                    quoted = true;
                    w.text("", true);
                    self.i += 1;
                }
                '^' => {
                    self.i += 1;
                    if let Some(n) = self.peek() {
                        if n != '\n' && n != '\r' {
                            w.char(n, true);
                        }
                        self.i += 1;
                    }
                }
                '%' => self.percent(&mut w, false),
                '!' if self.delayed => self.bang(&mut w),
                ' ' | '\t' | '&' | '|' | '<' | '>' | '\n' | '\r' => break,
                ')' if in_group => break,
                '/' if first && !w.is_empty() => break,
                c => {
                    w.char(c, false);
                    self.i += 1;
                }
            }
        }
        Token {
            word: w.finish(),
            quoted,
        }
    }

    /// `%NAME%`: a place, or unknown; `%%` is `%`; `%1`, `%~dp0` (a batch file's arguments) and
    /// a lone `%` are what cmd leaves them.
    fn percent(&mut self, w: &mut WordBuild, quoted: bool) {
        self.i += 1;
        if self.peek() == Some('%') {
            self.i += 1;
            w.char('%', quoted);
            return;
        }
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || c == '~' || c == '*')
        {
            w.unknown("%…");
            self.i += 1;
            return;
        }
        let from = self.i;
        while let Some(c) = self.peek() {
            if c == '%' {
                let name: String = self.c[from..self.i].iter().collect();
                self.i += 1;
                self.variable(&name, w);
                return;
            }
            if matches!(c, '\n' | '\r' | '"' | ' ' | '\t' | '&' | '|' | '<' | '>') {
                break;
            }
            self.i += 1;
        }
        // No closing `%` in the word: the text stays as written (`%f` of a `for` loop).
        self.i = from;
        w.char('%', quoted);
    }

    /// `!NAME!` under delayed expansion: its value when the command runs.
    fn bang(&mut self, w: &mut WordBuild) {
        self.i += 1;
        let from = self.i;
        while self.peek().is_some_and(|c| c != '!' && c != '\n') {
            self.i += 1;
        }
        let name: String = self.c[from..self.i].iter().collect();
        self.i = (self.i + 1).min(self.c.len());
        w.unknown(&format!("${name}"));
    }

    fn variable(&self, name: &str, w: &mut WordBuild) {
        // `%PATH:a=b%` and `%X:~0,5%` edit the value: not a place any more.
        if name.contains([':', ' ']) {
            w.unknown(&format!("${}", name.split(':').next().unwrap_or(name)));
        } else if self.assigned.iter().any(|a| a.eq_ignore_ascii_case(name)) {
            w.unknown(&format!("${name}"));
        } else {
            w.env(name);
        }
    }

    /// Records one simple command: the internal commands that change how the rest reads are
    /// handled here; the others are passed on.
    fn command(
        &mut self,
        mut tokens: Vec<Token>,
        redirects: Vec<Redirect>,
        items: &mut Vec<Item>,
        in_group: bool,
    ) {
        if tokens.is_empty() {
            if !redirects.is_empty() {
                items.push(Item::Command(Command {
                    argv: Vec::new(),
                    redirects,
                    own: true,
                    piped_under: None,
                }));
            }
            return;
        }
        let first = tokens[0].word.text.to_ascii_lowercase();
        // `echo.`, `echo:` print a line; `cd..` and `cd\` change to that folder.
        if first.len() > 4
            && first.starts_with("echo")
            && !first.as_bytes()[4].is_ascii_alphanumeric()
        {
            tokens[0].word = Word::literal("echo");
        } else if first.len() > 2 && (first.starts_with("cd.") || first.starts_with("cd/")) {
            let target = Word::literal(tokens[0].word.text[2..].to_string());
            tokens[0].word = Word::literal("cd");
            tokens.insert(
                1,
                Token {
                    word: target,
                    quoted: false,
                },
            );
        }
        let name = tokens[0].word.text.to_ascii_lowercase();
        let name = name.strip_suffix(".exe").unwrap_or(&name).to_string();
        match name.as_str() {
            // A comment to the end of the line, operators and all.
            "rem" | "::" => {
                self.i = self.c.len();
                return;
            }
            "call" => {
                tokens.remove(0);
                if tokens.first().is_some_and(|t| t.word.text.starts_with(':')) {
                    items.push(Item::Unknown(
                        "`call :label` runs a label of a batch file".into(),
                    ));
                    return;
                }
                return self.command(tokens, redirects, items, in_group);
            }
            "start" => return self.start(tokens, redirects, items, in_group),
            "for" => {
                items.push(Item::Unknown(
                    "a cmd `for` loop: what it runs takes its values when it runs".into(),
                ));
                // Its body, judged with the loop's variable unknown.
                if let Some(at) = tokens
                    .iter()
                    .position(|t| t.word.text.eq_ignore_ascii_case("do"))
                {
                    let mut body: Vec<Token> = tokens.drain(at + 1..).collect();
                    for t in &mut body {
                        if t.word.text.contains('%') {
                            t.word.kind = WordKind::Computed;
                        }
                    }
                    return self.command(body, redirects, items, in_group);
                }
                return;
            }
            "goto" => {
                items.push(Item::Unknown(
                    "`goto` jumps to a label of a batch file".into(),
                ));
                return;
            }
            "else" => {
                tokens.remove(0);
                return self.command(tokens, redirects, items, in_group);
            }
            "cd" | "chdir" | "pushd" => {
                let words: Vec<&Token> = tokens[1..]
                    .iter()
                    .filter(|t| !t.word.text.eq_ignore_ascii_case("/d"))
                    .collect();
                let target = match words.as_slice() {
                    [] if name == "pushd" => None,
                    // `cd` alone prints the current folder.
                    [] => Some(None),
                    [one] => Some(Some(one.word.clone())),
                    // `cd C:\Program Files` takes the words with their spaces.
                    many => Some(Some(joined(many))),
                };
                let argv: Vec<Word> = tokens.into_iter().map(|t| t.word).collect();
                items.push(Item::Command(Command {
                    argv: named(argv),
                    redirects,
                    own: true,
                    piped_under: None,
                }));
                if let Some(target) = target
                    && (target.is_some() || name == "pushd")
                {
                    items.push(Item::ChangeDir(target));
                }
                return;
            }
            "popd" => items.push(Item::ChangeDir(None)),
            "set" => self.set(&tokens, items),
            // `copy a+b c` joins files: a source is not the word it seems.
            "copy"
                if tokens[1..]
                    .iter()
                    .any(|t| !t.quoted && t.word.text.contains('+')) =>
            {
                items.push(Item::Unknown(
                    "`copy a+b` joins files, which this reader does not follow".into(),
                ));
            }
            _ => {}
        }
        let mut argv: Vec<Word> = tokens.into_iter().map(|t| t.word).collect();
        let own = cmd_name(&argv[0].text).is_some() && argv[0].is_literal();
        // A batch file named alone is found in the current folder first.
        if !own && !argv[0].text.contains('/') && {
            let lower = argv[0].text.to_ascii_lowercase();
            lower.ends_with(".bat") || lower.ends_with(".cmd")
        } {
            argv[0].text = format!("./{}", argv[0].text);
        }
        items.push(Item::Command(Command {
            argv: if own { named(argv) } else { argv },
            redirects,
            own,
            piped_under: None,
        }));
    }

    /// `set NAME=value` sets a variable for the commands after it.
    fn set(&mut self, tokens: &[Token], items: &mut Vec<Item>) {
        let Some(arg) = tokens.get(1) else { return };
        if arg.word.text.starts_with('/') {
            return;
        }
        let text = tokens[1..]
            .iter()
            .map(|t| t.word.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if let Some((name, value)) = text.split_once('=') {
            self.assigned.push(name.to_string());
            items.push(Item::Assign {
                name: name.to_string(),
                env: true,
                value: Word {
                    text: value.to_string(),
                    kind: if tokens[1..].iter().all(|t| t.word.is_literal()) {
                        WordKind::Literal
                    } else {
                        WordKind::Computed
                    },
                    value: None,
                },
            });
        }
    }

    /// `start ["title"] [/d DIR] [/b] [/wait] … PROGRAM ARGS`: runs the program.
    fn start(
        &mut self,
        mut tokens: Vec<Token>,
        redirects: Vec<Redirect>,
        items: &mut Vec<Item>,
        in_group: bool,
    ) {
        tokens.remove(0);
        if tokens.first().is_some_and(|t| t.quoted) {
            tokens.remove(0);
        }
        while let Some(t) = tokens.first() {
            let lower = t.word.text.to_ascii_lowercase();
            if matches!(lower.as_str(), "/d" | "/node" | "/affinity") {
                if lower == "/d" {
                    items.push(Item::Unknown(
                        "`start /d` runs the program in another folder".into(),
                    ));
                }
                tokens.drain(..2.min(tokens.len()));
            } else if lower.starts_with('/') && lower.len() > 1 {
                tokens.remove(0);
            } else {
                break;
            }
        }
        if tokens.is_empty() {
            items.push(Item::Unknown(
                "`start` alone opens another cmd window".into(),
            ));
            return;
        }
        // `start URL` or `start file.txt`: opened with the program Windows associates with it.
        let target = &tokens[0].word.text;
        if target.contains("://") || (target.contains('.') && !is_program_file(target)) {
            items.push(Item::Unknown(format!(
                "`start {}` opens it with the program Windows associates with it",
                excerpt(target)
            )));
            return;
        }
        self.command(tokens, redirects, items, in_group)
    }

    /// Consumes `word` (any case) when it is the next word, whole.
    fn keyword(&mut self, word: &str) -> bool {
        let n = word.len();
        let matches = self.c.len() >= self.i + n
            && self.c[self.i..self.i + n]
                .iter()
                .zip(word.chars())
                .all(|(a, b)| a.eq_ignore_ascii_case(&b))
            && self
                .c
                .get(self.i + n)
                .is_none_or(|c| matches!(c, ' ' | '\t' | '(' | '\n' | '\r'));
        if matches {
            self.i += n;
        }
        matches
    }

    /// `if [/i] [not] exist X | defined X | errorlevel N | A==B | A OP B`: the condition is
    /// read and dropped; the command or `( )` group after it is read as any other (judged as
    /// if the condition held), and so is what follows `else`.
    fn condition(&mut self, items: &mut Vec<Item>) {
        let word = |p: &mut Parser| {
            p.skip_spaces();
            p.token(false, false).word.text.to_ascii_lowercase()
        };
        let mut first = word(self);
        while matches!(first.as_str(), "/i" | "not") {
            first = word(self);
        }
        match first.as_str() {
            "exist" | "defined" | "errorlevel" | "cmdextversion" => {
                word(self);
            }
            t if t.contains("==") => {}
            _ => {
                let op = word(self);
                if matches!(
                    op.as_str(),
                    "==" | "equ" | "neq" | "lss" | "leq" | "gtr" | "geq"
                ) {
                    word(self);
                } else {
                    items.push(Item::Unknown(
                        "a cmd `if` this reader does not follow".into(),
                    ));
                    self.i = self.c.len();
                }
            }
        }
    }
}

/// A name Windows runs as a program (`x.exe`, `x.bat`, `x.cmd`, `x.com`), not a document.
fn is_program_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".exe", ".bat", ".cmd", ".com"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// `cmd/NAME` for an internal command's first word.
fn named(mut argv: Vec<Word>) -> Vec<Word> {
    if let Some(first) = argv.first_mut() {
        let lower = first.text.to_ascii_lowercase();
        let base = lower.strip_suffix(".exe").unwrap_or(&lower);
        *first = Word::literal(format!("cmd/{base}"));
    }
    argv
}

/// Words taken together with their spaces (`cd C:\Program Files`).
fn joined(tokens: &[&Token]) -> Word {
    let text = tokens
        .iter()
        .map(|t| t.word.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let kind = if tokens.iter().all(|t| t.word.is_literal()) {
        WordKind::Literal
    } else {
        WordKind::Computed
    };
    Word {
        text,
        kind,
        value: None,
    }
}
