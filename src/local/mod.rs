//! Tier 1, the local decision: a pure function of the call, the rules, the command specs and the
//! context. Read it top-down:
//!
//! - [`shell`] parses a Bash command into simple commands, unwrapping wrappers;
//! - [`spec`] holds the command specs (`rules/commands/*.toml`): each program's options and
//!   operands and what they mean;
//! - [`options`] reads one simple command against its spec the way the program parses it;
//! - [`effects`] turns that reading into effects (reads, writes, deletes, code run, network …);
//! - [`policy`] decides over the effects, with [`paths`] (one resolver for every tool) and
//!   [`credentials`];
//! - [`rules`] holds the regex rule files and path lists; [`signs`] the shell's own signs of
//!   trouble (obfuscation, a credential named in a word); [`decide`] puts it all together;
//! - [`project`] layers a project's `.sentinel/` over the person's rules, with their trust.

pub mod bins;
pub mod context;
pub mod credentials;
pub mod decide;
pub mod effects;
mod embedded;
pub mod env_vars;
pub mod fs;
pub mod instruction_files;
pub mod js_code;
pub mod judge;
pub mod listing;
pub mod options;
pub mod outcome;
pub mod path_list;
pub mod path_scan;
pub mod paths;
pub mod policy;
pub mod project;
pub mod python_code;
pub mod rule_scan;
pub mod rules;
pub mod scripts;
pub mod shell;
pub mod signs;
pub mod spec;
pub(crate) mod spec_cache;
pub mod spec_check;
pub mod spec_raw;
pub mod spec_scan;
pub mod sql;
pub mod token_hosts;
pub mod tool_calls;

/// Whether `needle` occurs in `hay`. The texts here (a path, a simple command) are short: a
/// memchr for the first byte and a compare cost less than building a substring searcher, whose
/// setup outweighs its search at these sizes.
pub(crate) fn contains_bytes(hay: &[u8], needle: &[u8]) -> bool {
    match needle.first() {
        None => true,
        Some(&b) => memchr::memchr_iter(b, hay).any(|i| hay[i..].starts_with(needle)),
    }
}
