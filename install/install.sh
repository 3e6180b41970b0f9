#!/usr/bin/env bash
# Builds and installs sentinel from this checkout (`cargo install --path . --locked`), registers
# it as Claude Code's hook (`sentinel install`: one backup of ~/.claude/settings.json, every
# other key kept, commented rule-file starters in ~/.agentos), and shows it deciding. No API key
# is needed. Pass --shadow to register in shadow mode, --settings PATH or --scope
# user|project|local for another settings file; SENTINEL_NO_REGISTER=1 installs the binary only
# (for the Claude Code plugin). The binary goes where cargo puts it: $PREFIX/bin, else
# $CARGO_INSTALL_ROOT/bin, else $CARGO_HOME/bin (default ~/.cargo/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
root="${PREFIX:-${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}}"
echo "building sentinel (release, a few minutes the first time) and installing into $root/bin ..."
# cargo's own progress lines show that the build is moving.
cargo install --locked --path . --root "$root"
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
