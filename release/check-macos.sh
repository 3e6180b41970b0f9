#!/usr/bin/env bash
# Type-checks sentinel for macOS (x86_64-apple-darwin; arm64 shares the code) on Linux, so that a
# Linux-only call in shared code fails here rather than on the release's macOS runners. Nothing is
# linked or run: there is no macOS SDK here. The C in dependencies (ring) is compiled with clang
# for the target against stand-in headers (TargetConditionals.h, assert.h, string.h, written
# below), enough for their build scripts; our own Rust is checked for real.
# Needs clang (Debian: apt-get install clang) and rustup; a target rustup cannot fetch (offline)
# is said loudly and skipped, as the e2e does for an uninstallable CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-apple-darwin
command -v clang >/dev/null || { echo "check-macos: clang is not installed" >&2; exit 1; }
if ! rustup target list --installed | grep -qx "$target"; then
    if ! rustup target add "$target" >/dev/null 2>&1; then
        echo "check-macos SKIPPED: rustup cannot fetch the $target standard library"
        exit 0
    fi
fi
stubs="${CARGO_TARGET_DIR:-target}/macos-stub-headers"
mkdir -p "$stubs"
printf '#pragma once\n#define TARGET_OS_IPHONE 0\n#define TARGET_OS_OSX 1\n#define TARGET_OS_MAC 1\n' \
    > "$stubs/TargetConditionals.h"
printf '#pragma once\n#define assert(x) ((void)0)\n' > "$stubs/assert.h"
cat > "$stubs/string.h" <<'HEADER'
#pragma once
#include <stddef.h>
void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
size_t strlen(const char *);
HEADER
stubs="$(cd "$stubs" && pwd -P)"
CC_x86_64_apple_darwin=clang \
CFLAGS_x86_64_apple_darwin="--target=$target -ffreestanding -nostdlibinc -I$stubs" \
    cargo check --quiet --locked --target "$target" --all-targets
echo "check-macos: sentinel type-checks for $target (all targets)"
