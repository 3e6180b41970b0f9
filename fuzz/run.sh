#!/usr/bin/env bash
# Runs each fuzz target for a bounded time (default 60 s each; FUZZ_SECONDS to change), from the
# seed corpus in fuzz/seeds, into a scratch corpus. Needs cargo-fuzz (`cargo install cargo-fuzz`);
# the stable toolchain is enough (RUSTC_BOOTSTRAP lets cargo-fuzz use its sanitizer flags).
# Not part of CI. A crash is saved under fuzz/artifacts/<target>/: fix it, and keep the input as
# a regression test.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-60}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RUSTC_BOOTSTRAP=1
for target in ${FUZZ_TARGETS:-event decide}; do
  mkdir -p "$work/$target"
  echo "== $target for ${seconds}s"
  cargo fuzz run "$target" "$work/$target" "seeds/$target" -- -max_total_time="$seconds" -max_len=4096 2>&1 \
    | grep -E "^#[0-9]+ *(DONE|pulse|NEW)|ERROR|panicked|SUMMARY|Done" | tail -n 4
done
