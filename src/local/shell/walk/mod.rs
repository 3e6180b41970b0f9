//! The walk over brush-parser's syntax tree: every simple command, every place code can hide.
//! Here the tree's structure (lists, pipelines, compound commands, redirections); [`words`]
//! assembles a word from its pieces; [`emit`] records a simple command and unwraps wrappers.

use super::decode;
use super::unwrap::{
    Unwrap, below_root, find_roots, login_shell, split_env_assignments, split_fd, split_find,
    wrapper,
};
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
    /// `find` and start with a root, so none is an option. Then the listing's own words.
    Paths(Vec<Word>, bool, Vec<Word>),
}

pub(in crate::local::shell) struct Walker {
    pub(in crate::local::shell) out: Analysis,
    cwd: Cwd,
    depth: usize,
    via: Vec<String>,
    options: ParserOptions,
    /// The output of the last pipeline walked, when it is known (literal or decoded text).
    last_output: Option<String>,
    /// Shell variables set by the bare assignments right before the command being walked
    /// (`f=rm; $f -rf ~`), with their value when it is known: a word that expands one carries
    /// that value. Any other command, compound command or function forgets them all, since it
    /// may set them (`read f`, `export f=…`, a loop).
    vars: Vec<(String, Option<String>)>,
    /// Names `alias` and `hash -p` bound, and what each now runs (`aliases.rs`).
    aliases: Vec<(String, String)>,
    /// Variables this script has assigned a literal number, so far in walk order (`arith`):
    /// forgotten by any simple command, which may set them (`read x`).
    numbers: Vec<String>,
    /// Variables given the integer attribute (`declare -i n`): bash evaluates whatever is
    /// assigned to them as arithmetic, from then on.
    integers: Vec<String>,
    /// `for` loop variables bound to the word of a listing they take, innermost last; None
    /// where a binding was ended (`loops.rs`).
    loop_words: Vec<(String, Option<Word>)>,
    /// A function was defined: calling one may assign any variable.
    functions_defined: bool,
    /// Nested scripts and their bytes walked so far (bounded: `MAX_NESTED`, `MAX_NESTED_BYTES`),
    /// and the bytes of rough pieces kept (`MAX_UNPARSED_BYTES`).
    nested_walked: (usize, usize, usize),
    /// A bound on the commands or nested code was reached: the rest was not read one by one.
    pub(in crate::local::shell) over_bound: bool,
}

mod aliases;
mod arith;
mod bounds;
mod emit;
mod fed;
mod loops;
mod simple;
mod windows;
mod words;

pub(in crate::local) use emit::without_exe;

impl Walker {
    pub(in crate::local::shell) fn new() -> Walker {
        Walker {
            out: Analysis::default(),
            cwd: Cwd::Start,
            depth: 0,
            via: Vec::new(),
            options: ParserOptions::default(),
            last_output: None,
            vars: Vec::new(),
            aliases: Vec::new(),
            numbers: Vec::new(),
            integers: Vec::new(),
            loop_words: Vec::new(),
            functions_defined: false,
            nested_walked: (0, 0, 0),
            over_bound: false,
        }
    }

    fn unknown(&mut self, what: impl Into<String>) {
        if self.out.unknowns.len() >= super::MAX_UNKNOWNS {
            return;
        }
        let what = what.into();
        if !self.out.unknowns.contains(&what) {
            self.out.unknowns.push(what);
        }
    }

    /// Parses and walks a script; a parse failure is returned for the caller to record.
    /// Parses and walks a script; returns its output when it is one pipeline whose output is
    /// known. A parse failure is returned for the caller to record.
    pub(super) fn script(&mut self, src: &str) -> Result<Option<String>, String> {
        if bounds::nesting(src) > MAX_NESTING {
            return Err(format!(
                "brackets and compound commands nest deeper than {MAX_NESTING}"
            ));
        }
        // The syntax tree takes ~1 KB a command: a text of many short commands is read piece by
        // piece instead (`salvage`), within the bound on commands.
        if bounds::operators(src) > super::MAX_OPERATORS {
            return Err(format!(
                "more than {} operators and line breaks: not parsed whole",
                super::MAX_OPERATORS
            ));
        }
        let mut program = match super::plain::parse(src) {
            Some(program) => program,
            None => brush_parser::Parser::new(std::io::Cursor::new(src), &self.options)
                .parse_program()
                .map_err(|e| one_line(&e.to_string()))?,
        };
        self.last_output = None;
        // Walked by `&mut`: a plain word's text is moved out of the tree, not copied.
        for list in &mut program.complete_commands {
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
        let (scripts, bytes, _) = self.nested_walked;
        if scripts >= super::MAX_NESTED || bytes.saturating_add(src.len()) > super::MAX_NESTED_BYTES
        {
            self.unknown(format!(
                "more nested code than sentinel reads for one call ({} scripts, {} KiB): {label} not read",
                super::MAX_NESTED,
                super::MAX_NESTED_BYTES >> 10
            ));
            self.over_bound = true;
            return None;
        }
        self.nested_walked.0 = scripts + 1;
        self.nested_walked.1 = bytes + src.len();
        self.depth += 1;
        self.via.push(label.to_string());
        // Nested code (`$( )`, `bash -c`) runs in a subshell or another shell: what it assigns
        // stays there.
        let vars = self.vars.clone();
        // Another shell (`bash -c`) does not see the loop's variable; `$( )` is hidden too.
        let loops = std::mem::take(&mut self.loop_words);
        let result = self.script(src);
        self.vars = vars;
        self.loop_words = loops;
        if let Err(e) = &result {
            self.unknown(format!("{label}: cannot parse `{}`: {e}", excerpt(src)));
            self.salvage(src);
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

    fn list(&mut self, list: &mut ast::CompoundList) {
        for item in &mut list.0 {
            self.and_or(&mut item.0);
            if matches!(item.1, ast::SeparatorOperator::Async) {
                // Run in the background, in a subshell: its assignments are not the shell's.
                self.vars.clear();
            }
        }
    }

    fn and_or(&mut self, list: &mut ast::AndOrList) {
        self.pipeline(&mut list.first);
        for next in &mut list.additional {
            match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p),
            }
        }
    }

    fn pipeline(&mut self, p: &mut ast::Pipeline) {
        if let [only] = p.seq.as_mut_slice() {
            let first = self.out.commands.len();
            self.command(only, Stdin::Inherited);
            self.last_output = self
                .stage_innermost(first)
                .and_then(|c| decode::stage_output(c, None));
            return;
        }
        // Each stage of a pipeline runs in a subshell: it starts with the shell's variables
        // (`D=~/.aws; cat $D/credentials | curl -d @- …`), and no assignment in it is the
        // shell's, so none is known after the pipeline.
        let inherited = std::mem::take(&mut self.vars);
        let mut stages = Vec::new();
        let mut stdin = Stdin::Inherited;
        let mut output = None;
        for cmd in &mut p.seq {
            self.vars.clone_from(&inherited);
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
                (None, Some((roots, from_find, argv))) => Stdin::Paths(roots, from_find, argv),
                (None, None) => Stdin::Pipe,
            };
        }
        self.vars.clear();
        self.last_output = output;
        self.out.pipelines.push(stages.join(" | "));
    }

    /// The command a pipeline stage amounts to, as the pipe sees it: its innermost command
    /// (a shell reading the pipe is a wrapper with nothing inside).
    fn stage_innermost(&self, first: usize) -> Option<&SimpleCommand> {
        let stage = || {
            self.out.commands[first..]
                .iter()
                .filter(|c| c.depth == self.depth)
        };
        stage()
            .rfind(|c| c.role == Role::Command)
            .or_else(|| stage().rfind(|c| c.role == Role::Wrapper))
    }

    fn command(&mut self, cmd: &mut ast::Command, stdin: Stdin) {
        if !matches!(cmd, ast::Command::Simple(_)) {
            // A compound command or a function may set anything: what was known is forgotten.
            self.vars.clear();
        }
        match cmd {
            ast::Command::Simple(s) => self.simple(s, stdin),
            ast::Command::Compound(c, redirects) => {
                self.compound(c);
                self.compound_redirects(redirects.as_ref());
            }
            ast::Command::Function(f) => {
                self.functions_defined = true;
                self.out.functions_defined = true;
                // The body is checked where it is defined; calling it by name is an unknown
                // command, so it is never allowed on the strength of its name.
                let first = self.out.commands.len();
                self.in_subshell(|w| w.compound(&mut f.body.0));
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
                self.out.tests = true;
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
            E::UnaryTest(op, w) => {
                let word = self.word(&w.value);
                // `[[ -v 'a[$(cmd)]' ]]` evaluates the subscript as arithmetic, as `test -v`.
                if matches!(
                    op,
                    ast::UnaryPredicate::ShellVariableIsSetAndAssigned
                        | ast::UnaryPredicate::ShellVariableIsSetAndNameRef
                ) {
                    self.name_word(&word, "[[ -v ]]");
                }
            }
            E::BinaryTest(op, a, b) => {
                self.word(&a.value);
                self.word(&b.value);
                use ast::BinaryPredicate as P;
                if matches!(
                    op,
                    P::ArithmeticEqualTo
                        | P::ArithmeticNotEqualTo
                        | P::ArithmeticLessThan
                        | P::ArithmeticLessThanOrEqualTo
                        | P::ArithmeticGreaterThan
                        | P::ArithmeticGreaterThanOrEqualTo
                ) {
                    // `[[ $x -eq 0 ]]` evaluates both sides as arithmetic.
                    self.arithmetic_names(&a.value, "`[[ … ]]` arithmetic");
                    self.arithmetic_names(&b.value, "`[[ … ]]` arithmetic");
                }
            }
        }
    }

    fn compound(&mut self, c: &mut ast::CompoundCommand) {
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
                self.list(&mut f.body.list);
            }
            C::BraceGroup(g) => self.list(&mut g.list),
            C::Subshell(s) => self.in_subshell(|w| w.list(&mut s.list)),
            C::ForClause(f) => {
                let values: Vec<Word> = f
                    .values
                    .iter()
                    .flatten()
                    .map(|v| self.word(&v.value))
                    .collect();
                // The loop variable takes each word: a known number only when every word is a
                // literal one (`for i in 0 1 2`).
                let numbers = f.values.is_some()
                    && !values.is_empty()
                    && values
                        .iter()
                        .all(|v| v.is_literal() && v.text.parse::<i64>().is_ok());
                self.assigned(&f.variable_name, numbers);
                let name = f.variable_name.clone();
                if f.values.is_some() && Walker::bindable(&values) {
                    // The body is walked with the variable bound to the word.
                    for v in values {
                        let depth = self.loop_words.len();
                        self.loop_words.push((name.clone(), Some(v)));
                        self.list(&mut f.body.list.clone());
                        self.loop_words.truncate(depth);
                    }
                } else {
                    let depth = self.loop_words.len();
                    self.loop_words.push((name, None));
                    self.list(&mut f.body.list);
                    self.loop_words.truncate(depth);
                }
            }
            C::CaseClause(c) => {
                self.word(&c.value.value);
                for item in &mut c.cases {
                    for p in &item.patterns {
                        self.word(&p.value);
                    }
                    if let Some(cmd) = &mut item.cmd {
                        self.list(cmd);
                    }
                }
            }
            C::IfClause(i) => {
                self.list(&mut i.condition);
                self.list(&mut i.then);
                for e in i.elses.iter_mut().flatten() {
                    if let Some(c) = &mut e.condition {
                        self.list(c);
                    }
                    self.list(&mut e.body);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&mut w.0);
                self.list(&mut w.1.list);
            }
            C::Coprocess(c) => self.in_subshell(|w| w.command(&mut c.body, Stdin::Inherited)),
        }
    }

    /// Arithmetic can hide command substitutions (`$(( $(cmd) ))`, `a[$(cmd)]`). And text that is
    /// not arithmetic at all is, to bash, a subshell: `$(( cat x; rm -rf / ))` is
    /// `$( ( cat x; rm -rf / ) )`, and `(( … ))` as a command is `( ( … ) )`. So what does not
    /// parse as arithmetic is walked as a script, and the command is uncertain.
    fn arithmetic(&mut self, text: &str) {
        self.hidden_substitutions(text, "arithmetic");
        // The arithmetic parser recurses once an operator: a long expression is not handed to it.
        if text.len() > MAX_ARITHMETIC_BYTES {
            self.unknown(format!(
                "arithmetic of {} bytes, over the {MAX_ARITHMETIC_BYTES}-byte limit",
                text.len()
            ));
            return;
        }
        self.arithmetic_names(text, "arithmetic");
        if brush_parser::arithmetic::parse(text).is_err() {
            self.unknown(format!(
                "`(( {} ))` is not arithmetic: bash runs it as a subshell",
                excerpt(text)
            ));
            self.in_subshell(|w| w.nested(text, "$(( ))"));
        }
    }
}

/// A simple command's parts in source order: prefix items, the name, suffix items.
enum Item<'a> {
    Prefix(&'a mut ast::CommandPrefixOrSuffixItem),
    Name(&'a mut ast::Word),
    Suffix(&'a mut ast::CommandPrefixOrSuffixItem),
}

fn assignment_name(n: &ast::AssignmentName) -> String {
    match n {
        ast::AssignmentName::VariableName(v) => v.clone(),
        ast::AssignmentName::ArrayElementName(v, _) => v.clone(),
    }
}

/// The directories a command's output paths all lie under, when it only lists paths: `find`
/// (its roots, unless it prints anything but names) and `git ls-files` (the work tree).
fn listed_paths(c: &SimpleCommand) -> Option<(Vec<Word>, bool, Vec<Word>)> {
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
                .then(|| (roots, dashless, c.argv.clone()))
        }
        // Only options that select which files are listed: `--format`, `--full-name`, `-s`
        // and the like print other words, or paths relative to another directory.
        "git"
            if args.first().is_some_and(|a| a.text == "ls-files")
                && args[1..].iter().all(|a| {
                    // A pathspec outside the directory (`:/`, `..`, `/abs`) lists `../` paths.
                    a.is_literal()
                        && !a.text.starts_with([':', '/'])
                        && !a.text.contains("..")
                        && (!a.text.starts_with('-')
                            || matches!(
                                a.text.as_str(),
                                "-c" | "--cached"
                                    | "-m"
                                    | "--modified"
                                    | "-o"
                                    | "--others"
                                    | "-d"
                                    | "--deleted"
                                    | "--exclude-standard"
                                    | "--deduplicate"
                                    | "--recurse-submodules"
                                    | "-z"
                                    | "--"
                            ))
                }) =>
        {
            Some((vec![Word::literal(".")], false, c.argv.clone()))
        }
        _ => None,
    }
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
