#!/usr/bin/env python3
"""Containment compatibility: do real test suites give the same result under `sentinel contain`?

For each project of projects.toml: fetch it with its ecosystem's ordinary client, prepare it
(install deps, build: uncontained, with the network), snapshot the prepared tree, then run its test
command twice from a fresh copy of the snapshot: uncontained, and as

    $SENTINEL contain --project WORKDIR -- sh -c 'TESTCMD'

Both runs get the same environment: HOME is a scratch home under /work/scratch-compat/home whose
tool caches the preparation filled; nothing here reads or writes the real home (the toolchains are
run from their install dirs, not through rustup/pyenv shims). Compared: exit status and the runner's
pass/fail counts. Writes results.json beside this file and prints a table; --doc writes
docs/containment-compat.md from results.json and breaks.toml.

    run.py [--only NAME[,NAME]] [--skip-fetch] [--skip-prepare] [--uncontained-only]
           [--contained-only] [--doc]

This is a benchmark, not a test: each run is bounded by a timeout, nothing fails the build.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCR = os.environ.get("COMPAT_SCRATCH", "/work/scratch-compat")
HOME_S = os.path.join(SCR, "home")
DL = os.path.join(SCR, "dl")
WORK = os.path.join(SCR, "work")
SNAP = os.path.join(SCR, "prepared")
LOGS = os.path.join(SCR, "logs")
APT = os.path.join(SCR, "apt")
RESULTS = os.path.join(HERE, "results.json")
DOC = os.path.join(REPO, "docs", "containment-compat.md")
SENTINEL = os.environ.get("SENTINEL", "/work/main/target/release/sentinel")
PY = os.environ.get("COMPAT_PYTHON", "/root/.pyenv/versions/3.11.7/bin/python3")

# Passed through from the caller's environment: certificates and the pip settings of this machine.
PASS_ENV = re.compile(r"^(PIP_[A-Z_]+|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|"
                      r"NODE_EXTRA_CA_CERTS|GIT_SSL_CAINFO|RUSTUP_AUTO_INSTALL)$")


def toolchain_bin():
    """The default rust toolchain's bin dir, so cargo runs without rustup's proxy (which would
    look for ~/.rustup in the scratch home)."""
    rh = os.environ.get("RUSTUP_HOME", "/root/.rustup")
    try:
        out = subprocess.run(["rustup", "default"], capture_output=True, text=True).stdout
        name = out.split()[0]
        p = os.path.join(rh, "toolchains", name, "bin")
        if os.path.isdir(p):
            return p
    except Exception:
        pass
    cands = sorted(glob.glob(os.path.join(rh, "toolchains", "*", "bin")))
    return cands[0] if cands else "/root/.cargo/bin"


def base_env(workdir):
    env = {k: v for k, v in os.environ.items() if PASS_ENV.match(k)}
    env.update({
        "HOME": HOME_S,
        "PATH": f"{toolchain_bin()}:/usr/local/bin:/usr/bin:/bin",
        "CARGO_HOME": os.path.join(HOME_S, ".cargo"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "USER": "root",
        "LOGNAME": "root",
        "SHELL": "/bin/sh",
        "PY": PY,
        "WORK": workdir,
    })
    return env


def sh(cmd, cwd, env, timeout=None, log=None):
    """Run a shell command in its own process group; return (rc, out, err, seconds)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd if isinstance(cmd, list) else ["sh", "-c", cmd], cwd=cwd, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        rc = "timeout"
    dt = time.monotonic() - t0
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")
    if log:
        with open(log, "w") as f:
            f.write(f"$ {cmd}\n# cwd {cwd}\n# rc {rc} in {dt:.1f}s\n--- stdout\n{out}\n--- stderr\n{err}\n")
    return rc, out, err, dt


# ------------------------------------------------------------------------------------ fetching

def ensure_apt(env):
    """A scratch apt state with deb-src lines for the machine's own Debian mirror; the system's
    apt configuration is left as it is."""
    conf = os.path.join(APT, "apt.conf")
    parts = os.path.join(APT, "parts")
    lists = os.path.join(APT, "lists")
    if not os.path.exists(conf):
        for d in (parts, os.path.join(lists, "partial"), os.path.join(APT, "archives", "partial"),
                  os.path.join(APT, "cache")):
            os.makedirs(d, exist_ok=True)
        src = open("/etc/apt/sources.list.d/debian.sources").read()
        src = re.sub(r"(?m)^Types:\s*deb\s*$", "Types: deb-src", src)
        open(os.path.join(parts, "src.sources"), "w").write(src)
        open(conf, "w").write(
            f'Dir::Etc::sourcelist "/dev/null";\nDir::Etc::sourceparts "{parts}";\n'
            f'Dir::State::lists "{lists}";\nDir::Cache::archives "{APT}/archives";\n'
            f'Dir::Cache "{APT}/cache";\n')
    if not glob.glob(os.path.join(lists, "*Sources*")):
        e = dict(env, APT_CONFIG=conf)
        rc, out, err, _ = sh("apt-get update", APT, e, timeout=600)
        if rc != 0:
            raise RuntimeError("apt-get update (deb-src) failed: " + err[-500:])
    return conf


def unpack(archive, dest):
    with tarfile.open(archive) as t:
        t.extractall(dest, filter="tar" if hasattr(tarfile, "data_filter") else None)


def single_dir(d):
    subs = [x for x in os.listdir(d) if os.path.isdir(os.path.join(d, x))]
    if len(subs) != 1:
        raise RuntimeError(f"expected one directory in {d}, found {subs}")
    return os.path.join(d, subs[0])


def fetch(p, env):
    """Fetch p into DL/NAME and lay the unpacked tree at WORK/NAME (replacing it)."""
    name, eco, spec = p["name"], p["ecosystem"], p["fetch"]
    dl = os.path.join(DL, name)
    shutil.rmtree(dl, ignore_errors=True)
    os.makedirs(dl)
    log = os.path.join(LOGS, f"{name}.fetch.log")
    un = os.path.join(dl, "unpacked")
    os.makedirs(un)
    if eco == "pypi":
        rc, out, err, _ = sh(["pip", "download", "--no-binary", ":all:", "--no-deps", "-d", dl, spec],
                             dl, dict(env, PATH=os.path.dirname(PY) + ":" + env["PATH"]),
                             timeout=600, log=log)
        if rc != 0:
            raise RuntimeError(f"pip download: {err[-400:]}")
        arch = [f for f in os.listdir(dl) if f.endswith((".tar.gz", ".zip", ".tgz"))]
        if arch[0].endswith(".zip"):
            import zipfile
            zipfile.ZipFile(os.path.join(dl, arch[0])).extractall(un)
        else:
            unpack(os.path.join(dl, arch[0]), un)
        top = single_dir(un)
    elif eco == "npm":
        rc, out, err, _ = sh(["npm", "pack", spec, "--pack-destination", dl], dl, env, timeout=600, log=log)
        if rc != 0:
            raise RuntimeError(f"npm pack: {err[-400:]}")
        arch = [f for f in os.listdir(dl) if f.endswith(".tgz")]
        unpack(os.path.join(dl, arch[0]), un)
        top = single_dir(un)
    elif eco == "crates":
        crate, ver = spec.split("@")
        fx = os.path.join(dl, "fetcher")
        os.makedirs(os.path.join(fx, "src"))
        open(os.path.join(fx, "Cargo.toml"), "w").write(
            f'[package]\nname = "compat-fetcher"\nversion = "0.0.0"\nedition = "2021"\n\n'
            f'[dependencies]\n{crate} = "={ver}"\n')
        open(os.path.join(fx, "src", "lib.rs"), "w").write("")
        rc, out, err, _ = sh("cargo fetch", fx, env, timeout=600, log=log)
        if rc != 0:
            raise RuntimeError(f"cargo fetch: {err[-400:]}")
        cr = glob.glob(os.path.join(env["CARGO_HOME"], "registry", "cache", "*", f"{crate}-{ver}.crate"))
        if not cr:
            raise RuntimeError(f"{crate}-{ver}.crate not in the registry cache")
        unpack(cr[0], un)
        top = single_dir(un)
    elif eco.startswith("debian"):
        conf = ensure_apt(env)
        for attempt in range(4):  # the mirror answers 404 for a while for files it has not cached yet
            shutil.rmtree(un)
            os.makedirs(un)
            rc, out, err, _ = sh(["apt-get", "source", spec], un, dict(env, APT_CONFIG=conf),
                                 timeout=600, log=log)
            if rc == 0 or "404" not in err:
                break
            time.sleep(30)
        if rc != 0:
            raise RuntimeError(f"apt-get source: {err[-400:]}")
        top = single_dir(un)
    else:
        raise RuntimeError(f"unknown ecosystem {eco}")
    dest = os.path.join(WORK, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(WORK, exist_ok=True)
    shutil.move(top, dest)
    # Unpacking as root keeps the archive's owners (uid 1001, 1000 …): a person's checkout is theirs,
    # so the tree is given to whoever runs this (see breaks.toml: foreign-owner)
    if not os.environ.get("COMPAT_KEEP_OWNERS"):
        subprocess.run(["chown", "-R", f"{os.getuid()}:{os.getgid()}", dest], check=True)
    return dest


def projdir(p):
    d = os.path.join(WORK, p["name"])
    return os.path.join(d, p["subdir"]) if p.get("subdir") else d


def prepare(p, env):
    d = projdir(p)
    rc, out, err, dt = sh(p["prepare"], d, env, timeout=p.get("prepare_timeout", 1800),
                          log=os.path.join(LOGS, f"{p['name']}.prepare.log"))
    if rc != 0:
        raise RuntimeError(f"prepare exited {rc}: {(out + err)[-600:]}")
    snap = os.path.join(SNAP, p["name"])
    shutil.rmtree(snap, ignore_errors=True)
    os.makedirs(SNAP, exist_ok=True)
    subprocess.run(["cp", "-a", os.path.join(WORK, p["name"]), snap], check=True)
    return dt


def restore(p):
    """A fresh copy of the prepared tree at the same path (venvs and build trees hold absolute
    paths), times kept, so a run starts where preparation left off."""
    snap = os.path.join(SNAP, p["name"])
    if not os.path.isdir(snap):
        raise RuntimeError("not prepared (run without --skip-prepare)")
    dest = os.path.join(WORK, p["name"])
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["cp", "-a", snap, dest], check=True)


# ------------------------------------------------------------------------------------ counting

def _sum(pat, text, group=1):
    return sum(int(m.group(group)) for m in re.finditer(pat, text, re.M))


def count(parser, out, err):
    """The runner's own counts: {'passed', 'failed', 'skipped'} (None where it says nothing)."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out + "\n" + err)
    c = {"passed": None, "failed": None, "skipped": None}
    if parser == "pytest":
        lines = [l for l in text.splitlines() if re.search(r"\d+ (passed|failed|error)", l)]
        if lines:
            l = lines[-1]
            g = lambda w: int(m.group(1)) if (m := re.search(rf"(\d+) {w}", l)) else 0
            c = {"passed": g("passed"), "failed": g("failed") + g(r"errors?"), "skipped": g("skipped")}
    elif parser == "unittest":
        m = re.findall(r"^Ran (\d+) tests?", text, re.M)
        if m:
            ran = int(m[-1])
            f = re.findall(r"^FAILED \((.*)\)", text, re.M)
            fails = _sum(r"(?:failures|errors)=(\d+)", f[-1]) if f else 0
            sk = re.findall(r"skipped=(\d+)", text)
            skipped = int(sk[-1]) if sk else 0
            c = {"passed": ran - fails - skipped, "failed": fails, "skipped": skipped}
    elif parser == "tape":
        p = re.findall(r"^# pass\s+(\d+)", text, re.M)
        f = re.findall(r"^# fail\s+(\d+)", text, re.M)
        s = re.findall(r"^# skip\s+(\d+)", text, re.M)
        if p or f:
            c = {"passed": int(p[-1]) if p else 0, "failed": int(f[-1]) if f else 0,
                 "skipped": int(s[-1]) if s else 0}
    elif parser == "mocha":
        p = re.findall(r"^\s*(\d+) passing", text, re.M)
        f = re.findall(r"^\s*(\d+) failing", text, re.M)
        s = re.findall(r"^\s*(\d+) pending", text, re.M)
        if p or f:
            c = {"passed": int(p[-1]) if p else 0, "failed": int(f[-1]) if f else 0,
                 "skipped": int(s[-1]) if s else 0}
    elif parser == "cargo":
        if "test result:" in text:
            c = {"passed": _sum(r"test result: \w+\. (\d+) passed", text),
                 "failed": _sum(r"; (\d+) failed", text),
                 "skipped": _sum(r"; (\d+) ignored", text)}
    elif parser == "tap":
        ok = re.findall(r"^ok \d+(.*)$", text, re.M)
        nok = re.findall(r"^not ok \d+(.*)$", text, re.M)
        if ok or nok:
            sk = [x for x in ok if re.search(r"#\s*skip", x, re.I)]
            c = {"passed": len(ok) - len(sk), "failed": len(nok), "skipped": len(sk)}
    elif parser == "prove":
        m = re.findall(r"^Files=(\d+), Tests=(\d+)", text, re.M)
        if m:
            total = int(m[-1][1])
            failed = _sum(r"Failed (\d+)/\d+ subtests", text)
            skipped = _sum(r"skipped: .*?(\d+)/\d+", text) if False else 0
            c = {"passed": total - failed, "failed": failed, "skipped": skipped}
    elif parser == "automake":
        if re.search(r"^# TOTAL:", text, re.M):
            g = lambda w: _sum(rf"^# {w}:\s+(\d+)", text)
            c = {"passed": g("PASS") + g("XFAIL"), "failed": g("FAIL") + g("XPASS") + g("ERROR"),
                 "skipped": g("SKIP")}
        else:  # an old-style `make check` of plain programs
            p = len(re.findall(r"^PASS: ", text, re.M))
            f = len(re.findall(r"^FAIL: ", text, re.M))
            if p or f:
                c = {"passed": p, "failed": f, "skipped": len(re.findall(r"^SKIP: ", text, re.M))}
    elif parser == "nodeunit":
        ok = re.findall(r"^OK: (\d+) assertions", text, re.M)
        bad = re.findall(r"^FAILURES: (\d+)/(\d+) assertions failed", text, re.M)
        if ok:
            c = {"passed": int(ok[-1]), "failed": 0, "skipped": 0}
        elif bad:
            c = {"passed": int(bad[-1][1]) - int(bad[-1][0]), "failed": int(bad[-1][0]), "skipped": 0}
    elif parser == "tcllib":
        m = re.search(r"^Passed\s+(\d+) of\s+(\d+)", text, re.M)
        if m:
            c = {"passed": int(m.group(1)), "failed": _sum(r"^Failed\s+(\d+) of", text),
                 "skipped": _sum(r"^Skipped\s+(\d+) of", text)}
    elif parser == "zlib":
        p = len(re.findall(r"\*\*\* .* test OK \*\*\*", text))
        f = len(re.findall(r"\*\*\* .* test FAILED \*\*\*", text))
        if p or f:
            c = {"passed": p, "failed": f, "skipped": 0}
    elif parser == "shunit2":
        ran = re.findall(r"^Ran (\d+) tests?\.", text, re.M)
        if ran:
            fails = _sum(r"^FAILED \((?:failures|failures=)(\d+)", text)
            fails = _sum(r"failures=(\d+)", text)
            sk = _sum(r"skipped=(\d+)", text)
            c = {"passed": sum(map(int, ran)) - fails - sk, "failed": fails, "skipped": sk}
    return c


def tail(s, n=25):
    return "\n".join(s.rstrip().splitlines()[-n:])


def run_one(p, env, contained):
    restore(p)
    d = projdir(p)
    if contained:
        cmd = [SENTINEL, "contain", "--project", d]
        for port in p.get("ports", []):
            cmd += ["--port", str(port)]
        cmd += ["--", "sh", "-c", p["test"]]
    else:
        cmd = ["sh", "-c", p["test"]]
    which = "contained" if contained else "uncontained"
    rc, out, err, dt = sh(cmd, d, env, timeout=p.get("timeout", 900),
                          log=os.path.join(LOGS, f"{p['name']}.{which}.log"))
    return {"exit": rc, "counts": count(p["parser"], out, err), "seconds": round(dt, 1),
            "stderr_tail": tail(err), "stdout_tail": tail(out)}


def same(a, b):
    if not a or not b:
        return None
    return a["exit"] == b["exit"] and (a["counts"]["passed"], a["counts"]["failed"]) == \
        (b["counts"]["passed"], b["counts"]["failed"])


# ------------------------------------------------------------------------------------ reporting

def fmt_counts(c):
    if not c or c["passed"] is None:
        return "-"
    s = f"{c['passed']}/{c['failed']}"
    if c.get("skipped"):
        s += f" ({c['skipped']}s)"
    return s


def table_rows(results, projects):
    rows = []
    for p in projects:
        r = results.get(p["name"])
        if not r:
            continue
        u, k = r.get("uncontained"), r.get("contained")
        verdict = {True: "same", False: "DIFF", None: "-"}[same(u, k)]
        rows.append([p["name"], p["ecosystem"],
                     str(u["exit"]) if u else "-", fmt_counts(u and u["counts"]),
                     f"{u['seconds']}" if u else "-",
                     str(k["exit"]) if k else "-", fmt_counts(k and k["counts"]),
                     f"{k['seconds']}" if k else "-", verdict, r.get("break", "")])
    return rows


HEAD = ["project", "ecosystem", "exit", "pass/fail", "s", "exit (contained)", "pass/fail (contained)",
        "s (contained)", "result", "break class"]


def print_table(results, projects):
    rows = table_rows(results, projects)
    w = [max(len(str(x)) for x in col) for col in zip(HEAD, *rows)] if rows else []
    for r in [HEAD] + rows:
        print("  ".join(str(x).ljust(n) for x, n in zip(r, w)))
    s = summary(results, projects)
    print(f"\n{s['same']}/{s['compared']} same ({s['share']}); uncontained pass: "
          f"{s['unc_ok']}/{s['unc_total']}")


def summary(results, projects):
    comp = [same(results[p["name"]].get("uncontained"), results[p["name"]].get("contained"))
            for p in projects if p["name"] in results]
    comp = [c for c in comp if c is not None]
    unc = [results[p["name"]].get("uncontained") for p in projects if p["name"] in results]
    unc = [u for u in unc if u]
    n_same = sum(1 for c in comp if c)
    return {"compared": len(comp), "same": n_same,
            "share": f"{100.0 * n_same / len(comp):.1f}%" if comp else "n/a",
            "unc_total": len(unc), "unc_ok": sum(1 for u in unc if u["exit"] == 0)}


def write_doc(results, projects, meta):
    breaks = tomllib.load(open(os.path.join(HERE, "breaks.toml"), "rb")) \
        if os.path.exists(os.path.join(HERE, "breaks.toml")) else {"class": []}
    s = summary(results, projects)
    L = []
    L.append("# Containment compatibility: real test suites under `sentinel contain`\n")
    L.append("Generated by `bench/contain-compat/run.py --doc` from `bench/contain-compat/results.json`; "
             "do not edit by hand. The corpus is `bench/contain-compat/projects.toml`, the break "
             "classes `bench/contain-compat/breaks.toml`.\n")
    L.append("## What was measured\n")
    L.append("Each project is fetched from its ecosystem's registry with the ordinary client (PyPI "
             "sdists with their tests, npm tarballs, crates, Debian source packages), prepared "
             "uncontained with the network (dependencies installed, built), and snapshotted. Its test "
             "command then runs twice from a fresh copy of the snapshot: uncontained, and as "
             "`sentinel contain --project WORKDIR -- sh -c 'TESTCMD'`. Both runs have the same "
             "environment: a scratch HOME whose tool caches (~/.cache/pip, ~/.npm, ~/.cargo) the "
             "preparation filled, toolchains run from their install dirs. A project gives *the same "
             "result* when the exit status and the runner's own pass and fail counts are equal.\n")
    L.append(f"- run: {meta.get('when', '?')}; sentinel: `{meta.get('sentinel', '?')}`; "
             f"kernel {meta.get('kernel', '?')}\n")
    L.append("## Result\n")
    L.append(f"**{s['same']} of {s['compared']} projects give the same result contained "
             f"({s['share']})**; the issue asks for at least 95%. "
             f"{s['unc_ok']} of {s['unc_total']} pass uncontained.\n")
    ecos = {}
    for p in projects:
        r = results.get(p["name"], {})
        sm = same(r.get("uncontained"), r.get("contained"))
        if sm is None:
            continue
        e = ecos.setdefault(p["ecosystem"], [0, 0])
        e[1] += 1
        e[0] += bool(sm)
    if ecos:
        L.append("| ecosystem | same | projects |\n| --- | --- | --- |")
        for e, (a, b) in ecos.items():
            L.append(f"| {e} | {a} | {b} |")
        L.append("")
    L.append("## Table\n")
    L.append("pass/fail is the runner's count of passed and failed tests (skipped in brackets); "
             "s is the wall time in seconds (2 shared cores).\n")
    L.append("| " + " | ".join(HEAD) + " |")
    L.append("|" + " --- |" * len(HEAD))
    for r in table_rows(results, projects):
        L.append("| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |")
    L.append("")
    L.append("## Break classes\n")
    used = {results[p["name"]].get("break") for p in projects if p["name"] in results}
    any_cls = False
    for c in breaks.get("class", []):
        members = [p["name"] for p in projects if results.get(p["name"], {}).get("break") == c["id"]]
        if not members and not c.get("always"):
            continue
        any_cls = True
        L.append(f"### {c['id']}: {c['title']}\n")
        if members:
            L.append(f"Projects: {', '.join(members)}.\n")
        L.append(f"**Cause.** {c['cause'].strip()}\n")
        if c.get("evidence"):
            L.append(f"**Evidence.** {c['evidence'].strip()}\n")
        L.append(f"**What the person can do.** {c['remedy'].strip()}\n")
    if not any_cls:
        L.append("No project broke.\n")
    diffs = [p["name"] for p in projects
             if same(results.get(p["name"], {}).get("uncontained"),
                     results.get(p["name"], {}).get("contained")) is False]
    if diffs:
        L.append("## The differences, as the runs ended\n")
        for n in diffs:
            k = results[n]["contained"]
            L.append(f"### {n}\n")
            L.append(f"contained exit {k['exit']}, counts {fmt_counts(k['counts'])}; stderr tail:\n")
            L.append("```\n" + (k["stderr_tail"] or k["stdout_tail"])[-3000:] + "\n```\n")
    if breaks.get("notes"):
        L.append("## Notes\n")
        for n in breaks["notes"]:
            L.append(f"- {n.strip()}")
        L.append("")
    L.append("## Reproduce\n")
    L.append("```\ncargo build --release            # in the repo\n"
             "SENTINEL=$PWD/target/release/sentinel python3 bench/contain-compat/run.py\n"
             "python3 bench/contain-compat/run.py --doc\n```\n")
    L.append("Work dirs, downloads and logs are under /work/scratch-compat (set COMPAT_SCRATCH to move "
             "it; not under the temp dir, which the fence treats as scratch). Each run's full output "
             "is in its `logs/NAME.{uncontained,contained}.log`.\n")
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    open(DOC, "w").write("\n".join(L))
    print(f"wrote {DOC}")


# ------------------------------------------------------------------------------------ main

def main():
    global SENTINEL
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated project names")
    ap.add_argument("--skip-fetch", action="store_true", help="use what an earlier run fetched")
    ap.add_argument("--skip-prepare", action="store_true", help="use the prepared snapshot")
    ap.add_argument("--uncontained-only", action="store_true")
    ap.add_argument("--contained-only", action="store_true")
    ap.add_argument("--doc", action="store_true", help="write docs/containment-compat.md from results.json")
    a = ap.parse_args()

    data = tomllib.load(open(os.path.join(HERE, "projects.toml"), "rb"))
    projects = data["project"]
    results = json.load(open(RESULTS)) if os.path.exists(RESULTS) else {"meta": {}, "projects": {}}
    assignments = {p["name"]: p.get("break", "") for p in projects}
    for n in [n for n in results["projects"] if n not in assignments]:  # left the corpus
        del results["projects"][n]
    for n, r in results["projects"].items():
        if n in assignments:
            r["break"] = assignments[n]
    if a.doc:
        write_doc(results["projects"], projects, results["meta"])
        return
    if a.only:
        names = a.only.split(",")
        unknown = set(names) - {p["name"] for p in projects}
        if unknown:
            sys.exit(f"unknown project(s): {', '.join(sorted(unknown))}")
        projects_run = [p for p in projects if p["name"] in names]
    else:
        projects_run = projects
    contained = not a.uncontained_only
    if contained:
        ok = subprocess.run([SENTINEL, "contain", "--help"], capture_output=True).returncode == 0
        if not ok:
            sys.exit(f"{SENTINEL} has no `contain` subcommand (use --uncontained-only)")
    for d in (HOME_S, DL, WORK, SNAP, LOGS):
        os.makedirs(d, exist_ok=True)
    for d in (".cache", ".npm", ".cargo"):
        os.makedirs(os.path.join(HOME_S, d), exist_ok=True)
    if contained:
        # a copy, so a rebuild of the repo's binary during the run does not change what is measured
        os.makedirs(os.path.join(SCR, "bin"), exist_ok=True)
        pinned = os.path.join(SCR, "bin", "sentinel")
        shutil.copy2(SENTINEL, pinned)
        v = subprocess.run([pinned, "--version"], capture_output=True, text=True).stdout.strip()
        src = os.path.dirname(os.path.realpath(SENTINEL))
        rev = subprocess.run(["git", "-C", src, "log", "-1", "--format=%h"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        built = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(SENTINEL)))
        results["meta"]["sentinel"] = (f"{v}, binary of {built}" +
                                       (f", repo at {rev}" + (" with uncommitted changes" if dirty else "")
                                        if rev else ""))
        SENTINEL = pinned
    results["meta"]["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results["meta"]["kernel"] = os.uname().release

    for p in projects_run:
        name = p["name"]
        env = base_env(projdir(p))
        r = results["projects"].setdefault(name, {})
        r["ecosystem"] = p["ecosystem"]
        r["break"] = p.get("break", "")
        try:
            if not a.skip_fetch and not a.skip_prepare:
                print(f"[{name}] fetch", flush=True)
                fetch(p, env)
            if not a.skip_prepare:
                print(f"[{name}] prepare", flush=True)
                r["prepare_seconds"] = round(prepare(p, env), 1)
            r.pop("error", None)
            if not a.contained_only:
                print(f"[{name}] test (uncontained)", flush=True)
                r["uncontained"] = run_one(p, env, False)
                print(f"[{name}]   exit {r['uncontained']['exit']} {fmt_counts(r['uncontained']['counts'])}"
                      f" {r['uncontained']['seconds']}s", flush=True)
            if contained:
                print(f"[{name}] test (contained)", flush=True)
                r["contained"] = run_one(p, env, True)
                print(f"[{name}]   exit {r['contained']['exit']} {fmt_counts(r['contained']['counts'])}"
                      f" {r['contained']['seconds']}s", flush=True)
        except Exception as e:  # a benchmark: record and go on
            r["error"] = str(e)[-1000:]
            print(f"[{name}] ERROR {e}", flush=True)
        json.dump(results, open(RESULTS, "w"), indent=1, sort_keys=True)
    print()
    print_table(results["projects"], projects)
    errs = {n: r["error"] for n, r in results["projects"].items() if r.get("error")}
    for n, e in errs.items():
        print(f"error {n}: {e[-300:]}")


if __name__ == "__main__":
    main()
