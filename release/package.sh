#!/usr/bin/env bash
# Packs a built binary as a release archive, sentinel-VERSION-TARGET.tar.gz (.zip for Windows),
# holding sentinel-VERSION-TARGET/ with the binary, README.md and LICENSE, and writes its
# SHA-256 line (sha256sum's format) to ARCHIVE.sha256; the release job joins those into
# SHA256SUMS, which the installers check every download against.
# Usage: release/package.sh BIN TARGET OUT_DIR   (prints the archive's path)
set -euo pipefail
bin="$1"
target="$2"
out="$3"
cd "$(dirname "$0")/.."
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
name="sentinel-$version-$target"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
stage="$out/$name"
rm -rf "$stage"
mkdir -p "$stage"
cp "$bin" "$stage/"
cp README.md LICENSE "$stage/"
case "$target" in
*windows*)
    archive="$name.zip"
    rm -f "$out/$archive"
    if command -v 7z >/dev/null; then
        (cd "$out" && 7z a -tzip -bso0 "$archive" "$name")
    else
        (cd "$out" && zip -qr "$archive" "$name")
    fi
    ;;
*)
    archive="$name.tar.gz"
    # The same bytes for the same binary where GNU tar allows it (names sorted, no owner or time).
    flags=()
    if tar --version 2>/dev/null | grep -q GNU; then
        flags=(--sort=name --owner=0 --group=0 --numeric-owner --mtime=@0)
    fi
    (cd "$out" && tar "${flags[@]}" -cf - "$name" | gzip -n -9 >"$archive")
    ;;
esac
rm -rf "$stage"
if command -v sha256sum >/dev/null; then
    (cd "$out" && sha256sum "$archive" >"$archive.sha256")
else
    (cd "$out" && shasum -a 256 "$archive" >"$archive.sha256")
fi
echo "$out/$archive"
