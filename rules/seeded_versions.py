#!/usr/bin/env python3
"""Regenerates rules/seeded_versions.txt from the git history of rules/*.txt, plus the current
working-tree versions: every text `sentinel install` may have seeded into a person's SENTINEL_HOME."""
import hashlib, os, subprocess
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
files = ["hard_block_commands.txt", "safe_commands.txt", "conditional_block_commands.txt", "safe_paths.txt",
         "excluded_paths.txt", "credential_paths.txt", "protected_paths.txt"]
out = set()
for f in files:
    path = f"rules/{f}"
    for c in subprocess.run(["git", "log", "--format=%H", "--", path], cwd=root, capture_output=True, text=True).stdout.split():
        blob = subprocess.run(["git", "show", f"{c}:{path}"], cwd=root, capture_output=True)
        if blob.returncode == 0:
            out.add(f"{f} {hashlib.sha256(blob.stdout).hexdigest()}")
    out.add(f"{f} {hashlib.sha256(open(os.path.join(root, path), 'rb').read()).hexdigest()}")
target = os.path.join(root, "rules/seeded_versions.txt")
head = [l for l in open(target) if l.startswith("#")]
with open(target, "w") as w:
    w.writelines(head)
    w.write("\n".join(sorted(out)) + "\n")
