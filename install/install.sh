#!/usr/bin/env bash
# Installs sentinel from this checkout and registers it as Claude Code's hook (`sentinel
# install`: one backup of ~/.claude/settings.json, every other key kept, commented rule-file
# starters in ~/.agentos), then shows it deciding. No API key is needed.
#
# It prefers the released binary of this checkout's version (Cargo.toml): install/sentinel-install.sh
# downloads the archive for this machine from the release, checks its SHA-256 against the
# release's SHA256SUMS (a mismatch stops everything) and installs it. Without an archive for
# this machine, offline, or with no release location known, it builds from source (`cargo install
# --path . --locked`), as it also does with --from-source (or SENTINEL_FROM_SOURCE=1) and when this
# checkout's source differs from its commit. The release location: SENTINEL_DOWNLOAD_URL (files at
# URL/vVERSION/FILE), else the GitHub releases of the `origin` remote.
#
# Pass --shadow to register in shadow mode, --settings PATH or --scope user|project|local for
# another settings file; SENTINEL_NO_REGISTER=1 installs the binary only (for the Claude Code
# plugin). The binary goes to $PREFIX/bin, else $CARGO_INSTALL_ROOT/bin, else $CARGO_HOME/bin
# (default ~/.cargo/bin; ~/.local/bin when cargo is not installed).
set -euo pipefail
cd "$(dirname "$0")/.."
from_source="${SENTINEL_FROM_SOURCE:-0}"
args=()
for arg in "$@"; do
  if [ "$arg" = --from-source ]; then from_source=1; else args+=("$arg"); fi
done
set -- ${args[@]+"${args[@]}"}
if [ -n "${PREFIX:-${CARGO_INSTALL_ROOT:-${CARGO_HOME:-}}}" ] || command -v cargo >/dev/null; then
  root="${PREFIX:-${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}}"
else
  root="$HOME/.local"
fi
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

# The release location, when one is known.
release_url() {
  if [ -n "${SENTINEL_DOWNLOAD_URL:-}" ]; then
    echo "$SENTINEL_DOWNLOAD_URL"
    return
  fi
  local origin
  origin="$(git remote get-url origin 2>/dev/null || true)"
  case "$origin" in
  https://github.com/*/* | git@github.com:*/*)
    origin="${origin#https://github.com/}"
    origin="${origin#git@github.com:}"
    echo "https://github.com/${origin%.git}/releases/download"
    ;;
  esac
}

prebuilt=0
if [ "$from_source" != 1 ]; then
  url="$(release_url)"
  if [ -n "$(git status --porcelain -- src rules build.rs Cargo.toml Cargo.lock 2>/dev/null)" ]; then
    echo "this checkout's source differs from its commit: building it rather than installing the release"
  elif [ -z "$url" ]; then
    echo "no release location (SENTINEL_DOWNLOAD_URL unset, origin not on GitHub): building from source"
  else
    status=0
    SENTINEL_DOWNLOAD_URL="$url" install/sentinel-install.sh --binary-only --no-register \
      --version "$version" --prefix "$root" || status=$?
    case "$status" in
    0) prebuilt=1 ;;
    3) echo "building sentinel $version from source instead" ;;
    *) exit "$status" ;;
    esac
  fi
fi
if [ "$prebuilt" = 0 ]; then
  echo "building sentinel (release, a few minutes the first time) and installing into $root/bin ..."
  # cargo's own progress lines show that the build is moving.
  cargo install --locked --path . --root "$root"
fi
bin="$root/bin/sentinel"
echo "installed $("$bin" --version) at $bin"
on_path="$(command -v sentinel || true)"
if [ -z "$on_path" ]; then
  echo "warning: $root/bin is not on your PATH; add it (e.g. export PATH=\"$root/bin:\$PATH\") so the plugin and your shell find sentinel" >&2
elif [ "$(cd "$(dirname "$on_path")" && pwd -P)/sentinel" != "$(cd "$root/bin" && pwd -P)/sentinel" ]; then
  echo "warning: \`sentinel\` on your PATH is $on_path, not the one just installed" >&2
fi
if [ "${SENTINEL_NO_REGISTER:-0}" != 1 ]; then
  "$bin" install "$@"
fi
for cmd in "git status && cargo test" "ls; rm -rf ~"; do
  echo
  echo "\$ sentinel check \"$cmd\""
  "$bin" check --offline "$cmd" || true
done
echo
if [ "${SENTINEL_NO_REGISTER:-0}" != 1 ]; then
  echo "next: run \`$bin doctor\` to check the registration, then start a new Claude Code session;"
  echo "      \`sentinel stats\` shows what it decided, \`sentinel uninstall\` removes it."
else
  echo "next: claude plugin marketplace add $(pwd) && claude plugin install sentinel@sentinel"
  echo "      (or \`$bin install\` to register in ~/.claude/settings.json instead), then \`sentinel doctor\`."
fi
