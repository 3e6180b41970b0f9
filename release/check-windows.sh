#!/usr/bin/env bash
# Type-checks sentinel for Windows on Linux, so that a Unix-only call in shared code fails here
# rather than on the release's Windows runner (x86_64-pc-windows-msvc). The GNU target is
# checked: it needs no MSVC SDK, and std's and our own Windows code is the same for both. Nothing
# is linked or run. The C in dependencies (ring) is compiled with clang for the target against
# the stand-in headers release/check-macos.sh writes (assert.h, string.h).
# Needs clang and rustup; a target rustup cannot fetch (offline) is said loudly and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu
command -v clang >/dev/null || { echo "check-windows: clang is not installed" >&2; exit 1; }
if ! rustup target list --installed | grep -qx "$target"; then
    if ! rustup target add "$target" >/dev/null 2>&1; then
        echo "check-windows SKIPPED: rustup cannot fetch the $target standard library"
        exit 0
    fi
fi
stubs="${CARGO_TARGET_DIR:-target}/windows-stub-headers"
mkdir -p "$stubs"
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
# Warnings fail it too: code that only Windows compiles is dead or unused nowhere else.
CC_x86_64_pc_windows_gnu=clang \
CFLAGS_x86_64_pc_windows_gnu="--target=x86_64-w64-mingw32 -ffreestanding -nostdlibinc -I$stubs" \
RUSTFLAGS="${RUSTFLAGS:-} -D warnings" \
    cargo check --quiet --locked --target "$target" --all-targets
echo "check-windows: sentinel type-checks for $target (all targets)"
