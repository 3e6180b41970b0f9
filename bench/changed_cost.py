#!/usr/bin/env python3
"""What observing the changed files costs a hook (src/ledger/changed.rs): median wall time and
instructions of `sentinel hook` on `pytest` (a call that runs the project's code, so it walks
the project) in generated projects of 10, 1,000 and 20,000 files, and on `ls -la src` (runs no
project code: it must cost the same in the biggest project as in the smallest), as ratios to
the floor binary in the same interleaved rounds.

Last, the first look (once per project: it records the baseline and what git shows as not
committed, src/ledger/uncommitted.rs) in real git repositories of 1,000 and 20,000 committed
files, the baseline removed before each run.

    python3 bench/changed_cost.py            # after bench/run.sh's two builds
    BENCH_ROUNDS=50 python3 bench/changed_cost.py

Each project has a session, a baseline taken by a first run, and 3 text files changed after it
(the agent's edits: seen, not read, so the rows show the walk alone). Its `node_modules` (2,000
files) is skipped by the walk. One more row has a changed `.py` too, which every later run of
the project's code reads (the code reader's own cost, the same as for a file in the ledger).
The projects live under the target dir (not a temp dir: sentinel judges /tmp differently)."""
import hashlib, json, os, random, re, shutil, statistics, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
sentinel = os.path.join(target, "release/sentinel")
floor = next(p for p in (os.path.join(target, "release/floor"),
                         os.path.join(root, "bench/floor/target/release/floor")) if os.path.exists(p))
rounds = int(os.environ.get("BENCH_ROUNDS", "30"))
work = os.path.join(target, "bench-changed")
shutil.rmtree(work, ignore_errors=True)


def project(files, name=None):
    """A git project of `files` files, 40 a folder, a fifth of them Python, and a node_modules."""
    p = os.path.join(work, name or f"proj{files}")
    os.makedirs(os.path.join(p, ".git"))
    os.makedirs(os.path.join(p, "tests"))
    with open(os.path.join(p, "tests", "test_a.py"), "w") as f:
        f.write("def test_a():\n    assert True\n")
    for i in range(files - 1):
        d = os.path.join(p, "src", f"m{i // 40:04}")
        os.makedirs(d, exist_ok=True)
        name = f"f{i}.py" if i % 5 == 0 else f"f{i}.txt"
        with open(os.path.join(d, name), "w") as f:
            f.write(f"x = {i}\n")
    for i in range(2000):
        d = os.path.join(p, "node_modules", f"pkg{i // 100}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"i{i}.js"), "w") as f:
            f.write("module.exports = 1;\n")
    return p


def event(cwd, command):
    return json.dumps({"session_id": "bench", "cwd": cwd, "hook_event_name": "PreToolUse",
                       "permission_mode": "bypassPermissions", "tool_name": "Bash",
                       "tool_input": {"command": command}}).encode()


home = os.path.join(work, "home")
os.makedirs(home)
env = {"PATH": os.environ.get("PATH", ""), "HOME": "/home/dev/demo/home", "SENTINEL_HOME": home}
projects = {n: project(n) for n in (10, 1000, 20000)}
with_code = project(1000, "proj1000py")
paths = {"floor (serde_json read/print)": ([floor], event(projects[10], "pytest"))}
for n, p in projects.items():
    paths[f"pytest, {n:,} files"] = ([sentinel, "hook"], event(p, "pytest"))
paths["pytest, 1,000 files, a .py changed"] = ([sentinel, "hook"], event(with_code, "pytest"))
for n in (10, 20000):
    paths[f"ls -la src, {n:,} files"] = ([sentinel, "hook"], event(projects[n], "ls -la src"))


def run_event(stdin):
    start = time.perf_counter()
    subprocess.run([sentinel, "hook"], input=stdin, capture_output=True, env=env)
    return time.perf_counter() - start


def run(name):
    argv, stdin = paths[name]
    start = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True, env=env)
    return time.perf_counter() - start, p.stdout


# The baseline (a first run of each project's code), then the agent's edits after it.
for name in paths:
    if name.startswith("pytest"):
        run(name)
time.sleep(0.1)
for p in list(projects.values()) + [with_code]:
    for rel in ("src/m0000/f1.txt", "src/m0000/f2.txt", "README.md"):
        with open(os.path.join(p, rel), "a") as f:
            f.write("edited\n")
with open(os.path.join(with_code, "src/m0000/f0.py"), "a") as f:
    f.write("y = 1\n")
for name in paths:
    _, out = run(name)
    if name != list(paths)[0]:
        answer = json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out.strip() else "none"
        if answer != "allow":
            sys.exit(f"{name}: {answer}: {out!r}")

times = {n: [] for n in paths}
for _ in range(rounds):
    order = list(paths)
    random.shuffle(order)
    for name in order:
        times[name].append(run(name)[0])


def instructions(name):
    if not shutil.which("valgrind"):
        return 0
    argv, stdin = paths[name]
    log = os.path.join(work, "cg.log")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={work}/cg.out", f"--log-file={log}"] + argv,
                   input=stdin, capture_output=True, env=env)
    m = re.search(r"Collected : (\d+)", open(log).read())
    return int(m.group(1)) if m else 0


floor_name = list(paths)[0]
median = {n: statistics.median(v) for n, v in times.items()}
instr = {n: instructions(n) for n in paths}
print(f"{rounds} interleaved rounds; median wall time per hook process; instructions from callgrind")
print(f"{'path':<36} {'median':>9} {'× floor':>8} {'instructions':>13} {'× floor':>8}")
for n in paths:
    ri = instr[n] / instr[floor_name] if instr[floor_name] else 0
    print(f"{n:<36} {median[n] * 1000:>7.2f}ms {median[n] / median[floor_name]:>8.2f} {instr[n]:>13,} {ri:>8.2f}")


def git_project(files):
    p = project(files, f"git{files}")
    shutil.rmtree(os.path.join(p, ".git"))
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    with open(os.path.join(p, ".gitignore"), "w") as f:
        f.write("node_modules/\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "all"], ["status", "--porcelain"]):
        subprocess.run(git + args, cwd=p, check=True, capture_output=True)
    return p


first = {}
for n in (1000, 20000):
    p = git_project(n)
    kept = os.path.join(home, "projects", hashlib.sha256(os.path.realpath(p).encode()).hexdigest() + ".baseline")
    samples = []
    for _ in range(min(rounds, 15)):
        if os.path.exists(kept):
            os.remove(kept)
        samples.append(run_event(event(p, "pytest")))
    first[n] = statistics.median(samples)
print("first look (baseline removed before each run), median:")
for n, t in first.items():
    print(f"  git repository of {n:,} files: {t * 1000:.2f}ms, {t / median[floor_name]:.2f}x floor")
shutil.rmtree(work)
