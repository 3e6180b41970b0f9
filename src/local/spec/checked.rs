//! A spec section as sentinel reads it: the checked form `check` makes from the section's raw
//! TOML, which `build.rs` stores (postcard) for every bundled section and the runtime builds for
//! a person's. Shared by `build.rs` and the runtime.

use serde::{Deserialize, Serialize};

/// How a program reads its options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Syntax {
    /// getopt_long: clustered short options (`-uo FILE`), `-oVALUE`, `--long=value`,
    /// `--long value`, unambiguous abbreviations of long options, options after operands, `--`.
    Gnu,
    /// As `gnu` but long options must be spelled out (clap, cobra/pflag, most modern CLIs).
    Exact,
    /// As `exact`, and the first operand ends the options (POSIX getopt, ssh, wrappers).
    Posix,
    /// Go's `flag` package: `-name`, `--name`, `-name=value`, `-name value`; no clusters; the
    /// first operand ends the options.
    Go,
    /// Whole words matched exactly (`find -name X`, `java -jar X`): no clusters, no `=`.
    Single,
    /// Windows programs and cmd.exe's built-ins: `/x` switches in any case, anywhere on the line,
    /// several in one word (`/s/b`), a value after `:` (`/a:h`) or in the next word (`/FI x`);
    /// `-x` words read as GNU clusters (`netstat -ano`); `//x` is Git Bash's escape for `/x`.
    Windows,
    /// PowerShell cmdlets: `-Name`, `-Name value`, `-Name:value`, in any case, anywhere on the
    /// line; a name the spec does not list is looked up among the common parameters every cmdlet
    /// takes (the `powershell/common-parameters` section); an abbreviation is read but never
    /// allowed.
    PowerShell,
}

/// What a value (an option's argument or an operand) is to the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Not a path or anything that acts: a pattern, a message, a number.
    Text,
    /// A file whose content is read.
    Read,
    /// A file or a directory read recursively (a symlink below it is not followed).
    Tree,
    /// A file or a directory read recursively, following every symlink below it (`grep -R`,
    /// `rg -L`, `tar -h`, `zip -r` without `-y`): what each link points to is read too.
    TreeFollow,
    /// As `tree`, skipping hidden files and directories (`rg` without `--hidden`: a `.env` below
    /// is not read).
    TreeVisible,
    /// A directory walked for the names below it, no file opened (`find`, `fd`).
    List,
    /// As `list`, following every symlink below it (`find -L`).
    ListFollow,
    /// A path only looked at (listed, stat'ed), not read.
    Path,
    /// A file or directory written or created.
    Write,
    /// What a new link points to (`ln TARGET NAME`): a write through the link lands there.
    Link,
    /// What a new symbolic link points to: a relative target is read from the link's own
    /// directory (`ln -s ../shared lib/shared` points at `./shared`).
    Symlink,
    /// A file or directory deleted.
    Delete,
    /// A directory deleted with everything in it (`rm -r`, `find -delete`).
    DeleteTree,
    /// A file moved away: deleted where it was.
    Move,
    /// A program run by this one (`--compress-program=sh`, `git grep -O CMD`).
    Run,
    /// Code given as text (`python -c`, `node -e`).
    Code,
    /// A file run as a program or script (`python x.py`, `bash x.sh`).
    Script,
    /// A URL or host data is fetched from.
    Url,
    /// A host name a lookup or probe sends out (`dig NAME`, `ping HOST`): the name itself
    /// reaches the network (a resolver forwards it), so one built when the command runs
    /// (`$(whoami).example.com`) carries data out; a literal one is the spec's `network`.
    Host,
    /// Data sent out over the network (`curl -d`), or a destination data is sent to.
    Send,
    /// The directory the program works in (`git -C`, `make -C`, `npm --prefix`).
    Cwd,
    /// Another user the program acts as.
    User,
    /// A package named to be installed: a new dependency.
    Package,
    /// A named task of the project (`npm run NAME`, `make NAME`); risky names are reviewed.
    Task,
    /// A sed script: plain substitutions are text, `e`/`w`/`r` commands are not.
    SedScript,
    /// Perl code given as text (`perl -pe`): only substitutions and transliterations are an
    /// edit; anything else runs code.
    PerlCode,
    /// An awk program: `system()`, pipes and `print >` are not text.
    AwkProgram,
    /// gawk's `-i`/`--include` library: `inplace` makes it edit its file operands in place,
    /// so they are written (`awk -i inplace '…' ~/.bashrc` as `sed -i` is).
    AwkLibrary,
    /// A test that picks which entries an action applies to (`find -type f`, `-newer X`): a
    /// `delete-tree` of the starting points then deletes only what it picks below them.
    Filter,
    /// A name pattern that picks entries (`find -name '*.pyc'`, `-iname`): what it picks can be
    /// listed before the command runs.
    NameFilter,
    /// A repository git reads from (`git fetch REPO`): a remote's name or a URL is the network's
    /// business (the section's `network`), a local path is a tree read (`git fetch keys/id_rsa`
    /// reads through a link into `~/.ssh`).
    Repository,
    /// A revision or pathspec whose committed content git prints (`git show HEAD:.env`,
    /// `git log -p -- .env`, `git cat-file -p main:config/master.key`): the file named, by its
    /// path in `REV:PATH` or as a pathspec, is read as it was committed, so a credential's name
    /// is a credential read (the file need not exist in the working tree).
    History,
    /// The name of an environment variable whose value is printed (`printenv NAME`): a name
    /// that looks like a secret's is a credential read.
    Variable,
    /// A variable assigned (`export NAME=VALUE`, `read NAME`, `printf -v NAME`): one that picks
    /// a program or loads code (`PATH`, `LD_PRELOAD` …) is reviewed, and so is a name not known
    /// before it runs.
    Assigns,
    /// An output template (`docker inspect --format`): one that prints an environment or a
    /// whole object (`{{json .Config.Env}}`, `{{json .}}`) prints secrets.
    Template,
    /// SQL run by a database client: a query that only reads is text, anything else is code
    /// (`local::spec::sql`).
    Sql,
    /// Python given as text (`python -c`): code that only imports and prints is the project's
    /// code, anything else is code (`local::scripts::python_code`).
    PythonCode,
    /// JavaScript given as text (`node -e`): code that only loads modules and prints is the
    /// project's code, anything else is code (`local::scripts::js_code`).
    JsCode,
    /// A database name or connection string (`postgres://host/db`, `host=… dbname=…`): a host
    /// in it is where the client connects.
    Database,
    /// A build property `key=value` (`mvn -Dkey=value`): judged by
    /// `rules/build_properties.txt`.
    Property,
    /// The first operand names a subcommand, which has its own section.
    Subcommand,
    /// A named parameter that binds the first operand slot (PowerShell's `-Path`): its value
    /// is read as the first operand, with that slot's kind as the flags turn it
    /// (`Remove-Item -Path x -Recurse` deletes the tree `x`), and the other operands fill the
    /// slots after it.
    FirstOperand,
    /// From here on every word is an argument for the script or task before it, not an option
    /// of this program (`node app.js --port 3000`, `yarn dev --host`).
    Args,
    /// A file whose mode, owner or group changes, not its content (`chmod +x f`): judged as a
    /// write, but a run of it later in the same command reads what it holds now.
    Mode,
    /// A wildcard over base names of the files a recursive read opens (grep's `--include`): with
    /// one, the others are skipped.
    Include,
    /// A wildcard over base names of the files a recursive read skips (grep's `--exclude`).
    Exclude,
    /// A wildcard over base names of the directories a recursive read does not enter (grep's
    /// `--exclude-dir`).
    ExcludeDir,
    /// A wildcard over the whole path that picks entries (`find -path`, `-wholename`): a test as
    /// `filter` is, whose entries can be listed.
    PathFilter,
    /// A text, or with a leading `@` a file whose content is read (curl's `-H @FILE`,
    /// `--variable NAME@FILE` is `text`): `-H @~/.aws/credentials` sends the keys as headers.
    TextOrFile,
    /// curl's `-w` format: `@FILE` reads the format from FILE (and prints it, the keys of a
    /// credential with it); `%output{FILE}` and `%output{>>FILE}` write what follows to FILE.
    WriteOut,
    /// A jq or yq filter: one that imports modules or data files (`import "x" as $c`,
    /// `include`), loads files (yq's `load`) or reads the environment (`env`, `$ENV`,
    /// `strenv`) is not text.
    FilterProgram,
}

impl Kind {
    pub(crate) fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "text" => Kind::Text,
            "read" => Kind::Read,
            "tree" => Kind::Tree,
            "tree-follow" => Kind::TreeFollow,
            "list" => Kind::List,
            "tree-visible" => Kind::TreeVisible,
            "list-follow" => Kind::ListFollow,
            "path" => Kind::Path,
            "write" => Kind::Write,
            "link" => Kind::Link,
            "symlink" => Kind::Symlink,
            "delete" => Kind::Delete,
            "delete-tree" => Kind::DeleteTree,
            "move" => Kind::Move,
            "run" => Kind::Run,
            "code" => Kind::Code,
            "script" => Kind::Script,
            "url" => Kind::Url,
            "host" => Kind::Host,
            "send" => Kind::Send,
            "cwd" => Kind::Cwd,
            "user" => Kind::User,
            "package" => Kind::Package,
            "task" => Kind::Task,
            "property" => Kind::Property,
            "sed-script" => Kind::SedScript,
            "perl-code" => Kind::PerlCode,
            "awk-program" => Kind::AwkProgram,
            "awk-library" => Kind::AwkLibrary,
            "filter" => Kind::Filter,
            "name-filter" => Kind::NameFilter,
            "repository" => Kind::Repository,
            "history" => Kind::History,
            "variable" => Kind::Variable,
            "assigns" => Kind::Assigns,
            "sql" => Kind::Sql,
            "python-code" => Kind::PythonCode,
            "js-code" => Kind::JsCode,
            "template" => Kind::Template,
            "database" => Kind::Database,
            "subcommand" => Kind::Subcommand,
            "first-operand" => Kind::FirstOperand,
            "args" => Kind::Args,
            "mode" => Kind::Mode,
            "include" => Kind::Include,
            "exclude" => Kind::Exclude,
            "exclude-dir" => Kind::ExcludeDir,
            "path-filter" => Kind::PathFilter,
            "text-or-file" => Kind::TextOrFile,
            "write-out" => Kind::WriteOut,
            "filter-program" => Kind::FilterProgram,
            _ => return None,
        })
    }

    /// Nothing sentinel needs to look at.
    pub fn is_inert(self) -> bool {
        matches!(self, Kind::Text | Kind::Args)
    }

    /// A path the program reads or looks at (its kind may be turned into a write by a flag such
    /// as `sed -i`).
    pub fn is_input_path(self) -> bool {
        matches!(
            self,
            Kind::Read
                | Kind::Tree
                | Kind::Path
                | Kind::History
                | Kind::TreeFollow
                | Kind::TreeVisible
                | Kind::List
                | Kind::ListFollow
        )
    }

    /// A walk that follows every symlink below where it starts.
    pub fn follows_links(self) -> bool {
        matches!(self, Kind::TreeFollow | Kind::ListFollow)
    }
}

/// What an option does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OptKind {
    /// Takes no value and changes nothing that matters here.
    Flag,
    /// Takes values of these kinds (several for options such as `find -fprintf FILE FORMAT`);
    /// `optional`: only as `--opt=value` (or `-oVALUE`), never from the next word;
    /// `as_first`: the value stands in for the first operand (`grep -e PATTERN`).
    Value {
        kinds: Vec<Kind>,
        optional: bool,
        as_first: bool,
        /// A `deny: …` or `review: …` that also applies (`"text review: loads a config"`).
        mark: Option<Box<OptKind>>,
    },
    /// Destructive: deny, with why and what to do instead.
    Deny(String),
    /// Never allowed locally: the person or Tier 2 reviews it.
    Review(String),
    /// Turns the operands that are read (or deleted, for `delete-tree`) into operands of this
    /// kind (`sed -i`, `find -delete`, `rm -r`); `true`: it also takes an optional suffix in its
    /// cluster (`sed -i.bak`, written `operands=write?`).
    Operands(Kind, bool),
    /// Makes the command's operand slots optional: `grep -e PATTERN` takes no pattern operand.
    NoFirstOperand,
    /// A flag that picks entries, as a `filter` value does (`find -empty`, `-not`, `-o`).
    Narrows,
    /// A flag that makes it contact a remote, logging in with the section's `logs_in_with`
    /// files (`git remote add -f`): a section with one logs in only when one is given.
    LogsIn,
    /// With no operand in its first repeated path slot the program works on this path
    /// (`grep -r PAT` searches `.`): written `default-operand=.`.
    /// `default-operand=. operands=tree-follow` also turns the operands, as `operands=` does.
    DefaultOperand(String, Option<Kind>),
}

/// One option of a spec, under all its names.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OptSpec {
    /// Every name it is known by: `-o`, `--output`.
    pub names: Vec<String>,
    /// What it does.
    pub kind: OptKind,
    /// The line that defines it.
    pub line: usize,
}

/// One operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// What the operand is.
    pub kind: Kind,
    /// `read...`: takes as many operands as the later slots leave.
    pub repeat: bool,
    /// `write?`: may be absent.
    pub optional: bool,
}

/// What running the command does, besides its options and operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Runs {
    /// Nothing but what the options and operands say.
    #[default]
    Nothing,
    /// Runs the project's own code: its build, tests, scripts, hooks.
    Project,
}

/// The network a command uses by itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Network {
    /// None, or only what its options and operands say.
    #[default]
    None,
    /// Routine fetches from the sources the project names (git fetch, npm ci, cargo build).
    Fetch,
    /// Sends data out (git push, npm publish, docker push).
    Send,
}

/// One program or subcommand, checked: what sentinel reads of its section.
#[derive(Debug, Serialize, Deserialize)]
pub struct Checked {
    /// Its name as in the header: `git commit`.
    pub name: String,
    /// What it is.
    pub about: String,
    /// How it reads options: its own `syntax`, else its parent's (see [`Reading`]), else gnu.
    ///
    /// [`Reading`]: crate::local::spec::options::Reading
    pub syntax: Option<Syntax>,
    /// Its options.
    pub options: Vec<OptSpec>,
    /// Operand slots in order.
    pub operands: Vec<Slot>,
    /// What more operands than the slots take mean (None: the command is uncertain).
    pub extra: Option<OptKind>,
    /// Other names of this subcommand (`cargo b` for `cargo build`).
    pub aliases: Vec<String>,
    /// The parent's options are accepted here too.
    pub inherit: bool,
    /// What running it does.
    pub runs: Runs,
    /// The network it uses by itself.
    pub network: Network,
    /// The command itself is destructive: why; instead: …
    pub deny: Option<String>,
    /// The command itself is never allowed locally: why.
    pub review: Option<String>,
    /// What the command means with no arguments at all (`set`, `export` print the environment).
    pub bare: Option<OptKind>,
    /// What the command means with options but no operand (`declare -x` prints the exported
    /// variables as bare `export` does; `declare -x NAME=v` assigns).
    pub no_operands: Option<OptKind>,
    /// What a literal `--` means (`git checkout -- FILE` discards changes to FILE).
    pub dashdash: Option<OptKind>,
    /// Options read after operands too (`go test ./... -v`), for `posix` and `go` syntax.
    pub interspersed: bool,
    /// The first word may be a cluster of options without its dash (`tar czf`, `ps aux`).
    pub dashless: bool,
    /// A pattern section of a package manager (`["yarn *"]`): the word it matched names a
    /// project script or a dependency's program (`yarn eslint .`), told apart by the project's
    /// `package.json`; a program is judged by its own spec (see `local::scripts::bins`).
    pub bins: bool,
    /// How the program accepts a subcommand's name shortened (`colon-parts`: Symfony Console's
    /// `d:s:d` for `doctrine:schema:drop`); false: only whole names (`spec::abbreviations`).
    pub abbreviations: bool,
    /// An HTTP client: each URL it is given is a request whose line (method and URL) is
    /// judged by the destructive words (`spec::effects::request`).
    pub requests: bool,
    /// Credential files it reads on its own to log in when they exist (`wget`, `git fetch` over
    /// HTTP read `~/.netrc`): absolute or `~/` paths.
    #[serde(default)]
    pub logs_in_with: Vec<String>,
    /// Directories it creates on its own when they are missing (`top` makes
    /// `~/.config/procps`): absolute or `~/` paths.
    #[serde(default)]
    pub creates: Vec<String>,
    /// It reads the config, hooks and attributes of the git repository it finds from where it
    /// works (`repository = "git"`): one whose git directory is not a protected `.git` (a bare
    /// layout, a `gitdir:` link elsewhere) holds config the agent could have written.
    #[serde(default)]
    pub repository: bool,
    /// What the command does when no option or operand gave it its SQL, code or script: it
    /// reads them from stdin or a terminal (`psql`, `sqlite3 app.db`); `review: …`.
    pub input: Option<OptKind>,
    /// Flags that make it print something and exit without reading input (`psql -l`).
    pub input_flags: Vec<String>,
    /// What the program works on when its first repeated path slot gets no operand (`find`,
    /// `rg`: `.`); an option can set it too (`grep -r`: `default-operand=.`).
    pub default_operand: Option<String>,
    // The option names as indexes into `options`, without a copy of a name: decoding a
    // bundled section then allocates only what the options themselves hold.
    /// Short letters, sorted: (letter, option).
    pub(crate) short: Vec<(char, u32)>,
    /// Names matched as whole words, sorted by name: (option, index in its names).
    pub(crate) long: Vec<(u32, u32)>,
    /// `-D*` options: (option, index of the name that ends in `*`).
    pub(crate) prefixed: Vec<(u32, u32)>,
}

/// How an option name was matched.
#[derive(Clone, Copy, Debug)]
pub enum Matched<'a> {
    /// Spelled out.
    Exact(&'a OptSpec),
    /// An unambiguous abbreviation of this long option.
    Abbreviated(&'a OptSpec),
    /// A prefix of several long options: the program refuses it.
    Ambiguous,
    /// An option written `-D*` in the spec: a word that starts with `-D` is it, with the rest of
    /// the word as its value (`java -Dkey=value`).
    Prefixed(&'a OptSpec, usize),
    /// Not an option of this spec.
    Unknown,
}

impl Checked {
    /// The option with this short letter.
    pub fn short(&self, c: char) -> Option<&OptSpec> {
        let k = self.short.binary_search_by(|(s, _)| s.cmp(&c)).ok()?;
        Some(&self.options[self.short[k].1 as usize])
    }

    /// The name an index of `long` or `prefixed` stands for.
    fn name(&self, (option, name): (u32, u32)) -> &str {
        &self.options[option as usize].names[name as usize]
    }

    /// The long option (`--name` or, for `single`/`go` syntax, `-name`) as the program resolves
    /// it.
    pub fn long(&self, name: &str, syntax: Syntax) -> Matched<'_> {
        let at = self.long.partition_point(|&e| self.name(e) < name);
        if let Some(&e) = self.long.get(at)
            && self.name(e) == name
        {
            return Matched::Exact(&self.options[e.0 as usize]);
        }
        if let Some((p, i)) = self.prefixed.iter().find_map(|&e| {
            let p = self.name(e).strip_suffix('*').unwrap_or_default();
            (name.starts_with(p) && name.len() > p.len()).then_some((p, e.0))
        }) {
            return Matched::Prefixed(&self.options[i as usize], p.len());
        }
        if syntax != Syntax::Gnu || !name.starts_with("--") || name.len() < 3 {
            return Matched::Unknown;
        }
        let mut found = self.long[at..]
            .iter()
            .take_while(|&&e| self.name(e).starts_with(name));
        match (found.next(), found.next()) {
            (Some(&(i, _)), None) => Matched::Abbreviated(&self.options[i as usize]),
            (Some(_), Some(_)) => Matched::Ambiguous,
            _ => Matched::Unknown,
        }
    }

    /// The options with a whole-word name that starts with `prefix` (and is longer), with that
    /// name: the parameters a PowerShell abbreviation may stand for.
    pub fn starting_with(&self, prefix: &str) -> Vec<(&OptSpec, &str)> {
        let at = self.long.partition_point(|&e| self.name(e) < prefix);
        self.long[at..]
            .iter()
            .take_while(|&&e| self.name(e).starts_with(prefix))
            .filter(|&&e| self.name(e).len() > prefix.len())
            .map(|&e| (&self.options[e.0 as usize], self.name(e)))
            .collect()
    }

    /// True when none of its options does more than a flag or a text value: a word added at run
    /// time that turns out to be an option cannot change what it does.
    pub fn options_are_inert(&self) -> bool {
        self.options.iter().all(|o| match &o.kind {
            OptKind::Flag | OptKind::NoFirstOperand | OptKind::DefaultOperand(..) => true,
            OptKind::Value { kinds, mark, .. } => {
                mark.is_none() && kinds.iter().all(|k| k.is_inert())
            }
            _ => false,
        })
    }

    /// True when no option and no operand can do more than print (a computed word may then
    /// stand anywhere without changing the verdict).
    pub fn is_inert(&self) -> bool {
        self.options.iter().all(|o| match &o.kind {
            OptKind::Flag | OptKind::NoFirstOperand => true,
            OptKind::Value { kinds, .. } => kinds.iter().all(|k| *k == Kind::Text),
            _ => false,
        }) && self.operands.iter().all(|s| s.kind.is_inert())
            && self.deny.is_none()
            && self.review.is_none()
    }
}
