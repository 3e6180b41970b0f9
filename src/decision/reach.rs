//! Which files a recursive read opens (SPEC 2.4: a recursive read is judged by the credentials
//! it can actually open). Every file below the directory, unless something rules some out: the
//! command's own filters (`grep --include=*.go`), the listing that hands it its operands (`find .
//! -name '*.py' | xargs grep`, `git ls-files '*.ts' | xargs wc -l`), or what the program reads
//! at all (`ruff check .` opens Python files, and none that git ignores:
//! `rules/file_types.txt`). `local::policy::reach` tests an entry against it.

/// What a walk opens: the files below the directory that pass every test.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Reach {
    /// The tests, all of which a file must pass; none: every file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<Test>,
    /// The files are handed over by name, and a link among them is opened through (`xargs
    /// cat` of what `find` lists): where it leads is read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub through_links: bool,
    /// The program reads a directory it is handed with everything in it (`xargs grep -r`):
    /// a link it is handed that leads to a folder of credentials reaches them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub whole_dirs: bool,
    /// The names reach the program split at blanks and quotes (`xargs` without `-0`): the
    /// tests hold only while no name below holds one, or a piece of it could name any path.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub split_names: bool,
}

impl Reach {
    /// Every file below, nothing ruled out.
    pub fn is_everything(&self) -> bool {
        self.tests.is_empty() && !self.through_links
    }

    /// The tests of both, and what either says of links and names.
    pub fn and(mut self, other: Reach) -> Reach {
        self.tests.extend(other.tests);
        self.through_links |= other.through_links;
        self.whole_dirs |= other.whole_dirs;
        self.split_names |= other.split_names;
        self
    }

    /// Only files whose base name matches one of `globs`.
    pub fn named(globs: Vec<String>) -> Reach {
        Reach {
            tests: vec![Test::Name {
                any_of: globs,
                ignore_case: false,
            }],
            ..Reach::default()
        }
    }
}

/// One test of a file below the walked directory.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "is")]
pub enum Test {
    /// Its base name matches one of these wildcards (fnmatch: `*` matches a leading dot): a
    /// program's own file types, find's `-name`.
    Name {
        any_of: Vec<String>,
        ignore_case: bool,
    },
    /// The path as the walk names it — the directory as written, `/`, the path below — matches
    /// the wildcard (find's `-path`, where `*` matches `/` too).
    Path { glob: String, ignore_case: bool },
    /// The test does not hold (find's `! -path './node_modules/*'`).
    Not { test: Box<Test> },
    /// grep's `--include` (true) and `--exclude` (false) wildcards in order: the last that
    /// matches the base name decides; with none matching, the file is opened unless the first
    /// is an `--include`.
    Filters { rules: Vec<(bool, String)> },
    /// No directory between the walked one and the file has a base name one of these match
    /// (grep's `--exclude-dir`).
    OutsideDirs { any_of: Vec<String> },
    /// Neither the file nor a directory on the way to it is hidden (rg without `--hidden`).
    Visible,
    /// git does not ignore it (`.gitignore` files, `.git/info/exclude`) where it lies in a work
    /// tree; outside one, nothing is ignored.
    NotIgnored,
    /// `git ls-files` run in the walked directory lists it: a tracked file (`cached`), or an
    /// untracked one (`others`; not one git ignores when `exclude_standard`), matching one of
    /// the pathspecs when there are any.
    GitListed {
        cached: bool,
        others: bool,
        exclude_standard: bool,
        pathspecs: Vec<String>,
    },
    /// A listing hands it on (find's tests: it passes all of them); `whole_dirs`: the program
    /// reads a directory it is handed with everything in it, so a file under a handed
    /// directory (the walked one included) is opened too.
    Handed { tests: Vec<Test>, whole_dirs: bool },
}
