//! Plain commands without brush's PEG: most commands an agent runs are words, quotes and
//! `&& || | ; &`, `>`-style redirections. For those this builds the very tree brush-parser
//! would (its source locations aside, which the walk never reads) in one pass; for anything
//! else it answers `None` and brush parses. A test holds the two to the same tree over both
//! corpora and over generated strings.
//!
//! Inside it too: a backslash before an ASCII character (`\rm`, `-exec … \;`, `a\ b`) and
//! braces inside words (`{}`, `stash@{0}`, `{a,b}`); a word's value is still worked out by
//! brush's word parser whenever it holds anything but plain characters and quotes.
//!
//! Outside the subset (so `None`): `$(`, `${`, backquotes, a line continuation, `#`, `( ) !`,
//! `{` and `}` as words where a command starts, here-documents and here-strings, `|&`, `;;`,
//! `>|`, `<>`, reserved words and `time` as a command's name, `$` not followed by a plain name,
//! `"…"` holding `$`, `` ` ``, `\` or `!`, and anything not ASCII outside quotes.

use brush_parser::ast;

/// The tree brush would build for `src`, or `None` when `src` is outside the plain subset.
pub(super) fn parse(src: &str) -> Option<ast::Program> {
    let tokens = tokens(src)?;
    Parser { tokens, at: 0 }.program()
}

/// A plain word's text with its quotes removed, when the word is nothing but plain characters
/// and quotes holding plain text: no expansion, glob, tilde or escape can change its value.
pub(super) fn literal_word(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    let mut text = String::with_capacity(raw.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => {
                let end = i + 1 + raw[i + 1..].find(q as char)?;
                let inner = &raw[i + 1..end];
                if q == b'"' && !plain_in_double_quotes(inner.as_bytes()) {
                    return None;
                }
                text.push_str(inner);
                i = end + 1;
            }
            c if is_literal(c) => {
                let start = i;
                while i < b.len() && is_literal(b[i]) {
                    i += 1;
                }
                text.push_str(&raw[start..i]);
            }
            _ => return None,
        }
    }
    Some(text)
}

/// A word that is its own value: unquoted characters that are themselves anywhere in a word
/// (what [`literal_word`] gives back unchanged).
pub(super) fn is_plain_literal(raw: &str) -> bool {
    raw.bytes().all(is_literal)
}

/// Unquoted characters whose value is themselves in any position of a word (no `~`, no glob).
fn is_literal(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'_' | b'.' | b'/' | b':' | b'=' | b'@' | b'%' | b'+' | b',' | b'-'
        )
}

/// `"…"` content with nothing bash expands or escapes in it (`$`, backquotes, `\`, and `!`,
/// which some shells expand).
fn plain_in_double_quotes(inner: &[u8]) -> bool {
    !inner
        .iter()
        .any(|c| matches!(c, b'$' | b'`' | b'\\' | b'!'))
}

/// Unquoted characters the plain subset keeps inside a word (globs, braces and `~` included:
/// they do not change where a word ends).
fn is_word_byte(c: u8) -> bool {
    is_literal(c) || matches!(c, b'~' | b'*' | b'?' | b'[' | b']' | b'{' | b'}')
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Pipe,
    Semi,
    Amp,
    Newline,
    /// `>`, `>>`, `<`, `>&`, `<&`: may follow an fd number.
    Redirect(Redir),
    /// `&>`, `&>>` (true: append).
    OutputAndError(bool),
}

/// The redirections of the subset that an fd number may precede.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Redir {
    Write,
    Append,
    Read,
    DupOut,
    DupIn,
}

#[derive(Debug)]
enum Tok<'a> {
    /// A word's raw text and the byte after it.
    Word(&'a str, usize),
    /// An operator and the byte where it starts.
    Op(Op, usize),
}

fn tokens(src: &str) -> Option<Vec<Tok<'_>>> {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(16);
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        let (op, len) = match b[i] {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'\n' => (Op::Newline, 1),
            b'|' => match next {
                Some(b'|') => (Op::Or, 2),
                Some(b'&') => return None,
                _ => (Op::Pipe, 1),
            },
            b'&' => match (next, b.get(i + 2)) {
                (Some(b'&'), _) => (Op::And, 2),
                (Some(b'>'), Some(b'>')) => (Op::OutputAndError(true), 3),
                (Some(b'>'), _) => (Op::OutputAndError(false), 2),
                _ => (Op::Amp, 1),
            },
            b';' => match next {
                Some(b';' | b'&') => return None,
                _ => (Op::Semi, 1),
            },
            b'>' => match next {
                Some(b'>') => (Op::Redirect(Redir::Append), 2),
                Some(b'&') => (Op::Redirect(Redir::DupOut), 2),
                Some(b'|' | b'(') => return None,
                _ => (Op::Redirect(Redir::Write), 1),
            },
            b'<' => match next {
                Some(b'&') => (Op::Redirect(Redir::DupIn), 2),
                Some(b'<' | b'>' | b'(') => return None,
                _ => (Op::Redirect(Redir::Read), 1),
            },
            _ => {
                let start = i;
                i = word_end(b, i)?;
                out.push(Tok::Word(&src[start..i], i));
                continue;
            }
        };
        out.push(Tok::Op(op, i));
        i += len;
    }
    Some(out)
}

/// Where the word starting at `i` ends, or `None` when it holds anything outside the subset.
fn word_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'|' | b'&' | b';' | b'<' | b'>' => break,
            b'\'' => i += 2 + b[i + 1..].iter().position(|&c| c == b'\'')?,
            b'"' => {
                let len = b[i + 1..].iter().position(|&c| c == b'"')?;
                if !plain_in_double_quotes(&b[i + 1..i + 1 + len]) {
                    return None;
                }
                i += 2 + len;
            }
            b'$' => {
                if !b
                    .get(i + 1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                {
                    return None;
                }
                i += 1;
                while b
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
            }
            // An escaped ASCII character is part of the word, whatever it is; a line
            // continuation (`\` and a newline) joins words, and is left to brush.
            b'\\' => match b.get(i + 1) {
                Some(&c) if c.is_ascii() && c != b'\n' => i += 2,
                _ => return None,
            },
            c if is_word_byte(c) => i += 1,
            _ => return None,
        }
    }
    Some(i)
}

/// Words brush reads as the start of something other than a simple command.
const RESERVED: &[&str] = &[
    "!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then",
    "until", "while", "[[", "]]", "function", "select", "coproc", "time",
];

struct Parser<'a> {
    tokens: Vec<Tok<'a>>,
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.tokens.get(self.at)
    }

    fn peek_op(&self) -> Option<Op> {
        match self.peek() {
            Some(Tok::Op(op, _)) => Some(*op),
            _ => None,
        }
    }

    fn newlines(&mut self) -> usize {
        let start = self.at;
        while self.peek_op() == Some(Op::Newline) {
            self.at += 1;
        }
        self.at - start
    }

    /// program: linebreak (complete_command (newline_list complete_command)*)? linebreak
    fn program(mut self) -> Option<ast::Program> {
        let mut complete_commands = Vec::new();
        self.newlines();
        while self.peek().is_some() {
            if !complete_commands.is_empty() && self.newlines() == 0 {
                return None;
            }
            if self.peek().is_none() {
                break;
            }
            complete_commands.push(self.complete_command()?);
        }
        if complete_commands.is_empty() {
            // An empty script: brush's answer, whatever it is, stays brush's.
            return None;
        }
        Some(ast::Program { complete_commands })
    }

    /// complete_command: and_or (separator_op and_or)* separator_op?
    fn complete_command(&mut self) -> Option<ast::CompleteCommand> {
        let mut items = Vec::new();
        loop {
            let and_or = self.and_or()?;
            let sep = match self.peek_op() {
                Some(Op::Semi) => ast::SeparatorOperator::Sequence,
                Some(Op::Amp) => ast::SeparatorOperator::Async,
                _ => {
                    items.push(ast::CompoundListItem(
                        and_or,
                        ast::SeparatorOperator::Sequence,
                    ));
                    return Some(ast::CompoundList(items));
                }
            };
            self.at += 1;
            items.push(ast::CompoundListItem(and_or, sep));
            if !self.starts_command() {
                return Some(ast::CompoundList(items));
            }
        }
    }

    fn starts_command(&self) -> bool {
        matches!(
            self.peek(),
            Some(Tok::Word(..) | Tok::Op(Op::Redirect(_) | Op::OutputAndError(_), _))
        )
    }

    /// and_or: pipeline (('&&' | '||') linebreak pipeline)*
    fn and_or(&mut self) -> Option<ast::AndOrList> {
        let first = self.pipeline()?;
        let mut additional = Vec::new();
        loop {
            let and = match self.peek_op() {
                Some(Op::And) => true,
                Some(Op::Or) => false,
                _ => return Some(ast::AndOrList { first, additional }),
            };
            self.at += 1;
            self.newlines();
            let p = self.pipeline()?;
            additional.push(if and {
                ast::AndOr::And(p)
            } else {
                ast::AndOr::Or(p)
            });
        }
    }

    /// pipeline: command ('|' linebreak command)*
    fn pipeline(&mut self) -> Option<ast::Pipeline> {
        let mut seq = vec![ast::Command::Simple(self.simple_command()?)];
        while self.peek_op() == Some(Op::Pipe) {
            self.at += 1;
            self.newlines();
            seq.push(ast::Command::Simple(self.simple_command()?));
        }
        Some(ast::Pipeline {
            timed: None,
            bang: false,
            seq,
        })
    }

    /// simple_command: cmd_prefix (cmd_word cmd_suffix?)? | cmd_name cmd_suffix?
    fn simple_command(&mut self) -> Option<ast::SimpleCommand> {
        let mut prefix = Vec::new();
        while let Some(item) = self.item()? {
            prefix.push(item);
        }
        let word_or_name = match self.peek() {
            Some(Tok::Word(w, ..)) if !RESERVED.contains(w) => {
                let w = word(w);
                self.at += 1;
                w
            }
            Some(Tok::Word(..)) => return None,
            _ if prefix.is_empty() => return None,
            _ => {
                return Some(ast::SimpleCommand {
                    prefix: Some(ast::CommandPrefix(prefix)),
                    word_or_name: None,
                    suffix: None,
                });
            }
        };
        let mut suffix = Vec::new();
        loop {
            if let Some(item) = self.item()? {
                suffix.push(item);
                continue;
            }
            match self.peek() {
                Some(Tok::Word(w, ..)) => {
                    suffix.push(ast::CommandPrefixOrSuffixItem::Word(word(w)));
                    self.at += 1;
                }
                _ => break,
            }
        }
        Some(ast::SimpleCommand {
            prefix: (!prefix.is_empty()).then_some(ast::CommandPrefix(prefix)),
            word_or_name: Some(word_or_name),
            suffix: (!suffix.is_empty()).then_some(ast::CommandSuffix(suffix)),
        })
    }

    /// A redirection or an assignment here (`Some(None)`: neither; `None`: outside the subset).
    fn item(&mut self) -> Option<Option<ast::CommandPrefixOrSuffixItem>> {
        match self.redirect()? {
            Some(item) => Some(Some(item)),
            None => self.assignment(),
        }
    }

    /// A redirection here: `Some(None)` when there is none, `None` when there is one the subset
    /// cannot finish (no word after it, an fd number out of range).
    fn redirect(&mut self) -> Option<Option<ast::CommandPrefixOrSuffixItem>> {
        let (fd, op_at) = match (self.tokens.get(self.at), self.tokens.get(self.at + 1)) {
            (Some(Tok::Word(w, end)), Some(Tok::Op(Op::Redirect(_), start)))
                if end == start && w.bytes().all(|c| c.is_ascii_digit()) =>
            {
                (Some(w.parse::<ast::IoFd>().ok()?), self.at + 1)
            }
            _ => (None, self.at),
        };
        let op = match self.tokens.get(op_at) {
            Some(Tok::Op(op @ (Op::Redirect(_) | Op::OutputAndError(_)), _)) => *op,
            _ => return Some(None),
        };
        let target = match self.tokens.get(op_at + 1) {
            Some(Tok::Word(w, ..)) => word(w),
            _ => return None,
        };
        self.at = op_at + 2;
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T};
        let redirect = match op {
            Op::OutputAndError(append) => ast::IoRedirect::OutputAndError(target, append),
            Op::Redirect(r) => {
                let (kind, target) = match r {
                    Redir::Write => (K::Write, T::Filename(target)),
                    Redir::Append => (K::Append, T::Filename(target)),
                    Redir::Read => (K::Read, T::Filename(target)),
                    Redir::DupOut => (K::DuplicateOutput, T::Duplicate(target)),
                    Redir::DupIn => (K::DuplicateInput, T::Duplicate(target)),
                };
                ast::IoRedirect::File(fd, kind, target)
            }
            _ => unreachable!("matched above"),
        };
        Some(Some(ast::CommandPrefixOrSuffixItem::IoRedirect(redirect)))
    }

    /// `NAME=value` or `NAME+=value` here, as brush's `name_equals_scalar_value` reads it
    /// (`Some(None)`: not an assignment; `None`: `NAME[…]=`, an array element, is brush's).
    fn assignment(&mut self) -> Option<Option<ast::CommandPrefixOrSuffixItem>> {
        let Some(Tok::Word(w, ..)) = self.peek() else {
            return Some(None);
        };
        let b = w.as_bytes();
        if !b
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return Some(None);
        }
        let name_len = b
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .unwrap_or(b.len());
        let (append, eq) = match &b[name_len..] {
            [b'+', b'=', ..] => (true, name_len + 1),
            [b'=', ..] => (false, name_len),
            [b'[', ..] if w.contains('=') => return None,
            _ => return Some(None),
        };
        let assignment = ast::Assignment {
            name: ast::AssignmentName::VariableName(w[..name_len].to_string()),
            value: ast::AssignmentValue::Scalar(ast::Word::from(w[eq + 1..].to_string())),
            append,
            loc: Default::default(),
        };
        let whole = word(w);
        self.at += 1;
        Some(Some(ast::CommandPrefixOrSuffixItem::AssignmentWord(
            assignment, whole,
        )))
    }
}

fn word(w: &str) -> ast::Word {
    ast::Word::from(w.to_string())
}

#[cfg(test)]
mod tests;
