#!/usr/bin/env python3
"""The README's "Day to day" outputs: project trust, allow-once, explain and suggest, run for real
against target/release/sentinel, a scratch HOME under D2D_DIR (default ~/.cache/sentinel-d2d; not
a temp dir, where sentinel's decisions differ by design) and a stand-in Messages API on loopback
that allows lint commands and blocks terraform in prod. Build first: cargo build --release."""
import json, os, re, shutil, subprocess, sys
S = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "target/release/sentinel")
base = os.environ.get("D2D_DIR", os.path.expanduser("~/.cache/sentinel-d2d"))
shutil.rmtree(base, ignore_errors=True)
home = f"{base}/home/dev"; proj = f"{home}/proj"
os.makedirs(f"{proj}/.sentinel"); os.makedirs(f"{home}/.agentos")
# The stand-in API is given as SENTINEL_API_URL: honoured only when sentinel.toml trusts it.
open(f"{home}/.agentos/sentinel.toml", "w").write('[env]\ntrust = ["SENTINEL_API_URL"]\n')
env = dict(os.environ, HOME=home, SENTINEL_HOME=f"{home}/.agentos")
for k in ["ANTHROPIC_API_KEY", "SENTINEL_API_KEY", "CLAUDECODE", "ANTHROPIC_BASE_URL"]:
    env.pop(k, None)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin  # noqa: E402

def evaluator(body):
    cmd = json.dumps(body["messages"])
    if "terraform" in cmd and "prod" in cmd:
        return "BLOCK", "applies changes to the production workspace"
    return "ALLOW", "runs the project's linters; read-only apart from caches"

api_url = standin.start(evaluator)

def sh(args, cwd=proj, extra=None, show=None, stdin=None):
    e = dict(env, **(extra or {}))
    p = subprocess.run([S] + args, cwd=cwd, env=e, capture_output=True, text=True, input=stdin)
    disp = show or ("sentinel " + " ".join(f'"{a}"' if " " in a else a for a in args))
    print(f"$ {disp}")
    print((p.stdout + p.stderr).rstrip())
    if p.returncode: print(f"(exit {p.returncode})")
    print()
    return p

def hook(cmd, session="s1", api=False):
    ev = json.dumps({"hook_event_name": "PreToolUse", "session_id": session, "cwd": proj, "tool_name": "Bash", "tool_input": {"command": cmd}})
    extra = {"SENTINEL_API_KEY": "sk-demo", "SENTINEL_API_URL": api_url} if api else {}
    e = dict(env, **extra)
    p = subprocess.run([S, "hook"], cwd=proj, env=e, capture_output=True, text=True, input=ev)
    return json.loads(p.stdout)["hookSpecificOutput"] if p.stdout.strip() else None

open(f"{proj}/.sentinel/safe_commands.txt", "w").write("^just (build|test|lint)( \\S+)*$   # the project's task runner\n")
open(f"{proj}/.sentinel/hard_block_commands.txt", "w").write("^just deploy( |$)   # deploys to production; instead: ask the person to deploy\n")
open(f"{proj}/.sentinel/excluded_paths.txt", "w").write("migrations/applied/   # already run in production\n")

print("=== TRUST ===")
sh(["check", "just test"])
sh(["check", "just deploy"])
sh(["trust"])
sh(["check", "just test"])
with open(f"{proj}/.sentinel/safe_commands.txt", "a") as f: f.write("^curl( \\S+)*$\n")
sh(["check", "--offline", "just test"], show='sentinel check --offline "just test"   # after a pull changed .sentinel/safe_commands.txt')
sh(["trust"])

print("=== ALLOW-ONCE ===")
h = hook("git push --force origin main")
print("$ (the agent proposes) git push --force origin main")
print("permissionDecision:       ", h["permissionDecision"])
print("permissionDecisionReason: ", h["permissionDecisionReason"])
print()
code = re.search(r"allow-once ([A-Z0-9]{6})", h["permissionDecisionReason"]).group(1)
sh(["allow-once", code])
h = hook("git push --force origin main")
print("$ (the agent tries the same call again)")
print("permissionDecision:       ", h["permissionDecision"])
print("permissionDecisionReason: ", h["permissionDecisionReason"])
h = hook("git push --force origin main")
print("$ (and once more)")
print("permissionDecision:       ", h["permissionDecision"])
print()
h = hook("sentinel allow-once " + code)
print(f"$ (the agent proposes) sentinel allow-once {code}")
print("permissionDecision:       ", h["permissionDecision"])
print("permissionDecisionReason: ", h["permissionDecisionReason"])
print()
sh(["allow-once", code], extra={"CLAUDECODE": "1"}, show=f"CLAUDECODE=1 sentinel allow-once {code}   # a renamed copy run from the agent's shell")

print("=== EXPLAIN ===")
sh(["explain", "--offline", "cd src && just lint --fix 2> /tmp/lint.log; rm -rf ../build"])

print("=== SUGGEST ===")
for i in range(4): hook("ruff check --fix src", session=f"a{i%2}", api=True)
for i in range(3): hook("cd src && mypy --strict app.py", session="a2", api=True)
hook("mypy --strict tests", session="a2", api=True)
for i in range(2): hook("terraform apply -var env=prod", session="a3", api=True)
for i in range(2): hook("./scripts/release.sh", session="a3", api=False)
sh(["suggest"])
sh(["suggest", "--apply", "1", "2", "3"])
sh(["check", "--offline", "ruff check --fix src"])
sh(["check", "--offline", "terraform apply -var env=prod"])
sh(["rules", "lint"])
sh(["audit", "tail", "-n", "4"])
