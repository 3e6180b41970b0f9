#!/usr/bin/env bash
# The benchmark, from a fresh clone: builds release and the floor, then measures the whole-process
# cost of `sentinel hook` on each decision path against the floor (bench/harness.py), and the
# engine in-process (benches/engine.rs). Needs python3; valgrind for instruction counts.
# BENCH_ROUNDS (default 200) sets the number of interleaved rounds. Also prints instructions against
# command size and against the number of the person's own rules.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet --manifest-path bench/floor/Cargo.toml
python3 bench/harness.py
cargo bench --quiet --bench engine 2>/dev/null | grep '^engine'
