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
    let proven = std::fs::create_dir_all(&scratch)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            std::process::Command::new(binary)
                .arg("contain")
                .arg("--project")
                .arg(&scratch)
                .args(["--", "sh", "-c", "echo ok > fenced.txt"])
                .current_dir(&scratch)
                .stdout(std::process::Stdio::null())
                .output()
                .map_err(|e| e.to_string())
        });
    let wrote = std::fs::read_to_string(scratch.join("fenced.txt")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&scratch);
    match proven {
        Ok(out) if out.status.success() && wrote == "ok\n" => Check::new(
            "containment",
            Status::Ok,
            format!(
                "runs of project code go fenced (Landlock ABI {abi}, user namespaces; a fenced run was tried)"
            ),
        ),
        Ok(out) => Check::new(
            "containment",
            Status::Warn,
            format!(
                "a fenced run failed here ({}): runs of project code are answered as if fenced, and will fail; set contain = false until it works",
                String::from_utf8_lossy(&out.stderr).trim()
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
