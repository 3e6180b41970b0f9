//! Reading a rule file: its lines from the text or from a cached image, each checked and
//! compiled, with every bad line's error at its file:line.

use super::*;
use crate::local::paths::list::Deferred;
use crate::local::paths::scan::Mask;

/// Compiles a person's or a project's rule file (`text`, whose SHA-256 is `content`) into the
/// image its rules are built from, through the cache when there is one: a cached image of this
/// content skips each line's regex check and prefilter extraction; anything else in the cache
/// (damaged, another version) is a miss, and the image compiled afresh is written back. `stat`
/// is the file's stat taken before it was read (a file in SENTINEL_HOME), recorded for the stat
/// fast path of [`Rules::load`].
#[allow(clippy::too_many_arguments)]
pub(super) fn compile_written(
    file: RuleFile,
    origin: &str,
    text: &str,
    content: &[u8; 32],
    home: Option<&Path>,
    layer: Layer,
    cache: Option<&Path>,
    stat: Option<cache::Stat>,
) -> Option<&'static cache::Compiled<'static>> {
    let id = cache_id(file, origin, home, layer);
    if let Some(image) = cache.and_then(|dir| cache::by_content(dir, &id, content, stat)) {
        return Some(image);
    }
    // A person's file may be the bundled text, a copy an install seeded, and has `off:` lines
    // (SPEC 2.1); a project's lines are all its own.
    let (kind, text, off) = match layer {
        Layer::Home if text == file.bundled() => (cache::Kind::Bundled, String::new(), Vec::new()),
        Layer::Home if layers::is_seeded(file, &hex(content)) => {
            (cache::Kind::Seeded, String::new(), Vec::new())
        }
        Layer::Home => {
            let (text, off) = layers::take_off_lines(text);
            (cache::Kind::Own, text, off)
        }
        Layer::Project(_) | Layer::Managed => (cache::Kind::Own, text.to_string(), Vec::new()),
    };
    let (.., found) = parse_file(file, origin, Lines::Text(&text), home, true, layer, None);
    let (lines, literals) = found?;
    let image = cache::Image {
        kind,
        origin,
        off: off.iter().map(|(l, p)| (*l as u32, p.as_str())).collect(),
        lines,
        literals: literals.iter().map(Vec::as_slice).collect(),
    };
    if let Some(dir) = cache {
        cache::store(dir, &id, content, stat, &image);
    }
    cache::reload(&id, content, &image)
}

/// What a project's command rules in one file may cost to compile, in [`compile_cost`] units: a
/// cloned repository must not make every hook compile for longer than the agent waits (every
/// unanchored rule without a literal is compiled for each command). About 30 units for a
/// typical rule (`^git( \S+)* push( \S+)* --force`), so some 3,000 ordinary rules fit; at the
/// bound a debug build compiles for about 0.7 s on this machine.
pub const PROJECT_COMPILE_BOUND: u64 = 100_000;

/// What compiling `pattern` costs, roughly the size of its automaton: its literals, classes and
/// assertions with every counted repetition written out (`(\w|\s){90}` is 180). A pattern
/// that does not parse costs its length (it is an error anyway).
pub(super) fn compile_cost(pattern: &str) -> u64 {
    use regex_syntax::hir::{Hir, HirKind};
    fn cost(h: &Hir) -> u64 {
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) | HirKind::Class(_) => 1,
            HirKind::Literal(l) => l.0.len() as u64,
            HirKind::Capture(c) => cost(&c.sub),
            HirKind::Repetition(r) => {
                let times = u64::from(r.max.unwrap_or(r.min).max(1)) + 1;
                cost(&r.sub).saturating_mul(times)
            }
            HirKind::Concat(v) | HirKind::Alternation(v) => {
                v.iter().fold(0, |a, h| a.saturating_add(cost(h)))
            }
        }
    }
    let body = pattern.trim_start_matches('!');
    match crate::ascii_regex::parse(body) {
        Ok(hir) => cost(&hir),
        Err(_) => body.len() as u64,
    }
}

/// Which rule file a cache file is for.
pub(super) fn cache_id(
    file: RuleFile,
    origin: &str,
    home: Option<&Path>,
    layer: Layer,
) -> [u8; 32] {
    let layer = match layer {
        Layer::Home => Cow::Borrowed(&b"home"[..]),
        Layer::Managed => Cow::Borrowed(&b"managed"[..]),
        Layer::Project(root) => {
            Cow::Owned([b"project:", root.as_os_str().as_encoded_bytes()].concat())
        }
    };
    cache::id(file.name(), &layer, home, origin)
}

/// Lower-case hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    crate::digest::hex(bytes)
}

/// A SHA-256 given in hex.
pub(super) fn unhex(hex: &str) -> Option<[u8; 32]> {
    let mut out = [0; 32];
    (hex.len() == 64).then_some(())?;
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// A rule file whose image could not be made (never expected): its rules are missing, so the
/// load has an error, and local allows become `ask`.
pub(super) fn not_compiled(origin: &str) -> RuleError {
    RuleError {
        file: origin.to_string(),
        line: 0,
        message: "could not be compiled".into(),
    }
}

/// A person's rule file as `Rules::load` found it.
pub(super) enum Source {
    /// Exactly the bundled text (or absent).
    Bundled,
    /// Its text, and its stat before it was read.
    Text(String, Option<cache::Stat>),
    /// Its image from the cache (the stat fast path).
    Image(&'static cache::Compiled<'static>),
}

/// Where a file's rule lines come from: the build's tables (the bundled file), a text, or a
/// compiled image (whose strings live as long as the process: the rules borrow them).
#[derive(Clone, Copy)]
pub(super) enum Lines<'t> {
    Bundled,
    Text(&'t str),
    Image(&'static cache::Compiled<'static>),
}

/// What a parse of a text found for each line, for its image: the lines, and the prefilter
/// literals they point into.
pub(super) type FoundLines<'t> = (Vec<cache::Line<'t>>, Vec<Vec<u8>>);

/// Parses one rule file: the bundled file from the build's tables (no text to read, no regex or
/// prefilter to compute), a text, or an image. `validate` checks each regex's syntax (a user's
/// file); the build checked the bundled ones. Relative paths in a project's path lists are
/// relative to the project. An image gives what an earlier parse found for each line (a line
/// whose entry does not fit the file is parsed afresh); the third result is what the parse of a
/// text found for each line, for its image. The rules follow those of `onto` when it is given
/// (a person's after the bundled: no copy of either).
pub(super) fn parse_file<'t>(
    file: RuleFile,
    origin: &str,
    source: Lines<'t>,
    home: Option<&Path>,
    validate: bool,
    layer: Layer,
    onto: Option<Parsed>,
) -> (Parsed, Vec<RuleError>, Option<FoundLines<'t>>) {
    if matches!(source, Lines::Bundled) && file.is_path_list() && onto.is_none() {
        return (bundled_paths(file, origin, home), Vec::new(), None);
    }
    let text = match source {
        Lines::Text(t) => Some(t),
        _ => None,
    };
    let image = match source {
        Lines::Image(image) => Some(image),
        _ => None,
    };
    let mut found = Vec::new();
    let mut literals: Vec<Vec<u8>> = Vec::new();
    let mut errors = Vec::new();
    // What a project's regexes may cost to compile, all told (see `compile_cost`).
    let mut spent = 0u64;
    // A whole bundled command file as sentinel ships it: the rules made at compile time.
    let shipped = matches!(source, Lines::Bundled)
        && !file.is_path_list()
        && origin == "bundled"
        && matches!(layer, Layer::Home)
        && onto.is_none();
    let (mut commands, mut paths) = match onto {
        Some(Parsed::Commands(list)) => (list, Vec::new()),
        Some(Parsed::Paths(list)) => (RuleList::default(), list.into_lines()),
        None if shipped => (RuleList::bundled(file), Vec::new()),
        None => (RuleList::default(), Vec::new()),
    };
    // A command file's cached lines become rules when a command could match them (`Pending`);
    // a path list's are read now.
    let image_paths = image.filter(|_| file.is_path_list());
    let more = image_paths.map_or(0, |i| i.len());
    commands
        .rules
        .reserve(if file.is_path_list() { 0 } else { more });
    paths.reserve(if file.is_path_list() { more } else { 0 });
    let display = if origin == "bundled" {
        format!("{} (bundled)", file.name())
    } else {
        origin.to_string()
    };
    let label: Cow<'static, str> = match layer {
        Layer::Home => Cow::Borrowed(file.name()),
        Layer::Project(_) => Cow::Borrowed(file.project_name()),
        Layer::Managed => Cow::Owned(origin.to_string()),
    };
    let origin_ref: Cow<'static, str> = match (origin, image) {
        ("bundled", _) => Cow::Borrowed("bundled"),
        (_, Some(image)) => Cow::Borrowed(image.origin),
        (o, None) => Cow::Owned(o.to_string()),
    };
    type Item<'t> = (
        usize,
        &'t str,
        Option<&'t str>,
        Option<(usize, &'static bundled::Line)>,
        Option<cache::Line<'static>>,
    );
    let built = match source {
        Lines::Bundled if !shipped => bundled::lines(file),
        _ => &[],
    };
    let first = bundled::first(file);
    let built = built.iter().enumerate().map(|(i, l)| -> Item<'_> {
        (
            l.line as usize,
            bundled::text(l.pattern),
            l.why.map(bundled::text),
            Some((first + i, l)),
            None,
        )
    });
    let written = text
        .unwrap_or("")
        .lines()
        .enumerate()
        .filter_map(|(i, raw)| {
            split_line(raw).map(|(pattern, why)| -> Item<'_> { (i + 1, pattern, why, None, None) })
        });
    let cached = image_paths.into_iter().flat_map(|image| {
        (0..image.len()).map(|i| -> Item<'_> {
            match image.line(i) {
                Some(l) => (l.line as usize, l.pattern, l.why, None, Some(l)),
                // Damage the checksum missed: an error, so no allow rests on this file.
                None => (0, "", None, None, None),
            }
        })
    });
    for (line, pattern, why, compiled, cached) in built.chain(written).chain(cached) {
        // The rule's strings: the build's or the image's (no copy), or the text's.
        let rule = RuleRef {
            file: label.clone(),
            line,
            origin: origin_ref.clone(),
            pattern: match (compiled, &cached) {
                (Some((_, l)), _) => Cow::Borrowed(bundled::text(l.pattern)),
                (None, Some(l)) => Cow::Borrowed(l.pattern),
                (None, None) => Cow::Owned(pattern.to_string()),
            },
            why: match (compiled, &cached) {
                (Some((_, l)), _) => l.why.map(|w| Cow::Borrowed(bundled::text(w))),
                (None, Some(l)) => l.why.map(Cow::Borrowed),
                (None, None) => why.map(|w| Cow::Owned(w.to_string())),
            },
        };
        let error = |message: String| RuleError {
            file: display.clone(),
            line,
            message,
        };
        // What the image says of this line, when it fits the file (else it is parsed afresh).
        if image.is_some() && cached.is_none() {
            errors.push(error("its line in the rule cache is damaged".to_string()));
            continue;
        }
        let hint = cached.as_ref().map(|l| &l.found).filter(|f| match f {
            cache::Found::Error(_) => true,
            cache::Found::Command { .. } => !file.is_path_list(),
            cache::Found::Path => file.is_path_list(),
        });
        let mut note = |f: cache::Found<'static>| {
            if text.is_some() {
                found.push(cache::Line {
                    line: line as u32,
                    pattern,
                    why,
                    found: f,
                });
            }
        };
        match file {
            RuleFile::HardBlock | RuleFile::ConditionalBlock | RuleFile::Safe => {
                let negated = file == RuleFile::Safe && pattern.starts_with('!');
                let whole = file == RuleFile::Safe;
                if compiled.is_some() {
                    commands.push(CommandRule::new(rule, negated, whole, compiled));
                    continue;
                }
                let over = matches!(layer, Layer::Project(_)) && text.is_some() && {
                    if spent > PROJECT_COMPILE_BOUND {
                        // Reported once, at the first line over: the rest are left out.
                        continue;
                    }
                    spent = spent.saturating_add(compile_cost(pattern));
                    spent > PROJECT_COMPILE_BOUND
                };
                let filters = match hint {
                    Some(cache::Found::Error(message)) => Err(message.to_string()),
                    _ if over => Err(format!(
                        "the project's rules in this file are over the compile bound ({PROJECT_COMPILE_BOUND} units of regex, counted repetitions written out) from this line on: not compiled"
                    )),
                    _ => command_filters(file, pattern, whole, validate).map(
                        |(prefixes, anchored, required)| {
                            let mut span = |l: Vec<Vec<u8>>| {
                                let first = literals.len() as u32;
                                literals.extend(l.iter().cloned());
                                ((first, l.len() as u32), Literals::Owned(l))
                            };
                            let (p, prefixes) = span(prefixes);
                            let (r, required) = span(required);
                            note(cache::Found::Command {
                                anchored,
                                prefixes: p,
                                required: r,
                            });
                            (prefixes, anchored, required)
                        },
                    ),
                };
                match filters {
                    Ok(filters) => {
                        commands.push(CommandRule::written(rule, negated, whole, filters));
                    }
                    Err(message) => {
                        note(cache::Found::Error(Cow::Owned(message.clone())));
                        errors.push(error(message));
                    }
                }
            }
            RuleFile::ProtectedPaths
            | RuleFile::SafePaths
            | RuleFile::ExcludedPaths
            | RuleFile::CredentialPaths => {
                if !file.allows_exceptions() && pattern.starts_with('!') {
                    let message = format!("`!` exceptions are not allowed in {}", file.name());
                    note(cache::Found::Error(Cow::Owned(message.clone())));
                    errors.push(error(message));
                    continue;
                }
                let parse = || {
                    if file == RuleFile::ProtectedPaths {
                        // Relative to whichever project a call is in: kept as a glob over the
                        // path below the project root.
                        return PathPattern::parse_relative(pattern);
                    }
                    let anchored = match layer {
                        Layer::Project(root) => relative_to(pattern, root),
                        Layer::Home | Layer::Managed => None,
                    };
                    let case_insensitive = file != RuleFile::SafePaths;
                    PathPattern::parse(
                        anchored.as_deref().unwrap_or(pattern),
                        home,
                        case_insensitive,
                    )
                };
                // A cached line's glob was built when it was written: not built again.
                let parsed = match hint {
                    Some(cache::Found::Error(message)) => Err(message.to_string()),
                    Some(cache::Found::Path) => parse(),
                    _ => parse().and_then(|p| checked(p, validate)),
                };
                match parsed {
                    Ok(p) => {
                        note(cache::Found::Path);
                        paths.push((p, rule));
                    }
                    Err(e) => {
                        note(cache::Found::Error(Cow::Owned(e.clone())));
                        errors.push(error(e));
                    }
                }
            }
        }
    }
    if let (Some(image), false) = (image, file.is_path_list()) {
        // Only the bad lines are read now, to be reported.
        for i in (0..image.len()).filter(|&i| image.is_error(i)) {
            let (line, message) = match image.line(i) {
                Some(cache::Line {
                    line,
                    found: cache::Found::Error(m),
                    ..
                }) => (line as usize, m.to_string()),
                _ => (0, "its line in the rule cache is damaged".to_string()),
            };
            errors.push(RuleError {
                file: display.clone(),
                line,
                message,
            });
        }
        commands.pending = Some(Pending::new(image, file, label.clone()));
    }
    let parsed = match file {
        f if f.is_path_list() => Parsed::Paths(PathList::new(paths)),
        _ => {
            commands.index();
            Parsed::Commands(commands)
        }
    };
    let found = text.map(|_| (found, literals));
    (parsed, errors, found)
}

/// A bundled path list from the build's table: each line as the build read it, with the home
/// directory put into its `~` lines (left out without a home, as a bad line of a bundled file
/// is: the build checked the rest). Nothing is parsed or copied but those lines' paths. The
/// list as sentinel ships it is not even built: its lookups read the table, building only the
/// lines whose byte pairs the path has ([`Deferred`]), until the list is worth indexing.
pub(super) fn bundled_paths(file: RuleFile, origin: &str, home: Option<&Path>) -> Parsed {
    let (start, end) = bundled::FILES[file as usize];
    let range = start as usize..end as usize;
    let plain = home.is_none_or(|h| crate::paths::Home::new(h).is_plain());
    if origin == "bundled" && plain {
        return Parsed::Paths(PathList::deferred(Deferred {
            range,
            pairs: bundled_path_pairs,
            pattern: bundled_path,
            rule: bundled::path_rule,
            home: home.map(Path::to_path_buf),
        }));
    }
    let origin: Cow<'static, str> = match origin {
        "bundled" => Cow::Borrowed("bundled"),
        o => Cow::Owned(o.to_string()),
    };
    let home = home.map(crate::paths::Home::new);
    let mut paths = Vec::with_capacity(range.len());
    for i in range {
        let Some(p) = bundled_path(i, home.as_ref()) else {
            continue;
        };
        let rule = bundled::path_rule(i);
        let rule = RuleRef {
            origin: origin.clone(),
            ..rule.clone()
        };
        paths.push((p, rule));
    }
    Parsed::Paths(PathList::new(paths))
}

/// Bundled path-list line `i` (an index of the build's table) read with the home: None for a
/// line left out.
fn bundled_path(i: usize, home: Option<&crate::paths::Home>) -> Option<PathPattern> {
    let l = &bundled::LINES[i];
    let b = l.path.as_ref()?;
    let file = RuleFile::ALL
        .into_iter()
        .find(|f| (bundled::FILES[*f as usize].1 as usize) > i)?;
    let case_insensitive = file != RuleFile::SafePaths;
    let pattern = bundled::text(l.pattern);
    PathPattern::read(Cow::Borrowed(pattern), b.scanned(), home, case_insensitive).ok()
}

/// The byte pairs every path bundled line `i` matches contains, as its [`PathPattern`] read
/// with a plain home has them: a `~` line that is neither a glob nor simple is expanded and read
/// again (`PathPattern::at_home`), so it claims none. None for a line the build left out.
fn bundled_path_pairs(i: usize) -> Option<Mask> {
    let b = bundled::LINES[i].path.as_ref()?;
    let again = matches!(b.form, bundled::Form::Home) && !b.glob && !b.simple;
    Some(if again { Mask::EMPTY } else { b.mask })
}

/// A path-list line with its glob built now when `validate` (a person's file), so a bad glob
/// is reported at load; bundled lines are checked by the tests.
pub(super) fn checked(p: PathPattern, validate: bool) -> Result<PathPattern, String> {
    if validate {
        p.check()?;
    }
    Ok(p)
}

/// A project's relative path entry made absolute under the project root (`!` kept).
pub(super) fn relative_to(pattern: &str, root: &Path) -> Option<String> {
    let (bang, body) = match pattern.strip_prefix('!') {
        Some(rest) => ("!", rest.trim()),
        None => ("", pattern),
    };
    let absolute = body.starts_with(['/', '~', '$', '*']) || crate::paths::is_windows_path(body);
    (!absolute).then(|| format!("{bang}{}/{}", root.display(), body.trim_start_matches("./")))
}
