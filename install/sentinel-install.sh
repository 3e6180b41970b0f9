#!/bin/sh
# sentinel's stand-alone installer. Read it, then run it: `sh sentinel-install.sh [OPTIONS]`.
#
# What it does, and nothing else:
#  1. picks the release archive for this machine (Linux x86_64 / aarch64, static; macOS x86_64 /
#     arm64) and downloads it and the release's SHA256SUMS into a temporary directory;
#  2. checks the archive's SHA-256 against SHA256SUMS and refuses it on a mismatch;
#  3. puts the binary at PREFIX/bin/sentinel (default ~/.local/bin), replacing it in one rename;
#  4. runs `sentinel install`, which registers the hook in ~/.claude/settings.json (every other
#     key kept, one backup) and seeds ~/.agentos with commented starter files.
# Where there is no archive for this machine, it builds from crates.io with `cargo install
# agent-sentinel` when cargo is there, and otherwise says what to do.
#
# Options:
#   --version V        the release to install (default: the one this file came with)
#   --prefix DIR       install into DIR/bin (default ~/.local, or $PREFIX)
#   --no-register      install the binary only (also SENTINEL_NO_REGISTER=1)
#   --binary-only      never build: exit 3 when no archive can be had (install/install.sh uses it)
#   anything else      passed on to `sentinel install` (--shadow, --settings PATH, --scope S)
# Environment: SENTINEL_DOWNLOAD_URL, where the release files are (URL/vVERSION/FILE); default
# the GitHub releases of the repository this file was published with.
# Exit status: 0 installed; 1 an error, nothing installed (a checksum mismatch among them);
# 3 with --binary-only: no archive for this machine, or the release could not be reached.
#
# To check the archive's provenance as well (who built it, from which commit), with the GitHub
# CLI: gh attestation verify sentinel-VERSION-TARGET.tar.gz --repo OWNER/REPO
set -eu

# Stamped by the release workflow into the copy it publishes.
default_repo=""
default_version=""

prog="sentinel-install"
die() {
    echo "$prog: error: $*" >&2
    exit 1
}

version="$default_version"
prefix="${PREFIX:-$HOME/.local}"
register=1
[ "${SENTINEL_NO_REGISTER:-0}" = 1 ] && register=0
binary_only=0
# What is left in "$@" after the loop goes to `sentinel install`.
n=$#
while [ "$n" -gt 0 ]; do
    arg="$1"
    shift
    n=$((n - 1))
    case "$arg" in
    --version)
        [ "$n" -gt 0 ] || die "--version needs a value"
        version="$1"; shift; n=$((n - 1)) ;;
    --version=*) version="${arg#--version=}" ;;
    --prefix)
        [ "$n" -gt 0 ] || die "--prefix needs a value"
        prefix="$1"; shift; n=$((n - 1)) ;;
    --prefix=*) prefix="${arg#--prefix=}" ;;
    --no-register) register=0 ;;
    --binary-only) binary_only=1 ;;
    *) set -- "$@" "$arg" ;;
    esac
done
version="${version#v}"

base_url="${SENTINEL_DOWNLOAD_URL:-}"
if [ -z "$base_url" ] && [ -n "$default_repo" ]; then
    base_url="https://github.com/$default_repo/releases/download"
fi
[ -n "$base_url" ] || die "no release location: set SENTINEL_DOWNLOAD_URL (this copy was not published with a release)"
[ -n "$version" ] || die "no version: pass --version V (this copy was not published with a release)"
base_url="${base_url%/}"

build_from_crates() {
    if ! command -v cargo >/dev/null 2>&1; then
        die "no prebuilt sentinel $version for $(uname -s) $(uname -m), and no cargo to build one: install Rust (rustup), then run this again"
    fi
    echo "$prog: building sentinel $version from crates.io (cargo install agent-sentinel; a few minutes) ..."
    cargo install agent-sentinel --locked --version "$version" --root "$prefix" || die "cargo install failed"
}

target=""
case "$(uname -s)/$(uname -m)" in
Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-musl ;;
Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-musl ;;
Darwin/x86_64) target=x86_64-apple-darwin ;;
Darwin/arm64 | Darwin/aarch64) target=aarch64-apple-darwin ;;
esac

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d ' ' -f 1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d ' ' -f 1
    else
        die "neither sha256sum nor shasum is installed: cannot check the download"
    fi
}

# download URL FILE: 0 fetched; 1 not there or unreachable (the reason on stderr).
download() {
    if command -v curl >/dev/null 2>&1; then
        curl --fail --silent --show-error --location --connect-timeout 10 --max-time 300 \
            --output "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then
        wget --quiet --timeout=10 --output-document="$2" "$1"
    else
        die "neither curl nor wget is installed"
    fi
}

finish() {
    bin="$prefix/bin/sentinel"
    echo "$prog: installed $("$bin" --version) at $bin"
    if [ "$binary_only" != 1 ]; then
        case ":$PATH:" in
        *":$prefix/bin:"*) ;;
        *) echo "$prog: warning: $prefix/bin is not on your PATH; add it (export PATH=\"$prefix/bin:\$PATH\")" >&2 ;;
        esac
    fi
    if [ "$register" = 1 ]; then
        "$bin" install "$@"
        echo "next: \`$bin doctor\` checks the registration; start a new Claude Code session."
    fi
}

# Installs the archive for this machine into $prefix/bin; returns 3 (the reason on stderr) when
# there is none or it cannot be reached. Every check failing ends the script (die).
install_prebuilt() {
    if [ -z "$target" ]; then
        echo "$prog: no prebuilt sentinel for $(uname -s) $(uname -m)" >&2
        return 3
    fi
    archive="sentinel-$version-$target.tar.gz"
    tmp="$(mktemp -d)" || die "cannot make a temporary directory"
    trap 'rm -rf "$tmp"' EXIT
    echo "$prog: downloading $base_url/v$version/$archive"
    if ! download "$base_url/v$version/$archive" "$tmp/$archive"; then
        echo "$prog: could not download $archive from $base_url/v$version (offline, or no such release)" >&2
        return 3
    fi
    download "$base_url/v$version/SHA256SUMS" "$tmp/SHA256SUMS" ||
        die "the release has $archive but its SHA256SUMS could not be fetched: not installing an unchecked binary"

    expected="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")"
    [ -n "$expected" ] || die "SHA256SUMS lists no $archive: not installing an unchecked binary"
    actual="$(sha256 "$tmp/$archive")"
    [ "$expected" = "$actual" ] ||
        die "$archive does not match its SHA-256 in SHA256SUMS (expected $expected, got $actual): refusing to install it"

    mkdir "$tmp/x" || die "cannot make $tmp/x"
    tar -xzf "$tmp/$archive" -C "$tmp/x" || die "cannot unpack $archive"
    new="$tmp/x/sentinel-$version-$target/sentinel"
    [ -f "$new" ] || die "$archive holds no sentinel-$version-$target/sentinel"
    chmod 755 "$new" || die "cannot make $new executable"
    got="$("$new" --version 2>/dev/null || true)"
    [ "$got" = "sentinel $version" ] || die "the binary in $archive says '$got', not 'sentinel $version'"

    mkdir -p "$prefix/bin" || die "cannot create $prefix/bin"
    # A rename, so that a hook starting meanwhile runs the old binary or the new one, never half.
    cp "$new" "$prefix/bin/.sentinel.new.$$" || die "cannot write into $prefix/bin"
    mv -f "$prefix/bin/.sentinel.new.$$" "$prefix/bin/sentinel" || die "cannot replace $prefix/bin/sentinel"
    echo "$prog: $archive matches its SHA-256 in SHA256SUMS"
}

status=0
install_prebuilt || status=$?
if [ "$status" = 3 ]; then
    [ "$binary_only" = 1 ] && exit 3
    build_from_crates
elif [ "$status" != 0 ]; then
    exit "$status"
fi
finish "$@"
