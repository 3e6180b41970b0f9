//! The walk over brush-parser's syntax tree: every simple command, every place code can hide.

use super::decode;
use super::unwrap::{Unwrap, find_roots, split_env_assignments, split_find, wrapper};
use super::*;
use brush_parser::ParserOptions;
use brush_parser::ast;
use brush_parser::word::{self, WordPiece, WordPieceWithSource};

/// Where a command's standard input comes from, as far as a script read from stdin matters.
#[derive(Clone, Debug)]
pub(super) enum Stdin {
    /// The caller's stdin.
    Inherited,
    /// A pipe from a previous stage whose output is this literal text (`echo …`, `printf …`).
    Text(String),
    /// A pipe whose content is not known.
    Pipe,
    /// A pipe carrying path names that all lie under these directories (`find ROOT`,
    /// `git ls-files`): what `xargs` then appends is bounded by them. `true`: they come from
    /// `find` and start with a root, so none is an option.
    Paths(Vec<Word>, bool),
}

pub(super) struct Walker {
    pub(super) out: Analysis,
    cwd: Cwd,
    depth: usize,
    via: Vec<String>,
    options: ParserOptions,
    /// The output of the last pipeline walked, when it is known (literal or decoded text).
    last_output: Option<String>,
}

impl Walker {
    pub(super) fn new() -> Walker {
        Walker {
            out: Analysis::default(),
            cwd: Cwd::Start,
            depth: 0,
            via: Vec::new(),
            options: ParserOptions::default(),
            last_output: None,
        }
    }

    fn unknown(&mut self, what: impl Into<String>) {
        let what = what.into();
        if !self.out.unknowns.contains(&what) {
            self.out.unknowns.push(what);
        }
    }

    /// Parses and walks a script; a parse failure is returned for the caller to record.
    /// Parses and walks a script; returns its output when it is one pipeline whose output is
    /// known. A parse failure is returned for the caller to record.
    pub(super) fn script(&mut self, src: &str) -> Result<Option<String>, String> {
        if bracket_nesting(src) > MAX_BRACKET_NESTING {
            return Err(format!("brackets nest deeper than {MAX_BRACKET_NESTING}"));
        }
        let mut parser = brush_parser::Parser::new(std::io::Cursor::new(src), &self.options);
        let program = parser
            .parse_program()
            .map_err(|e| one_line(&e.to_string()))?;
        self.last_output = None;
        for list in &program.complete_commands {
            self.list(list);
        }
        let single = matches!(program.complete_commands.as_slice(), [list] if list.0.len() == 1 && list.0[0].0.additional.is_empty());
        Ok(if single {
            self.last_output.take()
        } else {
            None
        })
    }

    /// Walks code found inside another command (`$( )`, `bash -c`, `eval` …) one level deeper.
    fn nested(&mut self, src: &str, label: &str) -> Option<String> {
        if self.depth >= MAX_DEPTH {
            self.unknown(format!(
                "code nested deeper than {MAX_DEPTH} levels ({label})"
            ));
            return None;
        }
        self.depth += 1;
        self.via.push(label.to_string());
        let result = self.script(src);
        if let Err(e) = &result {
            self.unknown(format!("{label}: cannot parse `{}`: {e}", excerpt(src)));
            self.out.unparsed.extend(rough_segments(src));
        }
        self.via.pop();
        self.depth -= 1;
        result.ok().flatten()
    }

    /// Walks code that runs in a subshell: a `cd` inside does not change what follows.
    fn in_subshell<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.cwd.clone();
        let r = f(self);
        self.cwd = saved;
        r
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
        if let [only] = p.seq.as_slice() {
            let first = self.out.commands.len();
            self.command(only, Stdin::Inherited);
            self.last_output = self
                .stage_innermost(first)
                .and_then(|c| decode::stage_output(c, None));
            return;
        }
        let mut stages = Vec::new();
        let mut stdin = Stdin::Inherited;
        let mut output = None;
        for cmd in &p.seq {
            let (text, produced, listed) = self.in_subshell(|w| {
                let first = w.out.commands.len();
                w.command(cmd, stdin.clone());
                let inner = w.stage_innermost(first);
                let input = match &stdin {
                    Stdin::Text(t) => Some(t.as_str()),
                    _ => None,
                };
                (
                    inner.map(SimpleCommand::text),
                    inner.and_then(|c| decode::stage_output(c, input)),
                    inner.and_then(listed_paths),
                )
            });
            stages.push(text.unwrap_or_else(|| "( … )".to_string()));
            output = produced.clone();
            stdin = match (produced, listed) {
                (Some(t), _) => Stdin::Text(t),
                (None, Some((roots, from_find))) => Stdin::Paths(roots, from_find),
                (None, None) => Stdin::Pipe,
            };
        }
        self.last_output = output;
        self.out.pipelines.push(stages.join(" | "));
    }

    /// The command a pipeline stage amounts to, as the pipe sees it: its innermost command
    /// (a shell reading the pipe is a wrapper with nothing inside).
    fn stage_innermost(&self, first: usize) -> Option<&SimpleCommand> {
        let stage: Vec<&SimpleCommand> = self.out.commands[first..]
            .iter()
            .filter(|c| c.depth == self.depth)
            .collect();
        stage
            .iter()
            .rfind(|c| c.role == Role::Command)
            .or_else(|| stage.iter().rfind(|c| c.role == Role::Wrapper))
            .copied()
    }

    fn command(&mut self, cmd: &ast::Command, stdin: Stdin) {
        match cmd {
            ast::Command::Simple(s) => self.simple(s, stdin),
            ast::Command::Compound(c, redirects) => {
                self.compound(c);
                self.compound_redirects(redirects.as_ref());
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
                self.compound_redirects(redirects.as_ref());
            }
        }
    }

    /// Redirections of a compound command (or `[[ ]]`) apply to everything inside it: they are
    /// reported as a command of their own so their targets are checked.
    fn compound_redirects(&mut self, list: Option<&ast::RedirectList>) {
        let Some(list) = list else { return };
        let redirects: Vec<_> = list.0.iter().filter_map(|r| self.redirect(r)).collect();
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

    /// Arithmetic can hide command substitutions (`$(( $(cmd) ))`, `a[$(cmd)]`). And text that is
    /// not arithmetic at all is, to bash, a subshell: `$(( cat x; rm -rf / ))` is
    /// `$( ( cat x; rm -rf / ) )`, and `(( … ))` as a command is `( ( … ) )`. So what does not
    /// parse as arithmetic is walked as a script, and the command is uncertain.
    fn arithmetic(&mut self, text: &str) {
        self.hidden_substitutions(text, "arithmetic");
        if brush_parser::arithmetic::parse(text).is_err() {
            self.unknown(format!(
                "`(( {} ))` is not arithmetic: bash runs it as a subshell",
                excerpt(text)
            ));
            self.in_subshell(|w| w.nested(text, "$(( ))"));
        }
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
                            value: None,
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
                        value: None,
                    });
                }
            }
        }
        for (name, value) in &assignments {
            // A load path for this one command is checked against the project by Tier 1.
            if !argv.is_empty() && LOAD_PATH_VARIABLES.contains(&name.as_str()) {
                continue;
            }
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
                    value: None,
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
                let (kind, value) = if doc.requires_expansion {
                    match word::parse_heredoc(body, &self.options) {
                        Ok(pieces) => {
                            let w = self.assemble(&pieces, body, true);
                            (w.kind, w.value)
                        }
                        Err(_) => {
                            self.unknown("a here-document whose expansions cannot be parsed");
                            (WordKind::Computed, None)
                        }
                    }
                } else {
                    (WordKind::Literal, None)
                };
                Some(Redirect {
                    kind: RedirectKind::HereDoc,
                    target: Word {
                        text: body.clone(),
                        kind,
                        value,
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
            Ok(pieces) => self.assemble(&pieces, raw, false),
            Err(_) => {
                self.unknown(format!("cannot parse the word `{}`", excerpt(raw)));
                self.hidden_substitutions(raw, "word");
                Word {
                    text: raw.to_string(),
                    kind: WordKind::Computed,
                    value: None,
                }
            }
        }
    }

    /// A word from its pieces (`quoted` inside a here-document): its value is kept only when
    /// the word is computed, since a literal word's value is its text.
    fn assemble(&mut self, pieces: &[WordPieceWithSource], raw: &str, quoted: bool) -> Word {
        let mut w = WordBuild {
            text: String::new(),
            kind: WordKind::Literal,
            value: Some(String::new()),
        };
        for p in pieces {
            self.piece(p, raw, quoted, &mut w);
        }
        let value = if w.kind == WordKind::Computed {
            w.value
        } else {
            None
        };
        Word {
            text: w.text,
            kind: w.kind,
            value,
        }
    }

    fn piece(&mut self, p: &WordPieceWithSource, raw: &str, quoted: bool, w: &mut WordBuild) {
        let source = raw.get(p.start_index..p.end_index).unwrap_or("");
        match &p.piece {
            WordPiece::Text(s) => {
                w.push(s);
                if !quoted && w.kind == WordKind::Literal && has_glob_or_brace(s) {
                    w.kind = WordKind::Glob;
                }
                if !quoted && has_brace_expansion(s) {
                    w.unknown_value();
                }
            }
            WordPiece::SingleQuotedText(s) => w.push(s),
            WordPiece::AnsiCQuotedText(s) => match decode::unescape(s, decode::Escapes::AnsiC) {
                // `$'\x72m'` is `rm`: the text is the decoded value, and an escape in it makes
                // the word count as computed, so a name spelled this way is never trusted.
                Some(decoded) if s.contains('\\') => {
                    w.text.push_str(&decoded);
                    if let Some(v) = &mut w.value {
                        v.push_str(&decoded);
                    }
                    w.kind = WordKind::Computed;
                }
                Some(decoded) => w.push(&decoded),
                None => {
                    w.text.push_str(s);
                    w.unknown_value();
                }
            },
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                for i in inner {
                    self.piece(i, raw, true, w);
                }
            }
            WordPiece::TildeExpansion(t) => match t {
                word::TildeExpr::Home => {
                    w.text.push('~');
                    w.value = None;
                }
                _ => {
                    w.text.push_str(source);
                    w.unknown_value();
                }
            },
            WordPiece::ParameterExpansion(expr) => {
                w.text.push_str(source);
                w.unknown_value();
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
                let output = self.in_subshell(|s| s.nested(inner, "$( )"));
                w.substitution(source, output);
            }
            WordPiece::BackquotedCommandSubstitution(inner) => {
                let inner = unescape_backquoted(inner);
                let output = self.in_subshell(|s| s.nested(&inner, "` `"));
                w.substitution(source, output);
            }
            WordPiece::EscapeSequence(s) => w.push(s.strip_prefix('\\').unwrap_or(s)),
            WordPiece::ArithmeticExpression(e) => {
                w.text.push_str(source);
                w.unknown_value();
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
                    Some(WordPiece::CommandSubstitution(s)) => {
                        self.nested(s, "$( )");
                    }
                    Some(WordPiece::BackquotedCommandSubstitution(s)) => {
                        self.nested(s, "` `");
                    }
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
        let mut extra_args = false;
        let via_len = self.via.len();
        let first = self.out.commands.len();
        let mut under: Vec<Word> = Vec::new();
        let mut under_from_find = false;
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
                            value: None,
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
            if extra_args && !matches!(unwrap, Unwrap::No) {
                // `xargs xargs`, `xargs env`, `xargs sh -c`: the words added at run time become
                // the command this wrapper runs, or its options.
                self.unknown(format!(
                    "words added at run time (xargs) reach `{name}`, which runs them as a command"
                ));
            }
            let (script, label) = match unwrap {
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
                    placeholder,
                } => {
                    let mut inner = argv.split_off(start.min(argv.len()));
                    if let Some(p) = placeholder.filter(|p| !p.is_empty()) {
                        // Each input line is put in place of the placeholder: those words are
                        // not known before it runs, and a script holding one is computed.
                        for w in &mut inner {
                            if w.text.contains(&p) {
                                w.kind = WordKind::Computed;
                                w.value = None;
                            }
                        }
                    }
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
                    if more && let Stdin::Paths(roots, from_find) = &stdin {
                        under = roots.clone();
                        under_from_find = *from_find;
                    }
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
                    continue;
                }
                Unwrap::Script { text, label } => (Some(text), label),
                Unwrap::StdinScript { label } => (None, label),
            };
            // A wrapper that runs a script (`bash -c`, `sh < file`): recorded as a wrapper, then
            // the script is read from where it comes from.
            self.push(
                argv,
                redirects,
                assignments,
                Role::Wrapper,
                extra_args,
                name_dir,
            );
            match script {
                Some(script) => self.word_script(&script, &label),
                None => self.stdin_script(&stdin, &label),
            }
            break;
        }
        self.via.truncate(via_len);
        if !under.is_empty() {
            for c in &mut self.out.commands[first..] {
                if c.extra_args && c.extra_args_under.is_empty() {
                    c.extra_args_under = under.clone();
                    c.extra_args_piped = true;
                    c.extra_args_from_find = under_from_find;
                }
            }
        }
    }

    /// Records a command that receives more arguments at run time (`find -exec … {}`). Each
    /// `{}` is a path found under the roots: computed, with the root as its value when there is
    /// one root, so it resolves under it.
    fn emit_extra(&mut self, mut argv: Vec<Word>, under: &[Word]) {
        for w in &mut argv {
            if w.text.contains("{}") {
                w.value = match under {
                    [root] if w.text == "{}" && root.is_literal() => Some(root.text.clone()),
                    _ => None,
                };
                w.kind = WordKind::Computed;
            }
        }
        let first = self.out.commands.len();
        self.emit(argv, Vec::new(), Vec::new(), Stdin::Inherited);
        for c in &mut self.out.commands[first..] {
            c.extra_args = true;
            c.extra_args_under = under.to_vec();
            c.extra_args_from_find = true;
        }
    }

    /// A script given as a word (`bash -c '…'`): parsed and walked in its own right; a computed
    /// one is unknown, though what it decodes to is still checked (a block inside stands).
    fn word_script(&mut self, script: &Word, label: &str) {
        if script.kind == WordKind::Computed {
            self.unknown(format!(
                "{label} runs a computed script `{}`",
                excerpt(&script.text)
            ));
            if let Some(value) = &script.value {
                self.nested(value, &format!("{label} (decoded)"));
            }
        } else {
            self.nested(&script.text, label);
        }
    }

    /// A script read from stdin (`sh < file`, `echo … | bash`): walked when its text is known.
    fn stdin_script(&mut self, stdin: &Stdin, label: &str) {
        match stdin {
            Stdin::Text(t) => {
                self.nested(t, label);
            }
            Stdin::Pipe | Stdin::Paths(..) => {
                self.unknown(format!("{label} reads its script from a pipe"))
            }
            Stdin::Inherited => self.unknown(format!("{label} reads its script from stdin")),
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
            depth: self.depth,
            role,
            cwd: self.cwd.clone(),
            extra_args,
            extra_args_under: Vec::new(),
            extra_args_piped: false,
            extra_args_from_find: false,
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
            // `cd -` goes to $OLDPWD, which an earlier line may have set to anything.
            (_, Some(t)) if t.text == "-" || t.text.starts_with("~-") => Cwd::Unknown,
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
            let attached;
            let setting = if a == "-c" {
                i += 1;
                argv.get(i)
            } else if let Some(rest) = a.strip_prefix("-c").filter(|r| !r.is_empty()) {
                // `-ccore.pager=sh`: the value attached, as git's option parser allows.
                attached = Word {
                    text: rest.to_string(),
                    kind: argv[i].kind,
                    value: None,
                };
                Some(&attached)
            } else if a == "--config-env" || a.starts_with("--config-env=") {
                // `--config-env=KEY=ENVVAR`: the value comes from the environment.
                self.unknown("git --config-env takes a setting's value from the environment");
                i += if a == "--config-env" { 2 } else { 1 };
                continue;
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
                value: None,
            };
            if key.starts_with("alias.") {
                if let Some(code) = value.text.strip_prefix('!') {
                    let code = Word {
                        text: code.to_string(),
                        kind: value.kind,
                        value: None,
                    };
                    self.run_config_script(&code, "git -c alias");
                }
            } else if is_git_code_key(&key) {
                self.unknown(format!(
                    "git -c {key} runs a program, sends data elsewhere or removes safeguards"
                ));
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

/// A word being assembled from its pieces: its text, what is known of it, and its value when
/// every piece's value is known.
struct WordBuild {
    text: String,
    kind: WordKind,
    value: Option<String>,
}

impl WordBuild {
    /// A piece whose text is its value.
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        if let Some(v) = &mut self.value {
            v.push_str(s);
        }
    }

    /// A piece whose value is not known: the word is computed and has no value.
    fn unknown_value(&mut self) {
        self.kind = WordKind::Computed;
        self.value = None;
    }

    /// A command substitution: computed, with the output as its value when known (bash drops
    /// the trailing newlines).
    fn substitution(&mut self, source: &str, output: Option<String>) {
        self.text.push_str(source);
        self.kind = WordKind::Computed;
        match (output, &mut self.value) {
            (Some(out), Some(v)) => v.push_str(out.trim_end_matches('\n')),
            _ => self.value = None,
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
        "core.alternaterefscommand",
        "interactive.difffilter",
        "sendemail.smtpserver",
        "gc.auto",
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
        || key == "clean.requireforce"
        || key.starts_with("gc.")
        || key.starts_with("http.")
        || key.starts_with("https.")
        || (key.starts_with("browser.") && key.ends_with(".cmd"))
        || (key.starts_with("man.") && key.ends_with(".cmd"))
}

/// The directories a command's output paths all lie under, when it only lists paths: `find`
/// (its roots, unless it prints anything but names) and `git ls-files` (the work tree).
fn listed_paths(c: &SimpleCommand) -> Option<(Vec<Word>, bool)> {
    let args = c.args();
    match c.name() {
        "find"
            if args.iter().all(|a| {
                !a.text.starts_with("-printf") && !a.text.starts_with("-fprint") && a.text != "-ls"
            }) =>
        {
            let roots = find_roots(&c.argv);
            let dashless = roots.iter().all(|r| !r.text.starts_with('-'));
            roots
                .iter()
                .all(|r| r.is_literal() && !r.text.contains(".."))
                .then_some((roots, dashless))
        }
        "git" if args.first().is_some_and(|a| a.text == "ls-files") => {
            Some((vec![Word::literal(".")], false))
        }
        _ => None,
    }
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
