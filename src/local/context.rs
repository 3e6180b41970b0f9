//! What Tier 1 knows besides the call and the rules: where the call is made, the homes, how
//! the file system is read, the session's taint.

use crate::decision::taint::Taint;
use crate::ledger::written::Written;
use crate::local::paths::fs::{Fs, LexicalFs};
use crate::local::paths::programs::{NoPrograms, Programs};
use std::path::{Path, PathBuf};

/// What Tier 1 needs besides the call and the rules.
pub struct Context<'a> {
    /// The directory the call is made in (the event's `cwd`).
    pub cwd: &'a Path,
    /// The user's home directory, for `~`.
    pub home: Option<&'a Path>,
    /// sentinel's own directory: never writable by the agent, whatever the rules say.
    pub sentinel_home: &'a Path,
    /// How symlinks are followed.
    pub fs: &'a dyn Fs,
    /// The session's untrusted content (read at the edge), if it has taken any in.
    pub taint: Option<&'a Taint>,
    /// The files the session wrote (issue 29), read at the edge when first asked for.
    pub writes: &'a dyn SessionWrites,
    /// The call will run fenced (`sentinel contain`): what the files it runs would do counts
    /// only for a deny, since the fence holds whatever else they try.
    pub fenced: bool,
    /// Where a bare command name's program is found (PATH as the hook sees it): one inside the
    /// project is the project's code.
    pub programs: &'a dyn Programs,
    /// The project (SPEC 2.3) and `sentinel_home` with symlinks followed, resolved once: every
    /// path check compares against them.
    project_real: PathBuf,
    sentinel_home_real: PathBuf,
    /// Bytes of wrapper suffixes searched against the block list for this call so far
    /// (`policy::judge`): bounded per call, nested and embedded commands included.
    suffixes_searched: std::sync::atomic::AtomicUsize,
}

/// The bytes of wrappers' suffixes searched against the block list for one call, at most
/// (`policy::judge`). A suffix that no rule could match is skipped at a cost that does not grow
/// with it, but a suffix some rule could match is searched: past this bound (`sudo git git git
/// …`, time growing with the square of the words) a wrapper is uncertain, never allowed.
pub const MAX_SUFFIX_BYTES: usize = 2 << 20;

impl<'a> Context<'a> {
    /// A context; the project and SENTINEL_HOME are resolved through `fs` here, once.
    pub fn new(
        cwd: &'a Path,
        home: Option<&'a Path>,
        sentinel_home: &'a Path,
        fs: &'a dyn Fs,
        taint: Option<&'a Taint>,
    ) -> Context<'a> {
        Context {
            project_real: fs.real_path(cwd),
            sentinel_home_real: fs.real_path(sentinel_home),
            cwd,
            home,
            sentinel_home,
            fs,
            taint,
            writes: &NoWrites,
            fenced: false,
            programs: &NoPrograms,
            suffixes_searched: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Whether this call has searched past its bound on wrapper suffixes: a sign that its text
    /// is built to cost, and no more of it is judged again (`decide`'s embedded commands).
    pub fn suffix_search_spent(&self) -> bool {
        self.suffixes_searched
            .load(std::sync::atomic::Ordering::Relaxed)
            > MAX_SUFFIX_BYTES
    }

    /// Takes `bytes` of suffix searching from the call's bound; false once it is spent.
    pub fn take_suffix_search(&self, bytes: usize) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let before = self.suffixes_searched.fetch_add(bytes, Relaxed);
        before.saturating_add(bytes) <= MAX_SUFFIX_BYTES
    }

    /// The same context for a run that will be fenced.
    pub fn with_fenced(mut self, fenced: bool) -> Context<'a> {
        self.fenced = fenced;
        self
    }

    /// The same context with programs found through `programs`.
    pub fn with_programs(mut self, programs: &'a dyn Programs) -> Context<'a> {
        self.programs = programs;
        self
    }

    /// The same context with the session's written files.
    pub fn with_writes(mut self, writes: &'a dyn SessionWrites) -> Context<'a> {
        self.writes = writes;
        self
    }

    /// The same context with the project root set (by default it is `cwd`, already resolved).
    pub fn with_project(mut self, project: &Path) -> Context<'a> {
        if project != self.cwd {
            self.project_real = self.fs.real_path(project);
        }
        self
    }

    /// The project root, symlinks followed.
    pub fn project(&self) -> &Path {
        &self.project_real
    }

    /// SENTINEL_HOME, symlinks followed.
    pub fn sentinel_home_real(&self) -> &Path {
        &self.sentinel_home_real
    }

    /// A context that never touches the file system, in an untainted session (tests, fuzzing,
    /// benchmarks).
    pub fn lexical(cwd: &'a Path, home: Option<&'a Path>, sentinel_home: &'a Path) -> Context<'a> {
        Context::new(cwd, home, sentinel_home, &LexicalFs, None)
    }
}

/// The files a session wrote, for Tier 1: supplied by the edge (the hook reads the ledger only
/// when a call runs a file), or fixed in tests.
pub trait SessionWrites {
    /// The session's written files.
    fn written(&self) -> &Written;
}

/// A session that wrote nothing (tests, previews without a session).
pub struct NoWrites;

static NOTHING: Written = Written {
    paths: Vec::new(),
    full: false,
};

impl SessionWrites for NoWrites {
    fn written(&self) -> &Written {
        &NOTHING
    }
}

impl SessionWrites for Written {
    fn written(&self) -> &Written {
        self
    }
}
