//! After Tier 1: [`tiers`] takes an uncertain call to Tier 2 ([`api`], the LLM evaluator, with
//! its [`budget`], its [`breaker`] and the person's words from the [`transcript`]) or to Tier 3,
//! the fail path, and applies what the configuration makes of each verdict.

pub mod api;
pub mod breaker;
pub mod budget;
pub mod edits;
pub mod files_run;
pub mod tiers;
pub mod transcript;
