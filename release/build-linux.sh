#!/usr/bin/env bash
# Builds the static Linux release binary (musl), checks that it is static, smoke-tests it
# (release/smoke.sh) and packs it (release/package.sh). The release workflow runs this for Linux
# x86_64 and aarch64, and .ci/run runs it on every change, so the x86_64 artifact a tag publishes
# is built by the script CI tests.
# Usage: release/build-linux.sh [OUT_DIR]   (default $CARGO_TARGET_DIR/dist, else target/dist)
# SENTINEL_TARGET picks the target (default x86_64-unknown-linux-musl; aarch64-unknown-linux-musl
# on an arm64 machine). It installs the Rust target with rustup when it is missing; ring's C code
# needs musl-gcc (Debian and Ubuntu: musl-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${SENTINEL_TARGET:-x86_64-unknown-linux-musl}"
target_dir="${CARGO_TARGET_DIR:-target}"
out="${1:-$target_dir/dist}"

if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx "$target"; then
    rustup target add "$target"
fi
if ! command -v musl-gcc >/dev/null; then
    echo "build-linux: musl-gcc not found (ring's C code needs it): apt-get install musl-tools" >&2
    exit 1
fi
# Position-dependent and static: no relocations for the start-up code to apply on every hook
# call (build.rs links the glibc binary -no-pie for the same reason). Target crates only.
triple_var="$(echo "$target" | tr 'a-z-' 'A-Z_')"
export "CARGO_TARGET_${triple_var}_RUSTFLAGS=${RUSTFLAGS:-} -C relocation-model=static"
cargo build --release --locked --target "$target"
# The released copy without its symbol table (16 MB → 6 MB); what is smoke-tested is what is packed.
bin="$target_dir/$target/sentinel"
cp "$target_dir/$target/release/sentinel" "$bin"
strip "$bin"

# A static binary has no program interpreter and needs no shared library.
if readelf -l "$bin" | grep -q 'INTERP' || readelf -d "$bin" | grep -q '(NEEDED)'; then
    echo "build-linux: $bin is not static:" >&2
    readelf -d "$bin" | grep '(NEEDED)' >&2 || true
    exit 1
fi
# The smoke test's scratch home, outside any temp dir (sentinel treats those as scratch space and
# decides differently there), wherever the checkout is.
smoke="$(mkdir -p "$target_dir" && cd "$target_dir" && pwd -P)/smoke-$target"
case "$smoke" in /tmp/* | /var/tmp/* | /dev/shm/*) smoke="$HOME/.cache/sentinel-smoke/$target" ;; esac
release/smoke.sh "$bin" "$smoke"
release/package.sh "$bin" "$target" "$out"
