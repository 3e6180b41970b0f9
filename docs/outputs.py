#!/usr/bin/env python3
"""Regenerate every command-output block in README.md and docs/*.md from the binary.

    python3 docs/outputs.py           rewrite the marked blocks in place
    python3 docs/outputs.py --check   exit 1 and print a diff when a block differs from what the
                                      binary prints now (for CI; run after cargo build --release)

SENTINEL_BIN: the binary (default target/release/sentinel). DOCS_DIR: the scratch space (default
~/.cache/sentinel-docs; never a temp dir, where sentinel's decisions differ by design). It is
wiped and rebuilt on every run.

A block is a fenced code block preceded by a marker, an HTML comment (invisible when rendered):

    <!-- output: sentinel check "git status" -->
    ```
    (replaced by "$ sentinel check "git status"", then what it prints, then "(exit N)" if N != 0)
    ```

    <!-- output ctx=config
    printf '[api]\\nmodell = "x"\\n' > ~/.agentos/sentinel.toml
    SENTINEL_SHADOW=1 sentinel config
    -->
    ```
    (one "$ line" and its output per command line, in order)
    ```

    <!-- output-of: bench/day-to-day-demo.py TRUST -->
    ```
    (the section "=== TRUST ===" of that script's output; without a section name, all of it)
    ```

Each command line runs under bash; a line starting with `setup: ` runs without being shown (the
prose around the block says what it set up), and `propose [--api] SESSION "COMMAND"` (a helper
on PATH; `--mode MODE` sets its permission_mode, `--transcript FILE` its transcript) sends the
agent's Bash call to `sentinel hook`, with Tier 2 played by a stand-in on loopback under --api
(it blocks what names prod and allows the rest); `api-request` prints the last request the
stand-in received, the static prompt cut and the canary replaced by a placeholder. Lines run in the project dir of its context, with `sentinel` on PATH
being SENTINEL_BIN. A context is a scratch home: HOME=<ctx>/home/dev, SENTINEL_HOME=~/.agentos
(absent: every rule file falls back to the bundled default), project ~/proj holding .git/, src/,
dist/ (ignored by .gitignore), and no API key. Each named context starts fresh and keeps its
state across the blocks that name it, in file order (README.md, then docs/*.md by name). The
contexts `d2d` and `cm` are the homes bench/day-to-day-demo.py and bench/command-model-demo.py
leave behind; their script runs first. `/home/dev` written in a command means the context's home.

What varies from run to run is fixed in the output, so that --check is deterministic: the
scratch home reads /home/dev, date-times read 2026-11-23 10:00:00, dates 2026-11-23, allow-once
codes are renamed in order of appearance, durations read as `#.#`, backup names carry a fixed
number, and the binary's own path reads /home/dev/.cargo/bin/sentinel.
"""
import difflib, glob, json, os, re, shlex, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(os.path.join(ROOT, os.environ.get("SENTINEL_BIN", "target/release/sentinel")))
BASE = os.path.abspath(os.environ.get("DOCS_DIR") or os.path.expanduser("~/.cache/sentinel-docs"))
DEMOS = {"d2d": ("bench/day-to-day-demo.py", "D2D_DIR"), "cm": ("bench/command-model-demo.py", "CM_DIR"),
         "fm": ("bench/fail-mode-table.py", "FM_DIR")}
SHOWN_HOME = "/home/dev"
CODES = ["G3B36J", "MZAQR9", "74955G", "K2WQ8T", "P5XN3D", "R7HM4C"]
DROP_ENV = ["ANTHROPIC_API_KEY", "SENTINEL_API_KEY", "ANTHROPIC_BASE_URL", "SENTINEL_API_URL",
            "CLAUDECODE", "CLAUDE_PROJECT_DIR", "GEMINI_CLI", "SENTINEL_SHADOW", "SENTINEL_FAIL_MODE",
            "SENTINEL_HOME", "TMPDIR"]
sys.path.insert(0, os.path.join(ROOT, "bench"))
import standin  # noqa: E402

MARKER = re.compile(r"^<!-- (output|output-of)(?: ctx=(\w[\w-]*))?(?:: (.*?))?\s*(-->)?\s*$")


def die(msg):
    sys.exit(f"docs/outputs.py: {msg}")


class Contexts:
    def __init__(self):
        shutil.rmtree(BASE, ignore_errors=True)
        os.makedirs(f"{BASE}/bin")
        os.symlink(BIN, f"{BASE}/bin/sentinel")
        for name, text in (("propose", PROPOSE), ("api-request", API_REQUEST)):
            with open(f"{BASE}/bin/{name}", "w") as f:
                f.write(text)
            os.chmod(f"{BASE}/bin/{name}", 0o755)
        self.homes, self.demo_out = {}, {}
        self.api_url = standin.start(evaluator, log=f"{BASE}/api-requests.jsonl")

    def env(self, home):
        env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
        env.update(HOME=home, SENTINEL_HOME=f"{home}/.agentos", PATH=f"{BASE}/bin:{env.get('PATH', '')}",
                   LC_ALL="C.UTF-8", TZ="UTC", STANDIN_API=self.api_url,
                   DOCS_BASE=BASE)
        return env

    def home(self, ctx):
        if ctx in self.homes:
            return self.homes[ctx]
        if ctx in DEMOS:
            self.demo(ctx)
            home = f"{BASE}/{ctx}/home/dev"
        else:
            home = f"{BASE}/ctx/{ctx}/home/dev"
            for d in ["proj/.git", "proj/src", "proj/dist", ".agentos"]:
                os.makedirs(f"{home}/{d}")
            with open(f"{home}/proj/.gitignore", "w") as f:
                f.write("dist/\n")
        self.homes[ctx] = home
        return home

    def demo(self, ctx):
        """Run a bench demo script against BIN, with its scratch dir under BASE; its output."""
        if ctx in self.demo_out:
            return self.demo_out[ctx]
        script, var = DEMOS[ctx]
        path = os.path.join(ROOT, script)
        if BIN != os.path.join(ROOT, "target/release/sentinel"):
            # The demos run <their repo>/target/release/sentinel: give them a repo whose binary is BIN.
            shadow = f"{BASE}/repo-{ctx}"
            os.makedirs(f"{shadow}/bench"); os.makedirs(f"{shadow}/target/release")
            shutil.copy(path, f"{shadow}/{script}")
            shutil.copy(os.path.join(ROOT, "bench/standin.py"), f"{shadow}/bench/standin.py")
            os.symlink(BIN, f"{shadow}/target/release/sentinel")
            path = f"{shadow}/{script}"
        env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
        env.update({var: f"{BASE}/{ctx}", "LC_ALL": "C.UTF-8", "TZ": "UTC"})
        p = subprocess.run([sys.executable, path], env=env, capture_output=True, text=True, cwd=ROOT)
        if p.returncode:
            die(f"{script} failed (exit {p.returncode}):\n{p.stderr}")
        out = p.stdout.replace("~/.cache/sentinel-cm", f"{BASE}/{ctx}")
        self.demo_out[ctx] = out
        self.homes.setdefault(ctx, f"{BASE}/{ctx}/home/dev")
        return out

    def section(self, script, name):
        ctx = next((c for c, (s, _) in DEMOS.items() if s == script), None)
        if ctx is None:
            die(f"unknown script {script} (known: {', '.join(s for s, _ in DEMOS.values())})")
        out = self.demo(ctx)
        if name:
            parts = re.split(r"^=== (.+) ===$", out, flags=re.M)
            sections = dict(zip(parts[1::2], parts[2::2]))
            if name not in sections:
                die(f"{script} prints no section {name} (it has {', '.join(sections)})")
            out = sections[name]
        return self.normalise(out.strip("\n"), self.homes[ctx])

    def run(self, ctx, lines):
        home = self.home(ctx)
        shown = []
        for line in lines:
            setup = line.startswith("setup: ")
            cmd = line[len("setup: "):] if setup else line
            p = subprocess.run(["bash", "-c", cmd.replace(SHOWN_HOME, home)], cwd=f"{home}/proj",
                               env=self.env(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=60)
            if setup:
                if p.returncode:
                    die(f"setup failed (exit {p.returncode}): {cmd}\n{p.stdout}")
                continue
            shown.append(f"$ {line}")
            if p.stdout.strip():
                shown.append(p.stdout.rstrip())
            if p.returncode:
                shown.append(f"(exit {p.returncode})")
        return self.normalise("\n".join(shown), home)

    @staticmethod
    def normalise(text, home):
        text = text.replace(os.path.realpath(BIN), f"{SHOWN_HOME}/.cargo/bin/sentinel").replace(BIN, f"{SHOWN_HOME}/.cargo/bin/sentinel")
        text = text.replace(home, SHOWN_HOME).replace(BASE, "~/.cache/sentinel-docs")
        text = re.sub(r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\b", "2026-11-23 10:00:00", text)
        text = re.sub(r"\b\d{4}-\d\d-\d\d\b", "2026-11-23", text)
        text = re.sub(r"(sentinel-backup-)\d+", r"\g<1>1795400000000", text)
        # the loopback ports listening where the docs are built: not the reader's
        text = re.sub(r"(,| and) this machine's ports [\d,]+", "", text)
        text = re.sub(r"( --port \d+)+", "", text)
        codes = {}
        def code(m):
            if m.group(2) not in codes:
                codes[m.group(2)] = CODES[len(codes) % len(CODES)]
            return m.group(1) + codes[m.group(2)]
        text = re.sub(r"(allow-once )([A-Z0-9]{6})\b", code, text)
        # a duration keeps the width of its column: "    9.3 ms" and "   10.3 ms" both read "    #.# ms"
        text = re.sub(r"( +)\d+\.\d+ (ms|s)\b", lambda m: f"#.# {m.group(2)}".rjust(len(m.group(0))), text)
        # a duration under a millisecond is shown in µs: the same "#.# ms" in the same width
        text = re.sub(r"( +)\d+ µs(?!\w)", lambda m: "#.# ms".rjust(len(m.group(0))), text)
        return text


def evaluator(body):
    """Tier 2 for lines that set SENTINEL_API_URL=$STANDIN_API: blocks what names prod, allows
    the rest (bench/standin.py echoes the canary and reports 700 input and 50 output tokens).
    Each request body is appended to api-requests.jsonl in the scratch dir, which `api-request`
    prints."""
    if "prod" in json.dumps(body["messages"]):
        return "BLOCK", "applies changes to the production environment"
    return "ALLOW", "runs the project's own checks; read-only apart from caches"


# `propose [--api] [--mode MODE] [--transcript FILE] SESSION COMMAND`: the agent proposes a Bash
# call in the cwd (sentinel hook, as Claude Code runs it), in permission mode MODE, with the
# session transcript FILE; with --api, Tier 2 is the stand-in. Prints the hook's answer, or says
# that there was none.
PROPOSE = """#!/usr/bin/env bash
api=(); mode=""; transcript=""
while [ $# -gt 2 ]; do
  case "$1" in
    --api) api=(SENTINEL_API_KEY=sk-demo); shift
      # Tier 2 points at the stand-in by the person's own setting (a variable would need
      # `[env] trust`, and the hook would name it on every call).
      grep -qs '^\[api\]' "$SENTINEL_HOME/sentinel.toml" ||
        printf '\n[api]\nurl = "%s"\n' "$STANDIN_API" >> "$SENTINEL_HOME/sentinel.toml" ;;
    --mode) mode="$2"; shift 2 ;;
    --transcript) transcript="$2"; shift 2 ;;
    *) break ;;
  esac
done
out=$(python3 -c 'import json, os, sys
e = {"hook_event_name": "PreToolUse", "session_id": sys.argv[1], "cwd": os.getcwd(), "tool_name": "Bash",
     "tool_input": {"command": sys.argv[2]}}
if sys.argv[3]: e["permission_mode"] = sys.argv[3]
if sys.argv[4]: e["transcript_path"] = sys.argv[4]
print(json.dumps(e))' "$1" "$2" "$mode" "$transcript" | env "${api[@]}" sentinel hook)
status=$?
if [ -z "$out" ] && [ $status -eq 0 ]; then echo "(no answer: the agent's own permission flow decides)"; else echo "$out"; fi
exit $status
"""

# `api-request`: the last request the stand-in API received, as sent, one block a line: the
# static prompt cut to its start, the schema to its required keys, and the canary (fresh random
# per call) shown as a placeholder.
API_REQUEST = r"""#!/usr/bin/env python3
import json, os, re
body = json.loads(open(os.path.join(os.environ["DOCS_BASE"], "api-requests.jsonl")).read().splitlines()[-1])
def show(block):
    text = re.sub(r"[0-9a-f]{64}", "<canary: 64 hex, fresh per call>", block["text"])
    if len(text) > 600:
        text = text[:90] + f"… [{len(text) - 90:,} more characters: src/evaluator/prompt.md]"
    return json.dumps({**block, "text": text}, ensure_ascii=False)
schema = body["output_config"]["format"]["schema"]
print("{" + ", ".join(f'"{k}": {json.dumps(body[k])}' for k in ("model", "max_tokens", "temperature")) + ",")
print(' "system": [\n  ' + ",\n  ".join(show(b) for b in body["system"]) + "],")
for m in body["messages"]:
    print(f' "messages": [{{"role": "{m["role"]}", "content": [\n  ' + ",\n  ".join(show(b) for b in m["content"]) + "]}],")
print(f' "output_config": {{"format": {{"type": "json_schema", "schema": {{… required: {json.dumps(schema["required"])}}}}}}}}}')
"""


def render(path, text, ctxs):
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            out.append(lines[i]); i += 1
            continue
        kind, ctx, arg, closed = m.groups()
        out.append(lines[i]); i += 1
        body = [arg] if arg else []
        if not closed:
            while i < len(lines) and lines[i].strip() != "-->":
                out.append(lines[i]); body.append(lines[i]); i += 1
            if i == len(lines):
                die(f"{path}: a marker is not closed with -->")
            out.append(lines[i]); i += 1
        body = [b for b in body if b.strip()]
        if not body:
            die(f"{path}:{i}: a marker without a command")
        if i >= len(lines) or not lines[i].startswith("```"):
            die(f"{path}:{i + 1}: a marker must be followed by a fenced block")
        out.append(lines[i]); i += 1
        while i < len(lines) and lines[i] != "```":
            i += 1
        if i == len(lines):
            die(f"{path}: an unclosed fenced block")
        if kind == "output-of":
            words = shlex.split(body[0])
            out.append(ctxs.section(words[0], words[1] if len(words) > 1 else None))
        else:
            out.append(ctxs.run(ctx or "docs", body))
        out.append(lines[i]); i += 1
    return "\n".join(out)


def main():
    if any(a != "--check" for a in sys.argv[1:]):
        print(__doc__)
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    check = "--check" in sys.argv[1:]
    if not os.access(BIN, os.X_OK):
        die(f"no binary at {BIN} (cargo build --release, or set SENTINEL_BIN)")
    ctxs = Contexts()
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    stale = 0
    for path in files:
        old = open(path).read()
        new = render(os.path.relpath(path, ROOT), old, ctxs)
        if new == old:
            continue
        rel = os.path.relpath(path, ROOT)
        if check:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                       f"{rel} (in the repo)", f"{rel} (what the binary prints)"))
        else:
            with open(path, "w") as f:
                f.write(new)
            print(f"rewrote {rel}")
    shutil.rmtree(BASE, ignore_errors=True)
    if stale:
        print(f"\n{stale} file(s) have outputs that differ from the binary: run python3 docs/outputs.py")
        sys.exit(1)


if __name__ == "__main__":
    main()
