//! JavaScript given as text (`node -e "…"`, `bun -e`) that only loads modules and prints what
//! they hold (`const a = require('firebase-admin'); console.log(typeof a.credential)`,
//! `console.log(require('./package.json').version)`, `console.log(process.version)`): loading
//! runs the code of the project's own modules and of its installed packages, as its tests do, so
//! such code is the project's code, allowed where it runs inside the project. The same narrow
//! grammar as [`crate::local::scripts::python_code`]: declarations of names, `console.log(…)` and
//! expressions over names, properties, literals, `typeof`, operators and object and array
//! literals; a call only to `require` of a literal name, to a reading or computing function of a
//! module or global (`fs.readFileSync(PATH)`, `JSON.stringify`, `Object.keys`, `crypto.randomBytes`)
//! or to a method of plain data (`b.readUInt32BE(16)`, `s.split(',')`). No arrow function,
//! template literal, `import()`, `eval`, `process.env`, `constructor` or `__proto__`. A literal
//! path it reads (`require('./x.json')`, `fs.readFileSync('a.png')`) is returned, to be judged
//! as a read.

use super::code_cursor::{Cursor, Statements, Token, read_all};

/// Functions of a module (`require('fs')`) or global that read or compute only.
#[rustfmt::skip]
const PURE_FUNCTIONS: &[&str] = &[
    "console.log", "console.info", "console.error", "console.warn", "console.dir", "console.table",
    "JSON.stringify", "JSON.parse", "Object.keys", "Object.values", "Object.entries",
    "Array.isArray", "Math.max", "Math.min", "Math.round", "Math.floor", "Math.ceil", "Math.abs",
    "Number", "String", "Boolean", "parseInt", "parseFloat", "path.join", "path.resolve",
    "path.basename", "path.dirname", "path.extname", "crypto.randomBytes", "crypto.randomUUID",
    "os.platform", "os.arch", "os.release",
];

/// Globals that may be named.
#[rustfmt::skip]
const GLOBALS: &[&str] = &[
    "console", "JSON", "Object", "Array", "Math", "Number", "String", "Boolean", "parseInt",
    "parseFloat", "process", "Bun",
];

/// Properties of `process` and `Bun` that name the runtime.
const RUNTIME_PROPERTIES: &[&str] = &["version", "versions", "platform", "arch", "revision"];

/// Methods of plain data (strings, arrays, buffers, parsed JSON).
#[rustfmt::skip]
const DATA_METHODS: &[&str] = &[
    "toString", "readUInt32BE", "readUInt32LE", "readUInt16BE", "readUInt16LE", "readUInt8",
    "slice", "includes", "startsWith", "endsWith", "split", "join", "trim", "toLowerCase",
    "toUpperCase", "indexOf", "toFixed", "padStart", "padEnd", "at", "concat", "subarray",
];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Num(String),
    Op(String),
    End,
}

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

fn tokens(src: &str) -> Option<Vec<Tok>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' | b';' => {
                out.push(Tok::End);
                i += 1;
            }
            b'\'' | b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != c {
                    if b[j] == b'\\' || b[j] == b'\n' {
                        return None;
                    }
                    j += 1;
                }
                if j >= b.len() {
                    return None;
                }
                out.push(Tok::Str(src[i + 1..j].to_string()));
                i = j + 1;
            }
            b'0'..=b'9' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                    i += 1;
                }
                out.push(Tok::Num(src[start..i].to_string()));
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Tok::Name(src[start..i].to_string()));
            }
            _ => {
                let three = src.get(i..i + 3).unwrap_or("");
                let two = src.get(i..i + 2).unwrap_or("");
                if matches!(three, "===" | "!==") {
                    out.push(Tok::Op(three.to_string()));
                    i += 3;
                } else if two == "=>" {
                    return None;
                } else if matches!(two, "==" | "!=" | "<=" | ">=" | "&&" | "||" | "??") {
                    out.push(Tok::Op(two.to_string()));
                    i += 2;
                } else if b".,:=+-*%<>!?()[]{}".contains(&c) {
                    out.push(Tok::Op((c as char).to_string()));
                    i += 1;
                } else {
                    return None;
                }
            }
        }
    }
    out.push(Tok::End);
    Some(out)
}

#[derive(Clone, PartialEq)]
enum Val {
    /// A module (`require('fs')`) or global, by its dotted path so far.
    Path(String),
    /// Something a module holds: may be read, not called.
    Held,
    /// Plain data.
    Data,
}

struct Parser<'a> {
    c: Cursor<'a, Tok>,
    names: Vec<(String, Val)>,
    reads: Vec<String>,
    /// Inside `typeof`: only a type name comes out, so a secret-looking property is harmless.
    typeof_only: bool,
}

/// The literal paths such code reads (`require('./x.json')`, `fs.readFileSync('a')`); None when
/// it does anything else.
pub fn reads(src: &str) -> Option<Vec<String>> {
    if src.len() > 4000 {
        return None;
    }
    let t = tokens(src)?;
    let mut p = Parser {
        c: Cursor::new(&t),
        names: Vec::new(),
        reads: Vec::new(),
        typeof_only: false,
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
    fn new_name(&mut self) -> Option<String> {
        match self.c.next() {
            // A secret-looking name may be bound (`const {getAuth} = require(…)`); its value is
            // only ever used under `typeof` (below).
            Tok::Name(n) if plain_name(&n) && !GLOBALS.contains(&n.as_str()) && n != "require" => {
                Some(n)
            }
            _ => None,
        }
    }

    fn bind(&mut self, name: String, v: Val) {
        self.names.retain(|(n, _)| *n != name);
        self.names.push((name, v));
    }

    fn statement(&mut self) -> Option<()> {
        if self.c.word("const") || self.c.word("let") || self.c.word("var") {
            if self.c.op("{") {
                // `const {a, b: c} = require('x')`: each name holds what the module holds.
                let mut bound = Vec::new();
                loop {
                    if self.c.op("}") {
                        break;
                    }
                    let key = self.new_name()?;
                    let name = if self.c.op(":") {
                        self.new_name()?
                    } else {
                        key
                    };
                    bound.push(name);
                    if !self.c.op(",") {
                        if !self.c.op("}") {
                            return None;
                        }
                        break;
                    }
                }
                if !self.c.op("=") {
                    return None;
                }
                let v = self.expr()?;
                let each = if v == Val::Data { Val::Data } else { Val::Held };
                for n in bound {
                    self.bind(n, each.clone());
                }
                return Some(());
            }
            let name = self.new_name()?;
            if !self.c.op("=") {
                return None;
            }
            let v = self.expr()?;
            self.bind(name, v);
            return Some(());
        }
        self.expr().map(|_| ())
    }

    fn expr(&mut self) -> Option<Val> {
        let first = self.binary()?;
        if self.c.op("?") {
            let a = self.expr()?;
            if !self.c.op(":") {
                return None;
            }
            let b = self.expr()?;
            return Some(if first == Val::Data && a == Val::Data && b == Val::Data {
                Val::Data
            } else {
                Val::Held
            });
        }
        Some(first)
    }

    fn binary(&mut self) -> Option<Val> {
        let mut v = self.unary()?;
        while matches!(self.c.peek(), Tok::Op(o) if ["+", "-", "*", "%", "===", "!==", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "??"].contains(&o.as_str()))
        {
            self.c.i += 1;
            if self.unary()? != Val::Data || v != Val::Data {
                v = Val::Held;
            }
        }
        Some(v)
    }

    fn unary(&mut self) -> Option<Val> {
        if self.c.word("typeof") {
            let outer = std::mem::replace(&mut self.typeof_only, true);
            let v = self.unary();
            self.typeof_only = outer;
            v?;
            return Some(Val::Data);
        }
        if self.c.op("!") {
            self.unary()?;
            return Some(Val::Data);
        }
        if self.c.op("-") || self.c.op("+") {
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<Val> {
        let mut v = match self.c.next() {
            Tok::Str(_) | Tok::Num(_) => Val::Data,
            Tok::Name(n) if matches!(n.as_str(), "true" | "false" | "null" | "undefined") => {
                Val::Data
            }
            Tok::Name(n) if n == "require" => self.require()?,
            Tok::Name(n) if GLOBALS.contains(&n.as_str()) => Val::Path(n),
            Tok::Name(n) if !self.typeof_only && !ok_name(&n) => return None,
            Tok::Name(n) => self.names.iter().rfind(|(x, _)| *x == n)?.1.clone(),
            Tok::Op(o) if o == "(" => {
                let v = self.expr()?;
                if !self.c.op(")") {
                    return None;
                }
                v
            }
            Tok::Op(o) if o == "[" => {
                if self.items("]")? {
                    Val::Data
                } else {
                    Val::Held
                }
            }
            Tok::Op(o) if o == "{" => self.object()?,
            _ => return None,
        };
        loop {
            if self.c.op(".") {
                let Tok::Name(prop) = self.c.next() else {
                    return None;
                };
                let secret = crate::local::policy::signs::is_secret_variable_name(&prop);
                if prop.starts_with('_')
                    || (secret && !self.typeof_only)
                    || matches!(
                        prop.as_str(),
                        "constructor"
                            | "prototype"
                            | "env"
                            | "mainModule"
                            | "binding"
                            | "caller"
                            | "callee"
                    )
                {
                    return None;
                }
                let calling = matches!(self.c.peek(), Tok::Op(o) if o == "(");
                v = match v {
                    Val::Path(p) if matches!(p.as_str(), "process" | "Bun") => {
                        if !RUNTIME_PROPERTIES.contains(&prop.as_str()) {
                            return None;
                        }
                        Val::Data
                    }
                    Val::Path(p) => Val::Path(format!("{p}.{prop}")),
                    Val::Data if calling => {
                        if !DATA_METHODS.contains(&prop.as_str()) {
                            return None;
                        }
                        self.c.op("(");
                        self.items(")")?;
                        Val::Data
                    }
                    Val::Data => Val::Data,
                    Val::Held if calling => return None,
                    Val::Held => Val::Held,
                };
            } else if self.c.op("[") {
                self.expr()?;
                if !self.c.op("]") {
                    return None;
                }
                v = match v {
                    Val::Data => Val::Data,
                    _ => Val::Held,
                };
            } else if matches!(self.c.peek(), Tok::Op(o) if o == "(") {
                let Val::Path(p) = &v else { return None };
                if p == "fs.readFileSync" || p == "fs.existsSync" {
                    self.c.op("(");
                    self.read_file()?;
                } else if PURE_FUNCTIONS.contains(&p.as_str()) {
                    self.c.op("(");
                    self.items(")")?;
                } else {
                    return None;
                }
                v = Val::Data;
            } else {
                return Some(v);
            }
        }
    }

    /// `require('name')`: a module by name is a path to call its pure functions on; a file
    /// (`./x.json`, `/abs`) is read.
    fn require(&mut self) -> Option<Val> {
        if !self.c.op("(") {
            return None;
        }
        let Tok::Str(name) = self.c.next() else {
            return None;
        };
        if !self.c.op(")") || name.is_empty() {
            return None;
        }
        if name.starts_with(['.', '/']) {
            self.reads.push(name);
            return Some(Val::Held);
        }
        let name = name.strip_prefix("node:").unwrap_or(&name).to_string();
        Some(Val::Path(name))
    }

    /// `fs.readFileSync(PATH | 0[, 'utf8' | {encoding: 'utf8'}])`, after the `(`.
    fn read_file(&mut self) -> Option<()> {
        match self.c.next() {
            Tok::Str(p) if !p.is_empty() => self.reads.push(p),
            Tok::Num(n) if n == "0" => {}
            _ => return None,
        }
        if self.c.op(",") {
            match self.c.next() {
                Tok::Str(_) => {}
                Tok::Op(o) if o == "{" => {
                    if !self.c.word("encoding")
                        || !self.c.op(":")
                        || !matches!(self.c.next(), Tok::Str(_))
                        || !self.c.op("}")
                    {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        self.c.op(")").then_some(())
    }

    /// Items up to `close`; whether every one is data.
    fn items(&mut self, close: &str) -> Option<bool> {
        let mut data = true;
        loop {
            if self.c.op(close) {
                return Some(data);
            }
            data &= self.expr()? == Val::Data;
            if !self.c.op(",") {
                return self.c.op(close).then_some(data);
            }
        }
    }

    /// `{key: value, name, 'key': value}`.
    fn object(&mut self) -> Option<Val> {
        let mut data = true;
        loop {
            if self.c.op("}") {
                break;
            }
            let key = self.c.next();
            match &key {
                Tok::Name(k) if !k.starts_with('_') => {
                    if self.c.op(":") {
                        data &= self.expr()? == Val::Data;
                    } else {
                        let v = self.names.iter().rfind(|(x, _)| x == k)?.1.clone();
                        data &= v == Val::Data;
                    }
                }
                Tok::Str(_) => {
                    if !self.c.op(":") {
                        return None;
                    }
                    data &= self.expr()? == Val::Data;
                }
                _ => return None,
            }
            if !self.c.op(",") {
                if !self.c.op("}") {
                    return None;
                }
                break;
            }
        }
        Some(if data { Val::Data } else { Val::Held })
    }
}

fn ok_name(n: &str) -> bool {
    plain_name(n) && !crate::local::policy::signs::is_secret_variable_name(n)
}

/// Keywords and globals that define, jump, or reach the runtime's own machinery.
#[rustfmt::skip]
const RESERVED: &[&str] = &[
    "constructor", "prototype", "eval", "Function", "import", "new", "function", "class", "this",
    "globalThis", "global", "window", "async", "await", "delete", "void", "with", "if", "for",
    "while", "return", "throw", "try", "catch", "const", "let", "var", "typeof", "in", "of",
    "instanceof", "yield", "super", "arguments", "module", "exports", "setTimeout", "setInterval",
    "setImmediate", "queueMicrotask", "fetch",
];

/// Not a keyword, a dunder or a way to reach the runtime's own machinery.
fn plain_name(n: &str) -> bool {
    !n.starts_with('_') && !RESERVED.contains(&n)
}

#[cfg(test)]
mod tests;
