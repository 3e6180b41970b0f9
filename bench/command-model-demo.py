#!/usr/bin/env python3
"""The README's "How Tier 1 decides" outputs: `sentinel check` on decisions the command model
makes, run for real against target/release/sentinel in a scratch project under CM_DIR (default
~/.cache/sentinel-cm; not a temp dir, where sentinel's decisions differ by design), with a home
that holds a credential and a project symlink pointing at it. Build first: cargo build --release."""
import os, shutil, subprocess
S = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "target/release/sentinel")
base = os.environ.get("CM_DIR", os.path.expanduser("~/.cache/sentinel-cm"))
shutil.rmtree(base, ignore_errors=True)
home = f"{base}/home/dev"; proj = f"{home}/proj"
for d in [f"{proj}/src", f"{proj}/.git", f"{home}/.aws", f"{home}/.agentos"]:
    os.makedirs(d)
open(f"{home}/.aws/credentials", "w").write("[default]\n")
os.symlink(f"{home}/.aws/credentials", f"{proj}/notes.txt")
open(f"{proj}/.gitignore", "w").write("dist/\n")
os.makedirs(f"{proj}/dist")
env = dict(os.environ, HOME=home, SENTINEL_HOME=f"{home}/.agentos")
for k in ["ANTHROPIC_API_KEY", "SENTINEL_API_KEY", "CLAUDE_PROJECT_DIR", "ANTHROPIC_BASE_URL"]:
    env.pop(k, None)

for cmd in [
    "git add src/main.rs && git commit -m 'fix: parse flags'",
    "sort --outp=$HOME/.claude/settings.json notes.txt",
    "cat notes.txt",
    "rm -rf dist && rm -rf src",
    "echo '[core] fsmonitor = ./x' >> .git/config",
    "aws s3 rb --force s3://backups",
]:
    p = subprocess.run([S, "check", "--offline", cmd], cwd=proj, env=env, capture_output=True, text=True)
    print(f'$ sentinel check "{cmd}"')
    out = (p.stdout + p.stderr).rstrip().replace(base, "~/.cache/sentinel-cm")
    print(out)
    print()
