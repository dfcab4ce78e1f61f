#!/usr/bin/env bash
# Install everything the tests need (system packages included) and run every check.
# Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
    else
        sudo apt-get update
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
    fi
fi

python3 -m pip install --quiet --disable-pip-version-check -e '.[test,rl]'

python3 -m ruff check src tests benchmarks
python3 -m mypy
python3 -m pytest "$@"
