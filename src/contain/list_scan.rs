//! The fence's bundled lists (`rules/contain/*.txt`), named in the order of
//! `contain::lists::List`: build.rs compiles them into (entry, line) slices with
//! [`crate::lists::numbered_entries`], the format every list under `rules/` has, so a call that
//! is answered fenced reads no bundled text.

/// The bundled files, in the order of `contain::lists::List`.
pub const FILES: [&str; 10] = [
    "writable.txt",
    "hidden.txt",
    "refused_ports.txt",
    "git_read_only.txt",
    "start_files.txt",
    "registry_clients.txt",
    "registries.txt",
    "package_stores.txt",
    "agent_sandbox_widening.txt",
    "refused_port_owners.txt",
];
