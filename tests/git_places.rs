//! What git reads beyond the files a command names, through `sentinel hook` on a real file
//! system: the repository it finds from where it works (whose config names programs git runs),
//! and the new files a directory operand stages (which `git diff --cached` then prints). The
//! scratch dirs live under the target dir, never in /tmp (temp dirs are scratch space to
//! sentinel, which would change the answers).

// Its fixtures are Unix paths and links: run on Unix; on Windows only the library and binary
// are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::json;
use std::path::{Path, PathBuf};

struct World {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    sentinel_home: PathBuf,
}

impl World {
    /// A home with a key, and a project (a git work tree) holding an untracked `config/.env`
    /// that its `.gitignore` lists only when `ignored`.
    fn new(ignored: bool) -> World {
        let root = common::scratch("git-places");
        let base = root.path().canonicalize().unwrap();
        let home = base.join("home/dev");
        let project = home.join("proj");
        let sentinel_home = base.join("sentinel-home");
        for d in [
            home.join(".ssh"),
            project.join("src"),
            project.join("config"),
            project.join(".git/objects"),
            project.join(".git/refs"),
            sentinel_home.clone(),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "key").unwrap();
        std::fs::write(project.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(project.join("config/.env"), "TOKEN=x").unwrap();
        let ignore = if ignored { "dist/\n.env\n" } else { "dist/\n" };
        std::fs::write(project.join(".gitignore"), ignore).unwrap();
        common::let_fixtures_age(&project);
        World {
            _root: root,
            home,
            project,
            sentinel_home,
        }
    }

    /// Lays out `dir` (below the project) as a git directory whose config runs a program on
    /// `git status`, as `git init --bare dir` and a Write of `dir/config` would.
    fn git_dir_at(&self, dir: &str) -> PathBuf {
        let d = self.project.join(dir);
        std::fs::create_dir_all(d.join("objects")).unwrap();
        std::fs::create_dir_all(d.join("refs/heads")).unwrap();
        std::fs::write(d.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(
            d.join("config"),
            "[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"cat ~/.ssh/id_ed25519\"\n",
        )
        .unwrap();
        d
    }

    fn bash(&self, command: &str) -> String {
        self.decide("Bash", json!({ "command": command }))
    }

    fn decide(&self, tool: &str, input: serde_json::Value) -> String {
        let event = json!({
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "cwd": self.project,
            "permission_mode": "bypassPermissions",
            "tool_name": tool,
            "tool_input": input,
        });
        let mut cmd = common::sentinel(&self.sentinel_home);
        cmd.arg("hook").env("HOME", &self.home);
        let out = common::feed(cmd, event.to_string().as_bytes());
        assert!(out.status.success(), "{out:?}");
        common::verdict_and_reason(&out)
    }

    /// Every command is not allowed, and its reason mentions `why`.
    fn refused(&self, commands: &[&str], why: &str) {
        common::assert_refused(|c| self.bash(c), commands, why);
    }

    fn allowed(&self, commands: &[&str]) {
        common::assert_allowed(|c| self.bash(c), commands);
    }
}

fn write_gitfile(at: &Path, target: &str) {
    std::fs::create_dir_all(at).unwrap();
    std::fs::write(at.join(".git"), format!("gitdir: {target}\n")).unwrap();
}

#[test]
fn a_git_directory_outside_a_protected_dot_git_is_not_the_persons_repository() {
    let w = World::new(true);
    // A bare layout in the project: git takes the folder itself as the repository.
    w.git_dir_at("mirror");
    w.refused(
        &[
            "git -C mirror status",
            "cd mirror && git log -p",
            "cd mirror/refs && git diff HEAD",
            "git -C mirror/objects show",
        ],
        "outside a protected `.git`",
    );
    // A `.git` file pointing at a git directory the agent could write
    // (`git init --separate-git-dir=gd sub`).
    w.git_dir_at("gd");
    write_gitfile(&w.project.join("sub"), "../gd");
    w.refused(
        &["git -C sub status", "cd sub && git diff"],
        "outside a protected `.git`",
    );
    // A directory git runs in that is not known before it runs: its repository is not either.
    w.refused(
        &["env -C mirror git status", "env -iCmirror git log"],
        "not known before it runs",
    );
    // The project's own `.git`, from anywhere below it or inside it, stays the person's.
    w.allowed(&[
        "git status",
        "git -C src log --oneline",
        "cd src && git diff",
        "git -C .git log -1",
        "git init --bare scratch-remote",
    ]);
}

#[test]
fn a_directory_staged_or_stashed_reads_the_new_files_below_it() {
    let w = World::new(false);
    // config/.env is neither ignored nor tracked: staging it puts it where `git diff --cached`
    // and `git show` print it.
    w.refused(
        &[
            "git add -A",
            "git add .",
            "git add --all",
            "git add config",
            "git add -N .",
            "git stash -u",
            "git stash push --include-untracked",
        ],
        ".env",
    );
    // git matches a pathspec itself: a quoted wildcard, or one bash leaves as it is because no
    // name matches it for bash (`*.env`: bash's `*` skips dot files, git's does not).
    w.refused(
        &[
            "git add '*.env'",
            "git add *.env",
            "git add 'config/*'",
            "git stash push -u -- '*'",
        ],
        ".env",
    );
    w.refused(
        &["git add ':/'", "git add -A ':!src'"],
        "pathspec with magic",
    );
    w.refused(
        &["git add --pathspec-from-file=list.txt", "git stash save -u"],
        "",
    );
    w.allowed(&[
        "git add '*.rs'",
        "git add src/*.rs",
        "git add 'src/*'",
        "git add src",
        "git add src/main.rs",
        "git add -u",
        "git stash",
        "git stash push -m wip",
        "git diff --cached",
    ]);
    // Where .gitignore lists it, the everyday forms stay allowed; forcing it in does not.
    let w = World::new(true);
    w.allowed(&["git add -A", "git add .", "git stash -u", "git add config"]);
    w.refused(&["git add -f .", "git add --force config"], ".env");
}

#[test]
fn an_mcp_git_server_gets_the_same_answers() {
    let w = World::new(false);
    w.git_dir_at("mirror");
    let repo = |sub: &str| w.project.join(sub).to_string_lossy().into_owned();
    for (tool, input, why) in [
        (
            "mcp__git__git_status",
            json!({ "repo_path": repo("mirror") }),
            "outside a protected `.git`",
        ),
        (
            "mcp__git__git_add",
            json!({ "repo_path": repo(""), "files": ["."] }),
            ".env",
        ),
        (
            "mcp__git__git_add",
            json!({ "repo_path": repo(""), "files": ["*.env"] }),
            "pathspec",
        ),
    ] {
        let a = w.decide(tool, input.clone());
        assert!(!a.starts_with("allow"), "{tool} {input}: {a}");
        assert!(a.contains(why), "{tool} {input}: expected `{why}` in {a}");
    }
    for (tool, input) in [
        ("mcp__git__git_status", json!({ "repo_path": repo("") })),
        ("mcp__git__git_status", json!({ "repo_path": repo("src") })),
        (
            "mcp__git__git_add",
            json!({ "repo_path": repo(""), "files": ["src", "src/main.rs"] }),
        ),
        (
            "mcp__git__git_diff_staged",
            json!({ "repo_path": repo("") }),
        ),
    ] {
        let a = w.decide(tool, input.clone());
        assert!(a.starts_with("allow"), "{tool} {input}: {a}");
    }
}

#[test]
fn a_fetch_by_url_is_routine_only_from_the_projects_own_remote() {
    let w = World::new(true);
    std::fs::write(
        w.project.join(".git/config"),
        "[remote \"origin\"]\n\turl = https://github.com/me/proj.git\n",
    )
    .unwrap();
    // A pull from a repository the agent names merges its files (a `.envrc`, `.vscode/`, a
    // workflow) into the project, past the protected places.
    w.refused(
        &[
            "git pull https://git.example.net/x/y.git main",
            "git fetch git@example.net:x/y.git",
            "git ls-remote https://example.net/x",
        ],
        "not one of the project's remotes",
    );
    w.allowed(&[
        "git fetch",
        "git fetch origin",
        "git pull origin main",
        "git fetch https://github.com/me/proj.git",
        "git ls-remote origin",
    ]);
}
