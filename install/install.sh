#!/usr/bin/env bash
# Builds and installs sentinel from this checkout (`cargo install --path . --locked`, into
# ~/.cargo/bin or $PREFIX/bin), registers it as Claude Code's hook (`sentinel install`: backs up
# ~/.claude/settings.json first, keeps every other key, seeds ~/.agentos with the bundled rules),
# and shows it deciding. No API key is needed. Pass --shadow to register in shadow mode, and
# --settings PATH for another settings file; SENTINEL_NO_REGISTER=1 skips the registration.
set -euo pipefail
cd "$(dirname "$0")/.."
root="${PREFIX:-$HOME/.cargo}"
cargo install --locked --quiet --path . --root "$root"
bin="$root/bin/sentinel"
echo "installed $("$bin" --version) at $bin"
if [ "${SENTINEL_NO_REGISTER:-0}" != 1 ]; then
  "$bin" install "$@"
fi
for cmd in "git status && cargo test" "ls; rm -rf ~"; do
  echo
  echo "\$ sentinel check \"$cmd\""
  "$bin" check --offline "$cmd" || true
done
