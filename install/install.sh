#!/usr/bin/env bash
# Builds and installs sentinel from this checkout (into ~/.cargo/bin, or $PREFIX/bin), then shows
# it deciding on its bundled defaults: no ~/.agentos and no API key are needed.
set -euo pipefail
cd "$(dirname "$0")/.."
root="${PREFIX:-$HOME/.cargo}"
cargo install --locked --quiet --path . --root "$root"
bin="$root/bin/sentinel"
echo "installed $("$bin" --version) at $bin"
for cmd in "git status && cargo test" "ls; rm -rf ~"; do
  echo
  echo "\$ sentinel check \"$cmd\""
  "$bin" check --offline "$cmd" || true
done
