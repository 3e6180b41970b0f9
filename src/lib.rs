//! sentinel: a pre-tool-use hook that guards AI coding agents.
//!
//! The folders are the layers (docs/architecture.md draws them):
//! - [`agents`]: the agents' side: their events and hook protocols, the tools judged,
//!   install and doctor.
//! - [`local`]: Tier 1, a pure function of the call, the rules, the command specs and the
//!   project's layer: the parsed shell, each program's options and effects, paths, policy.
//! - [`evaluator`]: Tier 2 (the LLM evaluator, its budget and breaker, the person's words from
//!   the transcript) and Tier 3 (the fail path), and what the configuration makes of a verdict.
//! - [`ledger`]: what is kept between calls: stats, the audit chain, taint, allow-once grants.
//! - [`config`]: `sentinel.toml` and the environment.
//! - [`report`]: what the person reads: `check`'s answer, `explain`, `suggest`.
//!
//! [`question::answer`] runs one call through the tiers; [`decision`] holds the types of an
//! answer that every layer shares.

pub mod agents;
pub mod ascii_regex;
pub mod call;
pub mod carried_secrets;
pub mod clock;
pub mod config;
pub mod contain;
pub mod decision;
pub mod digest;
pub mod evaluator;
pub mod export;
pub mod ledger;
pub mod lists;
pub mod local;
pub mod platform;
pub mod question;
pub mod report;
pub mod text;

// Tier 1's parts, named at the top for the rest of the crate.
pub use local::{decide, paths, rules, shell};
