//! What sentinel cannot read, it contains (SPEC 2.3). A Bash call that runs project code — the
//! tests, a build, a script the agent wrote — is answered `allow` with its command rewritten to
//! run under `sentinel contain`, which fences it before it starts:
//!
//! - writes that last only in the project and the tool caches of `rules/contain/writable.txt`
//!   (the home and the temp dirs are copies of the run's own, gone when it ends);
//! - the credential files (`credential_paths.txt`) and the sockets of `rules/contain/hidden.txt`
//!   covered by empty ones; the project's protected places (`.git`, `.vscode`, `.claude` …)
//!   read-only, and any that the run creates moved aside when it ends;
//! - a network namespace of its own: its own loopback, and the loopback TCP ports that were
//!   listening when the call was judged forwarded in (never those of `refused_ports.txt`);
//! - `no_new_privs`, no new namespaces or mounts, no kernel keyring, no io_uring; every child
//!   inherits all of it.
//!
//! `plan` works out the fence (paths from the rules and the file system), `linux` builds it (its mounts, its Landlock and seccomp, and what it does after the run, one file each),
//! `ports` says which loopback ports come in (`sock_diag` asks the kernel) and `forward` carries them, `seatbelt` is the macOS profile (not yet used).

pub mod answer;
pub mod availability;
pub mod command;
#[cfg(target_os = "linux")]
pub mod forward;
#[cfg(target_os = "linux")]
pub mod linux;
pub mod list_scan;
pub mod lists;
pub mod plan;
pub mod ports;
#[cfg(target_os = "linux")]
pub mod proxy;
pub mod quarantine;
pub mod seatbelt;
#[cfg(target_os = "linux")]
pub mod sock_diag;
#[cfg(target_os = "linux")]
pub mod sys;
pub mod unverified;

pub use availability::{Availability, availability};
pub use command::{contained_command, original_of};
pub use plan::Fence;
