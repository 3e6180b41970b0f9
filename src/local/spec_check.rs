//! A spec section as sentinel reads it, and the check that makes it from the section's raw TOML
//! (`spec_raw::RawSpec`). Shared by `build.rs`, which checks every bundled section at build time
//! and stores the result (postcard), and the runtime, which checks a person's sections when it
//! loads them: both go through the same code, so a bundled section reads as its TOML does.

use super::spec_raw::RawSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// An awk program: `system()`, pipes and `print >` are not text.
    AwkProgram,
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
    /// (`local::sql`).
    Sql,
    /// Python given as text (`python -c`): code that only imports and prints is the project's
    /// code, anything else is code (`local::python_code`).
    PythonCode,
    /// JavaScript given as text (`node -e`): code that only loads modules and prints is the
    /// project's code, anything else is code (`local::js_code`).
    JsCode,
    /// A database name or connection string (`postgres://host/db`, `host=… dbname=…`): a host
    /// in it is where the client connects.
    Database,
    /// The first operand names a subcommand, which has its own section.
    Subcommand,
    /// From here on every word is an argument for the script or task before it, not an option
    /// of this program (`node app.js --port 3000`, `yarn dev --host`).
    Args,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
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
            "send" => Kind::Send,
            "cwd" => Kind::Cwd,
            "user" => Kind::User,
            "package" => Kind::Package,
            "task" => Kind::Task,
            "sed-script" => Kind::SedScript,
            "awk-program" => Kind::AwkProgram,
            "variable" => Kind::Variable,
            "assigns" => Kind::Assigns,
            "sql" => Kind::Sql,
            "python-code" => Kind::PythonCode,
            "js-code" => Kind::JsCode,
            "template" => Kind::Template,
            "database" => Kind::Database,
            "subcommand" => Kind::Subcommand,
            "args" => Kind::Args,
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
    /// [`Reading`]: crate::local::options::Reading
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
    /// What a literal `--` means (`git checkout -- FILE` discards changes to FILE).
    pub dashdash: Option<OptKind>,
    /// Options read after operands too (`go test ./... -v`), for `posix` and `go` syntax.
    pub interspersed: bool,
    /// The first word may be a cluster of options without its dash (`tar czf`, `ps aux`).
    pub dashless: bool,
    /// A pattern section of a package manager (`["yarn *"]`): the word it matched names a
    /// project script or a dependency's program (`yarn eslint .`), told apart by the project's
    /// `package.json`; a program is judged by its own spec (see `local::bins`).
    pub bins: bool,
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
    short: Vec<(char, u32)>,
    /// Names matched as whole words, sorted by name: (option, index in its names).
    long: Vec<(u32, u32)>,
    /// `-D*` options: (option, index of the name that ends in `*`).
    prefixed: Vec<(u32, u32)>,
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

/// Checks one section's raw form (named `name`) and builds what sentinel reads of it; `line_of`
/// gives the line of the first line of the section that contains a text. An error is (line,
/// message).
pub fn check(
    raw: RawSpec,
    name: &str,
    line_of: &dyn Fn(&str) -> usize,
) -> Result<Checked, (usize, String)> {
    let err = |line: usize, message: String| (line, message);
    let declared = match raw.syntax.as_deref() {
        None => None,
        Some("gnu") => Some(Syntax::Gnu),
        Some("exact") => Some(Syntax::Exact),
        Some("posix") => Some(Syntax::Posix),
        Some("go") => Some(Syntax::Go),
        Some("single") => Some(Syntax::Single),
        Some(other) => {
            return Err(err(
                line_of("syntax"),
                format!("unknown syntax `{other}`: gnu, exact, posix, go or single"),
            ));
        }
    };
    // Names are checked against the declared syntax; an inherited one allows any `-name`.
    let syntax = declared.unwrap_or(Syntax::Single);
    let mut options = Vec::new();
    if let Some(flags) = &raw.flags {
        for n in flags.split_whitespace() {
            check_name(n, syntax).map_err(|m| err(line_of(n), m))?;
            options.push(OptSpec {
                names: vec![n.to_string()],
                kind: OptKind::Flag,
                line: line_of(n),
            });
        }
    }
    for (names, meaning) in &raw.options {
        let line = line_of(&format!("\"{names}\""));
        let names: Vec<String> = names.split_whitespace().map(str::to_string).collect();
        if names.is_empty() {
            return Err(err(line, "an option with no name".into()));
        }
        for n in &names {
            check_name(n, syntax).map_err(|m| err(line, m))?;
        }
        let kind = opt_kind(meaning).map_err(|m| err(line, m))?;
        options.push(OptSpec { names, kind, line });
    }
    let mut short = BTreeMap::new();
    let mut long = BTreeMap::new();
    let mut prefixed = Vec::new();
    for (i, o) in options.iter().enumerate() {
        for (j, n) in o.names.iter().enumerate() {
            let at = (i as u32, j as u32);
            let clash = if n.ends_with('*') {
                prefixed.push(at);
                false
            } else if n.starts_with("--") || n == "+" || n.chars().count() > 2 {
                // Long names, and single-dash names of several letters (`mvn -pl`), which
                // are matched as whole words before a cluster is split.
                long.insert(n.as_str(), at).is_some()
            } else {
                // `-x`: a short option in a cluster, or a whole word for go/single syntax
                // (which one applies is known only once the parent's syntax is).
                let c = n[1..].chars().next().unwrap_or('-');
                long.insert(n.as_str(), at);
                short.insert(c, i as u32).is_some()
            };
            if clash {
                return Err(err(o.line, format!("the option {n} is defined twice")));
            }
        }
    }
    let short: Vec<(char, u32)> = short.into_iter().collect();
    let long: Vec<(u32, u32)> = long.into_values().collect();
    let operands = match &raw.operands {
        Some(o) => slots(o).map_err(|m| err(line_of("operands"), m))?,
        None => Vec::new(),
    };
    if operands
        .iter()
        .position(|s| s.kind == Kind::Args)
        .is_some_and(|i| i + 1 != operands.len() || !operands[i].repeat)
    {
        return Err(err(
            line_of("operands"),
            "`args...` can only be the last operand, and repeats".into(),
        ));
    }
    if operands.iter().skip(1).any(|s| s.kind == Kind::Subcommand) {
        return Err(err(
            line_of("operands"),
            "`subcommand` can only be the first operand".into(),
        ));
    }
    let extra = match &raw.extra {
        Some(e) => Some(opt_kind(e).map_err(|m| err(line_of("extra"), m))?),
        None => None,
    };
    if let Some(
        OptKind::Operands(..)
        | OptKind::NoFirstOperand
        | OptKind::Flag
        | OptKind::DefaultOperand(..),
    ) = extra
    {
        return Err(err(
            line_of("extra"),
            "extra is a value kind, `deny: …` or `review: …`".into(),
        ));
    }
    let bare = match &raw.bare {
        Some(b) => match opt_kind(b).map_err(|m| err(line_of("bare"), m))? {
            k @ (OptKind::Deny(_) | OptKind::Review(_)) => Some(k),
            _ => {
                return Err(err(
                    line_of("bare"),
                    "bare is `deny: …` or `review: …`".into(),
                ));
            }
        },
        None => None,
    };
    let dashdash = match &raw.dashdash {
        Some(b) => match opt_kind(b).map_err(|m| err(line_of("dashdash"), m))? {
            k @ (OptKind::Deny(_) | OptKind::Review(_)) => Some(k),
            _ => {
                return Err(err(
                    line_of("dashdash"),
                    "dashdash is `deny: …` or `review: …`".into(),
                ));
            }
        },
        None => None,
    };
    let input = match &raw.input {
        Some(b) => match opt_kind(b).map_err(|m| err(line_of("input"), m))? {
            k @ (OptKind::Deny(_) | OptKind::Review(_)) => Some(k),
            _ => {
                return Err(err(
                    line_of("input"),
                    "input is `deny: …` or `review: …`".into(),
                ));
            }
        },
        None => None,
    };
    let runs = match raw.runs.as_deref() {
        None | Some("nothing") => Runs::Nothing,
        Some("project") => Runs::Project,
        Some(other) => {
            return Err(err(
                line_of("runs"),
                format!("unknown runs `{other}`: project or nothing"),
            ));
        }
    };
    let network = match raw.network.as_deref() {
        None | Some("none") => Network::None,
        Some("fetch") => Network::Fetch,
        Some("send") => Network::Send,
        Some(other) => {
            return Err(err(
                line_of("network"),
                format!("unknown network `{other}`: none, fetch or send"),
            ));
        }
    };
    for (field, value) in [("deny", &raw.deny), ("review", &raw.review)] {
        if value.as_ref().is_some_and(|v| v.trim().is_empty()) {
            return Err(err(line_of(field), format!("{field} needs a reason")));
        }
    }
    if let Some(d) = &raw.deny
        && !d.contains("; instead:")
    {
        return Err(err(
            line_of("deny"),
            "a deny says why and what to do instead: `why; instead: …`".into(),
        ));
    }
    Ok(Checked {
        name: name.to_string(),
        about: raw.about.unwrap_or_default(),
        syntax: declared,
        options,
        operands,
        extra,
        aliases: raw.aliases,
        inherit: raw.inherit,
        runs,
        network,
        deny: raw.deny,
        review: raw.review,
        bare,
        dashdash,
        interspersed: raw.interspersed,
        dashless: raw.dashless,
        bins: raw.bins,
        input,
        input_flags: raw
            .input_flags
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        default_operand: raw.default_operand,
        short,
        long,
        prefixed,
    })
}

fn check_name(name: &str, syntax: Syntax) -> Result<(), String> {
    let name = name.strip_suffix('*').unwrap_or(name);
    let ok = name == "+" || (name.starts_with('-') && name.len() > 1);
    let _ = syntax;
    if ok && !name.contains('=') {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not an option name for {syntax:?} syntax (-x or --long)"
        ))
    }
}

/// Parses an option's meaning: `flag`, a value kind (`write`, `text?`, `write text`),
/// `deny: why; instead: …`, `review: why`, `operands=KIND`, `no-first-operand`.
fn opt_kind(s: &str) -> Result<OptKind, String> {
    let s = s.trim();
    // `KIND... review: why`: a value that is also reviewed (or denied).
    if let Some(at) = s.find(" review:").or_else(|| s.find(" deny:"))
        && !s.starts_with("review:")
        && !s.starts_with("deny:")
    {
        let mark = opt_kind(&s[at + 1..])?;
        return match opt_kind(&s[..at])? {
            OptKind::Value {
                kinds,
                optional,
                as_first,
                mark: None,
            } => Ok(OptKind::Value {
                kinds,
                optional,
                as_first,
                mark: Some(Box::new(mark)),
            }),
            _ => Err("`review:` or `deny:` after a meaning needs value kinds before it".into()),
        };
    }
    if let Some(why) = s.strip_prefix("deny:") {
        if !why.contains("; instead:") {
            return Err("a deny says why and what to do instead: `deny: why; instead: …`".into());
        }
        return Ok(OptKind::Deny(why.trim().to_string()));
    }
    if let Some(why) = s.strip_prefix("review:") {
        if why.trim().is_empty() {
            return Err("review needs a reason: `review: why`".into());
        }
        return Ok(OptKind::Review(why.trim().to_string()));
    }
    if let Some(k) = s.strip_prefix("operands=") {
        let (k, suffix) = match k.trim().strip_suffix('?') {
            Some(k) => (k, true),
            None => (k.trim(), false),
        };
        return Kind::parse(k)
            .map(|k| OptKind::Operands(k, suffix))
            .ok_or_else(|| format!("unknown kind `{k}`"));
    }
    if let Some(rest) = s.strip_prefix("default-operand=") {
        let (path, turn) = match rest.split_once(' ') {
            Some((p, t)) => match opt_kind(t)? {
                OptKind::Operands(k, false) => (p, Some(k)),
                _ => return Err("after default-operand=PATH only `operands=KIND`".into()),
            },
            None => (rest, None),
        };
        if path.trim().is_empty() {
            return Err("default-operand needs a path: `default-operand=.`".into());
        }
        return Ok(OptKind::DefaultOperand(path.trim().to_string(), turn));
    }
    match s {
        "flag" => return Ok(OptKind::Flag),
        "no-first-operand" => return Ok(OptKind::NoFirstOperand),
        _ => {}
    }
    let (s, as_first) = match s.strip_suffix("as-first") {
        Some(b) => (b.trim_end(), true),
        None => (s, false),
    };
    let (body, optional) = match s.strip_suffix('?') {
        Some(b) => (b, true),
        None => (s, false),
    };
    let kinds = body
        .split_whitespace()
        .map(|k| Kind::parse(k).ok_or_else(|| format!("unknown kind `{k}`")))
        .collect::<Result<Vec<_>, _>>()?;
    if kinds.is_empty() {
        return Err("an option needs a meaning".into());
    }
    if optional && kinds.len() > 1 {
        return Err("only a one-value option can be optional".into());
    }
    if kinds.contains(&Kind::Subcommand) {
        return Err("`subcommand` is an operand kind".into());
    }
    Ok(OptKind::Value {
        kinds,
        optional,
        as_first,
        mark: None,
    })
}

/// Parses `operands = "text read..."`.
fn slots(s: &str) -> Result<Vec<Slot>, String> {
    s.split_whitespace()
        .map(|w| {
            let (w, repeat) = match w.strip_suffix("...") {
                Some(b) => (b, true),
                None => (w, false),
            };
            let (w, optional) = match w.strip_suffix('?') {
                Some(b) => (b, true),
                None => (w, false),
            };
            let kind = Kind::parse(w).ok_or_else(|| format!("unknown operand kind `{w}`"))?;
            Ok(Slot {
                kind,
                repeat,
                optional: optional || repeat,
            })
        })
        .collect()
}
