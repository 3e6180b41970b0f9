#!/usr/bin/env python3
"""What reading what runs costs a hook: instructions (callgrind, the judge's: the hook forks) and
median wall time of `sentinel hook` on a call that runs a 200-line script, one that runs the
project's tooling, and one that runs nothing, in a session that wrote nothing and in one that
wrote two shell scripts (the 200-line one among them), for one binary or two.

    python3 bench/scripts_cost.py [SENTINEL_BIN [BASELINE_BIN]]

The project lives under the target dir (not a temp dir: sentinel judges /tmp differently)."""
import json, os, re, shutil, statistics, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
bins = sys.argv[1:] or [os.path.join(root, "target/release/sentinel")]
rounds = int(os.environ.get("BENCH_ROUNDS", "100"))
# Under the target dir (CARGO_TARGET_DIR when set, as bench/harness.py): not a temp dir, and best
# outside any git work tree (inside one, the work tree's own changes count as the agent's).
work = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target"), "bench-scripts")
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

os.makedirs(os.path.join(project, "scripts"))
open(os.path.join(project, "scripts", "gen.sh"), "w").write("#!/bin/sh\nset -e\nls src\necho ok\n")

calls = {
    "runs nothing (ls -la src)": ("bench", "ls -la src"),
    "runs the project's tooling (git status && cargo test)": ("bench", "git status && cargo test"),
    "runs a 200-line script (sh ci.sh)": ("bench", "sh ci.sh"),
    "wrote 2 scripts; git status && cargo test": ("wrote", "git status && cargo test"),
    "wrote 2 scripts; sh ci.sh": ("wrote", "sh ci.sh"),
}


def event(session, command, tool="Bash", mode="default"):
    tool_input = {"command": command} if tool == "Bash" else command
    return json.dumps({"session_id": session, "cwd": project, "hook_event_name": "PreToolUse",
                       "permission_mode": mode, "tool_name": tool,
                       "tool_input": tool_input}).encode()


def env(n):
    home = os.path.join(work, f"home{n}")
    os.makedirs(home, exist_ok=True)
    return {"PATH": os.environ.get("PATH", ""), "HOME": "/home/dev/demo/home", "SENTINEL_HOME": home}


def run(binary, call, e):
    start = time.perf_counter()
    p = subprocess.run([binary, "hook"], input=event(*call), capture_output=True, env=e)
    return time.perf_counter() - start, p.stdout


def instructions(binary, call, e):
    # The hook forks a judge; both write a log. The judge's count (the larger) includes the
    # parent's before the fork.
    logs = os.path.join(work, "cg")
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={logs}/cg.%p",
                    f"--log-file={logs}/log.%p", binary, "hook"], input=event(*call), capture_output=True, env=e)
    counts = []
    for _ in range(300):
        texts = [open(os.path.join(logs, f)).read() for f in os.listdir(logs) if f.startswith("log.")]
        counts = [re.search(r"Collected : (\d+)", t) for t in texts]
        if counts and all(counts):
            break
        time.sleep(0.1)
    return max((int(c.group(1)) for c in counts if c), default=0)


print(f"{rounds} interleaved rounds; median wall time per hook process; instructions from callgrind")
for bi, binary in enumerate(bins):
    e = env(bi)
    # The session "wrote" wrote both scripts (a Write each, answered by the hook).
    for rel in ["ci.sh", "scripts/gen.sh"]:
        path = os.path.join(project, rel)
        subprocess.run([binary, "hook"], capture_output=True, env=e, input=event(
            "wrote", {"file_path": path, "content": open(path).read()}, "Write", "acceptEdits"))
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
