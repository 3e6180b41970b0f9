//! sentinel: a pre-tool-use hook that guards AI coding agents.
//!
//! Read it from [`hook::run`] down: an agent's event ([`event`]) becomes a call
//! ([`event::ToolCall`]) that goes through Tier 1 ([`decide::decide`]: the parsed shell command
//! ([`shell`]) against the rule files ([`rules`]) and path lists ([`paths`])), then the later tiers
//! and the configuration ([`tiers`], [`config`]), and comes out as a [`decision::Decision`],
//! recorded ([`stats`]) and answered in the agent's protocol.

pub mod allow_once;
pub mod audit;
pub mod breaker;
pub mod budget;
pub mod check;
pub mod config;
pub mod decision;
pub mod doctor;
pub mod evaluator;
pub mod event;
pub mod explain;
pub mod hook;
pub mod install;
pub mod journal;
pub mod local;
pub mod project;
pub mod question;
pub mod record;
pub mod signs;
pub mod state;
pub mod stats;
pub mod suggest;
pub mod taint;
pub mod tiers;
pub mod tools;
pub mod transcript;

// Tier 1 lives in `local/`; these names are kept at the top for the rest of the crate.
pub use local::{decide, paths, rules, shell};
