#!/usr/bin/env python3
"""End to end: the installers against a release served from 127.0.0.1.

Serves the Linux x86_64 archive that release/build-linux.sh built (and its SHA-256 as
SHA256SUMS) the way the forge serves a release (URL/vVERSION/FILE), then, each in a scratch HOME
with a scratch prefix:

  prebuilt      install/install.sh from a fresh clone installs the served binary byte for byte,
                registers the hook, and the installed hook denies `rm -rf ~`;
  tampered      the archive replaced by one whose binary is a script (it would pass the version
                check): refused with one error line naming the SHA-256, nothing installed or
                registered, nothing of it run, no build started;
  standalone    install/sentinel-install.sh run on its own, as a person who fetched it does;
  unavailable   no archive for the version, and the server down: the stand-alone installer
                exits 3 with --binary-only (install.sh then builds from source);
  binstall      Cargo.toml's cargo-binstall template names the served archive and the binary in it;
  from-source   (INSTALL_TEST_SOURCE=1) install.sh with no archive builds from this checkout.

Usage: tests/install/run.py   (INSTALL_DIST: the directory with the archive, default
$CARGO_TARGET_DIR/dist; INSTALL_WORK: the scratch directory, default $CARGO_TARGET_DIR/install-test,
never a temp dir)
"""
import functools, hashlib, http.server, io, json, os, re, shutil, socket, subprocess, sys, tarfile, threading, time, tomllib, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET_DIR = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target")
DIST = os.environ.get("INSTALL_DIST") or os.path.join(TARGET_DIR, "dist")
TEMP_DIRS = ("/tmp/", "/var/tmp/", "/dev/shm/")
# Not under a temp dir (the checkout itself may be under /tmp): sentinel treats temp dirs as scratch
# space, which would change the decisions this run asserts.
WORK = os.environ.get("INSTALL_WORK") or os.path.join(os.path.realpath(TARGET_DIR), "install-test")
if os.path.realpath(WORK).startswith(TEMP_DIRS) and not os.environ.get("INSTALL_WORK"):
    WORK = os.path.join(os.path.expanduser("~"), ".cache", "sentinel-install-test", "work")
WORK = os.path.abspath(WORK)
TARGET = "x86_64-unknown-linux-musl"
VERSION = re.search(r'^version = "(.*)"$', open(os.path.join(ROOT, "Cargo.toml")).read(), re.M).group(1)
ARCHIVE = f"sentinel-{VERSION}-{TARGET}.tar.gz"

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok  ' if ok else 'FAIL'}  {name}" + ("" if ok else f": {detail}"))


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def release(name, archive_bytes, sums_for=None):
    """A release directory laid out as the forge serves one, srv/NAME/releases/download/vVERSION,
    with the archive and SHA256SUMS (of `sums_for`)."""
    d = os.path.join(WORK, "srv", name, "releases", "download", f"v{VERSION}")
    os.makedirs(d)
    if archive_bytes is not None:
        open(os.path.join(d, ARCHIVE), "wb").write(archive_bytes)
        sums = sums_for if sums_for is not None else archive_bytes
        open(os.path.join(d, "SHA256SUMS"), "w").write(f"{sha256(sums)}  {ARCHIVE}\n")
    return d


def tampered_archive():
    """A well-formed archive whose `sentinel` is a script claiming the right version and leaving a
    mark when run: only the checksum stands between it and the person's PATH."""
    script = (f'#!/bin/sh\ntouch "{WORK}/PWNED"\necho "sentinel {VERSION}"\n').encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo(f"sentinel-{VERSION}-{TARGET}/sentinel")
        info.size, info.mode = len(script), 0o755
        tar.addfile(info, io.BytesIO(script))
    return buf.getvalue()


def serve():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=os.path.join(WORK, "srv"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def scratch_home(name):
    home = os.path.join(WORK, name)
    os.makedirs(home)
    return home


def run(cmd, home, url, cwd=None, extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SENTINEL_", "CLAUDE", "ANTHROPIC_")) and k not in ("PREFIX", "CARGO_INSTALL_ROOT")}
    env.update(HOME=home, SENTINEL_DOWNLOAD_URL=url, **(extra or {}))
    start = time.monotonic()
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return r, time.monotonic() - start


def registered(home, binary):
    path = os.path.join(home, ".claude", "settings.json")
    if not os.path.exists(path):
        return False
    return binary in open(path).read()


def hook_denies(binary, home):
    event = json.dumps({"session_id": "t", "hook_event_name": "PreToolUse", "cwd": home,
                        "permission_mode": "bypassPermissions", "tool_name": "Bash",
                        "tool_input": {"command": "rm -rf ~"}})
    r = subprocess.run([binary, "hook"], input=event, capture_output=True, text=True,
                       env={"HOME": home, "PATH": os.environ["PATH"], "SENTINEL_NO_TTY": "1"})
    return '"permissionDecision":"deny"' in r.stdout


def main():
    archive_path = os.path.join(DIST, ARCHIVE)
    if not os.path.exists(archive_path):
        sys.exit(f"install test: {archive_path} is missing: run release/build-linux.sh first")
    if os.path.realpath(WORK).startswith(TEMP_DIRS):
        sys.exit(f"install test: {WORK} is a temp dir, where sentinel decides differently")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    good = open(archive_path, "rb").read()
    with tarfile.open(archive_path) as tar:
        served_binary = tar.extractfile(f"sentinel-{VERSION}-{TARGET}/sentinel").read()
    release("good", good)
    release("tampered", tampered_archive(), sums_for=good)
    release("empty", None)
    server, base = serve()

    # cargo binstall's template (Cargo.toml) names the archive the release makes, where it is.
    meta = tomllib.load(open(os.path.join(ROOT, "Cargo.toml"), "rb"))["package"]["metadata"]["binstall"]
    fill = lambda t: (t.replace("{ repo }", f"{base}/good").replace("{ version }", VERSION)
                      .replace("{ target }", TARGET).replace("{ bin }", "sentinel").replace("{ binary-ext }", ""))
    try:
        fetched = urllib.request.urlopen(fill(meta["pkg-url"]), timeout=30).read()
    except OSError as e:
        fetched = repr(e).encode()
    check("binstall: pkg-url names the served archive", fetched == good, fill(meta["pkg-url"]))
    with tarfile.open(archive_path) as tar:
        check("binstall: bin-dir names the binary in it", fill(meta["bin-dir"]) in tar.getnames(), fill(meta["bin-dir"]))

    # A fresh clone of the committed tree, with this tree's installers (what is under test).
    clone = os.path.join(WORK, "clone")
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", ROOT, clone], check=True)
    subprocess.run(["git", "-C", clone, "checkout", "--quiet", "--detach", head], check=True)
    shutil.rmtree(os.path.join(clone, "install"))
    shutil.copytree(os.path.join(ROOT, "install"), os.path.join(clone, "install"))

    # prebuilt
    home = scratch_home("home-prebuilt")
    prefix = os.path.join(home, "prefix")
    r, took = run([os.path.join(clone, "install", "install.sh")], home, f"{base}/good/releases/download", extra={"PREFIX": prefix})
    binary = os.path.join(prefix, "bin", "sentinel")
    print(f"      prebuilt install from a fresh clone: {took:.1f} s")
    check("prebuilt: install.sh exits 0", r.returncode == 0, r.stderr[-800:])
    check("prebuilt: the checksum was checked", f"{ARCHIVE} matches its SHA-256" in r.stdout, r.stdout[-800:])
    check("prebuilt: nothing was built", "building sentinel" not in r.stdout, r.stdout[-800:])
    check("prebuilt: the installed binary is the served one",
          os.path.exists(binary) and open(binary, "rb").read() == served_binary)
    check("prebuilt: the hook is registered in the scratch home", registered(home, binary))
    check("prebuilt: the installed hook denies rm -rf ~", os.path.exists(binary) and hook_denies(binary, home))
    check("prebuilt: the demo ran", "verdict: deny" in r.stdout, r.stdout[-800:])

    # tampered
    home = scratch_home("home-tampered")
    prefix = os.path.join(home, "prefix")
    r, _ = run([os.path.join(clone, "install", "install.sh")], home, f"{base}/tampered/releases/download", extra={"PREFIX": prefix})
    errors = [l for l in r.stderr.splitlines() if "error" in l]
    print("      " + "\n      ".join(r.stderr.splitlines()))
    check("tampered: install.sh fails", r.returncode != 0, r.stdout[-400:])
    check("tampered: one error line naming the SHA-256 mismatch",
          len(errors) == 1 and re.fullmatch(
              rf"sentinel-install: error: {re.escape(ARCHIVE)} does not match its SHA-256 in SHA256SUMS "
              r"\(expected [0-9a-f]{64}, got [0-9a-f]{64}\): refusing to install it", errors[0]) is not None,
          r.stderr)
    check("tampered: nothing installed", not os.path.exists(os.path.join(prefix, "bin")))
    check("tampered: nothing registered", not os.path.exists(os.path.join(home, ".claude")))
    check("tampered: its binary never ran", not os.path.exists(os.path.join(WORK, "PWNED")))
    check("tampered: no build from source instead", "building sentinel" not in r.stdout, r.stdout[-400:])

    # standalone: the file a person fetches, run from elsewhere, default prefix ~/.local
    home = scratch_home("home-standalone")
    script = os.path.join(WORK, "sentinel-install.sh")
    shutil.copy(os.path.join(ROOT, "install", "sentinel-install.sh"), script)
    r, took = run(["sh", script, "--version", VERSION, "--shadow"], home, f"{base}/good/releases/download", cwd=home)
    binary = os.path.join(home, ".local", "bin", "sentinel")
    print(f"      stand-alone install: {took:.1f} s")
    check("standalone: exits 0", r.returncode == 0, r.stderr[-800:])
    check("standalone: installed into ~/.local/bin, byte for byte",
          os.path.exists(binary) and open(binary, "rb").read() == served_binary)
    check("standalone: registered, in shadow mode (arguments reach `sentinel install`)",
          registered(home, binary) and "--shadow" in open(os.path.join(home, ".claude", "settings.json")).read())

    # unavailable: no archive for the version; the release server down
    home = scratch_home("home-unavailable")
    r, _ = run(["sh", script, "--version", VERSION, "--binary-only"], home, f"{base}/empty/releases/download", cwd=home)
    check("no archive: exit 3 and the reason", r.returncode == 3 and "could not download" in r.stderr,
          f"{r.returncode} {r.stderr}")
    server.shutdown()
    server.server_close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    r, _ = run(["sh", script, "--version", VERSION, "--binary-only"], home, closed, cwd=home)
    check("offline: exit 3 and the reason", r.returncode == 3 and "could not download" in r.stderr,
          f"{r.returncode} {r.stderr}")
    check("unavailable: nothing installed", not os.path.exists(os.path.join(home, ".local")))

    if os.environ.get("INSTALL_TEST_SOURCE") == "1":
        # From this checkout, whose release build (CARGO_TARGET_DIR) is reused by cargo install.
        home = scratch_home("home-source")
        prefix = os.path.join(home, "prefix")
        # The toolchain and the crates already fetched stay where they are (read, not written:
        # cargo install keeps its records under --root, the scratch prefix).
        real_home = os.path.expanduser("~")
        toolchain = {"RUSTUP_HOME": os.environ.get("RUSTUP_HOME") or os.path.join(real_home, ".rustup"),
                     "CARGO_HOME": os.environ.get("CARGO_HOME") or os.path.join(real_home, ".cargo")}
        r, took = run([os.path.join(ROOT, "install", "install.sh")], home, closed,
                      cwd=ROOT, extra={"PREFIX": prefix, "CARGO_TARGET_DIR": TARGET_DIR, **toolchain})
        binary = os.path.join(prefix, "bin", "sentinel")
        print(f"      fallback to a source build: {took:.1f} s")
        check("from source: exits 0 and built", r.returncode == 0 and "building sentinel" in r.stdout,
              r.stderr[-800:])
        check("from source: registered, and the hook denies rm -rf ~",
              registered(home, binary) and hook_denies(binary, home))

    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
