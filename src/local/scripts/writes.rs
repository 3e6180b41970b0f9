//! What a call writes, for the session's ledger ([`crate::ledger::written`]) and for a run later
//! in the same command: edit tools' targets, and the write effects of shell commands
//! (redirections, `tee`, `cp`/`mv` targets, `sed -i` …, and `npm pkg set`, which writes
//! `package.json`).

use super::Pending;
use crate::call::ToolCall;
use crate::decision::Decision;
use crate::decision::effect::Effect;
use crate::local::context::Context;
use crate::local::policy;
use crate::paths;
use crate::shell::{RedirectKind, SimpleCommand, WordKind};
use std::path::{Path, PathBuf};

/// The files one simple command writes, with what they will hold when the command says it
/// (`echo TEXT > f`, `printf TEXT > f`, `cat > f <<EOF`).
pub fn pending_of(
    cmd: &SimpleCommand,
    effects: &[Effect],
    cwd: Option<&Path>,
    ctx: &Context,
) -> Vec<Pending> {
    let mut out = Vec::new();
    for e in effects {
        let Effect::Write { path } = e else { continue };
        let Some(p) = policy::resolve_word(path, cwd, ctx) else {
            continue;
        };
        // Known text only for a whole-file redirect of a command that prints its arguments or
        // its here-doc.
        let whole = cmd
            .redirects
            .iter()
            .any(|r| r.kind == RedirectKind::Write && r.target.text == path.text);
        let text = whole.then(|| printed(cmd)).flatten();
        out.push(Pending { path: p, text });
    }
    if let Some(dir) = cwd
        && npm_pkg_writes(cmd)
    {
        out.push(Pending {
            path: ctx.fs.real_path(&dir.join("package.json")),
            text: None,
        });
    }
    out
}

/// What `echo`, `printf` or `cat <<EOF` prints, when every word of it is known.
fn printed(cmd: &SimpleCommand) -> Option<String> {
    let literal = |w: &crate::shell::Word| w.kind != WordKind::Computed;
    match cmd.name() {
        "echo" if cmd.args().iter().all(literal) => {
            let words: Vec<&str> = cmd
                .args()
                .iter()
                .map(|w| w.text.as_str())
                .skip_while(|w| matches!(*w, "-n" | "-e" | "-E"))
                .collect();
            Some(words.join(" ").replace("\\n", "\n"))
        }
        "printf" if cmd.args().iter().all(literal) => {
            Some(cmd.args().first()?.text.replace("\\n", "\n"))
        }
        "cat" | "tee" => cmd
            .redirects
            .iter()
            .find(|r| matches!(r.kind, RedirectKind::HereDoc | RedirectKind::HereString))
            .map(|r| r.target.text.clone()),
        _ => None,
    }
}

/// `npm pkg set …` / `npm pkg delete …` rewrite `package.json`.
fn npm_pkg_writes(cmd: &SimpleCommand) -> bool {
    let words: Vec<&str> = cmd
        .args()
        .iter()
        .map(|w| w.text.as_str())
        .filter(|w| !w.starts_with('-'))
        .take(2)
        .collect();
    cmd.name() == "npm"
        && words.first() == Some(&"pkg")
        && matches!(words.get(1), Some(&"set" | &"delete" | &"fix"))
}

/// What a decided call writes, each path absolute (lexically: the edge follows symlinks).
pub fn written_paths(call: &ToolCall, d: &Decision, home: Option<&Path>) -> Vec<PathBuf> {
    let session_cwd = Path::new(&d.cwd);
    match call {
        ToolCall::Write { .. } => d.path.iter().map(PathBuf::from).collect(),
        // Every file a patch adds or rewrites (a delete leaves nothing to run).
        ToolCall::Patch { files, .. } => files
            .iter()
            .filter(|f| f.op != crate::call::patch::PatchOp::Delete)
            .filter_map(|f| paths::resolve(&f.path, session_cwd, home))
            .collect(),
        ToolCall::Shell { .. } => {
            let mut out = Vec::new();
            for c in &d.commands {
                let base = match c.cwd.as_deref() {
                    None => session_cwd.to_path_buf(),
                    Some("unknown") => continue,
                    Some(dir) => PathBuf::from(dir),
                };
                for e in &c.effects {
                    if let Effect::Write { path } = e
                        && path.kind != WordKind::Computed
                        && !policy::SINKS.contains(&path.text.as_str())
                        && let Some(p) = paths::resolve(&path.text, &base, home)
                    {
                        out.push(p);
                    }
                }
                let words: Vec<&str> = c.text.split_whitespace().take(3).collect();
                if words.len() == 3 && words[0] == "npm" && words[1] == "pkg" {
                    out.push(base.join("package.json"));
                }
            }
            out.sort();
            out.dedup();
            out
        }
        _ => Vec::new(),
    }
}
