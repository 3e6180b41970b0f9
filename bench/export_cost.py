#!/usr/bin/env python3
"""What exporting decisions costs a hook (docs/performance.md): instructions (callgrind, the
judge's count: the hook forks) and median wall time (hyperfine, interleaved in one run) of
`sentinel hook` on a Bash `git status`, with export off and with it on. "On" is the hook's own
path: the decision appended to the spool; the send is held off (the spool's `next` time is set
far ahead), since a send runs in a detached process the hook does not wait for.

    python3 bench/export_cost.py [SENTINEL_BIN]

Homes live under the target dir (not a temp dir: sentinel judges /tmp differently)."""
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target")
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "release/sentinel")
runs = int(os.environ.get("BENCH_ROUNDS", "200"))
work = os.path.join(target, "bench-export")
shutil.rmtree(work, ignore_errors=True)
project = os.path.join(work, "proj")
os.makedirs(project)
event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "bench", "cwd": project,
                    "tool_name": "Bash", "tool_input": {"command": "git status"}})
open(os.path.join(work, "event.json"), "w").write(event)

homes, extra_env = {}, {}
for name, toml, var in [
        ("off", "", None),
        ("off, [export]", '[export]\nenabled = false\nendpoint = "http://127.0.0.1:9"\nmax_records = 100000\nmax_bytes = 268435456\n', None),
        ("on, [export]", '[export]\nendpoint = "http://127.0.0.1:9"\nmax_records = 100000\nmax_bytes = 268435456\n', None),
        ("on, variable", "", "http://127.0.0.1:9")]:
    home = os.path.join(work, name.replace(",", "").replace(" ", "-").replace("[", "").replace("]", ""))
    os.makedirs(os.path.join(home, "export"))
    open(os.path.join(home, "sentinel.toml"), "w").write(toml)
    homes[name] = home
    extra_env[name] = {"OTEL_EXPORTER_OTLP_ENDPOINT": var} if var else {}
    # No send while measuring: `next` a year ahead.
    nxt = os.path.join(home, "export", "next")
    open(nxt, "w").close()
    ahead = time.time() + 365 * 86400
    os.utime(nxt, (ahead, ahead))


def env(home):
    e = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    e.update(SENTINEL_HOME=home, HOME="/home/dev/demo/home", SENTINEL_NO_TTY="1")
    e.update(extra_env[next(n for n, h in homes.items() if h == home)])
    for k in ("ANTHROPIC_API_KEY", "SENTINEL_API_KEY", "CLAUDE_PROJECT_DIR"):
        e.pop(k, None)
    return e


def judged(home):
    logs = tempfile.mkdtemp(dir=work)
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={logs}/cg.%p", f"--log-file={logs}/log.%p",
                    binary, "hook"], input=event.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env(home))
    counts = []
    for _ in range(300):
        texts = [open(os.path.join(logs, f)).read() for f in os.listdir(logs) if f.startswith("log.")]
        counts = [re.search(r"Collected : (\d+)", t) for t in texts]
        if counts and all(counts):
            break
        time.sleep(0.1)
    shutil.rmtree(logs)
    return max(int(c.group(1)) for c in counts if c)


# Warm both homes (the rule cache, the spool's folder), then count.
for home in homes.values():
    for _ in range(3):
        subprocess.run([binary, "hook"], input=event.encode(), stdout=subprocess.DEVNULL, env=env(home))
instr = {name: statistics.median(judged(h) for _ in range(3)) for name, h in homes.items()}

wall = {}
if shutil.which("hyperfine"):
    out = os.path.join(work, "hyperfine.json")
    cmds = []
    for name, home in homes.items():
        var = "".join(f" {k}={v}" for k, v in extra_env[name].items())
        # No shell correction (-N): hyperfine's estimate of a shell's start is noisier than the
        # difference measured; each run is `sh` exec'ing the hook with the event on stdin.
        line = f"env -u CLAUDE_PROJECT_DIR SENTINEL_HOME={home} HOME=/home/dev/demo/home SENTINEL_NO_TTY=1{var} {binary} hook < {work}/event.json"
        cmds += ["-n", name, f"sh -c 'exec {line}'"]
    subprocess.run(["hyperfine", "-N", "--warmup", "20", "--runs", str(runs),
                    "--export-json", out, "--style", "none"] + cmds, check=True, stdout=subprocess.DEVNULL)
    for r in json.load(open(out))["results"]:
        wall[r["command"]] = (statistics.median(r["times"]), r["mean"], r["stddev"])

# Interleaved too (hyperfine runs one command's runs, then the next's: on a shared machine a
# load change lands on one of them): one run of each case per round, in turn, `runs` rounds.
times = {name: [] for name in homes}
for _ in range(runs):
    for name, home in homes.items():
        t = time.perf_counter()
        subprocess.run([binary, "hook"], input=event.encode(), stdout=subprocess.DEVNULL, env=env(home))
        times[name].append(time.perf_counter() - t)
inter = {name: statistics.median(t) for name, t in times.items()}

print(f"sentinel hook, Bash `git status` (allow); instructions: callgrind, median of 3; wall: median of {runs} interleaved rounds, and hyperfine -N ({runs} runs each, sh exec'ing the hook)")
print(f"{'export':<14} {'instructions':>14} {'vs off':>8} {'interleaved':>12} {'vs off':>8} {'hyperfine':>10} {'vs off':>8}")
for name in homes:
    w = wall.get(name)
    ws = f"{w[0]*1000:8.2f}ms {w[0] / wall['off'][0] - 1:+8.2%}" if w else "  (no hyperfine)"
    print(f"{name:<14} {instr[name]:>14,.0f} {instr[name] / instr['off'] - 1:+8.2%} "
          f"{inter[name]*1000:10.2f}ms {inter[name] / inter['off'] - 1:+8.2%} {ws}")
