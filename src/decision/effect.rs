//! What a command does, as its spec reads it (SPEC 2.2): the effects Tier 1 judges, and that a
//! decision reports.

use super::RuleRef;
use super::reach::Reach;
use crate::call::word::Word;

/// One thing a command does.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "effect")]
pub enum Effect {
    /// Reads a file (`tree`: a directory, recursively).
    Read {
        /// The path as written.
        path: Word,
        /// Read recursively.
        tree: bool,
    },
    /// Walks a directory: for the names below it (`names_only`: `find`, `fd`), or reading
    /// every file (`grep -R`); `links`: following every symlink below it.
    Walk {
        /// The directory as written.
        path: Word,
        /// Only names are read, no file opened.
        names_only: bool,
        /// Symlinks below it are followed.
        links: bool,
        /// Which files below it are opened: all, unless filters, a listing or the program's
        /// own file types rule some out (`rg` skips hidden and ignored ones).
        #[serde(skip_serializing_if = "Reach::is_everything")]
        reach: Reach,
    },
    /// Writes or creates a file or directory.
    Write {
        /// The path as written.
        path: Word,
    },
    /// Writes into the directory `dir` an entry named as each path the glob `from` matches
    /// (`cp -r tmpl/* .` writes `./NAME` for each `tmpl/NAME`).
    WriteInto {
        /// The directory as written.
        dir: Word,
        /// The glob whose matches' names land there.
        from: Word,
    },
    /// Changes the mode, owner or group of a file or directory; its content stays.
    Mode {
        /// The path as written.
        path: Word,
    },
    /// Deletes (or moves away) a file or directory.
    Delete {
        /// The path as written.
        path: Word,
        /// A directory with everything in it (`rm -r`).
        tree: bool,
    },
    /// Deletes the entries below a directory that a filter picks (`find DIR -name '*.pyc'
    /// -delete`), not the directory itself.
    DeleteBelow {
        /// The directory as written.
        path: Word,
        /// The `-name` patterns that alone pick the entries; empty when other tests pick
        /// them too (`-type f`, `-newer X`, `!`), which sentinel cannot list before it runs.
        names: Vec<String>,
        /// The patterns are matched in any case (`-iname`).
        ignore_case: bool,
        /// Symlinks below are followed (`find -L`).
        links: bool,
        /// The tests as written, for the reason (`-name *.pyc`).
        picked_by: String,
        /// Each entry picked is deleted with everything in it (`-exec rm -rf {} +`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        tree: bool,
    },
    /// Reads a credential file on its own to log in (`wget` reads `~/.netrc`), when it exists.
    LogsInWith {
        /// The file, `~/` or absolute.
        path: Word,
        /// Where it logs in, when that is the repository's own remotes: these names or URLs
        /// (none: the remote it defaults to). None: anywhere else, or not known.
        #[serde(skip_serializing_if = "Option::is_none")]
        remotes: Option<Vec<Word>>,
    },
    /// Creates a directory of its own outside the project when it is missing (`top` makes
    /// `~/.config/procps`).
    Creates {
        /// The directory, `~/` or absolute.
        path: Word,
    },
    /// Runs the project's own code: its build, tests, scripts.
    RunProject,
    /// Reads the config, hooks and attributes of the git repository found from where it works
    /// (git runs `core.fsmonitor`, `diff.external`, aliases and hooks from them).
    UsesRepository,
    /// Runs programs, a compiler or a runtime from a folder a variable names
    /// (`PATH=/opt/x/bin:$PATH`, `JAVA_HOME=/usr/lib/jvm/x`).
    RunsFrom {
        /// The variable.
        variable: String,
        /// The folder as written.
        folder: Word,
    },
    /// Runs a file as a program or script.
    RunFile {
        /// The file as written.
        path: Word,
    },
    /// Runs another program that sentinel does not see (`--compress-program=sh`).
    RunProgram {
        /// The program or command line.
        program: String,
    },
    /// Runs code given as text (`python -c`).
    RunCode {
        /// The code, cut short.
        code: String,
    },
    /// Routine fetches from the sources the project names (`git fetch`, `npm ci`).
    Fetch,
    /// Fetches from a repository named by URL (`git fetch https://…`, `host:path`): routine
    /// only when it is one of the project's own remotes.
    FetchFrom {
        /// The repository as written.
        from: Word,
    },
    /// Fetches from a URL or host.
    Receive {
        /// The URL or host as written.
        from: Word,
    },
    /// Sends data out over the network.
    Send {
        /// What is sent, or where.
        what: String,
        /// To a remote the command itself names (`git push`); otherwise to wherever the
        /// command's URLs point, which may be this machine (`curl -d … localhost:3000`).
        remote: bool,
    },
    /// Acts as another user.
    AsUser {
        /// The user.
        user: String,
    },
    /// Installs a package named on the command line: a new dependency.
    Install {
        /// The package.
        package: String,
    },
    /// Runs a named task of the project.
    Task {
        /// The task name.
        name: Word,
    },
    /// Destructive: a spec denies it.
    Destroy {
        /// Why, and what to do instead (`why; instead: …`).
        why: String,
        /// The spec line.
        rule: RuleRef,
    },
    /// A spec says the person (or Tier 2) must review it.
    Review {
        /// Why.
        why: String,
        /// The spec line.
        rule: RuleRef,
    },
    /// Something sentinel cannot read with certainty.
    Unknown {
        /// What.
        why: String,
    },
}

impl Effect {
    /// One line for people: `writes out.txt`.
    pub fn describe(&self) -> String {
        match self {
            Effect::Read { path, tree: false } => format!("reads {}", path.text),
            Effect::Read { path, tree: true } => format!("reads {} recursively", path.text),
            Effect::Walk {
                path,
                names_only,
                links,
                ..
            } => format!(
                "{} {} recursively{}",
                if *names_only { "lists" } else { "reads" },
                path.text,
                if *links { ", following links" } else { "" }
            ),
            Effect::Write { path } => format!("writes {}", path.text),
            Effect::Mode { path } => format!("changes the mode of {}", path.text),
            Effect::WriteInto { dir, from } => {
                format!("writes into {} what {} names", dir.text, from.text)
            }
            Effect::Delete { path, tree: false } => format!("deletes {}", path.text),
            Effect::Delete { path, tree: true } => {
                format!("deletes {} and everything in it", path.text)
            }
            Effect::DeleteBelow {
                path, picked_by, ..
            } => format!("deletes what `{picked_by}` picks below {}", path.text),
            Effect::LogsInWith { path, .. } => {
                format!("logs in with {} when it exists", path.text)
            }
            Effect::Creates { path } => format!("creates {} when it is missing", path.text),
            Effect::RunProject => "runs the project's own tooling".into(),
            Effect::UsesRepository => {
                "reads the config and hooks of the git repository where it works".into()
            }
            Effect::RunFile { path } => format!("runs the file {}", path.text),
            Effect::RunsFrom { variable, folder } => {
                format!("runs programs from {} ({variable})", folder.text)
            }
            Effect::RunProgram { program } => format!("runs the program {program}"),
            Effect::RunCode { code } => format!("runs code given as text: {code}"),
            Effect::Fetch => "fetches from the sources the project names".into(),
            Effect::Receive { from } => format!("fetches from {}", from.text),
            Effect::FetchFrom { from } => format!("fetches from the repository {}", from.text),
            Effect::Send { what, .. } => format!("sends data out: {what}"),
            Effect::AsUser { user } => format!("acts as the user {user}"),
            Effect::Install { package } => format!("installs the new dependency {package}"),
            Effect::Task { name } => format!("runs the project task {}", name.text),
            Effect::Destroy { why, rule } => format!("destroys: {why} [{rule}]"),
            Effect::Review { why, rule } => format!("needs review: {why} [{rule}]"),
            Effect::Unknown { why } => format!("unknown: {why}"),
        }
    }
}
