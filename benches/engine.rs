//! The engine in-process: Tier-1 decisions per second over every command of both corpora, on
//! one core (rules loaded once, as a long-lived process would). `cargo bench --bench engine`.

use sentinel::call::ToolCall;
use sentinel::decide::decide;
use sentinel::local::context::Context;
use sentinel::rules::Rules;
use std::path::Path;
use std::time::{Duration, Instant};

fn main() {
    let corpus: Vec<ToolCall> = [
        include_str!("../tests/corpus/sentinel-cases.jsonl"),
        include_str!("../tests/corpus/peer-cases.jsonl"),
    ]
    .iter()
    .flat_map(|text| text.lines())
    .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    .filter_map(|v| {
        v["command"].as_str().map(|c| ToolCall::Shell {
            command: c.to_string(),
        })
    })
    .collect();
    let rules = Rules::bundled(Some(Path::new("/home/dev")));
    let ctx = Context::lexical(
        Path::new("/home/dev/proj"),
        Some(Path::new("/home/dev")),
        Path::new("/home/dev/.agentos"),
    );
    // One pass to compile the regexes every command needs, as the first calls of a process would.
    for call in &corpus {
        std::hint::black_box(decide(call, &rules, &ctx));
    }
    // `ENGINE_PASSES=N` runs exactly N passes instead of 3 s (for callgrind, which counts
    // instructions and has no use for a clock).
    let passes: Option<u64> = std::env::var("ENGINE_PASSES")
        .ok()
        .and_then(|n| n.parse().ok());
    let started = Instant::now();
    let mut decisions = 0u64;
    while match passes {
        Some(n) => decisions < n * corpus.len() as u64,
        None => started.elapsed() < Duration::from_secs(3),
    } {
        for call in &corpus {
            std::hint::black_box(decide(call, &rules, &ctx));
        }
        decisions += corpus.len() as u64;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "engine: {:.0} decisions/s over the {} corpus commands ({decisions} decisions in {secs:.2} s, one core; target 200000)",
        decisions as f64 / secs,
        corpus.len()
    );
}
