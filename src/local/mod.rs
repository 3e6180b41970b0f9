//! Tier 1, the local decision: a pure function of the call, the rules, the command specs and the
//! context. The folders are the pipeline, read top-down:
//!
//! - [`shell`] parses a Bash command into simple commands, unwrapping wrappers;
//! - [`spec`] holds the command specs (`rules/commands/*.toml`) and reads one simple command
//!   against its spec the way the program parses it ([`spec::options`]), then as effects
//!   ([`spec::effects`]: reads, writes, deletes, code run, network …);
//! - [`paths`] resolves every path the same way for every tool, and knows which hold
//!   credentials ([`paths::credentials`]);
//! - [`policy`] decides over the effects, one simple command at a time ([`policy::judge`](mod@policy::judge)), with
//!   the shell's own signs of trouble ([`policy::signs`]);
//! - [`scripts`] reads what a command runs (a script, a recipe, a package script) before it runs;
//! - [`rules`] holds the regex rule files and path lists, and layers a project's `.sentinel/` over
//!   the person's rules ([`rules::project`]);
//! - [`decide`] puts it all together for a Bash command, [`tool_calls`] for the other tools,
//!   [`mcp`] for MCP tools and requests out (`WebFetch`, `WebSearch`: docs/mcp.md).

pub mod cmdlets_in_bash;
pub mod context;
pub mod decide;
pub mod destructive_words;
pub mod installed_programs;
pub mod known;
pub mod mcp;
pub mod outgoing;
pub mod patch;
pub mod paths;
pub mod policy;
pub mod rules;
pub mod scripts;
pub mod shell;
pub mod spec;
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
