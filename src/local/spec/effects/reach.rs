//! What a command's recursive reads open ([`Reach`]): the program's own file types
//! (`rules/file_types.txt`) and filters (grep's `--include`, `--exclude`, `--exclude-dir`), and,
//! for operands a listing hands on (`find … -exec CMD {} +`, `git ls-files | xargs CMD`), the
//! entries the listing's tests pick.

use crate::decision::effect::Effect;
use crate::decision::reach::{Reach, Test};
use crate::local::spec::options::{self, Reading};
use crate::local::spec::{Kind, Specs, file_types};
use crate::shell::{SimpleCommand, Word, WordKind};

/// A wildcard as the program gets it: a glob left unexpanded is its text (bash expands it only
/// to names that match it, which it matches too); a computed word only when its value is known.
fn pattern(w: &Word) -> Option<&str> {
    match w.kind {
        WordKind::Literal | WordKind::Glob => Some(&w.text),
        WordKind::Computed => w.value.as_deref(),
    }
}

/// What the reading's recursive reads open: everything, unless the program's line in
/// `file_types.txt` or its own filters rule files out.
pub(super) fn own(r: &Reading, argv: &[Word]) -> Reach {
    let mut reach = file_types::reach_of(r.name(), argv).unwrap_or_default();
    let mut rules = Vec::new();
    let mut rules_known = true;
    let mut dirs = Vec::new();
    for v in &r.values {
        match v.kind {
            Kind::Include | Kind::Exclude => match pattern(&v.word) {
                Some(g) => rules.push((v.kind == Kind::Include, g.to_string())),
                // Not known before it runs: which files it picks is not known either.
                None => rules_known = false,
            },
            // An unknown directory pattern is left out: it could only keep more out.
            Kind::ExcludeDir => dirs.extend(pattern(&v.word).map(str::to_string)),
            _ => {}
        }
    }
    if rules_known && !rules.is_empty() {
        reach.tests.push(Test::Filters { rules });
    }
    if !dirs.is_empty() {
        reach.tests.push(Test::OutsideDirs { any_of: dirs });
    }
    reach
}

/// The entries a listing hands on below its roots, as tests; None when its words cannot be
/// read as a listing sentinel knows. `whole_dirs`: the program reads a directory it is handed
/// with everything in it.
pub(super) fn handed(cmd: &SimpleCommand, specs: &Specs, whole_dirs: bool) -> Option<Reach> {
    let listing = cmd.extra_args_listing.as_ref()?;
    let test = match listing.argv.first().map(|w| w.text.as_str()) {
        Some("find") => find_tests(&options::read(&listing.argv, specs)?)?,
        Some("git") => git_listed(&listing.argv)?,
        _ => return None,
    };
    let tests = match test {
        Test::GitListed { .. } => vec![test],
        Test::Handed { tests, .. } => vec![Test::Handed { tests, whole_dirs }],
        _ => return None,
    };
    Some(Reach {
        tests,
        through_links: true,
        whole_dirs,
        split_names: !listing.whole_names,
    })
}

/// What find's tests pick, as one [`Test::Handed`]: its `-name` and `-path` tests (a `!` or
/// `-not` before one turns it around), all of which an entry must pass; the other tests only
/// pick fewer, so they are left out. None when the expression is not a plain "and" of tests
/// (`-o`, `( )`, `,`).
pub(super) fn find_tests(r: &Reading) -> Option<Test> {
    let mut tests = Vec::new();
    let mut negate = false;
    for v in &r.values {
        let text = v.word.text.as_str();
        let operator = v.from == "operand" && matches!(text, "!" | "(" | ")" | ",");
        if operator && text != "!" {
            return None;
        }
        if (v.kind == Kind::Filter && matches!(text, "-o" | "-or")) || v.from == "-o" {
            return None;
        }
        if operator || (v.kind == Kind::Filter && text == "-not") {
            negate = !negate;
            continue;
        }
        let test = match v.kind {
            Kind::NameFilter => pattern(&v.word).map(|g| Test::Name {
                any_of: vec![g.to_string()],
                ignore_case: v.from.starts_with("-i"),
            }),
            Kind::PathFilter => pattern(&v.word).map(|g| Test::Path {
                glob: g.to_string(),
                ignore_case: v.from.starts_with("-i"),
            }),
            Kind::Filter => None,
            // The starting points and values of other options.
            _ => continue,
        };
        // A test whose pattern is not known, or one that is not a name, is left out: without
        // it the tests pick more, never less.
        if let Some(t) = test {
            tests.push(if negate {
                Test::Not { test: Box::new(t) }
            } else {
                t
            });
        }
        negate = false;
    }
    Some(Test::Handed {
        tests,
        whole_dirs: false,
    })
}

/// What `git ls-files [OPTIONS] [PATHSPEC…]` lists: tracked files by default or with `-c`,
/// `-m`, `-d`; untracked ones with `-o` (not those git ignores with `--exclude-standard`).
fn git_listed(argv: &[Word]) -> Option<Test> {
    if argv.get(1).map(|w| w.text.as_str()) != Some("ls-files") {
        return None;
    }
    let (mut cached, mut others, mut exclude_standard) = (false, false, false);
    let mut pathspecs = Vec::new();
    let mut options_done = false;
    for w in &argv[2..] {
        let t = w.text.as_str();
        if !options_done && t.starts_with('-') {
            match t {
                "--" => options_done = true,
                "-c" | "--cached" | "-m" | "--modified" | "-d" | "--deleted" => cached = true,
                "-o" | "--others" => others = true,
                "--exclude-standard" => exclude_standard = true,
                "--deduplicate" | "--recurse-submodules" | "-z" => {}
                _ => return None,
            }
            continue;
        }
        pathspecs.push(w.known_value()?.to_string());
    }
    if !others {
        cached = true;
    }
    Some(Test::GitListed {
        cached,
        others,
        exclude_standard,
        pathspecs,
    })
}

/// What find's `{}` stands for in the command an `-exec` runs: each entry its tests pick below
/// the starting points, never a starting point itself, when a `-name` or `-path` test rules
/// every starting point out (`find . -name __pycache__ -exec rm -rf {} +` cannot pick `.`).
/// Otherwise `{}` may be the starting point, and is read as it.
pub(super) struct Placeholder {
    roots: Vec<Word>,
    tests: Vec<Test>,
    picked: Option<super::Picked>,
    links: bool,
}

impl Placeholder {
    pub(super) fn of(cmd: &SimpleCommand, specs: &Specs) -> Option<Placeholder> {
        let listing = cmd.extra_args_listing.as_ref()?;
        if cmd.extra_args_piped || listing.argv.first()?.text != "find" {
            return None;
        }
        let r = options::read(&listing.argv, specs)?;
        let Test::Handed { tests, .. } = find_tests(&r)? else {
            return None;
        };
        let roots = cmd.extra_args_under.clone();
        let ruled_out = |root: &Word| {
            root.is_literal() && tests.iter().any(|t| on_root(t, &root.text) == Some(false))
        };
        if roots.is_empty() || !roots.iter().all(ruled_out) {
            return None;
        }
        Some(Placeholder {
            roots,
            tests,
            picked: super::picked_entries(&r),
            links: r.follows_links,
        })
    }

    /// Whether `w` is the placeholder itself.
    pub(super) fn stands_in(&self, w: &Word) -> bool {
        w.text == "{}" && w.kind == WordKind::Computed
    }

    /// What a value of `kind` that is the placeholder does; None: read as the starting point.
    pub(super) fn effects(&self, kind: Kind) -> Option<Vec<Effect>> {
        let each = |f: &dyn Fn(Word) -> Effect| self.roots.iter().cloned().map(f).collect();
        match kind {
            Kind::Read | Kind::Tree | Kind::TreeFollow | Kind::TreeVisible => {
                let reach = Reach {
                    tests: vec![Test::Handed {
                        tests: self.tests.clone(),
                        whole_dirs: kind != Kind::Read,
                    }],
                    through_links: true,
                    whole_dirs: kind != Kind::Read,
                    split_names: false,
                };
                let walk_kind = if kind == Kind::Read { Kind::Tree } else { kind };
                Some(each(&|root| super::walk(root, walk_kind, &reach)))
            }
            Kind::Delete | Kind::Move | Kind::DeleteTree => {
                let pick = self.picked.as_ref()?;
                Some(each(&|root| Effect::DeleteBelow {
                    path: root,
                    names: pick.names.clone(),
                    ignore_case: pick.ignore_case,
                    links: self.links,
                    picked_by: pick.shown.clone(),
                    tree: kind == Kind::DeleteTree,
                }))
            }
            _ => None,
        }
    }
}

/// A `-name` or `-path` test (or its opposite) on a starting point as written: find tests the
/// starting point itself too, its base name (`.` for `.`) or its whole path. None for another
/// test, or a pattern this matcher does not read.
fn on_root(t: &Test, root: &str) -> Option<bool> {
    use crate::local::paths::fnmatch::fnmatch;
    match t {
        Test::Name {
            any_of,
            ignore_case,
        } => {
            let trimmed = root.trim_end_matches('/');
            let base = match trimmed.rsplit_once('/') {
                Some((_, b)) if !b.is_empty() => b,
                _ if trimmed.is_empty() => "/",
                _ => trimmed,
            };
            let mut unsure = false;
            for g in any_of {
                match fnmatch(g, base, *ignore_case) {
                    Some(true) => return Some(true),
                    None => unsure = true,
                    Some(false) => {}
                }
            }
            (!unsure).then_some(false)
        }
        Test::Path { glob, ignore_case } => fnmatch(glob, root, *ignore_case),
        Test::Not { test: inner } => on_root(inner, root).map(|b| !b),
        _ => None,
    }
}
