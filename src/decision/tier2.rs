//! What Tier 2 answered: its verdict, reason and cost, or why it gave no answer.

use serde::Serialize;
use std::fmt;

/// The evaluator's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ApiVerdict {
    /// Let it run.
    Allow,
    /// Refuse it.
    Block,
    /// Ask the person.
    Escalate,
}

/// Tokens the API reported, summed over the requests of one evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Usage {
    /// Input tokens billed at the full price.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write: u64,
}

impl Usage {
    /// Adds another request's tokens.
    pub fn add(&mut self, other: Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }

    /// Estimated cost in US dollars at Haiku 4.5's prices ($1 / $5 per million input / output
    /// tokens; cache writes 1.25×, cache reads 0.1× the input price).
    pub fn cost_usd(&self) -> f64 {
        (self.input as f64 + self.cache_write as f64 * 1.25 + self.cache_read as f64 * 0.1) * 1.0e-6
            + self.output as f64 * 5.0e-6
    }
}

/// A Tier-2 answer and how it was reached.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    /// The verdict (BLOCK when the canary failed).
    pub verdict: ApiVerdict,
    /// The evaluator's reason.
    pub reason: String,
    /// Whether every answer echoed the canary.
    pub canary_ok: bool,
    /// HTTP requests made: 1 when the first pass allows, 2 with the reasoning pass, more after
    /// a retry.
    pub attempts: u32,
    /// Whether the reasoning pass ran (the first pass did not allow).
    pub reasoned: bool,
    /// Time spent, in milliseconds.
    pub elapsed_ms: u128,
    /// The answer did not parse even after the stricter retry: the person decides.
    pub unparseable: bool,
    /// Tokens the API reported, over every request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// Why Tier 2 gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ApiError {
    /// One line naming what failed.
    pub message: String,
    /// Time spent before giving up, in milliseconds.
    pub elapsed_ms: u128,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
