//! What differs between Unix and Windows outside the files sentinel keeps
//! ([`crate::config::kept`]): whether a file is a program, which file an open one is, a path's
//! bytes. Each answer is the one the platform's own tools give (see docs/windows.md for what
//! Windows cannot tell).

pub mod executable;
pub mod identity;
pub mod path_bytes;
