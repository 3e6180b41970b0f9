#!/usr/bin/env python3
"""Many hooks at once, some killed: every answer right, and the stats and the audit exact.

Runs `sentinel hook` WAYS-way concurrently (default 16 and 64) on a mix of events whose answers
are known (allow, deny, ask, a Write), in a scratch home under the target dir (never /tmp, never
the real home), and checks: every answer is the expected one; the audit chain verifies; the
stats journal and the audit hold exactly one record per answered call. Then a crash run: hooks (half
of them with the judge they forked) SIGKILLed at random moments among others that run on; the chain verifies or names the crash,
and a later decision brings stats and audit back into agreement.

    python3 bench/load_exact.py [CALLS_PER_WAY]     (default 9600: 19,200 calls in all)
"""
import concurrent.futures as cf, json, os, random, shutil, signal, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sentinel = os.environ.get("SENTINEL_BIN", os.path.join(root, "target/release/sentinel"))
calls = int(sys.argv[1]) if len(sys.argv) > 1 else 9600
scratch_base = os.path.join(root, "target", "load-exact")
os.makedirs(scratch_base, exist_ok=True)


def event(session, tool, tool_input, project):
    return json.dumps({"session_id": session, "cwd": project, "hook_event_name": "PreToolUse",
                       "permission_mode": "bypassPermissions", "tool_name": tool,
                       "tool_input": tool_input}).encode()


def cases(project):
    return [
        ("Bash", {"command": "git status && cargo test"}, "allow"),
        ("Bash", {"command": "ls; rm -rf ~"}, "deny"),
        ("Bash", {"command": "git push --force origin main"}, "deny"),
        ("Bash", {"command": "frobnicate --check"}, "ask"),
        ("Write", {"file_path": os.path.join(project, "src/a.rs"), "content": "fn a() {}\n"}, "allow"),
    ]


def world():
    base = tempfile.mkdtemp(prefix="w", dir=scratch_base)
    home = os.path.join(base, "home")
    project = os.path.join(home, "proj")
    os.makedirs(os.path.join(project, "src"))
    os.makedirs(os.path.join(base, "sentinel-home"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SENTINEL_", "ANTHROPIC_", "CLAUDE"))}
    env.update(HOME=home, SENTINEL_HOME=os.path.join(base, "sentinel-home"), SENTINEL_NO_TTY="1")
    return base, project, env


def hook(env, body):
    p = subprocess.run([sentinel, "hook"], input=body, capture_output=True, env=env)
    if p.returncode != 0:
        return f"exit {p.returncode}: {p.stderr.decode(errors='replace').strip()}"
    return json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"]


def count_lines(path):
    total = 0
    for name in os.listdir(os.path.dirname(path)):
        if name.startswith(os.path.basename(path)):
            with open(os.path.join(os.path.dirname(path), name), "rb") as f:
                total += sum(1 for _ in f)
    return total


def journals(env):
    home = env["SENTINEL_HOME"]
    stats = audit = 0
    for dirpath, _, files in os.walk(home):
        for f in files:
            p = os.path.join(dirpath, f)
            if f.startswith("stats") and ".jsonl" in f:
                stats += sum(1 for _ in open(p, "rb"))
            elif f.startswith("audit") and ".jsonl" in f:
                audit += sum(1 for _ in open(p, "rb"))
    return stats, audit


def verify(env):
    p = subprocess.run([sentinel, "audit", "verify"], capture_output=True, env=env)
    return p.returncode, (p.stdout + p.stderr).decode(errors="replace").strip().splitlines()[-1:]


def load_run(ways):
    base, project, env = world()
    todo = [(f"s{i % ways}", *random.choice(cases(project))) for i in range(calls)]
    wrong = []
    start = time.time()
    with cf.ThreadPoolExecutor(ways) as pool:
        for (session, tool, inp, want), got in zip(
                todo, pool.map(lambda t: hook(env, event(t[0], t[1], t[2], project)), todo)):
            if got != want:
                wrong.append((tool, inp, want, got))
    took = time.time() - start
    stats, audit = journals(env)
    rc, last = verify(env)
    right = calls - len(wrong)
    print(f"{ways}-way: {right} of {calls} answers right in {took:.0f} s; "
          f"stats lines {stats}, audit records {audit}; audit verify exit {rc} {last}")
    for w in wrong[:5]:
        print("   wrong:", w)
    shutil.rmtree(base)
    return right == calls and stats == calls and audit == calls and rc == 0


def crash_run(ways, kills):
    base, project, env = world()
    done = killed = 0
    procs = []
    for i in range(calls // 4):
        tool, inp, _ = random.choice(cases(project))
        p = subprocess.Popen([sentinel, "hook"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        p.stdin.write(event(f"s{i % ways}", tool, inp, project))
        p.stdin.close()
        procs.append(p)
        if len(procs) >= ways:
            victim = procs.pop(0)
            if killed < kills and random.random() < 0.5:
                time.sleep(random.random() * 0.004)
                # The hook alone, or with the judge it forked (as a memory-limit kill does).
                try:
                    if killed % 2:
                        os.killpg(victim.pid, signal.SIGKILL)
                    else:
                        victim.send_signal(signal.SIGKILL)
                except ProcessLookupError:
                    pass
                killed += 1
            victim.wait()
            done += 1
    for p in procs:
        p.wait()
    # A later decision brings stats and audit back into agreement.
    hook(env, event("after", *cases(project)[0][:2], project))
    stats, audit = journals(env)
    rc, last = verify(env)
    print(f"crash run, {ways}-way: {calls // 4} hooks, {killed} SIGKILLed at random moments (half with their judge); "
          f"stats lines {stats}, audit records {audit}; audit verify exit {rc} {last}")
    shutil.rmtree(base)
    return stats == audit and rc == 0


if __name__ == "__main__":
    ok = all([load_run(16), load_run(64), crash_run(16, 200)])
    sys.exit(0 if ok else 1)
