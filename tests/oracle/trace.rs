//! Reading `strace -f -yy` output into what the process tree did: files opened, changed or
//! removed (absolute paths, the directory fd's path joined), programs started, connections.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// What one syscall did to the world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Act {
    /// Opened a file (read-only); `real` is the path the kernel opened, when it succeeded.
    Open {
        path: PathBuf,
        real: Option<PathBuf>,
    },
    /// Wrote, created, truncated or changed the metadata of a file.
    Write { path: PathBuf },
    /// Unlinked, removed or renamed away a file.
    Delete { path: PathBuf },
    /// Started a program (successful execve).
    Exec { path: String },
    /// Connected to a TCP/UDP port (`host`, `port`) or a unix socket (`port` 0).
    Connect { host: String, port: u16 },
}

/// One act, by one process, with the trace line it came from.
#[derive(Clone, Debug)]
pub struct Event {
    pub act: Act,
    /// The program the process was running (its last execve), to tell git from others.
    pub exe: String,
    /// Whether the call succeeded.
    pub ok: bool,
    /// The error name when it failed (`EEXIST`).
    pub errno: String,
    pub line: String,
}

/// Parses a whole trace. `start` is where the first process started.
pub fn parse(text: &str, start: &Path) -> Vec<Event> {
    let mut pending: HashMap<String, String> = HashMap::new();
    let mut exe: HashMap<String, String> = HashMap::new();
    // The cwd of each process, for the calls without a directory fd (`unlink`, `rename` …).
    let mut cwds: HashMap<String, PathBuf> = HashMap::new();
    let mut events: Vec<Event> = Vec::new();
    // Events of a process recorded before its parent's `clone` returned (no program known for
    // it yet): they get the parent's program when the clone line comes (a detached `git
    // maintenance` child unlinking its lock is git's).
    let mut unknown: HashMap<String, Vec<usize>> = HashMap::new();
    for raw in text.lines() {
        let Some((pid, rest)) = raw.split_once(char::is_whitespace) else {
            continue;
        };
        let rest = rest.trim_start();
        // `<unfinished ...>` now, `<... openat resumed>` later: join the halves.
        let line = if let Some(head) = rest.strip_suffix("<unfinished ...>") {
            pending.insert(pid.to_string(), head.to_string());
            continue;
        } else if rest.starts_with("<...") {
            let Some(head) = pending.remove(pid) else {
                continue;
            };
            let tail = rest.split_once("resumed>").map(|x| x.1).unwrap_or("");
            format!("{head}{tail}")
        } else {
            rest.to_string()
        };
        let cwd = cwds
            .get(pid)
            .cloned()
            .unwrap_or_else(|| start.to_path_buf());
        let Some(call) = Call::read(&line, cwd.clone()) else {
            continue;
        };
        let me = exe.get(pid).cloned().unwrap_or_default();
        if matches!(call.name, "clone" | "clone3" | "fork" | "vfork") && call.ok() {
            // The child's own lines may come first (it ran before the parent's call returned):
            // what they recorded (an execve, a chdir) stands.
            let child = call.ret.split_whitespace().next().unwrap_or("").to_string();
            exe.entry(child.clone()).or_insert_with(|| me.clone());
            for i in unknown.remove(&child).unwrap_or_default() {
                events[i].exe = me.clone();
            }
            cwds.entry(child).or_insert_with(|| cwd.clone());
        }
        if call.ok() {
            match call.name {
                "chdir" => {
                    if let Some(p) = call.path_at(None, 0) {
                        cwds.insert(pid.to_string(), p);
                    }
                }
                "fchdir" => {
                    if let Some(p) = fd_path(call.flags(0)) {
                        cwds.insert(pid.to_string(), p);
                    }
                }
                _ => {}
            }
        }
        for act in call.acts() {
            if let Act::Exec { path } = &act
                && call.ok()
            {
                exe.insert(pid.to_string(), path.clone());
            }
            if me.is_empty() {
                unknown
                    .entry(pid.to_string())
                    .or_default()
                    .push(events.len());
            }
            events.push(Event {
                act,
                exe: me.clone(),
                ok: call.ok(),
                errno: call.errno(),
                line: format!("{pid} {line}"),
            });
        }
    }
    events
}

/// One complete syscall line: `name(args) = ret`.
struct Call<'a> {
    name: &'a str,
    args: Vec<String>,
    ret: &'a str,
    cwd: PathBuf,
}

impl<'a> Call<'a> {
    fn read(line: &'a str, cwd: PathBuf) -> Option<Call<'a>> {
        let open = line.find('(')?;
        let name = &line[..open];
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        // `…) = 0`, or `…)      = 0` when strace aligned the result of a resumed call.
        let eq = line.rfind(" = ")?;
        let args = line[..eq].trim_end().strip_suffix(')')?;
        Some(Call {
            name,
            args: split_args(&args[open + 1..]),
            ret: &line[eq + 3..],
            cwd,
        })
    }

    fn ok(&self) -> bool {
        !self.ret.starts_with('-') && !self.ret.starts_with('?')
    }

    fn errno(&self) -> String {
        self.ret
            .split_whitespace()
            .nth(1)
            .filter(|_| !self.ok())
            .unwrap_or("")
            .to_string()
    }

    /// The path of `args[i]` made absolute against the directory fd `args[dir]` (or the cwd).
    fn path_at(&self, dir: Option<usize>, i: usize) -> Option<PathBuf> {
        let p = unquote(self.args.get(i)?)?;
        let base = match dir {
            Some(d) => fd_path(self.args.get(d)?),
            None => Some(self.cwd.clone()),
        };
        Some(absolute(&p, base.as_deref()))
    }

    fn flags(&self, i: usize) -> &str {
        self.args.get(i).map(String::as_str).unwrap_or("")
    }

    /// The path a returned fd (`= 3</a/b>`) names.
    fn returned(&self) -> Option<PathBuf> {
        let s = self.ret.split_once('<')?.1;
        let end = s.find(">")?;
        Some(PathBuf::from(&s[..end]))
    }

    fn acts(&self) -> Vec<Act> {
        let w = |p: Option<PathBuf>| p.map(|path| Act::Write { path });
        let d = |p: Option<PathBuf>| p.map(|path| Act::Delete { path });
        let mut v = Vec::new();
        match self.name {
            "open" | "openat" | "openat2" | "creat" => {
                let (dir, i, fl) = match self.name {
                    "open" => (None, 0, 1),
                    "creat" => (None, 0, 9),
                    _ => (Some(0), 1, 2),
                };
                let Some(path) = self.path_at(dir, i) else {
                    return v;
                };
                let flags = self.flags(fl);
                let writes = self.name == "creat"
                    || ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
                        .iter()
                        .any(|f| flags.contains(f));
                v.push(Act::Open {
                    path: path.clone(),
                    real: self.returned(),
                });
                if writes {
                    v.push(Act::Write { path });
                }
            }
            "unlink" | "rmdir" => v.extend(d(self.path_at(None, 0))),
            "unlinkat" => v.extend(d(self.path_at(Some(0), 1))),
            "rename" => {
                v.extend(d(self.path_at(None, 0)));
                v.extend(w(self.path_at(None, 1)));
            }
            "renameat" | "renameat2" => {
                v.extend(d(self.path_at(Some(0), 1)));
                v.extend(w(self.path_at(Some(2), 3)));
            }
            "mkdir" | "truncate" | "chmod" | "chown" | "lchown" | "utime" | "utimes" | "mknod" => {
                v.extend(w(self.path_at(None, 0)))
            }
            "mkdirat" | "fchmodat" | "fchownat" | "mknodat" | "futimesat" => {
                v.extend(w(self.path_at(Some(0), 1)))
            }
            "utimensat" => {
                // `utimensat(3</f>, NULL, …)` changes the fd's file.
                if self.flags(1) == "NULL" {
                    v.extend(w(fd_path(self.flags(0))));
                } else {
                    v.extend(w(self.path_at(Some(0), 1)));
                }
            }
            "symlink" | "link" => v.extend(w(self.path_at(None, 1))),
            "symlinkat" => v.extend(w(self.path_at(Some(1), 2))),
            "linkat" => v.extend(w(self.path_at(Some(2), 3))),
            "ftruncate" | "fchmod" | "fchown" => v.extend(w(fd_path(self.flags(0)))),
            "execve" | "execveat" => {
                let i = if self.name == "execve" { 0 } else { 1 };
                if let Some(p) = self.args.get(i).and_then(|a| unquote(a)) {
                    v.push(Act::Exec { path: p });
                }
            }
            "connect" | "sendto" => {
                let addr = self.flags(1);
                if let Some(port) = between(addr, "sin_port=htons(", ")")
                    .or_else(|| between(addr, "sin6_port=htons(", ")"))
                    .and_then(|p| p.parse().ok())
                {
                    let host = between(addr, "inet_addr(\"", "\"")
                        .or_else(|| between(addr, "inet_pton(AF_INET6, \"", "\""))
                        .unwrap_or("?")
                        .to_string();
                    v.push(Act::Connect { host, port });
                } else if let Some(path) = between(addr, "sun_path=", "}") {
                    v.push(Act::Connect {
                        host: path.trim_matches('"').to_string(),
                        port: 0,
                    });
                }
            }
            _ => {}
        }
        v
    }
}

fn between<'s>(s: &'s str, start: &str, end: &str) -> Option<&'s str> {
    let from = s.find(start)? + start.len();
    let len = s[from..].find(end)?;
    Some(&s[from..from + len])
}

/// The path in `AT_FDCWD</x>` or `3</x>`; None for a bare fd.
fn fd_path(arg: &str) -> Option<PathBuf> {
    let s = arg.split_once('<')?.1;
    // `3</dev/null<char 1:3>>`: the path ends at the next `<` or `>`.
    let end = s.find(['<', '>'])?;
    Some(PathBuf::from(&s[..end]))
}

/// A C string argument (`"a\"b"`), escapes undone as far as paths need.
fn unquote(arg: &str) -> Option<String> {
    let s = arg.strip_prefix('"')?;
    let s = s.strip_suffix("\"...").or_else(|| s.strip_suffix('"'))?;
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Splits the argument list on top-level commas (not inside quotes, brackets or braces).
fn split_args(s: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut escaped = false;
    let mut cur = String::new();
    for c in s.chars() {
        if quoted {
            cur.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                args.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        args.push(cur.trim().to_string());
    }
    args
}

/// `p` made absolute against `base`, `.` and `..` folded lexically.
pub fn absolute(p: &str, base: Option<&Path>) -> PathBuf {
    let joined = match base {
        Some(b) if !p.starts_with('/') => b.join(p),
        _ => PathBuf::from(p),
    };
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// The parser on the shapes strace prints that are easy to get wrong: a call resumed with its
/// result aligned, a child's lines before its parent's `clone` returns, fd paths with a type.
pub fn self_check() {
    let text = "\
12 clone(child_stack=NULL, flags=SIGCHLD) = 13
13 execve(\"/usr/bin/git\", [\"git\", \"diff\"], 0x5 /* 9 vars */ <unfinished ...>
12 wait4(-1,  <unfinished ...>
13 <... execve resumed>)             = 0
13 openat(AT_FDCWD</p>, \".git/index.lock\", O_RDWR|O_CREAT|O_EXCL, 0666) = 3</p/.git/index.lock>
12 <... wait4 resumed>[{WIFEXITED(s)}], 0, NULL) = 13
14 utimensat(1</p/out<char 1:3>>, NULL, NULL, 0) = 0
15 unlink(\"../x\") = -1 EROFS (Read-only file system)
16 execve(\"/usr/bin/git\", [\"git\", \"pull\"], 0x5 /* 9 vars */) = 0
20 unlink(\"/p/.git/objects/maintenance.lock\") = 0
16 clone(child_stack=NULL, flags=SIGCHLD) = 20
";
    let events = parse(text, Path::new("/p/sub"));
    let writes: Vec<(&str, &Path, bool)> = events
        .iter()
        .filter_map(|e| match &e.act {
            Act::Write { path } | Act::Delete { path } => {
                Some((e.exe.as_str(), path.as_path(), e.ok))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        writes,
        vec![
            ("/usr/bin/git", Path::new("/p/.git/index.lock"), true),
            ("", Path::new("/p/out"), true),
            ("", Path::new("/p/x"), false),
            // A child's line before the clone returned is its parent's program's.
            (
                "/usr/bin/git",
                Path::new("/p/.git/objects/maintenance.lock"),
                true
            ),
        ],
        "the strace parser misreads its own sample"
    );
}
