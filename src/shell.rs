//! Shell parsing: a Bash command string in, every simple command it would run out.
//!
//! The grammar is brush-parser's; this module walks its syntax tree, follows every place code can
//! hide (substitutions, here-docs fed to a shell, `bash -c`, `eval`, `xargs`, `find -exec`, …),
//! unwraps wrappers and normalises command names. Whatever it cannot see through is recorded in
//! [`Analysis::unknowns`], which makes the command UNCERTAIN: it never turns into an ALLOW.

use brush_parser::ParserOptions;
use brush_parser::ast;
use brush_parser::word::{self, WordPiece, WordPieceWithSource};

/// How deep `bash -c`, `eval` and substitutions may nest before the rest is treated as unknown.
pub const MAX_DEPTH: usize = 8;
/// Commands longer than this are not parsed at all (UNCERTAIN).
pub const MAX_COMMAND_BYTES: usize = 128 * 1024;
/// Bracket nesting beyond this is not handed to the parser, whose recursion it could exhaust.
const MAX_BRACKET_NESTING: usize = 64;

/// Directories whose programs are the system's own: `/bin/rm` is `rm`, but `./rm` is not.
const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "/run/current-system/sw/bin",
];

/// Shells whose `-c STRING` or stdin is itself a script to check.
const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "busybox-sh",
];

/// How much sentinel knows about a word's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WordKind {
    /// The text is exactly the value the command will see.
    Literal,
    /// Unquoted glob characters, no expansions: the value lies under the literal prefix.
    Glob,
    /// Contains an expansion or substitution: the value is not known before it runs.
    Computed,
}

/// One word of a command after quote removal; expansions stay in their source form.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Word {
    /// The text, quotes removed, `$X`, `$( … )` and `~` kept as written.
    pub text: String,
    /// Whether the text is the value.
    pub kind: WordKind,
}

impl Word {
    /// A literal word.
    pub fn literal(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            kind: WordKind::Literal,
        }
    }

    /// True when the word's value is exactly its text.
    pub fn is_literal(&self) -> bool {
        self.kind == WordKind::Literal
    }
}

/// What a redirection does with its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedirectKind {
    /// `<`
    Read,
    /// `>`, `>|`, `<>`, `&>`
    Write,
    /// `>>`, `&>>`
    Append,
    /// `>&2`, `<&0`: duplicates a file descriptor.
    Duplicate,
    /// `<<EOF`
    HereDoc,
    /// `<<<`
    HereString,
}

impl RedirectKind {
    /// True when the target is a file that gets written.
    pub fn writes(self) -> bool {
        matches!(self, RedirectKind::Write | RedirectKind::Append)
    }

    fn symbol(self) -> &'static str {
        match self {
            RedirectKind::Read => "<",
            RedirectKind::Write => ">",
            RedirectKind::Append => ">>",
            RedirectKind::Duplicate => ">&",
            RedirectKind::HereDoc => "<<",
            RedirectKind::HereString => "<<<",
        }
    }
}

/// A redirection of a simple command.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Redirect {
    /// What it does.
    pub kind: RedirectKind,
    /// Its target: a file, a descriptor, or the here-doc / here-string text.
    pub target: Word,
}

/// The working directory a command runs in, relative to where the whole command started.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "path")]
pub enum Cwd {
    /// Where the command started.
    Start,
    /// After a `cd` to this literal path (absolute, `~`-prefixed or relative to the start).
    Changed(String),
    /// After a `cd` whose target is not known.
    Unknown,
}

/// Whether a simple command is a wrapper around another one or a command in its own right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Runs itself.
    Command,
    /// Runs the command that follows it (`sudo`, `env`, `xargs`, `bash -c` …); that command is
    /// reported separately.
    Wrapper,
}

/// One simple command found in a shell command, after unwrapping and name normalisation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SimpleCommand {
    /// The words; `argv[0]` is the normalised name. Empty for a bare assignment or redirection.
    pub argv: Vec<Word>,
    /// Its redirections, in order.
    pub redirects: Vec<Redirect>,
    /// `NAME=value` assignments that prefix it (or that `env` passes to it).
    pub assignments: Vec<(String, Word)>,
    /// Wrappers it was reached through, outermost first.
    pub via: Vec<String>,
    /// Wrapper or command.
    pub role: Role,
    /// The directory it runs in.
    pub cwd: Cwd,
    /// More arguments are added at run time (`xargs`, `find -exec … {}`).
    pub extra_args: bool,
    /// For `find -exec`: the directories the run-time arguments lie under (find's roots).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_args_under: Vec<Word>,
    /// The directory of the command name when it is not a system bin dir (`./ls`, `/tmp/x/ls`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_dir: Option<String>,
}

impl SimpleCommand {
    /// The normalised command name, or "" for a bare assignment or redirection.
    pub fn name(&self) -> &str {
        self.argv.first().map(|w| w.text.as_str()).unwrap_or("")
    }

    /// The arguments after the name.
    pub fn args(&self) -> &[Word] {
        self.argv.get(1..).unwrap_or(&[])
    }

    /// The command as the rules see it: words joined by single spaces, then the redirections.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, w) in self.argv.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            push_flat(&mut out, &w.text);
        }
        for r in &self.redirects {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(r.kind.symbol());
            out.push(' ');
            push_flat(&mut out, &r.target.text);
        }
        if self.argv.is_empty() {
            for (name, value) in &self.assignments {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(name);
                out.push('=');
                push_flat(&mut out, &value.text);
            }
        }
        out
    }
}

/// Appends one word with its inner whitespace turned into U+00A0: rules match one line, and a
/// plain space must only ever separate words, so `git commit -m "no git push --force"` cannot
/// match `^git( \S+)* push`. (`\s` still matches U+00A0, for rules that look inside arguments.)
fn push_flat(out: &mut String, s: &str) {
    out.extend(
        s.chars()
            .map(|c| if c.is_whitespace() { '\u{a0}' } else { c }),
    );
}

/// Everything found in one shell command.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Analysis {
    /// Every simple command, in source order, wrappers before what they wrap.
    pub commands: Vec<SimpleCommand>,
    /// Pipelines of two or more stages, each rendered as `stage | stage` (innermost commands).
    pub pipelines: Vec<String>,
    /// What could not be seen through; any entry makes the command UNCERTAIN.
    pub unknowns: Vec<String>,
    /// Functions whose body calls the function itself (`:(){ :|:& };:`): fork bombs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub self_calling_functions: Vec<String>,
    /// Set when the command does not parse at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
}

/// Parses a Bash command and finds every simple command it would run.
pub fn analyse(command: &str) -> Analysis {
    let mut walker = Walker {
        out: Analysis::default(),
        cwd: Cwd::Start,
        depth: 0,
        via: Vec::new(),
        options: ParserOptions::default(),
    };
    if command.len() > MAX_COMMAND_BYTES {
        walker.out.parse_error = Some(format!(
            "command is {} bytes, over the {MAX_COMMAND_BYTES}-byte parse limit",
            command.len()
        ));
        return walker.out;
    }
    if let Err(e) = walker.script(command) {
        walker.out.parse_error = Some(e);
    }
    walker.out
}

/// Splits text that could not be parsed into rough segments at every shell operator, so that
/// hard-block rules still get a look at each piece. Used for parse errors and PowerShell.
pub fn rough_segments(text: &str) -> Vec<String> {
    text.split([';', '|', '&', '\n', '(', ')', '{', '}', '`'])
        .map(|s| {
            let s = s.trim().trim_start_matches('$').trim();
            s.split_whitespace()
                .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// Where a command's standard input comes from, as far as a script read from stdin matters.
#[derive(Clone, Debug)]
enum Stdin {
    /// The caller's stdin.
    Inherited,
    /// A pipe from a previous stage whose output is this literal text (`echo …`, `printf …`).
    Text(String),
    /// A pipe whose content is not known.
    Pipe,
}

/// What a wrapper at the front of a command does with the rest of it.
enum Unwrap {
    /// Not a wrapper here (or a wrapper with nothing to run): the command stands as it is.
    No,
    /// Runs the command starting at this index of argv.
    Inner {
        start: usize,
        label: String,
        extra_args: bool,
    },
    /// Runs this text as a shell script.
    Script { text: Word, label: String },
    /// A shell reading its script from stdin.
    StdinScript { label: String },
}

struct Walker {
    out: Analysis,
    cwd: Cwd,
    depth: usize,
    via: Vec<String>,
    options: ParserOptions,
}

impl Walker {
    fn unknown(&mut self, what: impl Into<String>) {
        let what = what.into();
        if !self.out.unknowns.contains(&what) {
            self.out.unknowns.push(what);
        }
    }

    /// Parses and walks a script; a parse failure is returned for the caller to record.
    fn script(&mut self, src: &str) -> Result<(), String> {
        if bracket_nesting(src) > MAX_BRACKET_NESTING {
            return Err(format!("brackets nest deeper than {MAX_BRACKET_NESTING}"));
        }
        let mut parser = brush_parser::Parser::new(std::io::Cursor::new(src), &self.options);
        let program = parser
            .parse_program()
            .map_err(|e| one_line(&e.to_string()))?;
        for list in &program.complete_commands {
            self.list(list);
        }
        Ok(())
    }

    /// Walks code found inside another command (`$( )`, `bash -c`, `eval` …) one level deeper.
    fn nested(&mut self, src: &str, label: &str) {
        if self.depth >= MAX_DEPTH {
            self.unknown(format!(
                "code nested deeper than {MAX_DEPTH} levels ({label})"
            ));
            return;
        }
        self.depth += 1;
        self.via.push(label.to_string());
        if let Err(e) = self.script(src) {
            self.unknown(format!("{label}: cannot parse `{}`: {e}", excerpt(src)));
            self.out.unknowns.extend(
                rough_segments(src)
                    .into_iter()
                    .map(|s| format!("unparsed segment: {s}")),
            );
        }
        self.via.pop();
        self.depth -= 1;
    }

    /// Walks code that runs in a subshell: a `cd` inside does not change what follows.
    fn in_subshell(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = self.cwd.clone();
        f(self);
        self.cwd = saved;
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for item in &list.0 {
            self.and_or(&item.0);
        }
    }

    fn and_or(&mut self, list: &ast::AndOrList) {
        self.pipeline(&list.first);
        for next in &list.additional {
            match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p),
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        if p.seq.len() == 1 {
            self.command(&p.seq[0], Stdin::Inherited);
            return;
        }
        let mut stages = Vec::new();
        let mut stdin = Stdin::Inherited;
        for cmd in &p.seq {
            let mut produced = None;
            let mut text = None;
            self.in_subshell(|w| {
                let first = w.out.commands.len();
                w.command(cmd, stdin.clone());
                // The stage as the pipe sees it: its innermost command (a shell reading the
                // pipe is a wrapper with nothing inside).
                let stage = &w.out.commands[first..];
                let inner = stage
                    .iter()
                    .rfind(|c| c.role == Role::Command)
                    .or_else(|| stage.iter().rfind(|c| c.role == Role::Wrapper));
                text = inner.map(SimpleCommand::text);
                produced = inner.and_then(literal_output);
            });
            stages.push(text.unwrap_or_else(|| "( … )".to_string()));
            stdin = produced.map(Stdin::Text).unwrap_or(Stdin::Pipe);
        }
        self.out.pipelines.push(stages.join(" | "));
    }

    fn command(&mut self, cmd: &ast::Command, stdin: Stdin) {
        match cmd {
            ast::Command::Simple(s) => self.simple(s, stdin),
            ast::Command::Compound(c, redirects) => {
                self.compound(c);
                if let Some(list) = redirects {
                    // Redirections of a compound apply to every command inside: report them
                    // as a command of their own so their targets are checked.
                    let redirects: Vec<_> =
                        list.0.iter().filter_map(|r| self.redirect(r)).collect();
                    if !redirects.is_empty() {
                        self.push(
                            Vec::new(),
                            redirects,
                            Vec::new(),
                            Role::Command,
                            false,
                            None,
                        );
                    }
                }
            }
            ast::Command::Function(f) => {
                // The body is checked where it is defined; calling it by name is an unknown
                // command, so it is never allowed on the strength of its name.
                let first = self.out.commands.len();
                self.in_subshell(|w| w.compound(&f.body.0));
                let name = self.word(&f.fname.value).text;
                if self.out.commands[first..].iter().any(|c| c.name() == name) {
                    self.out.self_calling_functions.push(name);
                }
                if let Some(list) = &f.body.1 {
                    for r in &list.0 {
                        self.redirect(r);
                    }
                }
            }
            ast::Command::ExtendedTest(t, redirects) => {
                self.test_expr(&t.expr);
                if let Some(list) = redirects {
                    let redirects: Vec<_> =
                        list.0.iter().filter_map(|r| self.redirect(r)).collect();
                    if !redirects.is_empty() {
                        self.push(
                            Vec::new(),
                            redirects,
                            Vec::new(),
                            Role::Command,
                            false,
                            None,
                        );
                    }
                }
            }
        }
    }

    fn test_expr(&mut self, e: &ast::ExtendedTestExpr) {
        use ast::ExtendedTestExpr as E;
        match e {
            E::And(a, b) | E::Or(a, b) => {
                self.test_expr(a);
                self.test_expr(b);
            }
            E::Not(a) | E::Parenthesized(a) => self.test_expr(a),
            E::UnaryTest(_, w) => {
                self.word(&w.value);
            }
            E::BinaryTest(_, a, b) => {
                self.word(&a.value);
                self.word(&b.value);
            }
        }
    }

    fn compound(&mut self, c: &ast::CompoundCommand) {
        use ast::CompoundCommand as C;
        match c {
            C::Arithmetic(a) => self.arithmetic(&a.expr.value),
            C::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value);
                }
                self.list(&f.body.list);
            }
            C::BraceGroup(g) => self.list(&g.list),
            C::Subshell(s) => self.in_subshell(|w| w.list(&s.list)),
            C::ForClause(f) => {
                for v in f.values.iter().flatten() {
                    self.word(&v.value);
                }
                self.list(&f.body.list);
            }
            C::CaseClause(c) => {
                self.word(&c.value.value);
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(&p.value);
                    }
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd);
                    }
                }
            }
            C::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c);
                    }
                    self.list(&e.body);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0);
                self.list(&w.1.list);
            }
            C::Coprocess(c) => self.in_subshell(|w| w.command(&c.body, Stdin::Inherited)),
        }
    }

    /// Arithmetic can hide command substitutions (`$(( $(cmd) ))`, `a[$(cmd)]`).
    fn arithmetic(&mut self, text: &str) {
        self.hidden_substitutions(text, "arithmetic");
    }

    fn simple(&mut self, s: &ast::SimpleCommand, stdin: Stdin) {
        let mut argv = Vec::new();
        let mut redirects = Vec::new();
        let mut assignments = Vec::new();
        let mut stdin = stdin;
        let items = s
            .prefix
            .iter()
            .flat_map(|p| p.0.iter().map(|i| (i, true)))
            .chain(s.word_or_name.iter().map(|_| (&NAME_MARKER, false)))
            .chain(s.suffix.iter().flat_map(|p| p.0.iter().map(|i| (i, false))));
        for (item, in_prefix) in items {
            if std::ptr::eq(item, &NAME_MARKER) {
                if let Some(name) = &s.word_or_name {
                    argv.push(self.word(&name.value));
                }
                continue;
            }
            match item {
                ast::CommandPrefixOrSuffixItem::Word(w) => argv.push(self.word(&w.value)),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    let value = self.assignment_value(&a.value);
                    if in_prefix || argv.is_empty() {
                        assignments.push((assignment_name(&a.name), value));
                    } else {
                        // `export X=1`, `declare X=1`: an argument that assigns.
                        let name = assignment_name(&a.name);
                        let text = format!("{name}={}", value.text);
                        let _ = w;
                        argv.push(Word {
                            text,
                            kind: value.kind,
                        });
                    }
                }
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => {
                    if let Some(r) = self.redirect(r) {
                        if matches!(r.kind, RedirectKind::HereDoc | RedirectKind::HereString) {
                            stdin = if r.target.is_literal() {
                                Stdin::Text(r.target.text.clone())
                            } else {
                                Stdin::Pipe
                            };
                        }
                        redirects.push(r);
                    }
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                    let label = match kind {
                        ast::ProcessSubstitutionKind::Read => "<( )",
                        ast::ProcessSubstitutionKind::Write => ">( )",
                    };
                    self.process_substitution(label, sub);
                    argv.push(Word {
                        text: format!(
                            "{label_open}{}{label_close}",
                            one_line(&sub.list.to_string()),
                            label_open = &label[..2],
                            label_close = ")"
                        ),
                        kind: WordKind::Computed,
                    });
                }
            }
        }
        for (name, value) in &assignments {
            self.check_assignment(name, value);
        }
        self.emit(argv, redirects, assignments, stdin);
    }

    fn process_substitution(&mut self, label: &str, sub: &ast::SubshellCommand) {
        if self.depth >= MAX_DEPTH {
            self.unknown(format!(
                "code nested deeper than {MAX_DEPTH} levels ({label})"
            ));
            return;
        }
        self.depth += 1;
        self.via.push(label.to_string());
        self.in_subshell(|w| w.list(&sub.list));
        self.via.pop();
        self.depth -= 1;
    }

    fn assignment_value(&mut self, v: &ast::AssignmentValue) -> Word {
        match v {
            ast::AssignmentValue::Scalar(w) => self.word(&w.value),
            ast::AssignmentValue::Array(items) => {
                let mut text = String::from("(");
                for (key, value) in items {
                    if let Some(k) = key {
                        self.word(&k.value);
                    }
                    text.push_str(&self.word(&value.value).text);
                    text.push(' ');
                }
                text.push(')');
                Word {
                    text,
                    kind: WordKind::Computed,
                }
            }
        }
    }

    /// Variables that change which program runs or what it executes: setting one makes the
    /// command's meaning depend on more than its words.
    fn check_assignment(&mut self, name: &str, value: &Word) {
        if is_dangerous_variable(name) {
            self.unknown(format!(
                "sets {name}={}, which changes what the command runs",
                excerpt(&value.text)
            ));
        }
    }

    fn redirect(&mut self, r: &ast::IoRedirect) -> Option<Redirect> {
        use ast::IoFileRedirectKind as K;
        use ast::IoFileRedirectTarget as T;
        match r {
            ast::IoRedirect::File(_, kind, target) => {
                let kind = match kind {
                    K::Read => RedirectKind::Read,
                    K::Write | K::Clobber | K::ReadAndWrite => RedirectKind::Write,
                    K::Append => RedirectKind::Append,
                    K::DuplicateInput | K::DuplicateOutput => RedirectKind::Duplicate,
                };
                let target = match target {
                    T::Filename(w) => self.word(&w.value),
                    T::Fd(fd) => Word::literal(fd.to_string()),
                    T::Duplicate(w) => {
                        let w = self.word(&w.value);
                        // `>&file` writes a file unless the target is a descriptor.
                        let is_fd = w
                            .text
                            .trim_end_matches('-')
                            .chars()
                            .all(|c| c.is_ascii_digit());
                        if !is_fd || !w.is_literal() {
                            return Some(Redirect {
                                kind: RedirectKind::Write,
                                target: w,
                            });
                        }
                        w
                    }
                    T::ProcessSubstitution(k, sub) => {
                        let label = match k {
                            ast::ProcessSubstitutionKind::Read => "<( )",
                            ast::ProcessSubstitutionKind::Write => ">( )",
                        };
                        self.process_substitution(label, sub);
                        return None;
                    }
                };
                Some(Redirect { kind, target })
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                let body = &doc.doc.value;
                let kind = if doc.requires_expansion {
                    match word::parse_heredoc(body, &self.options) {
                        Ok(pieces) => {
                            let mut text = String::new();
                            let mut kind = WordKind::Literal;
                            for p in &pieces {
                                self.piece(p, body, true, &mut text, &mut kind);
                            }
                            kind
                        }
                        Err(_) => {
                            self.unknown("a here-document whose expansions cannot be parsed");
                            WordKind::Computed
                        }
                    }
                } else {
                    WordKind::Literal
                };
                Some(Redirect {
                    kind: RedirectKind::HereDoc,
                    target: Word {
                        text: body.clone(),
                        kind,
                    },
                })
            }
            ast::IoRedirect::HereString(_, w) => Some(Redirect {
                kind: RedirectKind::HereString,
                target: self.word(&w.value),
            }),
            ast::IoRedirect::OutputAndError(w, append) => Some(Redirect {
                kind: if *append {
                    RedirectKind::Append
                } else {
                    RedirectKind::Write
                },
                target: self.word(&w.value),
            }),
        }
    }

    /// Quote removal and expansion discovery for one word; substitutions inside are walked.
    fn word(&mut self, raw: &str) -> Word {
        match word::parse(raw, &self.options) {
            Ok(pieces) => {
                let mut text = String::new();
                let mut kind = WordKind::Literal;
                for p in &pieces {
                    self.piece(p, raw, false, &mut text, &mut kind);
                }
                Word { text, kind }
            }
            Err(_) => {
                self.unknown(format!("cannot parse the word `{}`", excerpt(raw)));
                self.hidden_substitutions(raw, "word");
                Word {
                    text: raw.to_string(),
                    kind: WordKind::Computed,
                }
            }
        }
    }

    fn piece(
        &mut self,
        p: &WordPieceWithSource,
        raw: &str,
        quoted: bool,
        text: &mut String,
        kind: &mut WordKind,
    ) {
        let source = raw.get(p.start_index..p.end_index).unwrap_or("");
        let computed = |kind: &mut WordKind| *kind = WordKind::Computed;
        match &p.piece {
            WordPiece::Text(s) => {
                text.push_str(s);
                if !quoted && *kind == WordKind::Literal && has_glob_or_brace(s) {
                    *kind = WordKind::Glob;
                }
                if !quoted && has_brace_expansion(s) {
                    computed(kind);
                }
            }
            WordPiece::SingleQuotedText(s) => text.push_str(s),
            WordPiece::AnsiCQuotedText(s) => {
                text.push_str(s);
                if s.contains('\\') {
                    computed(kind);
                }
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                for i in inner {
                    self.piece(i, raw, true, text, kind);
                }
            }
            WordPiece::TildeExpansion(t) => match t {
                word::TildeExpr::Home => text.push('~'),
                _ => {
                    text.push_str(source);
                    computed(kind);
                }
            },
            WordPiece::ParameterExpansion(expr) => {
                text.push_str(source);
                computed(kind);
                if !matches!(
                    expr,
                    word::ParameterExpr::Parameter {
                        indirect: false,
                        ..
                    }
                ) {
                    self.hidden_substitutions(source, "parameter expansion");
                }
            }
            WordPiece::CommandSubstitution(inner) => {
                text.push_str(source);
                computed(kind);
                self.in_subshell(|w| w.nested(inner, "$( )"));
            }
            WordPiece::BackquotedCommandSubstitution(inner) => {
                text.push_str(source);
                computed(kind);
                let inner = unescape_backquoted(inner);
                self.in_subshell(|w| w.nested(&inner, "` `"));
            }
            WordPiece::EscapeSequence(s) => {
                text.push_str(s.strip_prefix('\\').unwrap_or(s));
            }
            WordPiece::ArithmeticExpression(e) => {
                text.push_str(source);
                computed(kind);
                self.arithmetic(&e.value);
            }
        }
    }

    /// Finds `$( … )` and backquotes inside text the parser keeps as a string (parameter
    /// defaults, arithmetic) and walks them, and marks the command uncertain.
    fn hidden_substitutions(&mut self, text: &str, context: &str) {
        let mut found = false;
        let mut rest = text;
        while let Some(i) = rest.find("$(").or_else(|| rest.find('`')) {
            found = true;
            let tail = &rest[i..];
            if let Ok(pieces) = word::parse(tail, &self.options) {
                match pieces.first().map(|p| &p.piece) {
                    Some(WordPiece::CommandSubstitution(s)) => self.nested(s, "$( )"),
                    Some(WordPiece::BackquotedCommandSubstitution(s)) => self.nested(s, "` `"),
                    Some(WordPiece::ArithmeticExpression(e)) if e.value != tail => {
                        self.arithmetic(&e.value)
                    }
                    _ => {}
                }
            }
            rest = &tail[1..];
        }
        if found || text.contains("<(") || text.contains(">(") {
            self.unknown(format!(
                "command substitution inside {context} `{}`",
                excerpt(text)
            ));
        }
    }

    /// Unwraps wrappers at the front of argv and records every simple command.
    fn emit(
        &mut self,
        mut argv: Vec<Word>,
        redirects: Vec<Redirect>,
        mut assignments: Vec<(String, Word)>,
        stdin: Stdin,
    ) {
        let mut redirects = redirects;
        let mut extra_args = false;
        let via_len = self.via.len();
        let mut hops = 0;
        loop {
            let name_dir = self.normalise_name(&mut argv);
            let name = argv.first().map(|w| w.text.clone()).unwrap_or_default();
            if name == "cd" || name == "pushd" || name == "popd" {
                self.change_dir(&argv);
            }
            if name == "git" {
                self.git_config_code(&argv);
            }
            if matches!(
                name.as_str(),
                "export" | "declare" | "typeset" | "local" | "readonly"
            ) {
                for a in argv.iter().skip(1) {
                    if let Some((var, value)) = a.text.split_once('=') {
                        let value = Word {
                            text: value.to_string(),
                            kind: a.kind,
                        };
                        self.check_assignment(var, &value);
                    }
                }
            }
            if name == "find"
                && argv
                    .iter()
                    .any(|w| w.text.starts_with("-exec") || w.text.starts_with("-ok"))
            {
                let (own, execs) = split_find(argv);
                let roots = find_roots(&own);
                self.push(
                    own,
                    redirects,
                    assignments,
                    Role::Command,
                    extra_args,
                    name_dir,
                );
                for (label, cmd) in execs {
                    if cmd.is_empty() {
                        continue;
                    }
                    self.via.push(label);
                    self.emit_extra(cmd, &roots);
                    self.via.pop();
                }
                break;
            }
            hops += 1;
            let unwrap = if hops > 16 {
                Unwrap::No
            } else {
                wrapper(&argv)
            };
            match unwrap {
                Unwrap::No => {
                    self.push(
                        argv,
                        redirects,
                        assignments,
                        Role::Command,
                        extra_args,
                        name_dir,
                    );
                    break;
                }
                Unwrap::Inner {
                    start,
                    label,
                    extra_args: more,
                } => {
                    let inner = argv.split_off(start.min(argv.len()));
                    let (env_assignments, inner) = if name == "env" {
                        split_env_assignments(inner)
                    } else {
                        (Vec::new(), inner)
                    };
                    if name == "env"
                        && argv.iter().any(|w| {
                            matches!(w.text.as_str(), "-C" | "--chdir")
                                || w.text.starts_with("--chdir=")
                        })
                    {
                        self.cwd = Cwd::Unknown;
                    }
                    self.push(
                        argv,
                        Vec::new(),
                        assignments,
                        Role::Wrapper,
                        extra_args,
                        name_dir,
                    );
                    for (n, v) in &env_assignments {
                        self.check_assignment(n, v);
                    }
                    assignments = env_assignments;
                    extra_args |= more;
                    self.via.push(label);
                    argv = inner;
                    if argv.is_empty() {
                        // `xargs` with no command runs echo; a wrapper with nothing after it
                        // has been recorded already.
                        if extra_args {
                            argv.push(Word::literal("echo"));
                        } else {
                            break;
                        }
                    }
                }
                Unwrap::Script { text, label } => {
                    let script = text.clone();
                    self.push(
                        argv,
                        std::mem::take(&mut redirects),
                        assignments,
                        Role::Wrapper,
                        extra_args,
                        name_dir,
                    );
                    if script.kind == WordKind::Computed {
                        self.unknown(format!(
                            "{label} runs a computed script `{}`",
                            excerpt(&script.text)
                        ));
                    } else {
                        self.nested(&script.text, &label);
                    }
                    break;
                }
                Unwrap::StdinScript { label } => {
                    self.push(
                        argv,
                        std::mem::take(&mut redirects),
                        assignments,
                        Role::Wrapper,
                        extra_args,
                        name_dir,
                    );
                    match &stdin {
                        Stdin::Text(t) => self.nested(t, &label),
                        Stdin::Pipe => {
                            self.unknown(format!("{label} reads its script from a pipe"))
                        }
                        Stdin::Inherited => {
                            self.unknown(format!("{label} reads its script from stdin"))
                        }
                    }
                    break;
                }
            }
        }
        self.via.truncate(via_len);
    }

    /// Records a command that receives more arguments at run time (`find -exec … {}`).
    fn emit_extra(&mut self, argv: Vec<Word>, under: &[Word]) {
        let first = self.out.commands.len();
        self.emit(argv, Vec::new(), Vec::new(), Stdin::Inherited);
        for c in &mut self.out.commands[first..] {
            c.extra_args = true;
            c.extra_args_under = under.to_vec();
        }
    }

    fn push(
        &mut self,
        argv: Vec<Word>,
        redirects: Vec<Redirect>,
        assignments: Vec<(String, Word)>,
        role: Role,
        extra_args: bool,
        name_dir: Option<String>,
    ) {
        self.out.commands.push(SimpleCommand {
            argv,
            redirects,
            assignments,
            via: self.via.clone(),
            role,
            cwd: self.cwd.clone(),
            extra_args,
            extra_args_under: Vec::new(),
            name_dir,
        });
    }

    /// `\rm`, `"rm"`, `r''m` are already `rm` after quote removal; `/bin/rm` becomes `rm`.
    /// Returns the directory of a name that is a path outside the system bin dirs.
    fn normalise_name(&mut self, argv: &mut [Word]) -> Option<String> {
        let first = argv.first_mut()?;
        if first.kind != WordKind::Literal {
            self.unknown(format!(
                "the command name `{}` is computed",
                excerpt(&first.text)
            ));
            return None;
        }
        if first.text.contains(['{', '}']) && has_brace_expansion(&first.text) {
            self.unknown(format!(
                "the command name `{}` is a brace expansion",
                first.text
            ));
        }
        let (dir, base) = match first.text.rsplit_once('/') {
            Some((dir, base)) if !base.is_empty() => (dir.to_string(), base.to_string()),
            _ => return None,
        };
        first.text = base;
        let dir = if dir.is_empty() { "/".to_string() } else { dir };
        if SYSTEM_BIN_DIRS.contains(&dir.as_str()) {
            None
        } else {
            Some(dir)
        }
    }

    fn change_dir(&mut self, argv: &[Word]) {
        let name = argv[0].text.as_str();
        let target = argv
            .iter()
            .skip(1)
            .find(|w| !(w.text.starts_with('-') && w.text.len() > 1));
        self.cwd = match (name, target) {
            ("popd", _) => Cwd::Unknown,
            (_, None) if argv.iter().skip(1).any(|w| w.text == "-") => Cwd::Unknown,
            (_, None) => Cwd::Changed("~".to_string()),
            (_, Some(t)) if !t.is_literal() && !is_home_ref(&t.text) => Cwd::Unknown,
            (_, Some(t)) => match &self.cwd {
                Cwd::Unknown => Cwd::Unknown,
                Cwd::Start => Cwd::Changed(t.text.clone()),
                Cwd::Changed(prev)
                    if t.text.starts_with('/')
                        || t.text.starts_with('~')
                        || is_home_ref(&t.text) =>
                {
                    let _ = prev;
                    Cwd::Changed(t.text.clone())
                }
                Cwd::Changed(prev) => Cwd::Changed(format!("{prev}/{}", t.text)),
            },
        };
    }

    /// `git -c alias.x='!cmd'` and `git -c core.pager=cmd` carry shell code.
    fn git_config_code(&mut self, argv: &[Word]) {
        let mut i = 1;
        while i < argv.len() {
            let a = &argv[i].text;
            let setting = if a == "-c" {
                i += 1;
                argv.get(i)
            } else if a.starts_with('-') {
                if matches!(
                    a.as_str(),
                    "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
                ) {
                    i += 1;
                }
                i += 1;
                continue;
            } else {
                break;
            };
            i += 1;
            let Some(setting) = setting else { break };
            let Some((key, value)) = setting.text.split_once('=') else {
                continue;
            };
            let key = key.to_ascii_lowercase();
            let value = Word {
                text: value.to_string(),
                kind: setting.kind,
            };
            if key.starts_with("alias.") {
                if let Some(code) = value.text.strip_prefix('!') {
                    let code = Word {
                        text: code.to_string(),
                        kind: value.kind,
                    };
                    self.run_config_script(&code, "git -c alias");
                }
            } else if is_git_code_key(&key) {
                self.unknown(format!("git -c {key} runs a program"));
                self.run_config_script(&value, &format!("git -c {key}"));
            }
        }
    }

    fn run_config_script(&mut self, code: &Word, label: &str) {
        if code.kind == WordKind::Computed {
            self.unknown(format!("{label} runs a computed script"));
        } else {
            self.nested(&code.text, label);
        }
    }
}

/// A sentinel item standing for the command name while iterating prefix, name and suffix.
static NAME_MARKER: ast::CommandPrefixOrSuffixItem =
    ast::CommandPrefixOrSuffixItem::Word(ast::Word {
        value: String::new(),
        loc: None,
    });

fn assignment_name(n: &ast::AssignmentName) -> String {
    match n {
        ast::AssignmentName::VariableName(v) => v.clone(),
        ast::AssignmentName::ArrayElementName(v, _) => v.clone(),
    }
}

/// Environment variables that decide which program runs, or inject code into one.
pub fn is_dangerous_variable(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "IFS",
        "ENV",
        "BASH_ENV",
        "PS4",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PAGER",
        "EDITOR",
        "VISUAL",
        "LESSOPEN",
        "LESSCLOSE",
        "MANPAGER",
        "NODE_OPTIONS",
        "NODE_PATH",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "CC",
        "CXX",
        "LD",
        "MAKEFLAGS",
        "GOFLAGS",
        "CDPATH",
        "HOME",
        "ZDOTDIR",
        "TERMINFO",
    ];
    const PREFIXES: &[&str] = &[
        "LD_",
        "DYLD_",
        "BASH_FUNC_",
        "GIT_",
        "PYTHON",
        "PERL5",
        "PERLLIB",
        "RUBY",
        "RUSTC",
        "CARGO_",
        "npm_config_",
        "NPM_CONFIG_",
    ];
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

fn is_git_code_key(key: &str) -> bool {
    const KEYS: &[&str] = &[
        "core.pager",
        "core.editor",
        "core.sshcommand",
        "core.fsmonitor",
        "core.hookspath",
        "core.askpass",
        "core.gitproxy",
        "diff.external",
        "sequence.editor",
        "credential.helper",
        "gpg.program",
        "gpg.ssh.program",
        "gpg.x509.program",
        "uploadpack.packobjectshook",
        "merge.tool",
        "diff.tool",
    ];
    KEYS.contains(&key)
        || key.starts_with("pager.")
        || key.starts_with("filter.")
        || key.starts_with("mergetool.")
        || key.starts_with("difftool.")
        || (key.starts_with("diff.") && (key.ends_with(".textconv") || key.ends_with(".command")))
        || (key.starts_with("merge.") && key.ends_with(".driver"))
        || (key.starts_with("credential.") && key.ends_with(".helper"))
        || key.starts_with("protocol.")
        || key.starts_with("remote.")
        || key.starts_with("url.")
        || key.starts_with("include")
}

/// `$HOME`, `${HOME}` and `~` at the start of a word name the home directory.
pub fn is_home_ref(text: &str) -> bool {
    ["$HOME", "${HOME}", "~"].iter().any(|h| {
        text.strip_prefix(h)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Unquoted `*`, `?` or a `[…]` class: bash matches the word against file names.
fn has_glob_or_brace(s: &str) -> bool {
    s.contains(['*', '?']) || s.find('[').is_some_and(|i| s[i + 1..].contains(']'))
}

/// `{a,b}` or `{1..3}` unquoted: bash turns it into several words.
fn has_brace_expansion(s: &str) -> bool {
    let Some(open) = s.find('{') else {
        return false;
    };
    let Some(close) = s[open..].find('}') else {
        return false;
    };
    let inner = &s[open + 1..open + close];
    inner.contains(',') || inner.contains("..")
}

/// The output of a pipeline stage that prints literal text, so a shell reading it can be checked.
fn literal_output(cmd: &SimpleCommand) -> Option<String> {
    let args = cmd.args();
    if args.iter().any(|a| !a.is_literal()) {
        return None;
    }
    match cmd.name() {
        "echo" => Some(
            args.iter()
                .skip_while(|a| matches!(a.text.as_str(), "-n" | "-e" | "-E" | "-ne" | "-en"))
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "printf" => Some(
            args.iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "cat" if args.is_empty() => cmd
            .redirects
            .iter()
            .find(|r| matches!(r.kind, RedirectKind::HereDoc | RedirectKind::HereString))
            .filter(|r| r.target.is_literal())
            .map(|r| r.target.text.clone()),
        _ => None,
    }
}

/// Splits the `NAME=value` words `env` takes before its command.
fn split_env_assignments(words: Vec<Word>) -> (Vec<(String, Word)>, Vec<Word>) {
    let mut assignments = Vec::new();
    let mut rest = words.into_iter().peekable();
    while let Some(w) = rest.peek() {
        match w.text.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                assignments.push((
                    name.to_string(),
                    Word {
                        text: value.to_string(),
                        kind: w.kind,
                    },
                ));
                rest.next();
            }
            _ => break,
        }
    }
    (assignments, rest.collect())
}

/// Skips options of a wrapper the way getopt does and returns the index of its first operand.
/// `short_val`/`long_val` are the options that take a value (`-u root`, `-uroot`, `--user root`).
fn skip_options(argv: &[Word], short_val: &[&str], long_val: &[&str]) -> usize {
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].text.as_str();
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
        if a.starts_with("--") {
            if !a.contains('=') && long_val.contains(&a) {
                i += 1;
            }
        } else {
            // A run of short flags: the first one that takes a value takes the rest of the
            // word, or the next word when nothing follows it.
            for (pos, c) in a.char_indices().skip(1) {
                let mut buf = [0u8; 4];
                let opt = format!("-{}", c.encode_utf8(&mut buf));
                if short_val.contains(&opt.as_str()) {
                    if pos + c.len_utf8() == a.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    i
}

/// The starting points of a `find` (the words before its first expression), `.` when none.
fn find_roots(own: &[Word]) -> Vec<Word> {
    let roots: Vec<Word> = own
        .iter()
        .skip(1)
        .skip_while(|w| {
            matches!(w.text.as_str(), "-H" | "-L" | "-P")
                || w.text.starts_with("-O")
                || w.text.starts_with("-D")
        })
        .take_while(|w| !w.text.starts_with('-') && !matches!(w.text.as_str(), "(" | "!" | ")"))
        .cloned()
        .collect();
    if roots.is_empty() {
        vec![Word::literal(".")]
    } else {
        roots
    }
}

/// Splits `find` into its own arguments and the commands its `-exec`, `-execdir`, `-ok` and
/// `-okdir` actions run (each up to `;` or `+`).
fn split_find(argv: Vec<Word>) -> (Vec<Word>, Vec<(String, Vec<Word>)>) {
    let mut own = Vec::new();
    let mut execs = Vec::new();
    let mut words = argv.into_iter();
    while let Some(w) = words.next() {
        if matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let label = format!("find {}", w.text);
            let mut cmd = Vec::new();
            for v in words.by_ref() {
                if v.text == ";" || v.text == "+" {
                    break;
                }
                cmd.push(v);
            }
            execs.push((label, cmd));
        } else {
            own.push(w);
        }
    }
    (own, execs)
}

/// Recognises a wrapper at the front of argv.
fn wrapper(argv: &[Word]) -> Unwrap {
    let Some(name) = argv.first().map(|w| w.text.as_str()) else {
        return Unwrap::No;
    };
    let inner = |start: usize, label: &str| {
        if start < argv.len() {
            Unwrap::Inner {
                start,
                label: label.to_string(),
                extra_args: false,
            }
        } else {
            Unwrap::No
        }
    };
    match name {
        "sudo" => {
            let start = skip_options(
                argv,
                &[
                    "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "-R",
                ],
                &[
                    "--user",
                    "--group",
                    "--host",
                    "--prompt",
                    "--close-from",
                    "--chdir",
                    "--role",
                    "--type",
                    "--command-timeout",
                    "--other-user",
                    "--chroot",
                ],
            );
            // `sudo -e FILE` edits a file: no command runs.
            if argv[1..start.min(argv.len())].iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "-e" | "--edit" | "-l" | "--list" | "-v" | "--validate"
                )
            }) {
                return Unwrap::No;
            }
            inner(start, "sudo")
        }
        "doas" => inner(skip_options(argv, &["-u", "-C"], &[]), "doas"),
        "env" => {
            let start = skip_options(
                argv,
                &["-u", "-C", "-S"],
                &["--unset", "--chdir", "--split-string"],
            );
            if let Some(i) = argv[1..start.min(argv.len())].iter().position(|w| {
                w.text == "-S"
                    || w.text.starts_with("--split-string")
                    || (w.text.starts_with("-S") && w.text.len() > 2)
            }) {
                let opt = &argv[i + 1];
                let text = if opt.text == "-S" || opt.text == "--split-string" {
                    argv.get(i + 2).cloned()
                } else {
                    let v = opt
                        .text
                        .trim_start_matches("--split-string=")
                        .trim_start_matches("-S");
                    Some(Word {
                        text: v.to_string(),
                        kind: opt.kind,
                    })
                };
                let rest: Vec<&str> = argv[start.min(argv.len())..]
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect();
                if let Some(mut t) = text {
                    if !rest.is_empty() {
                        t.text = format!("{} {}", t.text, rest.join(" "));
                    }
                    return Unwrap::Script {
                        text: t,
                        label: "env -S".to_string(),
                    };
                }
            }
            inner(start, "env")
        }
        "nice" => {
            let mut start = skip_options(argv, &["-n"], &["--adjustment"]);
            // `nice -10 cmd`
            while argv.get(start).is_some_and(|w| {
                w.text.starts_with('-') && w.text[1..].chars().all(|c| c.is_ascii_digit())
            }) {
                start += 1;
            }
            inner(start, "nice")
        }
        "nohup" | "builtin" | "setsid" | "unbuffer" => inner(skip_options(argv, &[], &[]), name),
        "ionice" => inner(
            skip_options(
                argv,
                &["-c", "-n", "-p", "-P", "-u"],
                &["--class", "--classdata"],
            ),
            "ionice",
        ),
        "timeout" => {
            let start = skip_options(argv, &["-s", "-k"], &["--signal", "--kill-after"]);
            inner(start + 1, "timeout")
        }
        "time" => inner(
            skip_options(argv, &["-f", "-o"], &["--format", "--output"]),
            "time",
        ),
        "command" => {
            let start = skip_options(argv, &[], &[]);
            if argv[1..start.min(argv.len())]
                .iter()
                .any(|w| w.text.contains('v') || w.text.contains('V'))
            {
                return Unwrap::No;
            }
            inner(start, "command")
        }
        "exec" => inner(skip_options(argv, &["-a"], &[]), "exec"),
        "stdbuf" => inner(
            skip_options(
                argv,
                &["-i", "-o", "-e"],
                &["--input", "--output", "--error"],
            ),
            "stdbuf",
        ),
        "xargs" => {
            let start = skip_options(
                argv,
                &["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"],
                &[
                    "--arg-file",
                    "--delimiter",
                    "--eof",
                    "--replace",
                    "--max-lines",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--process-slot-var",
                ],
            );
            Unwrap::Inner {
                start,
                label: "xargs".to_string(),
                extra_args: true,
            }
        }
        "poetry" | "pipenv" | "pdm" | "uv" | "rye" | "hatch"
            if argv.get(1).is_some_and(|w| w.text == "run") =>
        {
            if argv.get(2).is_some_and(|w| w.text.starts_with('-')) {
                return Unwrap::No;
            }
            inner(2, &format!("{name} run"))
        }
        "bundle" if argv.get(1).is_some_and(|w| w.text == "exec") => inner(2, "bundle exec"),
        "eval" => {
            let args = &argv[1..];
            if args.is_empty() {
                return Unwrap::No;
            }
            let kind = if args.iter().all(Word::is_literal) {
                WordKind::Literal
            } else {
                WordKind::Computed
            };
            let text = args
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            Unwrap::Script {
                text: Word { text, kind },
                label: "eval".to_string(),
            }
        }
        "trap" => match argv.get(1) {
            Some(w) if !w.text.starts_with('-') && argv.len() > 2 => Unwrap::Script {
                text: w.clone(),
                label: "trap".to_string(),
            },
            _ => Unwrap::No,
        },
        "watch" => {
            let start = skip_options(argv, &["-n", "-d", "-q"], &["--interval", "--differences"]);
            let args = &argv[start.min(argv.len())..];
            if args.is_empty() {
                return Unwrap::No;
            }
            let kind = if args.iter().all(Word::is_literal) {
                WordKind::Literal
            } else {
                WordKind::Computed
            };
            let text = args
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            Unwrap::Script {
                text: Word { text, kind },
                label: "watch".to_string(),
            }
        }
        n if SHELLS.contains(&n) => shell_wrapper(argv, n),
        _ => Unwrap::No,
    }
}

/// `bash -c STRING`, `bash -s`, `bash` fed on stdin, or `bash script.sh`.
fn shell_wrapper(argv: &[Word], name: &str) -> Unwrap {
    let mut has_c = false;
    let mut reads_stdin = false;
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].text.as_str();
        if a == "--" {
            i += 1;
            break;
        }
        if matches!(a, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if let Some(flags) = a.strip_prefix('-').or_else(|| a.strip_prefix('+')) {
            if flags.is_empty() {
                reads_stdin = true;
            } else if !a.starts_with("--") {
                has_c |= flags.contains('c');
                reads_stdin |= flags.contains('s');
            }
            i += 1;
            continue;
        }
        break;
    }
    if has_c {
        return match argv.get(i) {
            Some(script) => Unwrap::Script {
                text: script.clone(),
                label: format!("{name} -c"),
            },
            None => Unwrap::No,
        };
    }
    if i >= argv.len() || reads_stdin {
        return Unwrap::StdinScript {
            label: name.to_string(),
        };
    }
    Unwrap::No
}

/// Backslashes in backquotes escape `$`, `` ` `` and `\` before the inner text is parsed.
fn unescape_backquoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '$' | '`' | '\\')
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// The deepest bracket nesting in the text, counted without regard to quoting.
fn bracket_nesting(s: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in s.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The first line of an error, for one-line messages.
fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A short excerpt of some text for a reason.
pub fn excerpt(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    if flat.chars().count() > 60 {
        format!("{}…", flat.chars().take(60).collect::<String>())
    } else {
        flat
    }
}
