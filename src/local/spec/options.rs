//! Reads one simple command against its spec the way the program itself parses its arguments:
//! which words are options (and which of those take the next word as their value), which are
//! operands, and what each one is. Whatever the program would read differently from the spec —
//! an option the spec does not know, an ambiguous abbreviation, a computed word where an option
//! may stand — is a problem, and a problem makes the command uncertain.
//!
//! [`read`] is getopt's loop, word by word, with its helpers beside it; the operands it leaves
//! are given their kinds in [`operands`].

use crate::local::spec::{CommandSpec, Kind, Matched, OptKind, OptSpec, Specs, Syntax};
use crate::shell::{Word, WordKind, is_home_ref};
use std::borrow::Cow;
use std::sync::Arc;

mod operands;
use operands::{assign_operands, turn};

/// A word with what it is to the program.
#[derive(Clone, Debug)]
pub struct Value {
    /// What it is.
    pub kind: Kind,
    /// The word.
    pub word: Word,
    /// Where it came from: the option name, or `operand` (borrowed: most values are operands).
    pub from: Cow<'static, str>,
}

/// A flag with an effect of its own (`deny`, `review`).
#[derive(Clone, Debug)]
pub struct Marked {
    /// The name as the spec has it (the full name for an abbreviation).
    pub name: String,
    /// What it does.
    pub kind: OptKind,
    /// The spec line.
    pub line: usize,
}

/// One simple command as its program reads it.
#[derive(Clone, Debug, Default)]
pub struct Reading {
    /// The spec of the program, then of each subcommand named.
    pub chain: Vec<Arc<CommandSpec>>,
    /// Every option value and operand, with its kind.
    pub values: Vec<Value>,
    /// Flags with an effect.
    pub marked: Vec<Marked>,
    /// What the program would read differently from the spec; any makes it uncertain.
    pub problems: Vec<String>,
    /// The kind an operand appended at run time (`xargs`, `find -exec … {}`) would have.
    pub appended: Option<Kind>,
    /// A word added after the last one would be an operand, not an option (`--` was given, or
    /// the syntax ends options at the first operand and one was given).
    pub options_closed: bool,
    /// The index in argv of the word that named the innermost subcommand (0: the program).
    pub subcommand_at: usize,
    /// A subcommand was named that no spec knows (`git frobnicate`): what its words mean is
    /// not known at all.
    pub unknown_subcommand: bool,
    /// The index in argv of the word no spec knows as a subcommand (with `unknown_subcommand`).
    pub unknown_subcommand_at: usize,
    /// What the program works on when its first repeated path slot is left empty (an
    /// option's `default-operand=`, else the section's `default_operand`).
    pub default_operand: Option<String>,
    /// An option made the operands walk through symlinks (`find -L`), whatever it turned them
    /// into after (`-delete`).
    pub follows_links: bool,
    /// How many values had been read when the first option that deletes the operands' trees
    /// was (`find`'s `-delete`): only tests read before it pick what it deletes, as find
    /// evaluates its expression from the left (`find . -delete -name x` deletes everything).
    pub delete_tree_at: Option<usize>,
    /// Values of options that bind the first operand slot (`first-operand`: PowerShell's
    /// `-Path`), in the order given: they come before the positional operands.
    pub named_operands: Vec<Word>,
    /// A flag of the spec's `input_flags` was given, inside a cluster too (`rpm -qa`).
    pub input_flag_given: bool,
}

impl Reading {
    /// The innermost spec (the subcommand that runs).
    pub fn spec(&self) -> &CommandSpec {
        self.chain.last().expect("a reading has a spec")
    }

    /// The full name: `git commit`.
    pub fn name(&self) -> &str {
        &self.spec().name
    }
}

/// Reads `argv` against the specs; None when sentinel has no spec for the program.
pub fn read(argv: &[Word], specs: &Specs) -> Option<Reading> {
    let name = argv.first()?;
    if !name.is_literal() {
        return None;
    }
    let program = specs.program(&name.text)?;
    // The chain as read so far, kept beside `r` so an option found in it is used in place
    // while `r` takes what it means.
    let mut chain = vec![program];
    let mut r = Reading {
        chain: chain.clone(),
        ..Reading::default()
    };
    // Subcommands are looked up under the spec's own name, so an alias (`gradlew` for
    // `gradle`, `cargo b` for `cargo build`) finds the same subcommands.
    let mut path: String = r.chain[0].name.clone();
    let mut operands: Vec<&Word> = Vec::new();
    let mut options_done = false;
    let mut after_dashdash = false;
    let mut operand_kind: Option<Kind> = None;
    let mut no_first = false;
    // PowerShell's common parameters, looked up once when a cmdlet is given a parameter.
    let mut common: Option<Option<Arc<CommandSpec>>> = None;
    let mut i = 1;
    while i < argv.len() {
        let w = &argv[i];
        let spec = chain.last().expect("a reading has a spec");
        let syntax = syntax_of(&chain);
        let dashed;
        let text = if i == 1 && spec.dashless && w.is_literal() && !w.text.starts_with('-') {
            dashed = format!("-{}", w.text);
            dashed.as_str()
        } else {
            visible(w)
        };
        let option_like = !options_done
            && (could_be_option(w, text, spec, syntax)
                || (i == 1 && spec.dashless && w.is_literal()))
            && !names_subcommand(
                specs,
                &path,
                spec,
                w,
                operands.is_empty() && !after_dashdash,
            );
        // Windows programs read their `-x` switches in any case (`netstat -ANO`).
        let lowered;
        let text = if option_like && syntax == Syntax::Windows && text.starts_with('-') {
            lowered = text.to_ascii_lowercase();
            lowered.as_str()
        } else {
            text
        };
        if !option_like {
            if w.text == "--" && !options_done && w.is_literal() {
                options_done = true;
                after_dashdash = true;
                dashdash(&mut r);
                i += 1;
                continue;
            }
            let wants_sub = operands.is_empty()
                && !after_dashdash
                && spec
                    .operands
                    .first()
                    .is_some_and(|s| s.kind == Kind::Subcommand);
            if wants_sub {
                if !w.is_literal() {
                    r.problems.push(format!(
                        "the subcommand of `{}` is computed (`{}`)",
                        spec.name, w.text
                    ));
                    return Some(r);
                }
                path.push(' ');
                path.push_str(&w.text);
                // A word with a space is no subcommand's name (the program looks it up
                // whole), though joined it would read as two.
                let found = if w.text.contains(' ') {
                    None
                } else {
                    specs.lookup(&path)
                };
                match found {
                    Some(child) => {
                        // A pattern section (`aws * describe-*`) keeps the words as written.
                        if !child.name.contains('*') {
                            path.clear();
                            path.push_str(&child.name);
                        }
                        r.chain.push(child.clone());
                        chain.push(child);
                        r.subcommand_at = i;
                        options_done = false;
                        i += 1;
                        continue;
                    }
                    None => {
                        r.problems.push(format!(
                            "sentinel has no spec for `{}`",
                            crate::text::excerpt(&path)
                        ));
                        r.unknown_subcommand = true;
                        r.unknown_subcommand_at = i;
                        return Some(r);
                    }
                }
            }
            if ambiguous_computed(w, text) && !spec.is_inert() {
                r.problems.push(format!(
                    "`{}` is not known before it runs and may be an option of `{}`",
                    crate::text::excerpt(&w.text),
                    spec.name
                ));
            }
            operands.push(w);
            if matches!(syntax, Syntax::Posix | Syntax::Go) && !spec.interspersed {
                options_done = true;
            }
            // Once the operands before an `args...` slot are in, the rest belongs to the script.
            let mut slots = spec
                .operands
                .iter()
                .filter(|s| s.kind != Kind::Subcommand)
                .skip(usize::from(no_first));
            if let Some(k) = slots.clone().position(|s| s.kind == Kind::Args)
                && operands.len() >= k
                && slots.by_ref().take(k).all(|s| !s.repeat)
            {
                options_done = true;
            }
            i += 1;
            continue;
        }
        if w.text == "--" {
            options_done = true;
            after_dashdash = true;
            dashdash(&mut r);
            i += 1;
            continue;
        }
        i += 1;
        let mut take = |opt: &OptSpec, shown: &str, inline: Option<&str>, r: &mut Reading| {
            apply(
                opt,
                shown,
                inline,
                w,
                argv,
                &mut i,
                r,
                &mut operand_kind,
                &mut no_first,
            )
        };
        match syntax {
            Syntax::Windows if text.starts_with('/') => {
                // `/s/b`: several switches in one word; `//s` is Git Bash's escape for `/s`.
                let body = text.strip_prefix("//").unwrap_or(&text[1..]);
                let pieces: Vec<&str> = body.split('/').filter(|p| !p.is_empty()).collect();
                for (k, piece) in pieces.iter().enumerate() {
                    let (n, inline) = match piece.split_once(':') {
                        Some((n, v)) => (n, Some(v)),
                        None => (*piece, None),
                    };
                    let name = format!("/{}", n.to_ascii_lowercase());
                    // A switch's value may follow its name at once (`/ah`, `/o-d`).
                    let (name, inline) = match (find_long(&chain, &name, syntax), inline) {
                        (Matched::Exact(_), _) | (_, Some(_)) => (name, inline),
                        _ => match glued_value(&chain, &name, syntax) {
                            Some((short, rest)) => (short, Some(&piece[rest..])),
                            None => (name, inline),
                        },
                    };
                    match find_long(&chain, &name, syntax) {
                        Matched::Exact(opt) => {
                            // Only the last switch of a word can take the next word as its value.
                            let last = k + 1 == pieces.len();
                            if !last
                                && inline.is_none()
                                && matches!(
                                    opt.kind,
                                    OptKind::Value {
                                        optional: false,
                                        ..
                                    }
                                )
                            {
                                r.problems.push(format!("`{name}` is missing its value"));
                                break;
                            }
                            take(opt, &name, inline, &mut r);
                        }
                        _ => {
                            unknown(&mut r, &name, spec);
                            break;
                        }
                    }
                }
            }
            Syntax::PowerShell => {
                let (n, inline) = match text[1..].split_once(':') {
                    Some((n, v)) => (n, Some(v)),
                    None => (&text[1..], None),
                };
                let name = format!("-{}", n.to_ascii_lowercase());
                let common = common
                    .get_or_insert_with(|| specs.lookup(POWERSHELL_COMMON))
                    .clone();
                match find_parameter(&chain, common.as_deref(), &name) {
                    Parameter::Exact(opt) => {
                        let inline = switch_value(opt, inline);
                        if inline != Some("$false") {
                            take(opt, &name, inline, &mut r);
                        }
                    }
                    Parameter::Abbreviated(opt, full) => {
                        r.problems.push(format!(
                            "`{name}` abbreviates `{full}`; sentinel allows parameters only spelled out"
                        ));
                        let inline = switch_value(opt, inline);
                        if inline != Some("$false") {
                            take(opt, &full, inline, &mut r);
                        }
                    }
                    Parameter::Ambiguous => r.problems.push(format!(
                        "`{name}` is an ambiguous abbreviation for `{}`",
                        spec.name
                    )),
                    Parameter::Unknown => unknown(&mut r, &name, spec),
                }
            }
            Syntax::Single | Syntax::Go if text.starts_with('+') => {
                match find_long(&chain, "+", syntax) {
                    Matched::Exact(opt) => {
                        take(opt, "+", Some(&text[1..]), &mut r);
                    }
                    _ => unknown(&mut r, text, spec),
                }
            }
            Syntax::Single | Syntax::Go => {
                let (name, inline) = match syntax {
                    Syntax::Go => {
                        let t = text.strip_prefix('-').unwrap_or(text);
                        let t = if t.starts_with('-') { t } else { text };
                        let t = if t.starts_with("--") { &t[1..] } else { t };
                        match t.split_once('=') {
                            Some((n, v)) => (n, Some(v)),
                            None => (t, None),
                        }
                    }
                    _ => (text, None),
                };
                match find_long(&chain, name, syntax) {
                    Matched::Prefixed(opt, len) => {
                        let rest = &text[len..];
                        take(opt, name, Some(rest), &mut r);
                    }
                    Matched::Exact(opt) | Matched::Abbreviated(opt) => {
                        // Go accepts `-flag=false` on a boolean flag.
                        let inline = if matches!(opt.kind, OptKind::Value { .. }) {
                            inline
                        } else {
                            None
                        };
                        take(opt, name, inline, &mut r);
                    }
                    _ => unknown(&mut r, name, spec),
                }
            }
            _ => {
                if let Some(rest) = text.strip_prefix('+') {
                    // `cargo +nightly build`: a word the spec lists as `+` takes its rest.
                    match find_long(&chain, "+", syntax) {
                        Matched::Exact(opt) => {
                            take(opt, "+", Some(rest), &mut r);
                        }
                        _ => unknown(&mut r, text, spec),
                    }
                } else if text.starts_with("--") {
                    let (name, inline) = match text.split_once('=') {
                        Some((n, v)) => (n, Some(v)),
                        None => (text, None),
                    };
                    match find_long(&chain, name, syntax) {
                        Matched::Exact(opt) => {
                            take(opt, name, inline, &mut r);
                        }
                        Matched::Prefixed(opt, len) => {
                            take(opt, &text[..len], Some(&text[len..]), &mut r);
                        }
                        Matched::Abbreviated(opt) => {
                            // Read as the program reads it; a spelled-out name is never needed
                            // for a deny, and an abbreviation is never a reason to allow.
                            let full = opt
                                .names
                                .iter()
                                .find(|n| n.starts_with(name))
                                .cloned()
                                .unwrap_or_default();
                            r.problems.push(format!(
                                "`{name}` abbreviates `{full}`; sentinel allows options only spelled out"
                            ));
                            take(opt, &full, inline, &mut r);
                        }
                        Matched::Ambiguous => r.problems.push(format!(
                            "`{name}` is an ambiguous abbreviation for `{}`",
                            spec.name
                        )),
                        Matched::Unknown => unknown(&mut r, name, spec),
                    }
                } else if let Some((opt, inline, shown)) = whole_word(&chain, text, syntax) {
                    // `mvn -pl mod`, `java`-style `-Dkey=value`: a single-dash word the spec
                    // names as a whole.
                    take(opt, shown, inline, &mut r);
                } else {
                    // A cluster of short options: `-uo FILE`, `-oFILE`, `-n5`.
                    let body = &text[1..];
                    for (pos, c) in body.char_indices() {
                        // `-c` without a String: a char is at most 4 bytes.
                        let mut buf = [b'-'; 5];
                        let n = 1 + c.encode_utf8(&mut buf[1..]).len();
                        let shown = std::str::from_utf8(&buf[..n]).expect("a dash and a char");
                        let Some(opt) = find_short(&chain, c) else {
                            unknown(&mut r, shown, spec);
                            break;
                        };
                        // `-i.bak`: an option that turns the operands also takes an optional
                        // suffix in its cluster, as sed's `-i[SUFFIX]` does.
                        if let OptKind::Value { .. } | OptKind::Operands(_, true) = opt.kind {
                            let rest = &body[pos + c.len_utf8()..];
                            take(opt, shown, (!rest.is_empty()).then_some(rest), &mut r);
                            break;
                        }
                        take(opt, shown, None, &mut r);
                    }
                }
            }
        }
    }
    r.options_closed = options_done;
    if argv.len() == r.chain.len()
        && let Some(kind) = r.spec().bare.clone()
    {
        let line = r.spec().rule.line;
        r.marked.push(Marked {
            name: "with no arguments".into(),
            kind,
            line,
        });
    }
    if argv.len() != r.chain.len()
        && operands.is_empty()
        && r.named_operands.is_empty()
        && let Some(kind) = r.spec().no_operands.clone()
    {
        let line = r.spec().rule.line;
        r.marked.push(Marked {
            name: "with no operand".into(),
            kind,
            line,
        });
    }
    if r.default_operand.is_none() {
        r.default_operand = r.spec().default_operand.clone();
    }
    // A `-Path` given by name binds the first slot: the positional operands come after it.
    let named = std::mem::take(&mut r.named_operands);
    let operands: Vec<&Word> = named.iter().chain(operands.iter().copied()).collect();
    assign_operands(&mut r, &operands, operand_kind, no_first);
    if let Some(kind) = r.spec().input.clone() {
        let given = r.input_flag_given
            || r.values.iter().any(|v| {
                matches!(
                    v.kind,
                    Kind::Sql
                        | Kind::Code
                        | Kind::PerlCode
                        | Kind::PythonCode
                        | Kind::JsCode
                        | Kind::Script
                ) || r.spec().input_flags.iter().any(|f| *f == *v.from)
            })
            || argv[1..]
                .iter()
                .any(|w| r.spec().input_flags.contains(&w.text));
        if !given {
            let line = r.spec().rule.line;
            r.marked.push(Marked {
                name: "with no query or script on its command line".into(),
                kind,
                line,
            });
        }
    }
    Some(r)
}

/// The syntax in force: the innermost spec's own, else its parent's, else gnu.
fn syntax_of(chain: &[Arc<CommandSpec>]) -> Syntax {
    chain
        .iter()
        .rev()
        .find_map(|s| s.syntax)
        .unwrap_or(Syntax::Gnu)
}

/// A literal `--`, which some programs give a meaning of its own.
fn dashdash(r: &mut Reading) {
    let spec = r.spec();
    if let Some(kind) = spec.dashdash.clone() {
        let line = spec.rule.line;
        r.marked.push(Marked {
            name: "--".into(),
            kind,
            line,
        });
    }
}

/// What the program sees of a word, as far as sentinel knows: its value, or its text.
fn visible(w: &Word) -> &str {
    w.known_value().unwrap_or(&w.text)
}

/// A computed word whose value is not known and could start with `-`.
fn ambiguous_computed(w: &Word, text: &str) -> bool {
    w.kind == WordKind::Computed
        && w.value.is_none()
        && (text.starts_with('$') || text.starts_with('`'))
        && !is_home_ref(text)
}

fn could_be_option(w: &Word, text: &str, spec: &CommandSpec, syntax: Syntax) -> bool {
    match syntax {
        // `-5` is a number to PowerShell; `-Name` a parameter, whatever follows its name.
        Syntax::PowerShell => {
            return text.starts_with('-') && text[1..].starts_with(|c: char| c.is_alphabetic());
        }
        Syntax::Windows if text.starts_with('/') => return text.len() > 1,
        _ => {}
    }
    if w.kind == WordKind::Computed && w.value.is_none() {
        // `-j$(nproc)`: the leading dash is literal, so it is an option whose value is not
        // known; `$X` alone is an operand that may be an option (see `ambiguous_computed`).
        return text.starts_with('-') && text.len() > 1 && !text[1..].starts_with('$');
    }
    if text.starts_with('+') && text.len() > 1 {
        return matches!(spec.long("+", syntax), Matched::Exact(_));
    }
    // `if=/dev/zero`: a `KEY=` word a `single` spec names as an option (`if=*`).
    if syntax == Syntax::Single && !text.starts_with('-') && text.contains('=') {
        return matches!(spec.long(text, syntax), Matched::Prefixed(..));
    }
    text.starts_with('-') && text.len() > 1
}

/// A dash word in the subcommand's place that a section names (`["brew --prefix"]`): some
/// programs spell subcommands as options. A section written for that word (not a pattern such
/// as `["bun *"]`) wins over reading the word as an unknown option of the program.
fn names_subcommand(
    specs: &Specs,
    path: &str,
    spec: &CommandSpec,
    w: &Word,
    in_place: bool,
) -> bool {
    in_place
        && w.is_literal()
        && w.text.starts_with('-')
        && !w.text.contains([' ', '='])
        && spec
            .operands
            .first()
            .is_some_and(|s| s.kind == Kind::Subcommand)
        && specs
            .lookup(&format!("{path} {}", w.text))
            .is_some_and(|child| !child.name.contains('*'))
}

fn unknown(r: &mut Reading, name: &str, spec: &CommandSpec) {
    r.problems.push(format!(
        "`{}` is not an option sentinel knows for `{}`",
        crate::text::excerpt(name),
        spec.name
    ));
}

/// A long option in the innermost spec, else in its parents as far as they are inherited.
fn find_long<'a>(chain: &'a [Arc<CommandSpec>], name: &str, syntax: Syntax) -> Matched<'a> {
    // The specs whose options apply here: the innermost, and its parents while inherited.
    let n = chain
        .iter()
        .rev()
        .position(|s| !s.inherit)
        .map_or(chain.len(), |i| i + 1);
    let in_force = &chain[chain.len() - n..];
    // A name spelled out anywhere in force wins over an abbreviation of another one.
    let mut found = Matched::Unknown;
    for spec in in_force.iter().rev() {
        match spec.long(name, syntax) {
            m @ Matched::Exact(_) => return m,
            Matched::Unknown => {}
            m => {
                if matches!(found, Matched::Unknown) {
                    found = m;
                }
            }
        }
    }
    found
}

/// A single-dash word that names a multi-letter option (`-pl`, `-pl=x`) or a prefixed one
/// (`-Dkey=value`): the option, its inline value, and the name to show.
fn whole_word<'a, 't>(
    chain: &'a [Arc<CommandSpec>],
    text: &'t str,
    syntax: Syntax,
) -> Option<(&'a OptSpec, Option<&'t str>, &'t str)> {
    let (name, inline) = match text.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    match find_long(chain, name, syntax) {
        Matched::Exact(opt) if name.chars().count() > 2 => Some((opt, inline, name)),
        _ => match find_long(chain, text, syntax) {
            Matched::Prefixed(opt, len) => Some((opt, Some(&text[len..]), &text[..len])),
            _ => None,
        },
    }
}

/// The section of the parameters every PowerShell cmdlet takes (`-ErrorAction`, `-Verbose` …).
pub const POWERSHELL_COMMON: &str = "powershell/common-parameters";

/// A PowerShell parameter as PowerShell binds it.
enum Parameter<'a> {
    Exact(&'a OptSpec),
    /// A unique prefix of this parameter's full name.
    Abbreviated(&'a OptSpec, String),
    Ambiguous,
    Unknown,
}

/// `-name` among the cmdlet's parameters, then the common ones: spelled out, or a prefix of
/// exactly one parameter (as PowerShell binds it; two are an error there).
fn find_parameter<'a>(
    chain: &'a [Arc<CommandSpec>],
    common: Option<&'a CommandSpec>,
    name: &str,
) -> Parameter<'a> {
    let specs = || chain.iter().rev().map(|s| &**s).chain(common);
    for spec in specs() {
        if let Matched::Exact(opt) = spec.long(name, Syntax::PowerShell) {
            return Parameter::Exact(opt);
        }
    }
    let mut found: Vec<(&OptSpec, &str)> = specs().flat_map(|s| s.starting_with(name)).collect();
    found.dedup_by(|a, b| std::ptr::eq(a.0, b.0));
    match found.as_slice() {
        [(opt, full)] => Parameter::Abbreviated(opt, full.to_string()),
        [] => Parameter::Unknown,
        _ => Parameter::Ambiguous,
    }
}

/// The longest switch that `name` starts with and that takes a value, and where the value
/// starts in the piece after the `/` (`/ah` is `/a` with `h`).
fn glued_value(chain: &[Arc<CommandSpec>], name: &str, syntax: Syntax) -> Option<(String, usize)> {
    (2..name.len())
        .rev()
        .filter(|&k| name.is_char_boundary(k))
        .find_map(|k| match find_long(chain, &name[..k], syntax) {
            Matched::Exact(opt) if matches!(opt.kind, OptKind::Value { .. }) => {
                Some((name[..k].to_string(), k - 1))
            }
            _ => None,
        })
}

/// A switch's `:$true` is the switch given; `:$false` (returned as is) is the switch not given.
fn switch_value<'t>(opt: &OptSpec, inline: Option<&'t str>) -> Option<&'t str> {
    match (&opt.kind, inline) {
        (
            OptKind::Flag | OptKind::Operands(..) | OptKind::Deny(_) | OptKind::Review(_),
            Some(v),
        ) if v.eq_ignore_ascii_case("$true") => None,
        (OptKind::Flag | OptKind::Operands(..), Some(v)) if v.eq_ignore_ascii_case("$false") => {
            Some("$false")
        }
        _ => inline,
    }
}

fn find_short(chain: &[Arc<CommandSpec>], c: char) -> Option<&OptSpec> {
    for spec in chain.iter().rev() {
        if let Some(o) = spec.short(c) {
            return Some(o);
        }
        if !spec.inherit {
            break;
        }
    }
    None
}

/// Records what one option means, taking its values from `inline` and the words after it.
#[allow(clippy::too_many_arguments)]
fn apply(
    opt: &OptSpec,
    shown: &str,
    inline: Option<&str>,
    word: &Word,
    argv: &[Word],
    i: &mut usize,
    r: &mut Reading,
    operand_kind: &mut Option<Kind>,
    no_first: &mut bool,
) {
    let marked = |r: &mut Reading| {
        r.marked.push(Marked {
            name: shown.to_string(),
            kind: opt.kind.clone(),
            line: opt.line,
        })
    };
    match &opt.kind {
        OptKind::Flag => {
            if inline.is_some() {
                r.problems.push(format!("`{shown}` takes no value"));
            }
            if r.spec().input_flags.iter().any(|f| f == shown) {
                r.input_flag_given = true;
            }
        }
        OptKind::NoFirstOperand => *no_first = true,
        OptKind::Narrows => r.values.push(Value {
            kind: Kind::Filter,
            word: word.clone(),
            from: Cow::Owned(shown.to_string()),
        }),
        OptKind::Operands(k, _) => {
            r.follows_links |= k.follows_links();
            if *k == Kind::DeleteTree && r.delete_tree_at.is_none() {
                r.delete_tree_at = Some(r.values.len());
            }
            turn(operand_kind, *k);
        }
        OptKind::DefaultOperand(path, k) => {
            r.default_operand = Some(path.clone());
            if let Some(k) = k {
                r.follows_links |= k.follows_links();
                turn(operand_kind, *k);
            }
        }
        OptKind::Deny(_) | OptKind::Review(_) | OptKind::LogsIn => marked(r),
        OptKind::Value {
            kinds,
            optional,
            as_first,
            mark,
        } => {
            if *as_first {
                *no_first = true;
            }
            match mark.as_deref() {
                // A value that also turns the operands (`sips -r 90 a.png` rotates a.png in place).
                Some(OptKind::Operands(k, _)) => {
                    r.follows_links |= k.follows_links();
                    turn(operand_kind, *k);
                }
                Some(m) => r.marked.push(Marked {
                    name: shown.to_string(),
                    kind: m.clone(),
                    line: opt.line,
                }),
                None => {}
            }
            let mut kinds = kinds.iter();
            let first = kinds.next().copied().unwrap_or(Kind::Text);
            if first == Kind::FirstOperand {
                match inline.map(|v| Word {
                    text: v.to_string(),
                    kind: word.kind,
                    value: None,
                }) {
                    Some(v) => r.named_operands.push(v),
                    None => match argv.get(*i) {
                        Some(next) => {
                            r.named_operands.push(next.clone());
                            *i += 1;
                        }
                        None => r.problems.push(format!("`{shown}` is missing its value")),
                    },
                }
                return;
            }
            match inline {
                Some(v) => r.values.push(Value {
                    kind: first,
                    word: Word {
                        text: v.to_string(),
                        kind: word.kind,
                        value: None,
                    },
                    from: Cow::Owned(shown.to_string()),
                }),
                None if *optional => {}
                None => match argv.get(*i) {
                    Some(next) => {
                        r.values.push(Value {
                            kind: first,
                            word: next.clone(),
                            from: Cow::Owned(shown.to_string()),
                        });
                        *i += 1;
                    }
                    None => r.problems.push(format!("`{shown}` is missing its value")),
                },
            }
            // gawk's `-i inplace` loads the extension that rewrites each file operand.
            if first == Kind::AwkLibrary
                && r.values.last().is_some_and(|v| {
                    v.kind == Kind::AwkLibrary
                        && matches!(v.word.text.as_str(), "inplace" | "inplace.awk")
                })
            {
                turn(operand_kind, Kind::Write);
            }
            for k in kinds {
                match argv.get(*i) {
                    Some(next) => {
                        r.values.push(Value {
                            kind: *k,
                            word: next.clone(),
                            from: Cow::Owned(shown.to_string()),
                        });
                        *i += 1;
                    }
                    None => r.problems.push(format!("`{shown}` is missing a value")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
