//! What `~` means when sentinel judges a call: the home every `~` rule protects (`~/.ssh` a
//! credential, `rm -rf ~` outside the project) and every `~` in a command resolves to.
//!
//! It is the environment's `HOME` — the person's own, as their shell has it — unless the project
//! could have chosen it. A project reaches the hook's environment two ways: its Claude Code
//! settings (`.claude/settings.json`, `.claude/settings.local.json`: `"env": {"HOME": …}`) and
//! an `.envrc` that direnv loaded in the agent's shell. So when `HOME` names a folder other than
//! the account's home (`/etc/passwd`), and the project's settings set `HOME`, or an `.envrc`
//! lies between the call's directory and the project's root, or `HOME` lies inside the project,
//! `~` is the account's home and the hook says so in a warning: moving `HOME` cannot move what
//! the `~` rules protect. Where `HOME` is the account's home (the usual case) nothing more is
//! read; where the account has no home in `/etc/passwd` (a container's user, a directory
//! service), `HOME` is all there is.

use std::path::{Path, PathBuf};

/// The home a call is judged with, and why `HOME` was not taken when it was not.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// The home `~` means (None: no home at all).
    pub home: Option<PathBuf>,
    /// Said on stderr when the project's `HOME` was set aside.
    pub warning: Option<String>,
}

/// The home `~` means for a call made in `cwd`, in `project`.
pub fn judged(project: &Path, cwd: &Path) -> Judged {
    let env = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    choose(env, account_home, |home| set_by_project(home, project, cwd))
}

/// The choice, given the environment's `HOME`, how to find the account's, and why the project
/// may have set a `HOME` (None: it did not).
fn choose(
    env: Option<PathBuf>,
    account: impl FnOnce() -> Option<PathBuf>,
    project_set: impl FnOnce(&Path) -> Option<String>,
) -> Judged {
    let Some(env) = env else {
        return Judged {
            home: account(),
            warning: None,
        };
    };
    let taken = Judged {
        home: Some(env.clone()),
        warning: None,
    };
    let Some(account) = account() else {
        return taken;
    };
    if same_folder(&env, &account) {
        return taken;
    }
    match project_set(&env) {
        None => taken,
        Some(why) => Judged {
            warning: Some(format!(
                "HOME={} is not what `~` means here: {why}, and a project must not move what the `~` rules protect; `~` is the account's home, {}",
                crate::text::excerpt_to(&env.to_string_lossy(), 120),
                account.display()
            )),
            home: Some(account),
        },
    }
}

fn same_folder(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
            _ => false,
        }
    }
    // Links followed, as above: the same folder under its real name.
    #[cfg(windows)]
    matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// Why the project may have set `home` as `HOME`, if it may have.
fn set_by_project(home: &Path, project: &Path, cwd: &Path) -> Option<String> {
    if home.starts_with(project) {
        return Some(format!("it lies inside the project {}", project.display()));
    }
    for name in ["settings.json", "settings.local.json"] {
        let file = project.join(".claude").join(name);
        let Ok(bytes) = super::files::read(&file, 1 << 20, super::files::Links::Follow) else {
            continue;
        };
        let sets = serde_json::from_slice::<serde_json::Value>(&bytes)
            .map_or(true, |v| v["env"].get("HOME").is_some());
        if sets {
            return Some(format!("{} sets it", file.display()));
        }
    }
    // direnv loads the nearest `.envrc` up from where the agent's shell started.
    let mut dir = Some(cwd);
    while let Some(d) = dir.filter(|d| d.starts_with(project)) {
        let envrc = d.join(".envrc");
        if std::fs::symlink_metadata(&envrc).is_ok() {
            return Some(format!("{} can set it (direnv)", envrc.display()));
        }
        dir = d.parent();
    }
    None
}

/// This process's account's home in `/etc/passwd`: read directly (a few kilobytes), not through
/// the name service, whose modules would cost a call more than its decision.
#[cfg(unix)]
fn account_home() -> Option<PathBuf> {
    // SAFETY: getuid has no failure.
    let uid = unsafe { libc::getuid() };
    let text = super::files::read(
        Path::new("/etc/passwd"),
        16 << 20,
        super::files::Links::Follow,
    )
    .ok()?;
    // Checked as UTF-8 first, as it almost always is (`from_utf8_lossy` walks it in small chunks,
    // ~3 instructions a byte more).
    match std::str::from_utf8(&text) {
        Ok(text) => home_in_passwd(text, uid),
        Err(_) => home_in_passwd(&String::from_utf8_lossy(&text), uid),
    }
}

/// Windows: the account's profile folder as the system knows it (the known folder, not
/// `USERPROFILE`, which the environment could move).
#[cfg(windows)]
fn account_home() -> Option<PathBuf> {
    dirs::home_dir()
}

/// The home of `uid` in the text of a passwd file (`name:x:uid:gid:gecos:home:shell`).
#[cfg_attr(windows, allow(dead_code))]
fn home_in_passwd(text: &str, uid: u32) -> Option<PathBuf> {
    let uid = uid.to_string();
    text.lines().find_map(|line| {
        let mut fields = line.split(':');
        let (_, _, id) = (fields.next()?, fields.next()?, fields.next()?);
        if id != uid {
            return None;
        }
        let home = fields.nth(2)?;
        (home.starts_with('/') && fields.next().is_some()).then(|| PathBuf::from(home))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_is_homes_unless_the_project_could_have_set_it() {
        let p = |s: &str| Some(PathBuf::from(s));
        let never = |_: &Path| -> Option<String> { None };
        let always = |_: &Path| Some("the project's settings set it".to_string());
        // HOME is the account's: taken as written.
        let j = choose(p("/home/me"), || p("/home/me"), always);
        assert_eq!(
            j,
            Judged {
                home: p("/home/me"),
                warning: None
            }
        );
        // Another folder the person set: taken.
        assert_eq!(
            choose(p("/scratch/h"), || p("/home/me"), never).home,
            p("/scratch/h")
        );
        // One the project could have set: the account's, said.
        let j = choose(p("/proj/fake"), || p("/home/me"), always);
        assert_eq!(j.home, p("/home/me"));
        assert!(j.warning.unwrap().contains("the project's settings set it"));
        // No account home: HOME is all there is; no HOME: the account's.
        assert_eq!(choose(p("/x"), || None, always).home, p("/x"));
        assert_eq!(choose(None, || p("/home/me"), always).home, p("/home/me"));
    }

    #[test]
    fn a_passwd_line_names_the_home() {
        let text = "root:x:0:0:root:/root:/bin/bash\nme:x:1000:1000:Me,,,:/home/me:/bin/zsh\nbad\n";
        assert_eq!(home_in_passwd(text, 1000), Some(PathBuf::from("/home/me")));
        assert_eq!(home_in_passwd(text, 0), Some(PathBuf::from("/root")));
        assert_eq!(home_in_passwd(text, 7), None);
    }

    #[test]
    fn what_a_project_can_set_home_with() {
        let dir = tempfile::tempdir().unwrap();
        let proj = dir.path().join("proj");
        std::fs::create_dir_all(proj.join(".claude")).unwrap();
        std::fs::create_dir_all(proj.join("sub")).unwrap();
        let elsewhere = dir.path().join("h");
        assert_eq!(set_by_project(&elsewhere, &proj, &proj.join("sub")), None);
        assert!(set_by_project(&proj.join("h"), &proj, &proj).is_some());
        std::fs::write(
            proj.join(".claude/settings.json"),
            r#"{"env": {"HOME": "/x"}}"#,
        )
        .unwrap();
        assert!(set_by_project(&elsewhere, &proj, &proj).is_some());
        std::fs::write(proj.join(".claude/settings.json"), r#"{"env": {"A": "1"}}"#).unwrap();
        assert_eq!(set_by_project(&elsewhere, &proj, &proj), None);
        std::fs::write(proj.join("sub/.envrc"), "export HOME=/x\n").unwrap();
        assert!(set_by_project(&elsewhere, &proj, &proj.join("sub")).is_some());
        assert_eq!(set_by_project(&elsewhere, &proj, &proj), None);
    }
}
