//! doctor: can runs of project code go fenced here? Asked of the kernel, then proven by running
//! `true` fenced in a scratch project inside SENTINEL_HOME (removed after).

use sentinel::agents::doctor::{Check, Status};
use sentinel::config::Config;
use sentinel::contain::{Availability, availability};
use std::path::Path;

pub fn check(binary: &Path, config: &Config) -> Check {
    if !config.contain.value {
        return Check::new(
            "containment",
            Status::Warn,
            "contain = false in sentinel.toml: runs of project code are judged by reading alone",
        )
        .fix("remove `contain = false` from sentinel.toml");
    }
    let abi = match availability() {
        Availability::Available { landlock_abi } => landlock_abi,
        Availability::Unavailable(why) => {
            return Check::new(
                "containment",
                Status::Warn,
                format!("unavailable: {why}; runs of project code are judged by reading alone"),
            );
        }
    };
    let scratch = config
        .home
        .value
        .join(format!(".doctor-contain-{}", std::process::id()));
    // Through system(3), as the self-test: std's process spawning would import ~40 libc
    // symbols that every hook then binds at start-up.
    let q = |p: &Path| sentinel::text::shell_word(&p.display().to_string());
    let proven = sentinel::config::kept::create_dir(&scratch)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            let script = format!(
                "cd {dir} && {bin} contain --project {dir} -- sh -c 'echo ok > fenced.txt' > /dev/null 2> {dir}/../.doctor-contain-err-{pid}",
                dir = q(&scratch),
                bin = q(binary),
                pid = std::process::id(),
            );
            let script = std::ffi::CString::new(script).map_err(|e| e.to_string())?;
            // SAFETY: a NUL-terminated string that outlives the call; system(3) only reads it.
            Ok(unsafe { libc::system(script.as_ptr()) })
        });
    let err_file = config
        .home
        .value
        .join(format!(".doctor-contain-err-{}", std::process::id()));
    let stderr = std::fs::read_to_string(&err_file).unwrap_or_default();
    let _ = sentinel::config::kept::remove(&err_file);
    let wrote = std::fs::read_to_string(scratch.join("fenced.txt")).unwrap_or_default();
    let _ = sentinel::config::kept::remove_tree(&scratch);
    match proven {
        Ok(0) if wrote == "ok\n" => Check::new(
            "containment",
            Status::Ok,
            format!(
                "runs of project code go fenced (Landlock ABI {abi}, user namespaces; a fenced run was tried)"
            ),
        ),
        Ok(_) => Check::new(
            "containment",
            Status::Warn,
            format!(
                "a fenced run failed here ({}): runs of project code are answered as if fenced, and will fail; set contain = false until it works",
                stderr.trim()
            ),
        )
        .fix("contain = false in sentinel.toml"),
        Err(e) => Check::new(
            "containment",
            Status::Warn,
            format!("a fenced run could not be tried ({e})"),
        ),
    }
}

/// The projects a fenced run left unverified (its look after the run was not complete): git
/// and direnv there are not allowed without the person until a look completes.
pub fn unverified(config: &Config) -> Option<Check> {
    let listed = sentinel::contain::unverified::list(&config.home.value);
    if listed.is_empty() {
        return None;
    }
    let names: Vec<String> = listed
        .iter()
        .map(|(p, record)| format!("{} ({})", p.display(), record.display()))
        .collect();
    Some(
        Check::new(
            "unverified",
            Status::Warn,
            format!(
                "a fenced run made more folders than sentinel could look through for a .git or .envrc it left, so git and direnv are not allowed there without you: {}",
                names.join(", ")
            ),
        )
        .fix("run `sentinel contain --project DIR -- true` there once the extra folders are gone (its look goes back to that run), or delete the record once you have looked"),
    )
}
