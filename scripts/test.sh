#!/usr/bin/env bash
# Install everything the tests need (system packages included) and run every check.
# Usage: bash scripts/test.sh [extra pytest args]
#
# The set-up stops at its first failure (nothing after it could run); the checks after
# it each run to the end whatever the others gave, and a table of every stage's result
# closes the run. The exit status is non-zero if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."

stages=()
results=()
failed=0

# run_stage NAME COMMAND...: run one check, note its result and time, go on either way
run_stage() {
    local name=$1
    shift
    local began=$SECONDS
    printf '\n=== %s ===\n' "$name"
    "$@"
    local status=$?
    if [ "$status" -eq 0 ]; then
        results+=("passed $((SECONDS - began)) s")
    else
        results+=("FAILED $((SECONDS - began)) s (exit $status)")
        failed=$((failed + 1))
    fi
    stages+=("$name")
}

report() {
    printf '\n=== stages ===\n'
    local i
    for i in "${!stages[@]}"; do
        printf '%-22s %s\n' "${stages[$i]}" "${results[$i]}"
    done
    printf 'stages: %d passed, %d failed\n' "$((${#stages[@]} - failed))" "$failed"
}

set_up() {  # each step's failure ends the set-up (`set -e` does not reach in here)
    local missing=()
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    command -v node >/dev/null 2>&1 || missing+=(nodejs)  # the page's unit tests (tests/js)
    command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)  # the shared cache's tests
    if [ ${#missing[@]} -gt 0 ]; then
        local sudo=()
        [ "$(id -u)" = 0 ] || sudo=(sudo)
        "${sudo[@]}" apt-get update || return
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends "${missing[@]}" || return
    fi
    python3 -m pip install --quiet --disable-pip-version-check \
        -e '.[test,docs,rl,cluster,redis,metrics]' || return
    # pyproject's build requirements as wheels, for the Dockerfile's offline image build
    # (tests/test_dockerfile.py builds with isolation, as docker build does, whatever
    # setuptools this machine has)
    local requires
    requires=$(python3 -c 'import tomllib; print("\n".join(tomllib.load(
        open("pyproject.toml", "rb"))["build-system"]["requires"]))') || return
    mapfile -t requires <<<"$requires"
    python3 -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
        --dest build/wheelhouse "${requires[@]}"
}

docs_site() {
    # any warning (a broken link, a missing page or anchor, a docstring mkdocstrings
    # cannot read) fails the build; the site goes to a scratch directory
    local site_dir
    site_dir="$(mktemp -d)"
    NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build --strict --site-dir "$site_dir"
    local status=$?
    rm -rf "$site_dir"
    return $status
}

run_stage "set-up" set_up
if [ "$failed" -gt 0 ]; then
    report
    exit 1
fi

run_stage "ruff" python3 -m ruff check src tests benchmarks scripts
run_stage "mypy --strict" python3 -m mypy
run_stage "node --test" node --test tests/js/
run_stage "mkdocs --strict" docs_site
# everything is installed now: a test that skips for a missing dependency fails instead
run_stage "pytest" env NOUGHTS_STRICT_SKIPS=1 python3 -m pytest "$@"
# the compiled modules rebuilt with -Werror under AddressSanitizer and
# UndefinedBehaviorSanitizer, and the tests that drive them run on that build: a
# sanitizer's report fails the stage (scripts/sanitize.py)
run_stage "sanitizers" python3 scripts/sanitize.py
# the package as a user gets it (scripts/check_package.py): python -m build (sdist and
# wheel), twine check --strict, the wheel holds the strategy, the books, the table and
# the page; then a fresh virtual environment with only that wheel (what `pip install .`
# installs) runs the README's examples
run_stage "package" python3 scripts/check_package.py

report
[ "$failed" -eq 0 ]
