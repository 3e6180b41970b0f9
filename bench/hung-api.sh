#!/usr/bin/env bash
# How long a hook takes to answer when the API accepts the connection and never replies:
# bounded by [api] timeout. Starts a server on 127.0.0.1 that reads and never answers, then runs
# `sentinel hook` on an uncertain command under several timeouts and prints the wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
python3 - "$work/port" <<'PY' &
import socket, sys, threading, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    c, _ = s.accept(); held.append(c)   # accept, read nothing back, never answer
PY
server=$!
while [ ! -s "$work/port" ]; do sleep 0.05; done
url="http://127.0.0.1:$(cat "$work/port")"
event='{"hook_event_name":"PreToolUse","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"python train.py"}}'
printf '%-10s %-10s %s\n' "timeout" "elapsed" "answer"
for t in 1 2 4 8; do
  mkdir -p "$work/h$t"; printf '[api]\ntimeout = %s\n[env]\ntrust = ["SENTINEL_API_URL", "SENTINEL_FAIL_MODE"]\n' "$t" > "$work/h$t/sentinel.toml"
  start=$(date +%s.%N)
  answer=$(echo "$event" | SENTINEL_HOME="$work/h$t" SENTINEL_API_URL="$url" ANTHROPIC_API_KEY=x \
    SENTINEL_FAIL_MODE=closed target/release/sentinel hook | sed 's/.*"permissionDecision":"\([a-z]*\)".*/\1/')
  end=$(date +%s.%N)
  printf '%-10s %-10s %s\n' "${t} s" "$(echo "$end - $start" | bc | xargs printf '%.2f s')" "$answer (fail_mode closed)"
done
