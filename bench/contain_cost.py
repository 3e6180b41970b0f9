#!/usr/bin/env python3
"""What fencing a run costs (src/contain/): median wall time of starting a command fenced,
`sentinel contain --project P -- true`, against `bash -c true` unfenced and against the floor
binary, in the same interleaved rounds; and the hook's own cost on a call it rewrites
(`sh t.sh`, which runs project code) against one it does not (`ls -la`). Wall time, not a test:
the machine is shared, read the ratios.

    python3 bench/contain_cost.py            # after bench/run.sh's two builds
    BENCH_ROUNDS=50 python3 bench/contain_cost.py

The fence's plan walks the home (four levels) and the project for credentials, so a project of
1,000 and one of 20,000 files are both measured. Everything lives under the target dir with a
scratch HOME there (not a temp dir: a fenced run may write temp dirs)."""
import json, os, shutil, statistics, subprocess, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
sentinel = os.path.join(target, "release/sentinel")
floor = next(p for p in (os.path.join(target, "release/floor"),
                         os.path.join(root, "bench/floor/target/release/floor")) if os.path.exists(p))
rounds = int(os.environ.get("BENCH_ROUNDS", "30"))
work = os.path.join(target, "bench-contain")
shutil.rmtree(work, ignore_errors=True)
home = os.path.join(work, "home")
os.makedirs(os.path.join(home, ".ssh"))
open(os.path.join(home, ".ssh", "id_rsa"), "w").write("key\n")
env = dict(os.environ, HOME=home, SENTINEL_HOME=os.path.join(home, ".agentos"))
for k in ("ANTHROPIC_API_KEY", "SENTINEL_API_KEY"):
    env.pop(k, None)


def project(files):
    p = os.path.join(work, f"proj{files}")
    os.makedirs(os.path.join(p, ".git", "hooks"))
    open(os.path.join(p, "t.sh"), "w").write("echo hi > out.txt\n")
    open(os.path.join(p, ".env"), "w").write("A=1\n")
    for i in range(files):
        d = os.path.join(p, "src", f"m{i // 40:04}")
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, f"f{i}.txt"), "w").write("x\n")
    return p


def timed(argv, stdin=None, cwd=None):
    t = time.perf_counter()
    subprocess.run(argv, input=stdin, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def event(cwd, command):
    return json.dumps({"session_id": "bench", "cwd": cwd, "hook_event_name": "PreToolUse",
                       "permission_mode": "bypassPermissions", "tool_name": "Bash",
                       "tool_input": {"command": command}}).encode()


small, big = project(1000), project(20000)
cases = {
    "floor": lambda: timed([floor], stdin=event(small, "ls"), cwd=small),
    "bash -c true (unfenced)": lambda: timed(["bash", "-c", "true"], cwd=small),
    "contain -- true, 1,000 files": lambda: timed([sentinel, "contain", "--project", small, "--", "bash", "-c", "true"], cwd=small),
    "contain -- true, 20,000 files": lambda: timed([sentinel, "contain", "--project", big, "--", "bash", "-c", "true"], cwd=big),
    "hook: ls -la (not rewritten)": lambda: timed([sentinel, "hook"], stdin=event(small, "ls -la"), cwd=small),
    "hook: sh t.sh (rewritten)": lambda: timed([sentinel, "hook"], stdin=event(small, "sh t.sh"), cwd=small),
}
samples = {k: [] for k in cases}
for _ in range(rounds):
    for name, run in cases.items():
        samples[name].append(run())
base = statistics.median(samples["floor"])
print(f"{'case':34} {'median':>10} {'x floor':>8}")
for name, s in samples.items():
    m = statistics.median(s)
    print(f"{name:34} {m * 1000:8.2f} ms {m / base:8.2f}")
