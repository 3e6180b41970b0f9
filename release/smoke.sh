#!/usr/bin/env bash
# Runs a built sentinel binary the way an agent runs it, in a scratch home: `--version`, one hook
# event it must deny (`rm -rf ~`), one it must allow (`git status`), and `check` on the same
# command. Every release job runs it on its own binary before packaging it.
# Usage: release/smoke.sh BIN SCRATCH_DIR   (SCRATCH_DIR: not a temp dir, where sentinel decides
# differently; it is emptied first)
set -euo pipefail
bin="$1"
scratch="$2"
rm -rf "$scratch"
mkdir -p "$scratch/home/project"
home="$(cd "$scratch/home" && pwd -P)"
project="$home/project"
fail() { echo "smoke: $*" >&2; exit 1; }
run() {
    env -u ANTHROPIC_API_KEY -u SENTINEL_API_KEY -u CLAUDECODE -u CLAUDE_PROJECT_DIR \
        HOME="$home" SENTINEL_HOME="$home/.agentos" SENTINEL_NO_TTY=1 "$bin" "$@"
}
event() {
    printf '{"session_id":"smoke","hook_event_name":"PreToolUse","cwd":"%s","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"%s"}}' \
        "$project" "$1"
}

version="$(run --version)" || fail "\`$bin --version\` failed"
case "$version" in sentinel\ [0-9]*) ;; *) fail "\`--version\` printed '$version'" ;; esac

deny="$(event 'rm -rf ~' | run hook)" || fail "the hook exited non-zero on rm -rf ~"
case "$deny" in *'"permissionDecision":"deny"'*) ;; *) fail "rm -rf ~ was not denied: $deny" ;; esac

allow="$(event 'git status' | run hook)" || fail "the hook exited non-zero on git status"
case "$allow" in *'"permissionDecision":"allow"'*) ;; *) fail "git status was not allowed: $allow" ;; esac

status=0
run check --offline --cwd "$project" 'ls; rm -rf ~' >/dev/null || status=$?
[ "$status" = 2 ] || fail "\`check 'ls; rm -rf ~'\` exited $status, not 2 (block)"

echo "smoke: $version: denies rm -rf ~, allows git status, check exits 2 on a block"
