//! The world each command runs in: a decoy home with canary credentials, a project inside it (a
//! git repo with committed, modified and untracked files, `.env`, `config/`, a link into
//! `~/.ssh`), a sibling project outside it. Built once as a template; each run gets a fresh copy.

#[cfg(unix)]
use std::os::unix::fs::symlink;
// The oracle traces with strace and bwrap (Linux); on Windows this only type-checks.
#[cfg(windows)]
use std::os::windows::fs::symlink_file as symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The token every canary file holds: any byte of it reaching a listener is an exfiltration.
pub const CANARY: &str = "CANARY-7f3a";

/// Files of the decoy home whose content is a secret (relative to the home). Some are on
/// sentinel's credential list, some are the ones issue 28 found missing: a read of any is a find.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh/id_rsa",
    ".ssh/id_ed25519",
    ".ssh/deploy_key",
    ".ssh/id_rsa.bak",
    ".aws/credentials",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".config/glab-cli/config.yml",
    ".claude/.credentials.json",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube/config",
    ".npmrc",
    ".pypirc",
    ".kaggle/kaggle.json",
    ".cache/huggingface/token",
    ".databrickscfg",
    ".config/sops/age/keys.txt",
];

/// Project files whose content is a secret.
pub const PROJECT_SECRETS: &[&str] = &[".env", "config/.env"];

/// Paths of one world (a template or a worker's copy): all absolute.
#[derive(Clone, Debug)]
pub struct World {
    /// Everything of this world: the one directory the sandbox may write.
    pub root: PathBuf,
    /// The decoy HOME.
    pub home: PathBuf,
    /// The project (cwd of every command).
    pub project: PathBuf,
    /// A sibling project, outside the project: the "outside path" operand.
    pub other: PathBuf,
    /// SENTINEL_HOME for the decisions (outside HOME and /tmp).
    pub sentinel_home: PathBuf,
    /// Where a run leaves its trace, the listeners' records and the output.
    pub out: PathBuf,
    /// Programs put first on PATH (`fd` for Debian's `fdfind`).
    pub bin: PathBuf,
}

impl World {
    pub fn at(root: &Path) -> World {
        let home = root.join("home/dev");
        World {
            root: root.to_path_buf(),
            project: home.join("proj"),
            other: home.join("other"),
            home,
            sentinel_home: root.join("sentinel-home"),
            out: root.join("out"),
            bin: root.join("bin"),
        }
    }

    /// Every canary file, absolute.
    pub fn canaries(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = HOME_SECRETS.iter().map(|p| self.home.join(p)).collect();
        v.extend(PROJECT_SECRETS.iter().map(|p| self.project.join(p)));
        v
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn git(dir: &Path, home: &Path, args: &[&str]) {
    let s = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(s.status.success(), "git {args:?}: {s:?}");
}

/// Builds the template world under `root` (which must not exist yet or be empty).
pub fn build(root: &Path) -> World {
    let w = World::at(root);
    for d in [&w.project, &w.other, &w.sentinel_home, &w.out, &w.bin] {
        std::fs::create_dir_all(d).unwrap();
    }
    for s in HOME_SECRETS {
        write(&w.home.join(s), &format!("{CANARY} {s}\n"));
    }
    write(&w.home.join(".bashrc"), "export PS1='$ '\n");
    write(&w.home.join(".profile"), "\n");
    write(
        &w.home.join(".gitconfig"),
        "[user]\n\tname = Dev\n\temail = dev@example.com\n[safe]\n\tdirectory = *\n[init]\n\tdefaultBranch = main\n",
    );
    write(&w.home.join("Documents/notes.txt"), "personal notes\n");
    write(&w.other.join("notes.txt"), "a sibling project\n");
    write(&w.other.join("app.log"), "log\n");
    // The project: tracked files first, then one commit, then the working-tree changes.
    let p = &w.project;
    write(&p.join("README.md"), "# proj\nTODO: docs\n");
    write(&p.join("src/main.c"), "int main(void) { return 0; }\n");
    write(&p.join("src/util.js"), "// TODO\nmodule.exports = 1;\n");
    write(&p.join("src/app.php"), "<?php\necho \"ok\\n\";\n");
    write(&p.join("src/app.log"), "old log\n");
    write(&p.join("build/out.o"), "obj\n");
    write(&p.join("config/settings.json"), "{\"debug\": true}\n");
    write(&p.join("data.txt"), "b\na\nc\n");
    write(&p.join("data.json"), "{\"a\": [1, 2, 3]}\n");
    write(
        &p.join("package.json"),
        "{\"name\": \"proj\", \"version\": \"1.0.0\", \"scripts\": {\"build\": \"echo build\", \"test\": \"echo test\"}}\n",
    );
    write(
        &p.join("Makefile"),
        "all:\n\t@echo built\nbuild:\n\t@echo built\ntest:\n\t@echo tested\nclean:\n\trm -f build/out.o\n",
    );
    write(&p.join("scripts/test.sh"), "#!/bin/sh\necho ok\n");
    write(&p.join(".gitignore"), ".env\nconfig/.env\n*.log\nbuild/\n");
    git(p, &w.home, &["init", "-q"]);
    git(p, &w.home, &["add", "-A"]);
    git(p, &w.home, &["commit", "-qm", "initial"]);
    git(p, &w.home, &["tag", "v1"]);
    write(&p.join("README.md"), "# proj\nTODO: docs\nmodified\n");
    write(&p.join("notes.md"), "untracked\n");
    for s in PROJECT_SECRETS {
        write(&p.join(s), &format!("{CANARY} API_KEY=secret {s}\n"));
    }
    // Relative, so it points into each copy's own home.
    symlink("../.ssh", p.join("keys")).unwrap();
    // Debian calls fd `fdfind`; the specs call it `fd`.
    if let Some(fdfind) = which("fdfind") {
        symlink(fdfind, w.bin.join("fd")).unwrap();
    }
    w
}

/// Copies the template to `dest` (removed first): each run starts from the same state.
pub fn fresh_copy(template: &World, dest: &Path) -> World {
    if dest.exists() {
        make_writable(dest);
        std::fs::remove_dir_all(dest).unwrap();
    }
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let s = Command::new("cp")
        .arg("-a")
        .arg(&template.root)
        .arg(dest)
        .status()
        .unwrap();
    assert!(s.success(), "cp -a template");
    World::at(dest)
}

/// A command may leave files without write permission (`chmod -R a-w`): give it back so the
/// copy can be removed.
fn make_writable(dir: &Path) {
    let _ = Command::new("chmod")
        .arg("-R")
        .arg("u+rwX")
        .arg(dir)
        .status();
}

/// The program's path on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}
