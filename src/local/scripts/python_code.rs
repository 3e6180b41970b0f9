//! Python given as text (`python -c "…"`) that only imports modules and prints what they hold
//! (`import mcp; print(mcp.__version__)`, `from a2a.types import TaskState; print(repr(…))`,
//! `import sys,json; d=json.load(sys.stdin); print(d['status'])`): importing runs the code of
//! the project's own modules and of the packages installed for it, as its tests do, so such code
//! is the project's code, allowed where it runs inside the project. Anything else is code
//! sentinel does not judge.
//!
//! The test is deliberately narrow, a grammar rather than a list of bad words: statements are
//! imports, `print(…)`, and assignments of names; an expression is names, attributes,
//! subscripts, literals, operators, comprehensions and conditional expressions; a call is only
//! to a builtin that computes from its arguments (`repr`, `len`, `sorted` …), to a reading
//! function of a module imported by its own name (`json.load`, `importlib.metadata.version`,
//! `inspect.signature`), or to a method of plain data (`d.get('k')`, `s.split()`). No `open`,
//! `exec`, `__import__`, f-string, `lambda`, `def`, `with`, dunder attribute other than a few
//! that name things (`__version__`, `__file__`, `__name__`), and no name shadowing a builtin.

/// Builtins that compute from their arguments (and print).
#[rustfmt::skip]
mod names;
mod tokens;
use super::code_cursor::{Cursor, Statements, Token, read_all};
use names::*;
use tokens::{Tok, tokens};

impl Token for Tok {
    fn end() -> &'static Tok {
        &Tok::End
    }
    fn op(&self) -> Option<&str> {
        match self {
            Tok::Op(o) => Some(o),
            _ => None,
        }
    }
    fn name(&self) -> Option<&str> {
        match self {
            Tok::Name(n) => Some(n),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Bound {
    /// A module imported under its own dotted name's first part (`import json`).
    Module,
    /// Something imported from a module, or a module under another name.
    Imported,
    /// Plain data: literals, JSON, what reading functions return, a comprehension's variable.
    Data,
    /// A file opened for reading.
    File,
}

struct Parser<'a> {
    c: Cursor<'a, Tok>,
    names: Vec<(String, Bound)>,
    /// Dotted module names imported as such (`importlib.metadata`).
    modules: Vec<String>,
    /// Names bound to a module under another name (`import importlib.metadata as m`).
    aliases: Vec<(String, String)>,
    /// Literal paths opened for reading.
    reads: Vec<String>,
}

/// Whether the code only imports modules and prints or computes from what they hold.
pub fn only_imports_and_prints(src: &str) -> bool {
    reads(src).is_some()
}

/// The literal paths such code opens for reading; None when it does anything else.
pub fn reads(src: &str) -> Option<Vec<String>> {
    if src.len() > 4000 {
        return None;
    }
    let t = tokens(src)?;
    let mut p = Parser {
        c: Cursor::new(&t),
        names: Vec::new(),
        modules: Vec::new(),
        aliases: Vec::new(),
        reads: Vec::new(),
    };
    read_all(&mut p)?.then_some(p.reads)
}

impl<'a> Statements<'a> for Parser<'a> {
    type Tok = Tok;
    fn cursor(&mut self) -> &mut Cursor<'a, Tok> {
        &mut self.c
    }
    fn statement(&mut self) -> Option<()> {
        Parser::statement(self)
    }
}

impl Parser<'_> {
    /// A name that may be bound: not a keyword, not a builtin, no leading underscore.
    fn new_name(&mut self) -> Option<String> {
        match self.c.next() {
            Tok::Name(n)
                if !KEYWORDS_OK.contains(&n.as_str())
                    && !PURE_BUILTINS.contains(&n.as_str())
                    && !is_other_keyword(&n)
                    && !n.starts_with('_')
                    && !SECRET_HOLDERS.contains(&n.as_str())
                    && !crate::local::policy::signs::is_secret_variable_name(&n) =>
            {
                Some(n)
            }
            _ => None,
        }
    }

    fn bind(&mut self, name: String, how: Bound) {
        self.names.retain(|(n, _)| *n != name);
        if how != Bound::Module {
            self.aliases.retain(|(a, _)| *a != name);
        }
        self.names.push((name, how));
    }

    fn bound(&self, name: &str) -> Option<Bound> {
        self.names.iter().rfind(|(n, _)| n == name).map(|(_, b)| *b)
    }

    fn dotted(&mut self) -> Option<String> {
        let mut parts = vec![self.module_part()?];
        while self.c.op(".") {
            parts.push(self.module_part()?);
        }
        let name = parts.join(".");
        let acting = ACTING_MODULES
            .iter()
            .any(|m| name == *m || name.starts_with(&format!("{m}.")));
        (!acting).then_some(name)
    }

    fn module_part(&mut self) -> Option<String> {
        match self.c.next() {
            Tok::Name(n) if !n.starts_with("__") && !is_other_keyword(&n) => Some(n),
            _ => None,
        }
    }

    fn statement(&mut self) -> Option<()> {
        if self.c.word("import") {
            loop {
                let module = self.dotted()?;
                if self.c.word("as") {
                    let alias = self.new_name()?;
                    self.aliases.retain(|(a, _)| *a != alias);
                    self.aliases.push((alias.clone(), module.clone()));
                    self.bind(alias, Bound::Module);
                    self.modules.push(module);
                } else {
                    let first = module.split('.').next().unwrap_or("").to_string();
                    if PURE_BUILTINS.contains(&first.as_str()) {
                        return None;
                    }
                    self.bind(first, Bound::Module);
                    self.modules.push(module);
                }
                if !self.c.op(",") {
                    return Some(());
                }
            }
        }
        if self.c.word("from") {
            self.dotted()?;
            if !self.c.word("import") {
                return None;
            }
            let paren = self.c.op("(");
            loop {
                let name = self.new_name()?;
                let name = if self.c.word("as") {
                    self.new_name()?
                } else {
                    name
                };
                self.bind(name, Bound::Imported);
                if !self.c.op(",") {
                    break;
                }
            }
            if paren && !self.c.op(")") {
                return None;
            }
            return Some(());
        }
        // `NAME = expr`: the name holds data only when the value is data.
        if let (Tok::Name(_), Some(Tok::Op(eq))) = (self.c.peek(), self.c.t.get(self.c.i + 1))
            && eq == "="
        {
            let name = self.new_name()?;
            self.c.i += 1;
            let how = self.expr()?;
            self.bind(name, how);
            return Some(());
        }
        self.expr().map(|_| ())
    }

    /// An expression; returns what it yields.
    fn expr(&mut self) -> Option<Bound> {
        let first = self.disjunction()?;
        if self.c.word("if") {
            self.disjunction()?;
            if !self.c.word("else") {
                return None;
            }
            let other = self.expr()?;
            return Some(if first == Bound::Data && other == Bound::Data {
                Bound::Data
            } else {
                Bound::Imported
            });
        }
        Some(first)
    }

    fn disjunction(&mut self) -> Option<Bound> {
        let mut how = self.unary()?;
        loop {
            let is_op = matches!(self.c.peek(), Tok::Op(o) if ["+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", ">", "<=", ">="].contains(&o.as_str()));
            let is_word = matches!(self.c.peek(), Tok::Name(w) if ["and", "or", "in", "is", "not"].contains(&w.as_str()));
            if !is_op && !is_word {
                return Some(how);
            }
            self.c.i += 1;
            // `not in`, `is not`
            self.c.word("not");
            self.c.word("in");
            let rhs = self.unary()?;
            if rhs != Bound::Data {
                how = Bound::Imported;
            }
        }
    }

    fn unary(&mut self) -> Option<Bound> {
        if self.c.word("not") || self.c.op("-") || self.c.op("+") {
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<Bound> {
        // The dotted path so far, when it starts at a module imported by its own name.
        let mut path: Option<String> = None;
        let mut how = match self.c.next() {
            Tok::Str(_) | Tok::Num => Bound::Data,
            // `open('grader.ipynb', encoding='utf-8')`: a literal path opened for reading,
            // judged as a read of it.
            Tok::Name(n) if n == "open" && self.bound(&n).is_none() => {
                self.open_for_reading()?;
                Bound::File
            }
            Tok::Name(n) if matches!(n.as_str(), "None" | "True" | "False") => Bound::Data,
            Tok::Name(n) if PURE_BUILTINS.contains(&n.as_str()) && self.bound(&n).is_none() => {
                // A builtin is only called, never passed on (`sorted(x, key=repr)` aside).
                if !matches!(self.c.peek(), Tok::Op(o) if o == "(") {
                    return None;
                }
                self.c.op("(");
                let data = self.items(")")?;
                if DATA_RESULT.contains(&n.as_str()) || data {
                    Bound::Data
                } else {
                    Bound::Imported
                }
            }
            Tok::Name(n) if crate::local::policy::signs::is_secret_variable_name(&n) => {
                return None;
            }
            Tok::Name(n) => match self.bound(&n)? {
                Bound::Module => {
                    let module = self
                        .aliases
                        .iter()
                        .rfind(|(a, _)| *a == n)
                        .map_or(n, |(_, m)| m.clone());
                    path = Some(module);
                    Bound::Imported
                }
                b => b,
            },
            Tok::Op(o) if o == "(" => {
                let b = self.expr()?;
                if self.c.op(",") {
                    let rest = self.items(")")?;
                    if rest && b == Bound::Data {
                        Bound::Data
                    } else {
                        Bound::Imported
                    }
                } else if !self.c.op(")") {
                    return None;
                } else {
                    b
                }
            }
            Tok::Op(o) if o == "[" => self.list_or_comprehension()?,
            Tok::Op(o) if o == "{" => self.dict_items()?,
            _ => return None,
        };
        loop {
            if self.c.op(".") {
                let Tok::Name(attr) = self.c.next() else {
                    return None;
                };
                if (attr.starts_with('_') && !NAMING_DUNDERS.contains(&attr.as_str()))
                    || SECRET_HOLDERS.contains(&attr.as_str())
                    || crate::local::policy::signs::is_secret_variable_name(&attr)
                {
                    return None;
                }
                path = path.map(|p| format!("{p}.{attr}"));
                // A file opened for reading is only read.
                if how == Bound::File {
                    if !matches!(attr.as_str(), "read" | "readlines" | "readline") {
                        return None;
                    }
                    if !self.c.op("(") || !self.c.op(")") {
                        return None;
                    }
                    how = Bound::Data;
                    continue;
                }
                // A method of data is called right after; an attribute of data is data.
                if how == Bound::Data && matches!(self.c.peek(), Tok::Op(o) if o == "(") {
                    if !DATA_METHODS.contains(&attr.as_str()) {
                        return None;
                    }
                    self.c.op("(");
                    self.items(")")?;
                    continue;
                }
            } else if self.c.op("[") {
                self.subscript()?;
                path = None;
            } else if matches!(self.c.peek(), Tok::Op(o) if o == "(") {
                let pure_module_fn = path
                    .as_deref()
                    .is_some_and(|p| PURE_MODULE_FUNCTIONS.contains(&p) && self.module_imported(p));
                if !pure_module_fn {
                    return None;
                }
                self.c.op("(");
                self.items(")")?;
                how = Bound::Data;
                path = None;
            } else {
                return Some(how);
            }
        }
    }

    /// `open(PATH[, 'r'|'rb'|'rt'][, encoding=NAME])` after the name: records PATH.
    fn open_for_reading(&mut self) -> Option<()> {
        if !self.c.op("(") {
            return None;
        }
        let Tok::Str(Some(path)) = self.c.next() else {
            return None;
        };
        if path.is_empty() {
            return None;
        }
        let (mut mode, mut encoding) = (false, false);
        while self.c.op(",") {
            if matches!(self.c.peek(), Tok::Op(o) if o == ")") {
                break;
            }
            match self.c.next() {
                Tok::Str(Some(m))
                    if !mode && !encoding && matches!(m.as_str(), "r" | "rb" | "rt") =>
                {
                    mode = true
                }
                Tok::Name(k) if k == "encoding" && !encoding => {
                    if !self.c.op("=") || !matches!(self.c.next(), Tok::Str(Some(_))) {
                        return None;
                    }
                    encoding = true;
                }
                _ => return None,
            }
        }
        if !self.c.op(")") {
            return None;
        }
        self.reads.push(path);
        Some(())
    }

    /// `importlib.metadata.version` is callable only when `importlib.metadata` was imported
    /// as such; `json.load` when `json` was (`os.path` and `sys.stdin` come with `os`, `sys`).
    fn module_imported(&self, function: &str) -> bool {
        let module = function.rsplit_once('.').map_or("", |(m, _)| m);
        let has = |m: &str| self.modules.iter().any(|x| x == m);
        has(module) || (module == "os.path" && has("os")) || (module == "sys.stdin" && has("sys"))
    }

    /// Call arguments or collection items up to `close`: expressions, `*x`, and the keyword
    /// arguments that format (`sep=`, `indent=` …; never `key=`, `default=`, `file=`, which
    /// name a function to call or a file to write). Returns whether every item is data.
    fn items(&mut self, close: &str) -> Option<bool> {
        let mut data = true;
        loop {
            if self.c.op(close) {
                return Some(data);
            }
            if let (Tok::Name(k), Some(Tok::Op(eq))) = (self.c.peek(), self.c.t.get(self.c.i + 1))
                && eq == "="
            {
                if !FORMAT_KEYWORDS.contains(&k.as_str()) {
                    return None;
                }
                self.c.i += 2;
            }
            self.c.op("*");
            data &= self.expr()? == Bound::Data;
            if !self.c.op(",") {
                return self.c.op(close).then_some(data);
            }
        }
    }

    fn dict_items(&mut self) -> Option<Bound> {
        let mut data = true;
        loop {
            if self.c.op("}") {
                break;
            }
            data &= self.expr()? == Bound::Data;
            if self.c.op(":") {
                data &= self.expr()? == Bound::Data;
            }
            if !self.c.op(",") {
                if !self.c.op("}") {
                    return None;
                }
                break;
            }
        }
        Some(if data { Bound::Data } else { Bound::Imported })
    }

    fn subscript(&mut self) -> Option<()> {
        loop {
            if self.c.op("]") {
                return Some(());
            }
            if !self.c.op(":") {
                self.expr()?;
                self.c.op(":");
            }
            if !matches!(self.c.peek(), Tok::Op(o) if o == "]") && !self.c.op(",") {
                self.expr()?;
            }
        }
    }

    /// `[a, b]` or `[expr for NAME in expr (if expr)*]`.
    fn list_or_comprehension(&mut self) -> Option<Bound> {
        if self.c.op("]") {
            return Some(Bound::Data);
        }
        let start = self.c.i;
        // Skip to a top-level `for` to bind its variable before reading the element.
        let mut depth = 0i32;
        let mut j = self.c.i;
        let mut for_at = None;
        while let Some(t) = self.c.t.get(j) {
            match t {
                Tok::Op(o) if o == "(" || o == "[" || o == "{" => depth += 1,
                Tok::Op(o) if o == ")" || o == "}" => depth -= 1,
                Tok::Op(o) if o == "]" => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                Tok::Name(w) if w == "for" && depth == 0 => {
                    for_at = Some(j);
                    break;
                }
                Tok::End => return None,
                _ => {}
            }
            j += 1;
        }
        let Some(for_at) = for_at else {
            let data = self.items("]")?;
            return Some(if data { Bound::Data } else { Bound::Imported });
        };
        self.c.i = for_at + 1;
        let mut vars = vec![self.new_name()?];
        while self.c.op(",") {
            vars.push(self.new_name()?);
        }
        if !self.c.word("in") {
            return None;
        }
        let over = self.disjunction()?;
        let after_iter = self.c.i;
        let saved = self.names.clone();
        for v in vars {
            self.bind(
                v,
                if over == Bound::Data {
                    Bound::Data
                } else {
                    Bound::Imported
                },
            );
        }
        while self.c.word("if") {
            self.disjunction()?;
        }
        if !self.c.op("]") {
            return None;
        }
        let end = self.c.i;
        let _ = after_iter;
        self.c.i = start;
        self.expr()?;
        if self.c.i != for_at {
            return None;
        }
        self.names = saved;
        self.c.i = end;
        Some(Bound::Data)
    }
}

/// Keywords and builtins that define, jump, reach the interpreter or read input.
#[rustfmt::skip]
fn is_other_keyword(n: &str) -> bool {
    OTHER_KEYWORDS.contains(&n)
}

#[cfg(test)]
mod tests;
