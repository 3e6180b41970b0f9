//! A path list (safe, excluded, credential or protected paths) with an index over its lines'
//! byte pairs, so a path is tried against the few lines it could match instead of every line.
//!
//! Every line of a list has a [`Mask`] of the byte pairs each path it matches contains. The
//! index files a line under one of those pairs, the one the fewest other lines share (so not a
//! pair of the home directory, which every `~` line has): a path that lacks the pair cannot
//! match the line, and a path's pairs name the few buckets worth reading. A line with no pair
//! at all is tried for every path. The answer is [`list_matches`]'s, line for line: a test
//! compares the two over the corpora's paths.
//!
//! Building the index costs about as much as a dozen lookups without it, which is more than a
//! hook makes in its one decision: a list is indexed at its [`INDEX_AFTER`]th lookup, so a
//! long-lived engine gets the index and a hook never pays for it.
//!
//! A list as the build made it ([`Deferred`]: a bundled list) is not even built line by line
//! until then: a lookup reads the table's byte pairs and builds only the lines the path has
//! them for (building all of them was a fifth of a file write's hook).

use crate::local::paths::scan::Mask;
use crate::local::paths::{Home, PathPattern, Probe, first_unexcepted, list_matches};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Lookups made line by line before the list is indexed.
pub const INDEX_AFTER: u32 = 16;

/// A list's lines in file order, and their index (built at the [`INDEX_AFTER`]th lookup).
#[derive(Debug)]
pub struct PathList<T: 'static> {
    /// Built at once, or (a deferred list) when the index or every line is asked for.
    lines: OnceLock<Vec<(PathPattern, T)>>,
    /// Where the lines come from when they are built on demand.
    deferred: Option<Deferred<T>>,
    index: OnceLock<Option<Index>>,
    /// Lookups so far, up to [`INDEX_AFTER`].
    lookups: AtomicU32,
}

/// Lines filed by one pair each (line numbers ascending in each bucket).
#[derive(Debug)]
struct Index {
    /// The bits some line is filed under.
    filed: Mask,
    /// Per bit of a mask, the lines filed under it.
    buckets: Vec<Vec<u16>>,
    /// Lines without a pair, tried for every path.
    always: Vec<u16>,
}

/// Lines a query marks in a bitset on the stack: a longer list is read line by line.
const MAX_INDEXED: usize = 1024;

/// A list's lines in a table made at build time: line `i` of `range` has the byte pairs
/// `pairs(i)` (None: the line is left out), reads as `pattern(i, home)` (None: left out) and
/// answers `rule(i)`. `pairs(i)` must be the mask of what `pattern` reads for every home a
/// deferred list is made with (or claim less), so that skipping a line whose pairs the path
/// lacks skips only a line that cannot match.
pub struct Deferred<T: 'static> {
    pub range: Range<usize>,
    pub pairs: fn(usize) -> Option<Mask>,
    pub pattern: fn(usize, Option<&Home>) -> Option<PathPattern>,
    pub rule: fn(usize) -> &'static T,
    pub home: Option<PathBuf>,
}

impl<T> std::fmt::Debug for Deferred<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Deferred({:?}, home {:?})", self.range, self.home)
    }
}

impl<T: Clone> Deferred<T> {
    /// Every line, built.
    fn build(&self) -> Vec<(PathPattern, T)> {
        let home = self.home.as_deref().map(Home::new);
        self.range
            .clone()
            .filter_map(|i| Some(((self.pattern)(i, home.as_ref())?, (self.rule)(i).clone())))
            .collect()
    }

    /// [`list_matches`] over the lines whose pairs `path` has, built for this lookup only.
    fn matches(&self, path: &Path) -> Option<&'static T> {
        let probe = Probe::new(path);
        let home = self.home.as_deref().map(Home::new);
        let tried: Vec<(PathPattern, usize)> = self
            .range
            .clone()
            .filter(|&i| (self.pairs)(i).is_some_and(|m| m.within(probe.mask())))
            .filter_map(|i| Some(((self.pattern)(i, home.as_ref())?, i)))
            .collect();
        // As `first_unexcepted`: an exception that matches outranks every line.
        if tried
            .iter()
            .any(|(p, _)| p.negated && p.matches_probe(&probe))
        {
            return None;
        }
        tried
            .iter()
            .find(|(p, _)| !p.negated && p.matches_probe(&probe))
            .map(|&(_, i)| (self.rule)(i))
    }
}

impl<T: Clone> PathList<T> {
    pub fn new(lines: Vec<(PathPattern, T)>) -> Self {
        PathList {
            lines: OnceLock::from(lines),
            deferred: None,
            index: OnceLock::new(),
            lookups: AtomicU32::new(0),
        }
    }

    /// A list whose lines are built when needed (see [`Deferred`]).
    pub fn deferred(source: Deferred<T>) -> Self {
        PathList {
            lines: OnceLock::new(),
            deferred: Some(source),
            index: OnceLock::new(),
            lookups: AtomicU32::new(0),
        }
    }

    /// Every line, built now if it was deferred.
    fn all(&self) -> &Vec<(PathPattern, T)> {
        self.lines.get_or_init(|| {
            self.deferred
                .as_ref()
                .map_or_else(Vec::new, Deferred::build)
        })
    }

    /// The lines, for changes (the index is built again on the next lookup).
    pub fn lines_mut(&mut self) -> &mut Vec<(PathPattern, T)> {
        self.all();
        self.deferred = None;
        self.index = OnceLock::new();
        self.lookups = AtomicU32::new(0);
        self.lines.get_mut().expect("built above")
    }

    /// The lines, in file order.
    pub fn lines(&self) -> &[(PathPattern, T)] {
        self.all()
    }

    pub fn into_lines(self) -> Vec<(PathPattern, T)> {
        self.all();
        self.lines.into_inner().unwrap_or_default()
    }

    /// Whether a `!` exception covers `path` (`.env.example` under `!**/.env.example`).
    pub fn excepted(&self, path: &Path) -> bool {
        self.all().iter().any(|(p, _)| p.negated && p.matches(path))
    }

    /// The entry `path` falls under, unless a `!` exception covers it: [`list_matches`], with
    /// only the lines whose filed pair the path has tried.
    pub fn matches(&self, path: &Path) -> Option<&T> {
        // A drive path on a non-Windows event is `/C:/…` (`paths::windows`): it meets the
        // lists' Windows lines (`?:/Windows`) as the drive path it stands for.
        if let Some(drive) = drive_form(path)
            && let Some(found) = self.matches_as_written(drive)
        {
            return Some(found);
        }
        self.matches_as_written(path)
    }

    fn matches_as_written(&self, path: &Path) -> Option<&T> {
        let index = match self.index.get() {
            Some(index) => index,
            None if self.lookups.fetch_add(1, Relaxed) < INDEX_AFTER => {
                if let (None, Some(deferred)) = (self.lines.get(), &self.deferred) {
                    return deferred.matches(path);
                }
                return list_matches(self.all(), path);
            }
            None => self.index.get_or_init(|| Index::of(self.all())),
        };
        let lines = self.all();
        let Some(index) = index else {
            return list_matches(lines, path);
        };
        let probe = Probe::new(path);
        let mask = probe.mask();
        if *mask == Mask::FULL {
            return list_matches(lines, path);
        }
        let mut marked = [0u64; MAX_INDEXED / 64];
        let mut mark = |i: u16| marked[usize::from(i) >> 6] |= 1 << (i & 63);
        index.always.iter().copied().for_each(&mut mark);
        for bit in set_bits(&mask.and(&index.filed).0) {
            index.buckets[bit].iter().copied().for_each(&mut mark);
        }
        let tried = set_bits(&marked).map(|i| &lines[i]);
        first_unexcepted(tried, |p| p.matches_probe(&probe))
    }
}

/// `C:/x` for a drive path mapped onto a non-Windows event as `/C:/x` (`paths::windows`).
pub fn drive_form(path: &Path) -> Option<&Path> {
    let rest = path.to_str()?.strip_prefix('/')?;
    let b = rest.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/')
        .then(|| Path::new(rest))
}

impl<'a, T: Clone> IntoIterator for &'a PathList<T> {
    type Item = &'a (PathPattern, T);
    type IntoIter = std::slice::Iter<'a, (PathPattern, T)>;

    fn into_iter(self) -> Self::IntoIter {
        self.all().iter()
    }
}

impl<T: Clone> std::ops::Deref for PathList<T> {
    type Target = [(PathPattern, T)];

    fn deref(&self) -> &Self::Target {
        self.all()
    }
}

impl Index {
    /// None for a list too long for the query's bitset.
    fn of<T>(lines: &[(PathPattern, T)]) -> Option<Index> {
        if lines.len() > MAX_INDEXED {
            return None;
        }
        let bits = |m: &Mask| set_bits(&m.0).collect::<Vec<_>>();
        let mut shared = [0u32; 256];
        for (p, _) in lines {
            for b in bits(p.mask()) {
                shared[b] += 1;
            }
        }
        let mut index = Index {
            filed: Mask::EMPTY,
            buckets: vec![Vec::new(); 256],
            always: Vec::new(),
        };
        for (i, (p, _)) in lines.iter().enumerate() {
            let i = u16::try_from(i).expect("MAX_INDEXED fits in u16");
            match bits(p.mask()).into_iter().min_by_key(|&b| shared[b]) {
                Some(b) => {
                    index.buckets[b].push(i);
                    index.filed.set(b);
                }
                None => index.always.push(i),
            }
        }
        Some(index)
    }
}

/// The positions of the set bits of `words`, ascending.
fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + Clone + '_ {
    words.iter().enumerate().flat_map(|(word, &bits)| {
        std::iter::successors(Some(bits), |b| Some(b & b.wrapping_sub(1)))
            .take_while(|&b| b != 0)
            .map(move |b| word * 64 + b.trailing_zeros() as usize)
    })
}
