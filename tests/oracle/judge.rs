//! The judgement: what the process tree did, against what sentinel's decision said it does.
//! An allowed command may write only inside the project (not in its protected places, `.git`
//! excepted for git itself) and the private /tmp; may open no canary; may start only the
//! programs the decision names (and their known helpers), unless the decision says it runs
//! code; may connect only where its effects point, and send a request body only when an
//! effect says it sends. A refused command's reason is checked when it claims a whole tree
//! is deleted.

use crate::fixture::{CANARY, World};
use crate::trace::{Act, Event};
use sentinel::decision::effect::Effect;
use sentinel::decision::{Decision, Verdict};
use sentinel::rules::Rules;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One finding.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The defect class (stable words: `known.txt` names them).
    pub class: &'static str,
    /// What was done, and where.
    pub what: String,
    /// The syscall line (or the listener's record).
    pub evidence: String,
}

/// Programs a named program starts as part of its own work (documented in docs/oracle.md).
fn helpers(program: &str) -> &'static [&'static str] {
    match program {
        // git's shell-script commands (`git submodule`, git-sh-setup), its local transport
        // (`sh -c git-upload-pack`), and `--help` (man and its formatting pipeline).
        "git" => &[
            "git*", "less", "pager", "sh", "sed", "uname", "basename", "man", "preconv", "groff",
            "grotty", "troff", "nroff", "tbl", "col", "locale",
        ],
        // tar runs its compressor through `sh -c`.
        "tar" => &[
            "sh", "gzip", "gunzip", "bzip2", "xz", "lzip", "lzma", "lzop", "zstd", "compress",
        ],
        "zcat" | "gunzip" => &["gzip"],
        _ => &[],
    }
}

/// The basename of a program path.
fn base(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// The programs a decision names: each simple command's own, and the wrappers it came through.
/// None when the decision says the command runs code (then any program may start).
fn named_programs(d: &Decision) -> Option<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for c in &d.commands {
        for e in &c.effects {
            if matches!(
                e,
                Effect::RunProject
                    | Effect::RunFile { .. }
                    | Effect::RunProgram { .. }
                    | Effect::RunCode { .. }
                    | Effect::Task { .. }
            ) {
                return None;
            }
        }
        let words = std::iter::once(c.text.as_str()).chain(c.via.iter().map(String::as_str));
        for w in words {
            if let Some(first) = w.split_whitespace().find(|t| !t.contains('=')) {
                let b = base(first.trim_matches(['\'', '"'])).to_string();
                for h in helpers(&b) {
                    names.insert(h.to_string());
                }
                names.insert(b);
            }
        }
    }
    Some(names)
}

/// The program each simple command of the decision starts (as written: a path stays a path).
pub fn programs_of(d: &Decision) -> Vec<String> {
    d.commands
        .iter()
        .filter_map(|c| c.text.split_whitespace().find(|t| !t.contains('=')))
        .map(|w| w.trim_matches(['\'', '"']).to_string())
        .collect()
}

fn program_named(names: &BTreeSet<String>, exe: &str) -> bool {
    let b = base(exe);
    names.iter().any(|n| match n.strip_suffix('*') {
        Some(prefix) => b.starts_with(prefix),
        None => n == b,
    })
}

/// The network effects: whether any is named, whether one sends, and the ports they name.
struct Net {
    any: bool,
    sends: bool,
    ports: BTreeSet<u16>,
    fetch: bool,
}

fn net_of(d: &Decision) -> Net {
    let mut n = Net {
        any: false,
        sends: false,
        ports: BTreeSet::new(),
        fetch: false,
    };
    let mut texts = Vec::new();
    for c in &d.commands {
        for e in &c.effects {
            match e {
                Effect::Fetch => {
                    n.any = true;
                    n.fetch = true;
                }
                Effect::Receive { from } => {
                    n.any = true;
                    texts.push(from.text.clone());
                }
                Effect::Send { what, .. } => {
                    n.any = true;
                    n.sends = true;
                    texts.push(what.clone());
                }
                _ => {}
            }
        }
    }
    for t in texts {
        let mut found = false;
        for (i, _) in t.match_indices(':') {
            let digits: String = t[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(p) = digits.parse() {
                n.ports.insert(p);
                found = true;
            }
        }
        if !found {
            n.ports
                .insert(if t.starts_with("https") { 443 } else { 80 });
        }
    }
    n
}

/// Is `p` (absolute, lexical) where an allowed command may write?
fn writable_place(p: &Path, world: &World) -> bool {
    p.starts_with(&world.project)
        // The sandbox's private /tmp, not a host temp dir the world itself lies in.
        || (p.starts_with("/tmp") && !p.starts_with(&world.root))
        || p.starts_with("/dev/null")
        || p.starts_with("/dev/tty")
        || p.starts_with("/dev/pts")
        || p.starts_with("/proc/self/fd")
        // man's own page cache (`git help`), and the harness's file for the command's stdout.
        || p.starts_with("/var/cache/man")
        || p == world.out.join("output")
}

/// `p` with its directory's symlinks followed (the file itself may be gone or dangling).
fn real(p: &Path) -> PathBuf {
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map(|d| d.join(name))
            .unwrap_or_else(|_| p.to_path_buf()),
        _ => p.to_path_buf(),
    }
}

/// Judges one run. `events` from the trace, `received` from the listeners.
pub fn judge(
    d: &Decision,
    events: &[Event],
    received: &[(u16, Vec<u8>)],
    status: Option<i32>,
    world: &World,
    rules: &Rules,
) -> Vec<Violation> {
    let mut v = Vec::new();
    if d.verdict == Verdict::Allow {
        allowed(d, events, received, world, rules, &mut v);
    } else if status == Some(0) {
        claims(d, events, world, &mut v);
    }
    v
}

fn allowed(
    d: &Decision,
    events: &[Event],
    received: &[(u16, Vec<u8>)],
    world: &World,
    rules: &Rules,
    v: &mut Vec<Violation>,
) {
    let canaries: BTreeSet<PathBuf> = world.canaries().into_iter().collect();
    let programs = named_programs(d);
    let net = net_of(d);
    let mut first_exec = true;
    for e in events {
        match &e.act {
            Act::Open { path, real: got } => {
                let r = got.clone().unwrap_or_else(|| real(path));
                if canaries.contains(&r) || canaries.contains(path) {
                    v.push(Violation {
                        class: "reads-credential",
                        what: format!("opened the canary {}", r.display()),
                        evidence: e.line.clone(),
                    });
                }
            }
            Act::Write { path } | Act::Delete { path } => {
                if e.errno == "EEXIST" {
                    continue;
                }
                let verb = if matches!(e.act, Act::Write { .. }) {
                    "writes"
                } else {
                    "deletes"
                };
                let r = real(path);
                if !writable_place(path, world) || !writable_place(&r, world) {
                    if rules.safe_paths().matches(&r).is_some() {
                        continue;
                    }
                    v.push(Violation {
                        class: if verb == "writes" {
                            "writes-outside"
                        } else {
                            "deletes-outside"
                        },
                        what: format!("{verb} {} (outside the project)", r.display()),
                        evidence: e.line.clone(),
                    });
                } else if let Ok(rel) = r.strip_prefix(&world.project)
                    && !rel.as_os_str().is_empty()
                    && let Some(rule) = rules.protected_paths().matches(rel)
                {
                    // A repository's own `.git` (this one, or a clone's) written by git.
                    let git_own = rel.components().any(|c| c.as_os_str() == ".git")
                        && base(&e.exe).starts_with("git");
                    if !git_own {
                        v.push(Violation {
                            class: "writes-protected",
                            what: format!("{verb} {} (protected: {})", rel.display(), rule.pattern),
                            evidence: e.line.clone(),
                        });
                    }
                }
            }
            Act::Exec { path } => {
                if !e.ok {
                    continue;
                }
                if first_exec {
                    // The harness's own `bash -c`.
                    first_exec = false;
                    continue;
                }
                if let Some(names) = &programs
                    && !program_named(names, path)
                {
                    v.push(Violation {
                        class: "runs-unnamed-program",
                        what: format!("started {path}, not named by the decision {names:?}"),
                        evidence: e.line.clone(),
                    });
                }
            }
            Act::Connect { host, port } => {
                if *port == 53 {
                    continue;
                }
                if *port == 0 {
                    if host.contains("nscd") {
                        continue;
                    }
                    v.push(Violation {
                        class: "connects-unnamed",
                        what: format!("connected to the unix socket {host}"),
                        evidence: e.line.clone(),
                    });
                } else if !net.any || !(net.fetch || net.ports.contains(port)) {
                    v.push(Violation {
                        class: "connects-unnamed",
                        what: format!("connected to {host}:{port}, named: {:?}", net.ports),
                        evidence: e.line.clone(),
                    });
                }
            }
        }
    }
    for (port, bytes) in received {
        let text = String::from_utf8_lossy(bytes);
        let method = text.split_whitespace().next().unwrap_or("");
        let is_http = text.contains(" HTTP/1.") || text.contains(" HTTP/2");
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.len())
            .unwrap_or(0);
        if text.contains(CANARY) {
            v.push(Violation {
                class: "sends-credential",
                what: format!("a canary reached the listener on port {port}"),
                evidence: excerpt(&text),
            });
        }
        let sends = !is_http || !matches!(method, "GET" | "HEAD") || body > 0;
        if sends {
            // Named or not, an allowed command must not send: a body or a method other than
            // GET/HEAD changes a local service as much as a remote one (issue 28).
            v.push(Violation {
                class: if net.sends {
                    "allows-send"
                } else {
                    "sends-unnamed"
                },
                what: format!(
                    "sent {} to port {port} (method {method:?}, body {body} bytes){}",
                    if is_http {
                        "a request"
                    } else {
                        "non-HTTP bytes"
                    },
                    if net.sends {
                        ": the decision names the send and still allows it"
                    } else {
                        ", no effect says it sends"
                    }
                ),
                evidence: excerpt(&text),
            });
        }
    }
}

fn excerpt(t: &str) -> String {
    let t: String = t.chars().take(200).collect();
    t.replace('\r', "").replace('\n', "⏎")
}

/// A refused command's reason claims "deletes X and everything in it": did it?
fn claims(d: &Decision, events: &[Event], world: &World, v: &mut Vec<Violation>) {
    for c in &d.commands {
        for e in &c.effects {
            let Effect::Delete { path, tree: true } = e else {
                continue;
            };
            let base_dir = c
                .cwd
                .as_deref()
                .map(PathBuf::from)
                .unwrap_or_else(|| world.project.clone());
            let target = crate::trace::absolute(&path.text, Some(&base_dir));
            if !target.is_dir() && !events.iter().any(|e| deleted_under(e, &target)) {
                continue;
            }
            // What it held before: the template has the same tree under the same names.
            let before = count_files(&target) + deleted(events, &target);
            let gone = deleted(events, &target);
            if before > 2 && gone * 2 < before {
                v.push(Violation {
                    class: "false-claim",
                    what: format!(
                        "the reason says it {} but it deleted {gone} of {before} entries",
                        e.describe()
                    ),
                    evidence: d.reason.clone(),
                });
            }
        }
    }
}

fn deleted_under(e: &Event, dir: &Path) -> bool {
    matches!(&e.act, Act::Delete { path } if path.starts_with(dir)) && e.ok
}

fn deleted(events: &[Event], dir: &Path) -> usize {
    events
        .iter()
        .filter(|e| deleted_under(e, dir))
        .map(|e| match &e.act {
            Act::Delete { path } => path.clone(),
            _ => unreachable!(),
        })
        .collect::<BTreeSet<_>>()
        .len()
}

fn count_files(dir: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_symlink() || !p.is_dir() {
                1
            } else {
                1 + count_files(&p)
            }
        })
        .sum()
}
