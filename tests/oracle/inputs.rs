//! The commands the oracle runs: a hand-picked fast list, every case of the corpus that may be
//! allowed, commands generated from every bundled spec section (each option alone, in the
//! spellings its syntax accepts, with each kind of operand), and a seeded mutation fuzzer over
//! the allowed ones.

use sentinel::local::spec::raw::RawSpec;
use sentinel::local::spec::scan;
use std::path::Path;

/// One command to judge, and where it came from (for coverage and the report).
#[derive(Clone, Debug)]
pub struct Case {
    pub command: String,
    /// `fast`, `corpus`, `spec`, `fuzz`, `mutation`.
    #[allow(dead_code)]
    pub origin: &'static str,
    /// The spec section it was generated from.
    pub section: Option<String>,
    /// The option it exercises (`section|name`).
    pub option: Option<String>,
}

impl Case {
    fn new(command: String, origin: &'static str) -> Case {
        Case {
            command,
            origin,
            section: None,
            option: None,
        }
    }
}

/// Operands of each kind, as the fixture names them.
pub const OPERANDS: &[(&str, &str)] = &[
    ("none", ""),
    ("file", "README.md"),
    ("dir", "src"),
    ("link", "keys/id_rsa"),
    ("outside", "../other/notes.txt"),
    ("url", "http://127.0.0.1:8080/x"),
    ("stdin", "-"),
];

/// `tests/oracle/fast.txt`: one command a line, `#` comments.
pub fn fast(root: &Path) -> Vec<Case> {
    lines(&root.join("tests/oracle/fast.txt"))
        .into_iter()
        .map(|c| Case::new(c, "fast"))
        .collect()
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// `tests/oracle/programs.txt`: the programs the oracle runs.
pub fn scope(root: &Path) -> std::collections::BTreeSet<String> {
    lines(&root.join("tests/oracle/programs.txt"))
        .into_iter()
        .collect()
}

/// Every corpus case that is expected to be allowed, and every command of the allowlists.
pub fn corpus(root: &Path) -> Vec<Case> {
    let dir = root.join("tests/corpus");
    let mut files = vec![
        dir.join("sentinel-cases.jsonl"),
        dir.join("allowlists.jsonl"),
        dir.join("allowlists-fresh.jsonl"),
        dir.join("allowlists-held-out.jsonl"),
        dir.join("peer-cases.jsonl"),
    ];
    let mut cases: Vec<_> = std::fs::read_dir(dir.join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    files.extend(cases);
    let mut out = Vec::new();
    for f in files {
        let allowlist = [
            "allowlists.jsonl",
            "allowlists-fresh.jsonl",
            "allowlists-held-out.jsonl",
        ]
        .iter()
        .any(|name| f.ends_with(name));
        for l in std::fs::read_to_string(&f).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(l) else {
                continue;
            };
            let expect = v
                .get("expect")
                .or_else(|| v.get("expected"))
                .and_then(|e| e.as_str());
            if (allowlist || expect == Some("allow"))
                && let Some(c) = v.get("command").and_then(|c| c.as_str())
            {
                out.push(Case::new(c.to_string(), "corpus"));
            }
        }
    }
    out
}

/// One bundled section, as the generator needs it.
pub struct Section {
    pub name: String,
    pub syntax: String,
    /// (every name of the option, its meaning); flags have the meaning "flag".
    pub options: Vec<(Vec<String>, String)>,
}

/// Every bundled section of `rules/commands/*.toml`.
pub fn sections(root: &Path) -> Vec<Section> {
    let mut files: Vec<_> = std::fs::read_dir(root.join("rules/commands"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let (scanned, _) = scan::scan(&text);
        for s in scanned {
            let body = &text[s.start..s.end];
            let body = body.split_once('\n').map(|x| x.1).unwrap_or("");
            let raw: RawSpec = match toml::from_str(body) {
                Ok(r) => r,
                Err(e) => panic!("{}:{}: {e}", f.display(), s.line),
            };
            let mut options: Vec<(Vec<String>, String)> = raw
                .flags
                .unwrap_or_default()
                .split_whitespace()
                .map(|n| (vec![n.to_string()], "flag".to_string()))
                .collect();
            for (names, meaning) in raw.options {
                options.push((
                    names.split_whitespace().map(str::to_string).collect(),
                    meaning,
                ));
            }
            out.push(Section {
                name: s.name.clone(),
                syntax: raw.syntax.unwrap_or_else(|| "gnu".into()),
                options,
            });
        }
    }
    out
}

/// The bundled spec files whose header says the oracle cannot run their programs (a line
/// `# oracle: not traced`: Windows programs, cmd and PowerShell), with how many sections each
/// has: their allows are listed as untraceable in the coverage.
pub fn untraceable(root: &Path) -> Vec<(String, usize)> {
    let mut files: Vec<_> = std::fs::read_dir(root.join("rules/commands"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            let header = text
                .lines()
                .take_while(|l| l.starts_with('#') || l.is_empty());
            let marked = header
                .into_iter()
                .any(|l| l.starts_with("# oracle: not traced"));
            marked.then(|| {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                (name, scan::scan(&text).0.len())
            })
        })
        .collect()
}

/// A value for an option of this meaning; `i` picks among the kinds of path.
fn value(kind: &str, i: usize) -> Option<&'static str> {
    let pick = |v: &[&'static str]| Some(v[i % v.len()]);
    match kind {
        "text" => Some("1"),
        "read" => pick(&["README.md", "keys/id_rsa", "../other/notes.txt", ".env"]),
        "tree" => pick(&["src", "keys", "../other", "config"]),
        "path" => Some("src"),
        "write" => pick(&["out.txt", "../other/out.txt", "keys/known_hosts"]),
        "delete" | "move" => pick(&["build", "../other/app.log", "src/app.log"]),
        "run" => Some("true"),
        "code" => Some("1"),
        "script" => Some("scripts/test.sh"),
        "url" | "send" => Some("http://127.0.0.1:8080/x"),
        "cwd" => Some("src"),
        "user" => Some("dev"),
        "package" => Some("left-pad"),
        "task" => Some("build"),
        "sed-script" => Some("s/a/b/"),
        "awk-program" => Some("{print}"),
        "sql" => Some("SELECT 1"),
        "database" => Some("db.sqlite"),
        _ => None,
    }
}

/// The values an option takes: one per value kind in its meaning (`"write text"` takes two).
fn values(meaning: &str, i: usize) -> (Vec<&'static str>, bool) {
    let mut vals = Vec::new();
    let mut optional = false;
    for word in meaning.split_whitespace() {
        let (w, opt) = match word.strip_suffix('?') {
            Some(w) => (w, true),
            None => (word, false),
        };
        match value(w, i) {
            Some(v) => {
                vals.push(v);
                optional |= opt;
            }
            None => break,
        }
    }
    (vals, optional)
}

/// Commands for one section whose program is installed: the section alone with each kind of
/// operand, then each option name once, its spelling and operand kind cycling.
pub fn generate(s: &Section) -> Vec<Case> {
    let mut out = Vec::new();
    if s.name.contains('*') {
        return out;
    }
    let case = |command: String, option: Option<String>| Case {
        command: command.trim().to_string(),
        origin: "spec",
        section: Some(s.name.clone()),
        option,
    };
    for (_, operand) in OPERANDS {
        out.push(case(format!("{} {operand}", s.name), None));
    }
    let shorts: Vec<&str> = s
        .options
        .iter()
        .filter(|(_, m)| m == "flag")
        .flat_map(|(n, _)| n.iter())
        .filter(|n| n.len() == 2 && n.starts_with('-'))
        .map(String::as_str)
        .collect();
    let mut i = 0usize;
    for (names, meaning) in &s.options {
        for name in names {
            i += 1;
            let (vals, optional) = values(meaning, i);
            let spelled = spell(name, &vals, optional, &s.syntax, &shorts, i);
            let operand = OPERANDS[i % OPERANDS.len()].1;
            out.push(case(
                format!("{} {spelled} {operand}", s.name),
                Some(format!("{}|{name}", s.name)),
            ));
        }
    }
    out
}

/// One spelling of an option with its values, chosen by `i` among those `syntax` accepts.
fn spell(
    name: &str,
    vals: &[&str],
    optional: bool,
    syntax: &str,
    shorts: &[&str],
    i: usize,
) -> String {
    let quote = |v: &str| shell_quote(v);
    let joined = vals.iter().map(|v| quote(v)).collect::<Vec<_>>().join(" ");
    if let Some(prefix) = name.strip_suffix('*') {
        return format!("{prefix}key=1");
    }
    let long = name.starts_with("--");
    let short = name.len() == 2 && name.starts_with('-');
    let gnu = syntax == "gnu";
    match (vals.len(), long, short) {
        (0, true, _) if gnu && i % 3 == 1 && name.len() > 5 => name[..name.len() - 1].to_string(),
        (0, false, true) if syntax != "single" && syntax != "go" && i % 2 == 1 => {
            // A cluster with another flag of the section.
            match shorts.iter().find(|o| **o != name) {
                Some(other) => format!("{name}{}", &other[1..]),
                None => name.to_string(),
            }
        }
        (0, _, _) => name.to_string(),
        (1, true, _) if optional || (i % 2 == 1 && syntax != "single") => {
            format!("{name}={}", quote(vals[0]))
        }
        (1, false, true) if optional || (i % 2 == 1 && gnu) => {
            format!("{name}{}", quote(vals[0]))
        }
        _ if optional => name.to_string(),
        _ => format!("{name} {joined}"),
    }
}

pub fn shell_quote(v: &str) -> String {
    if v.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-:=,+@%".contains(c))
    {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "'\\''"))
    }
}

/// A small seeded generator (xorshift), so a run can be repeated exactly.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Environment variables that load config or code, or change where a program works.
const ENV: &[&str] = &[
    "TAR_OPTIONS=--remove-files",
    "ZIPOPT=-r",
    "CURL_HOME=../other",
    "WGETRC=../other/notes.txt",
    "GNUMAKEFLAGS=-n",
    "GIT_DIR=../other",
    "GIT_PAGER=cat",
    "PAGER=cat",
    "BASH_ENV=scripts/test.sh",
    "RIPGREP_CONFIG_PATH=../other/notes.txt",
    "LC_ALL=C",
];

/// Contexts that evaluate a variable's value as arithmetic (and so run `$(…)` in a subscript).
const ARITH: &[&str] = &[
    "echo $((x))",
    "(( x ))",
    "[[ $x -eq 0 ]]",
    "let y=x",
    "declare -i y=x",
    "test -v \"$x\"",
    "printf -v \"$x\" 1",
    "echo ${s:$x}",
    "for ((i=x; i<1; i++)); do :; done",
];

/// `n` mutants of the allowed commands `seeds`, with the option names of `sections`.
pub fn fuzz(seeds: &[String], sections: &[Section], n: usize, seed: u64) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    if seeds.is_empty() {
        return out;
    }
    while out.len() < n {
        let base = &seeds[rng.below(seeds.len())];
        let mut words: Vec<String> = base.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            continue;
        }
        let command = match rng.below(6) {
            0 if words.len() > 1 => {
                words.pop();
                words.join(" ")
            }
            1 => {
                words.push(OPERANDS[1 + rng.below(OPERANDS.len() - 1)].1.to_string());
                words.join(" ")
            }
            2 => {
                let program = &words[0];
                let opts: Vec<&String> = sections
                    .iter()
                    .filter(|s| s.name == *program)
                    .flat_map(|s| s.options.iter().flat_map(|(n, _)| n.iter()))
                    .filter(|n| !n.ends_with('*'))
                    .collect();
                if opts.is_empty() {
                    continue;
                }
                words.insert(1, opts[rng.below(opts.len())].clone());
                words.join(" ")
            }
            3 if words.len() > 1 => {
                let i = 1 + rng.below(words.len() - 1);
                words[i] = ["keys", "keys/id_rsa", "../other", "~/.config", "/etc/ssl"]
                    [rng.below(5)]
                .to_string();
                words.join(" ")
            }
            4 => format!("{} {}", ENV[rng.below(ENV.len())], words.join(" ")),
            5 => format!(
                "x='a[$(touch ../other/pwned)]'; s=abc; {}; {}",
                ARITH[rng.below(ARITH.len())],
                words.join(" ")
            ),
            _ => continue,
        };
        out.push(Case::new(command, "fuzz"));
    }
    out
}
