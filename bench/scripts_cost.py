#!/usr/bin/env python3
"""What reading what runs costs a hook (issue 29): instructions (callgrind) and median wall time
of `sentinel hook` on a call that runs a 200-line script, one that runs the project's tooling,
and one that runs nothing, for one binary or two (the second: a build without the reading, to
show what a call that runs nothing pays extra).

    python3 bench/scripts_cost.py [SENTINEL_BIN [BASELINE_BIN]]

The project lives under target/ (not a temp dir: sentinel judges /tmp differently)."""
import json, os, re, shutil, statistics, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
bins = sys.argv[1:] or [os.path.join(root, "target/release/sentinel")]
rounds = int(os.environ.get("BENCH_ROUNDS", "100"))
work = os.path.join(root, "target", "bench-scripts")
shutil.rmtree(work, ignore_errors=True)
project = os.path.join(work, "proj")
os.makedirs(os.path.join(project, "src"))
open(os.path.join(project, "src", "main.rs"), "w").write("fn main() {}\n")

# A 200-line CI script of ordinary commands, the kind a project runs before a commit.
lines = ["#!/bin/sh", "set -eu"]
steps = ["echo \"step {i}\"", "mkdir -p build/out{i}", "cp src/main.rs build/out{i}/main.rs",
         "grep -n main src/main.rs > build/out{i}/grep.txt", "ls -la build/out{i}",
         "cat src/main.rs | wc -l", "test -f src/main.rs && echo ok{i}", "rm -rf build/out{i}",
         "git status --short", "date +%s > build/stamp{i}"]
i = 0
while len(lines) < 200:
    lines.append(steps[i % len(steps)].format(i=i))
    i += 1
open(os.path.join(project, "ci.sh"), "w").write("\n".join(lines) + "\n")

calls = {
    "runs nothing (ls -la src)": "ls -la src",
    "runs the project's tooling (git status && cargo test)": "git status && cargo test",
    "runs a 200-line script (sh ci.sh)": "sh ci.sh",
}


def event(command):
    return json.dumps({"session_id": "bench", "cwd": project, "hook_event_name": "PreToolUse",
                       "permission_mode": "default", "tool_name": "Bash",
                       "tool_input": {"command": command}}).encode()


def env(n):
    home = os.path.join(work, f"home{n}")
    os.makedirs(home, exist_ok=True)
    return {"PATH": os.environ.get("PATH", ""), "HOME": "/home/dev/demo/home", "SENTINEL_HOME": home}


def run(binary, command, e):
    start = time.perf_counter()
    p = subprocess.run([binary, "hook"], input=event(command), capture_output=True, env=e)
    return time.perf_counter() - start, p.stdout


def instructions(binary, command, e):
    log = os.path.join(work, "cg.log")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={work}/cg.out", f"--log-file={log}",
                    binary, "hook"], input=event(command), capture_output=True, env=e)
    m = re.search(r"Collected : (\d+)", open(log).read())
    return int(m.group(1)) if m else 0


print(f"{rounds} interleaved rounds; median wall time per hook process; instructions from callgrind")
for bi, binary in enumerate(bins):
    e = env(bi)
    for name, command in calls.items():
        _, out = run(binary, command, e)
        verdict = json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out.strip() else "none"
        times = []
        for _ in range(rounds):
            t, _ = run(binary, command, e)
            times.append(t)
        instr = instructions(binary, command, e) if shutil.which("valgrind") else 0
        print(f"{os.path.relpath(binary, root):<40} {name:<55} {verdict:<6} "
              f"{instr:>12,} instr  {statistics.median(times) * 1000:7.2f} ms")
