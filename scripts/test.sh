#!/usr/bin/env bash
# Install everything the tests need (system packages included) and run every check.
# Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v node >/dev/null 2>&1 || missing+=(nodejs)  # the page's unit tests (tests/js)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)  # the shared cache's tests
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    else
        sudo apt-get update
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    fi
fi

python3 -m pip install --quiet --disable-pip-version-check -e '.[test,docs,rl,cluster,redis,metrics]'

python3 -m ruff check src tests benchmarks scripts
python3 -m mypy
node --test tests/js/
# the documentation site: any warning (a broken link, a missing page or anchor, a
# docstring mkdocstrings cannot read) fails the build; the site goes to a scratch directory
site_dir="$(mktemp -d)"
NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build --strict --site-dir "$site_dir"
rm -rf "$site_dir"
# everything is installed now: a test that skips for a missing dependency fails instead
NOUGHTS_STRICT_SKIPS=1 python3 -m pytest "$@"

# --- the package as a user gets it (scripts/check_package.py) ---------------------------
# python -m build (sdist and wheel), twine check --strict, the wheel holds the strategy,
# the books, the table and the page; then a fresh virtual environment with only that
# wheel (what `pip install .` installs) runs the README's examples
python3 scripts/check_package.py
