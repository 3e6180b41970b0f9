#!/usr/bin/env python3
"""Makes the npm packages from the release archives: one package per platform
(@agent-sentinel/linux-x64 …, holding that platform's binary, with `os` and `cpu` so that npm
installs only the matching one) and the wrapper `agent-sentinel` (the launcher in
npm/agent-sentinel/, with every platform package as an optional dependency at the same version):
the esbuild and biome pattern. Each archive is checked against its SHA-256 first.

Usage: npm/build-packages.py DIST OUT   (DIST: the archives and their SHA256SUMS or ARCHIVE.sha256
files; OUT: one directory per package, ready for `npm publish`; the version is Cargo.toml's)
"""
import hashlib, json, os, re, shutil, sys, tarfile, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Rust target → (npm package suffix, process.platform, process.arch)
PLATFORMS = {
    "x86_64-unknown-linux-musl": ("linux-x64", "linux", "x64"),
    "aarch64-unknown-linux-musl": ("linux-arm64", "linux", "arm64"),
    "x86_64-apple-darwin": ("darwin-x64", "darwin", "x64"),
    "aarch64-apple-darwin": ("darwin-arm64", "darwin", "arm64"),
    "x86_64-pc-windows-msvc": ("win32-x64", "win32", "x64"),
}
DESCRIPTION = "sentinel, a pre-tool-use hook that guards AI coding agents"


def sums(dist):
    """File name → SHA-256, from SHA256SUMS and every *.sha256 file in `dist`."""
    known = {}
    for name in os.listdir(dist):
        if name == "SHA256SUMS" or name.endswith(".sha256"):
            for line in open(os.path.join(dist, name)):
                digest, _, file = line.strip().partition("  ")
                known[file.lstrip("*")] = digest
    return known


def binary_of(path, target, version):
    inner = f"sentinel-{version}-{target}/sentinel" + (".exe" if "windows" in target else "")
    if path.endswith(".zip"):
        return zipfile.ZipFile(path).read(inner)
    with tarfile.open(path) as tar:
        return tar.extractfile(inner).read()


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")


def main(dist, out):
    version = re.search(r'^version = "(.*)"$', open(os.path.join(ROOT, "Cargo.toml")).read(), re.M).group(1)
    known = sums(dist)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    made = []
    for target, (suffix, os_name, cpu) in PLATFORMS.items():
        archive = next((f"sentinel-{version}-{target}{ext}" for ext in (".tar.gz", ".zip")
                        if os.path.exists(os.path.join(dist, f"sentinel-{version}-{target}{ext}"))), None)
        if archive is None:
            continue
        data = open(os.path.join(dist, archive), "rb").read()
        if known.get(archive) != hashlib.sha256(data).hexdigest():
            sys.exit(f"build-packages: {archive} does not match its SHA-256 in {dist}")
        exe = "sentinel.exe" if os_name == "win32" else "sentinel"
        pkg = os.path.join(out, suffix)
        os.makedirs(os.path.join(pkg, "bin"))
        with open(os.path.join(pkg, "bin", exe), "wb") as f:
            f.write(binary_of(os.path.join(dist, archive), target, version))
        os.chmod(os.path.join(pkg, "bin", exe), 0o755)
        shutil.copy(os.path.join(ROOT, "LICENSE"), pkg)
        with open(os.path.join(pkg, "README.md"), "w") as f:
            f.write(f"# @agent-sentinel/{suffix}\n\nThe {target} binary of sentinel {version}, "
                    "for the `agent-sentinel` package: install that one.\n")
        write_json(os.path.join(pkg, "package.json"), {
            "name": f"@agent-sentinel/{suffix}", "version": version,
            "description": f"{DESCRIPTION} ({target} binary)", "license": "MIT",
            "os": [os_name], "cpu": [cpu], "files": [f"bin/{exe}", "README.md", "LICENSE"],
            "preferUnplugged": True,
        })
        made.append(suffix)
    if not made:
        sys.exit(f"build-packages: no release archive of sentinel {version} in {dist}")
    wrapper = os.path.join(out, "agent-sentinel")
    shutil.copytree(os.path.join(ROOT, "npm", "agent-sentinel"), wrapper)
    shutil.copy(os.path.join(ROOT, "LICENSE"), wrapper)
    write_json(os.path.join(wrapper, "package.json"), {
        "name": "agent-sentinel", "version": version, "description": DESCRIPTION, "license": "MIT",
        "keywords": ["claude-code", "hooks", "security", "agents"],
        "bin": {"agent-sentinel": "bin/agent-sentinel.js"},
        "files": ["bin/agent-sentinel.js", "README.md", "LICENSE"],
        "engines": {"node": ">=18"},
        "optionalDependencies": {f"@agent-sentinel/{s}": version for s, _, _ in PLATFORMS.values()},
    })
    print(f"build-packages: agent-sentinel {version} with {', '.join(made)} in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
