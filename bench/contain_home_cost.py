#!/usr/bin/env python3
"""Start cost of a fenced run (`sentinel contain -- true`) against the size of the HOME: a
home of N files, half of them in checkouts under ~/src/github.com/org/rK (the roots walk), half
in ordinary folders. Median wall time of interleaved rounds; binaries from argv (a scratch home under the target dir, never the real one):

    python3 bench/contain_home_cost.py OLD/sentinel NEW/sentinel"""
import os, shutil, statistics, subprocess, sys, time
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target")), "bench-contain-home")
bins = sys.argv[1:]
rounds = int(os.environ.get("ROUNDS", "20"))
shutil.rmtree(work, ignore_errors=True)
def home(n):
    h = f"{work}/home{n}"
    for i in range(n // 2):
        d = f"{h}/src/github.com/org/r{i // 100:03}/pkg/m{(i // 10) % 10}"
        os.makedirs(d, exist_ok=True); open(f"{d}/f{i}.go", "w").write("x\n")
    for i in range(n - n // 2):
        d = f"{h}/docs/d{i // 50:03}"
        os.makedirs(d, exist_ok=True); open(f"{d}/f{i}.txt", "w").write("x\n")
    os.makedirs(f"{h}/.ssh", exist_ok=True); open(f"{h}/.ssh/id_rsa", "w").write("k\n")
    return h
proj = f"{work}/proj"
os.makedirs(f"{proj}/.git/hooks"); os.makedirs(f"{proj}/.cargo")
open(f"{proj}/.cargo/config.toml", "w").write("[build]\n")
for i in range(100):
    os.makedirs(f"{proj}/src", exist_ok=True); open(f"{proj}/src/f{i}.rs", "w").write("x\n")
homes = {n: home(n) for n in (1000, 20000)}
samples = {}
for _ in range(rounds):
    for b in bins:
        for n, h in homes.items():
            env = dict(os.environ, HOME=h, SENTINEL_HOME=f"{h}/.agentos")
            t = time.perf_counter()
            subprocess.run([b, "contain", "--project", proj, "--", "true"], cwd=proj, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            samples.setdefault((b, n), []).append(time.perf_counter() - t)
for (b, n), s in samples.items():
    print(f"{b:45} home {n:6} files  median {statistics.median(s)*1000:7.2f} ms")
