#!/usr/bin/env python3
"""Whole-process cost of `sentinel hook` per decision path, against the floor, in one run.

Runs are interleaved (every round runs each path once, in a shuffled order) so machine noise
hits all paths alike. Wall time per run is measured around the process; instructions come from
one valgrind --tool=callgrind run per path; peak RSS and minor page faults from /usr/bin/time
(rusage of a child forked from Python would count the Python image too).
"""
import json, os, random, re, shutil, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# SENTINEL_BENCH_BIN measures another build of the same source (the static musl release binary).
sentinel = os.environ.get("SENTINEL_BENCH_BIN") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target"), "release/sentinel")
# With CARGO_TARGET_DIR set, run.sh's build of the floor lands there too.
floor = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "bench/floor/target"), "release/floor")
rounds = int(os.environ.get("BENCH_ROUNDS", "200"))
work = tempfile.mkdtemp(prefix="sentinel-bench-")


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin  # noqa: E402

# The Messages API, answering at once: ALLOW, with the canary echoed.
api_url = standin.start(lambda body: ("ALLOW", "bench"))


def event(tool, tool_input, mode=None):
    e = {"session_id": "bench", "cwd": "/home/dev/demo/proj", "hook_event_name": "PreToolUse",
         "tool_name": tool, "tool_input": tool_input}
    if mode:
        e["permission_mode"] = mode
    return json.dumps(e).encode()


paths = {
    "floor (serde_json read/print)": ([floor], event("Bash", {"command": "git status && cargo test"}), {}),
    "local allow": ([sentinel, "hook"], event("Bash", {"command": "git status && cargo test"}), {}),
    "compound allow": ([sentinel, "hook"], event("Bash", {"command": "git status && ls -la src | head -20"}), {}),
    "local block": ([sentinel, "hook"], event("Bash", {"command": "ls; rm -rf ~"}), {}),
    # An in-project edit is answered under a mode that approves edits (under default or an unknown
    # mode it is left to the agent's own prompt: no answer).
    "file write": ([sentinel, "hook"], event("Write", {"file_path": "/home/dev/demo/proj/src/a.rs", "content": "x"},
                                             "acceptEdits"), {}),
    "uncertain, Tier 2 off": ([sentinel, "hook"], event("Bash", {"command": "frobnicate --check"}), {}),
    "Tier 2 (loopback API)": ([sentinel, "hook"], event("Bash", {"command": "frobnicate --check"}),
                              {"SENTINEL_API_URL": api_url, "ANTHROPIC_API_KEY": "bench"}),
}
envs = {}
for i, (name, (_, _, extra)) in enumerate(paths.items()):
    home = os.path.join(work, f"home{i}")
    os.makedirs(home)
    with open(os.path.join(home, "sentinel.toml"), "w") as f:
        f.write("[budget]\ncalls_per_minute = 1000000\ncalls_per_day = 100000000\n"
                "[env]\ntrust = [\"SENTINEL_API_URL\"]\n")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": "/home/dev/demo/home", "SENTINEL_HOME": home}
    env.update(extra)
    envs[name] = env


def run(name):
    argv, stdin, _ = paths[name]
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=envs[name])
    p.stdin.write(stdin)
    p.stdin.close()
    out = p.stdout.read()
    p.wait()
    return time.perf_counter() - start, out


# Warm-up, and a check that each path answers as it should.
for name in paths:
    _, out = run(name)
    if name != list(paths)[0] and b"permissionDecision" not in out:
        sys.exit(f"{name}: no answer: {out!r}")

times = {n: [] for n in paths}
for _ in range(rounds):
    order = list(paths)
    random.shuffle(order)
    for name in order:
        t, _ = run(name)
        times[name].append(t)


def peak_rss_and_faults(name):
    """Peak RSS (KiB, the most of 3 runs) and minor page faults (the fewest): each fault is a
    trap into the kernel, which is most of what a hook's wall time adds to its instructions."""
    argv, stdin, _ = paths[name]
    best, faults = 0, None
    for _ in range(3):
        r = subprocess.run(["/usr/bin/time", "-f", "%M %R"] + argv, input=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=envs[name])
        kib, minor = (int(x) for x in r.stderr.decode().strip().splitlines()[-1].split())
        best = max(best, kib)
        faults = minor if faults is None else min(faults, minor)
    return best, faults


measured = {n: peak_rss_and_faults(n) for n in paths}
rss = {n: m[0] for n, m in measured.items()}
faults = {n: m[1] for n, m in measured.items()}


def instructions(name):
    argv, stdin, _ = paths[name]
    # The hook forks its judge (docs/failures.md, the watchdog). Callgrind's counts are copied
    # into a child at the fork, so the judge's count holds everything before it too: the larger
    # count is the call's, less the parent's few thousand instructions of waiting.
    return judged(argv, stdin, envs[name])


def judged(argv, stdin, env):
    """The judge's instruction count: it exits after the parent has answered, so its log is
    waited for (read at the parent's exit, a loaded machine lost it)."""
    logs = tempfile.mkdtemp(dir=work)
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={logs}/cg.%p", f"--log-file={logs}/log.%p"]
                   + argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    counts = []
    for _ in range(300):
        texts = [open(os.path.join(logs, f)).read() for f in os.listdir(logs) if f.startswith("log.")]
        counts = [re.search(r"Collected : (\d+)", t) for t in texts]
        if all(counts):
            break
        time.sleep(0.1)
    shutil.rmtree(logs)
    return max((int(c.group(1)) for c in counts if c), default=0)


have_valgrind = shutil.which("valgrind") is not None
floor_name = list(paths)[0]
median = {n: statistics.median(v) for n, v in times.items()}
p99 = {n: sorted(v)[int(len(v) * 0.99) - 1] for n, v in times.items()}
instr = {n: instructions(n) for n in paths} if have_valgrind else {n: 0 for n in paths}

def scaled(command, user_rules, anchor="^"):
    """Instructions of one hook run on `command`, with `user_rules` rules of the person's own,
    each starting with `anchor` (`^`, or nothing: a rule that may match anywhere)."""
    home = os.path.join(work, f"scale-{user_rules}{'-anywhere' if not anchor else ''}")
    if not os.path.isdir(home):
        os.makedirs(home)
        shutil.copy(os.path.join(work, "home1", "sentinel.toml"), home)
        if user_rules:
            with open(os.path.join(home, "hard_block_commands.txt"), "w") as f:
                f.writelines(f"{anchor}tool{i} --danger( |$)   # rule {i}\n" for i in range(user_rules))
            # A file changed within 2 s of a call is hashed on every call (the stat fast path's
            # racy window, docs/performance.md); a person's file was written earlier than that.
            time.sleep(2.1)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": "/home/dev/demo/home", "SENTINEL_HOME": home}
    return judged([sentinel, "hook"], event("Bash", {"command": command}), env)


def cache_cleared(user_rules, anchor="^"):
    """Removes the compiled-rule cache of the scale home with `user_rules` rules."""
    home = f"scale-{user_rules}{'-anywhere' if not anchor else ''}"
    shutil.rmtree(os.path.join(work, home, "cache"), ignore_errors=True)


print(f"{rounds} interleaved rounds; wall time per process, instructions from callgrind (the judge's, which include the parent's before the fork), peak RSS and minor page faults from /usr/bin/time (the process the agent waits on: not its judge, which it does not reap)")
print(f"{'path':<30} {'median':>9} {'p99':>9} {'× floor':>8} {'instructions':>13} {'× floor':>8} {'peak RSS':>9} "
      f"{'faults':>7}")
for n in paths:
    ratio_i = instr[n] / instr[floor_name] if instr[floor_name] else 0
    print(f"{n:<30} {median[n]*1000:>7.2f}ms {p99[n]*1000:>7.2f}ms {median[n]/median[floor_name]:>8.2f} "
          f"{instr[n]:>13,} {ratio_i:>8.2f} {rss[n]/1024:>7.1f}MiB {faults[n]:>7}")
worst_i = max(instr[n] / instr[floor_name] for n in paths if n != floor_name and "Tier 2" not in n) if instr[floor_name] else 0
worst_w = max(median[n] / median[floor_name] for n in paths if n != floor_name and "Tier 2" not in n)
print(f"local paths: at most {worst_i:.2f}× the floor's instructions (target 3, aim 2), {worst_w:.2f}× its wall time "
      f"(target 1.5); peak RSS at most {max(rss[n] for n in paths if 'Tier 2' not in n)/1024:.1f} MiB "
      f"(target 4; Tier 2 {max(rss[n] for n in paths if 'Tier 2' in n)/1024:.1f} MiB)")

if have_valgrind:
    print("\ninstructions against command size (N copies of `git status` joined by &&):")
    for n in (1, 4, 16, 64):
        print(f"  {n:>3} parts  {scaled(' && '.join(['git status'] * n), 0):>13,}")
    print("instructions against the person's rule count (a hard_block_commands.txt of N rules; `git status`;\n"
          "  first run: no cache yet, compiles and writes SENTINEL_HOME/cache; then a cache hit in a home\n"
          "  whose cache has been sealed, as every call after the first few seconds finds it):")
    for command in ("git status", "git status && ls -la src | head -20"):
        none = scaled(command, 0)
        print(f"  `{command}`:")
        for anchor, shape in (("^", "^tool… (anchored)"), ("", "tool… (anywhere)")):
            for n in (200, 2000):
                cache_cleared(n, anchor)
                miss = scaled(command, n, anchor)
                # The cache file just written is within the timestamps' racy window: the call
                # that first finds it out of that window checks its signature and seals it
                # (docs/performance.md); the calls after that are what a person's day pays.
                time.sleep(2.1)
                scaled(command, n, anchor)
                cost = scaled(command, n, anchor)
                print(f"  {n:>5} rules {shape:<19} {cost:>11,}  {cost / none:6.2f}× none (target 2 at 2,000); "
                      f"first run {miss:,} ({miss / none:.2f}×)")
shutil.rmtree(work)
