//! Reading a rule line: its pattern and comment, the regex it compiles to, and the literal
//! prefilter that lets a rule be skipped for a command it cannot match. Shared by `build.rs`
//! (which computes the bundled rules' prefilters once, at build time) and the loader of a
//! person's rule files, so both read a line the same way.

/// The regex a rule compiles to: safe rules (`whole`) must match the whole command.
pub fn compiled_pattern(body: &str, whole: bool) -> String {
    if !whole {
        return body.to_string();
    }
    let inner = body.strip_prefix('^').unwrap_or(body);
    let inner = inner
        .strip_suffix('$')
        .filter(|i| !i.ends_with('\\'))
        .unwrap_or(inner);
    format!("^(?:{inner})$")
}

/// The literals every match of `pattern` begins with, as regex-syntax's extractor finds them,
/// and whether the pattern is anchored at the start (empty when there is no finite set without
/// the empty string: then the rule is always tested); and the literals every match contains
/// (each of them, anywhere): a second sound condition that skips `^git( \S+)* push` for
/// `git status`, whose prefix matches.
pub fn literal_filters(pattern: &str) -> (Vec<Vec<u8>>, bool, Vec<Vec<u8>>) {
    use regex_syntax::hir::Look;
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
    else {
        return (Vec::new(), false, Vec::new());
    };
    let anchored = hir.properties().look_set_prefix().contains(Look::Start);
    let mut required = Vec::new();
    required_literals(&hir, &mut required);
    required.sort();
    required.dedup();
    let mut extractor = Extractor::new();
    extractor.kind(ExtractKind::Prefix).limit_total(256);
    let seq = extractor.extract(&hir);
    let Some(lits) = seq.literals() else {
        return (Vec::new(), anchored, required);
    };
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return (Vec::new(), anchored, required);
    }
    (
        lits.iter().map(|l| l.as_bytes().to_vec()).collect(),
        anchored,
        required,
    )
}

/// Literals every match of `hir` contains: the literal runs of a concatenation, and what a
/// repetition of at least one or a group requires. An alternation, a class or an optional part
/// requires nothing (a sound under-approximation).
fn required_literals(hir: &regex_syntax::hir::Hir, out: &mut Vec<Vec<u8>>) {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(l) => out.push(l.0.to_vec()),
        HirKind::Capture(c) => required_literals(&c.sub, out),
        HirKind::Repetition(r) if r.min >= 1 => required_literals(&r.sub, out),
        HirKind::Concat(subs) => {
            let mut run: Vec<u8> = Vec::new();
            for sub in subs {
                match sub.kind() {
                    HirKind::Literal(l) => run.extend_from_slice(&l.0),
                    _ => {
                        if !run.is_empty() {
                            out.push(std::mem::take(&mut run));
                        }
                        required_literals(sub, out);
                    }
                }
            }
            if !run.is_empty() {
                out.push(run);
            }
        }
        _ => {}
    }
}

/// Splits a rule line into pattern and `# why` comment; None for blank and comment lines.
/// A comment starts at a `#` preceded by whitespace; write `[#]` for a literal one.
pub fn split_line(raw: &str) -> Option<(&str, Option<&str>)> {
    let line = raw.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let cut = line
        .char_indices()
        .find(|&(i, c)| c == '#' && line[..i].ends_with(char::is_whitespace))
        .map(|(i, _)| i);
    match cut {
        Some(i) => {
            let why = line[i + 1..].trim();
            Some((line[..i].trim(), (!why.is_empty()).then_some(why)))
        }
        None => Some((line, None)),
    }
}

/// The byte pairs every text `pattern` can match contains: those its syntax tree requires
/// (every required literal's, and an alternation's are the pairs all of its branches hold:
/// `(filter-branch|filter-repo)` requires `fi`, `il`, …), and those all its prefixes share. A
/// text whose pairs do not hold them is ruled out in a few instructions, before any substring
/// search. `filters` is `literal_filters(pattern)`. Pairs are ASCII case folded, so a `(?i)`
/// pattern's pairs are those of the pattern without the flag (its own literals are case
/// variants of those, too many to extract).
pub fn pair_mask(
    pattern: &str,
    filters: &(Vec<Vec<u8>>, bool, Vec<Vec<u8>>),
) -> crate::local::paths::scan::Mask {
    use crate::local::paths::scan::Mask;
    let unfolded = pattern
        .strip_prefix("(?i)")
        .filter(|rest| !rest.contains("(?"));
    let folded = unfolded.map(literal_filters);
    let (prefixes, _, _) = folded.as_ref().unwrap_or(filters);
    let mut m = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(unfolded.unwrap_or(pattern))
        .map_or(Mask::EMPTY, |hir| required_pairs(&hir));
    if let Some((first, rest)) = prefixes.split_first() {
        let shared = rest
            .iter()
            .fold(Mask::of(first), |acc, p| acc.and(&Mask::of(p)));
        m = m.or(&shared);
    }
    m
}

/// The byte pairs every match of `hir` contains: those of the runs `required_literals` finds,
/// and an alternation's, the pairs all its branches hold. A sound under-approximation: a
/// class, an assertion or an optional part holds none, and adjacent literals make one run (the
/// pair across them counts).
fn required_pairs(hir: &regex_syntax::hir::Hir) -> crate::local::paths::scan::Mask {
    use crate::local::paths::scan::Mask;
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(l) => Mask::of(&l.0),
        HirKind::Capture(c) => required_pairs(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => required_pairs(&r.sub),
        HirKind::Concat(subs) => {
            let (mut m, mut run) = (Mask::EMPTY, Vec::new());
            for sub in subs {
                match sub.kind() {
                    HirKind::Literal(l) => run.extend_from_slice(&l.0),
                    _ => {
                        m = m.or(&Mask::of(&run)).or(&required_pairs(sub));
                        run.clear();
                    }
                }
            }
            m.or(&Mask::of(&run))
        }
        HirKind::Alternation(alts) => alts
            .iter()
            .map(required_pairs)
            .reduce(|a, b| a.and(&b))
            .unwrap_or(Mask::EMPTY),
        _ => Mask::EMPTY,
    }
}
