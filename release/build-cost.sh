#!/usr/bin/env bash
# What the README's two commands cost to build from source: clones this repository's HEAD into a
# scratch directory and, with a fresh target directory, runs the install's build (`cargo install
# --path . --locked`, into the scratch directory) and then the tests' build (`cargo test --release
# --locked --no-run`, which reuses what the install built), printing each one's CPU time (user +
# sys, the number a shared machine disturbs least) and wall time, and the load average before and
# after, so a reader can judge how busy the machine was.
#
#   release/build-cost.sh [SCRATCH]     # default: a new directory from mktemp -d
#
# The crates are fetched first (`cargo fetch`), outside the measurement. Nothing outside SCRATCH
# is written but cargo's download cache. What it made in SCRATCH (the clone, the target directory,
# the installed binary, the build logs) is removed at the end unless KEEP=1.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
scratch=${1:-$(mktemp -d)}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
[ -e "$scratch/clone" ] && { echo "build-cost: $scratch/clone exists; give an empty directory" >&2; exit 2; }

git clone --quiet --no-local "$repo" "$scratch/clone"
cd "$scratch/clone"
export CARGO_TARGET_DIR="$scratch/target"
unset CARGO_BUILD_JOBS RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
cargo fetch --locked --quiet

load() { uptime | sed 's/.*load average[s]*: *//'; }
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu)
echo "commit $(git rev-parse --short HEAD); $(rustc --version); $cores cores; target dir $CARGO_TARGET_DIR"

# Runs a command, its output to a log, and prints its line: CPU (user+sys), wall, load around it.
measure() {
  local label=$1 log="$scratch/$1.log" before times
  shift
  before=$(load)
  TIMEFORMAT='%3R %3U %3S'
  if ! times=$({ time "$@" >"$log" 2>&1; } 2>&1); then
    echo "build-cost: $label failed; see $log" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  read -r wall user sys <<<"$times"
  awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v b="$before" -v a="$(load)" \
    'BEGIN { printf "%-8s CPU %6.0f s (user %.0f, sys %.0f)  wall %5.0f s  load before %s, after %s\n", l, u + s, u, s, w, b, a }'
}

measure install cargo install --path . --locked --root "$scratch/root"
measure tests cargo test --release --locked --no-run

cd /
[ "${KEEP:-0}" = 1 ] || rm -rf "$scratch/clone" "$scratch/target" "$scratch/root" "$scratch"/install.log "$scratch"/tests.log
