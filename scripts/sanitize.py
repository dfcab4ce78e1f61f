"""Run the compiled core's tests on a build under AddressSanitizer and
UndefinedBehaviorSanitizer: a report of either fails the run.

It builds ``noughts.search._core`` from the sources ``pyproject.toml`` names for it,
with its compile arguments (``-Wall -Wextra``) and ``-Werror``, ``-fsanitize=address,
undefined``, ``-fno-sanitize-recover=all`` and ``-fno-omit-frame-pointer``, into a
scratch copy of the package (a tree of links to ``src/noughts``, the sanitized
extension in place of the built one), then runs the tests that drive the core (the
parity tests, the conformance test, the border, fuzz and thread tests) on it, the sanitizers'
runtime preloaded (``detect_leaks=0``: CPython keeps memory to the end on purpose;
``halt_on_error=1``). Usage, from the checkout's root::

    python3 scripts/sanitize.py [pytest arguments: other tests, -k ...]

The exit status is pytest's (0: every test passed with no report), or 1 when a report
shows in the output even so. It needs gcc (or ``CC``) with the sanitizers' libraries.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = "noughts.search._core"
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer", "-Werror", "-O1", "-g"]
TESTS = ["tests/test_core_parity_exact.py", "tests/test_core_parity_proof.py",
         "tests/test_core_parity_pvs.py", "tests/test_core_parity_plan.py",
         "tests/test_core_conformance.py", "tests/test_core_border.py",
         "tests/test_core_fuzz.py", "tests/test_core_threads.py"]
REPORTS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")
"""What a sanitizer's report starts with (AddressSanitizer's, UBSan's)."""


def _extension() -> tuple[list[str], list[str]]:
    """The core's sources and compile arguments, as pyproject.toml declares them."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)
    for module in project["tool"]["setuptools"]["ext-modules"]:
        if module["name"] == EXTENSION:
            arguments = [a for a in module.get("extra-compile-args", []) if not a.startswith("-O")]
            return list(module["sources"]), arguments
    raise SystemExit(f"pyproject.toml declares no {EXTENSION}")


def build(scratch: Path) -> Path:
    """The package as links under scratch, with the sanitized core built in; its root."""
    package = scratch / "src" / "noughts"
    shutil.copytree(ROOT / "src" / "noughts", package, symlinks=True,
                    copy_function=os.symlink,
                    ignore=shutil.ignore_patterns("_core*.so", "__pycache__", "csrc"))
    sources, arguments = _extension()
    compiler = shlex.split(os.environ.get("CC", "gcc"))
    command = [*compiler, "-shared", "-fPIC", *arguments, *SANITIZE,
               "-I", sysconfig.get_paths()["include"],
               *(str(ROOT / source) for source in sources),
               "-o", str(package / "search" / "_core.abi3.so")]
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True)
    return scratch / "src"


def _runtime(compiler: list[str]) -> str:
    """The AddressSanitizer runtime to preload (Python itself is not built with it)."""
    found = subprocess.run([*compiler, "-print-file-name=libasan.so"], check=True,
                           capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(found):
        raise SystemExit(f"no AddressSanitizer runtime found by {compiler[0]}")
    return found


def main(arguments: list[str]) -> int:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="noughts-sanitize-") as scratch:
        source = build(Path(scratch))
        environment = dict(os.environ)
        environment.update(
            PYTHONPATH=str(source),
            LD_PRELOAD=_runtime(shlex.split(os.environ.get("CC", "gcc"))),
            ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0",
            UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
            PYTHONDONTWRITEBYTECODE="1",
        )
        environment.pop("NOUGHTS_PURE_PYTHON", None)
        check = ("import sys, noughts.search.core as core; module = core.built(); "
                 f"sys.exit(module is None or not module.__file__.startswith({scratch!r}))")
        if subprocess.run([sys.executable, "-c", check], env=environment, cwd=ROOT).returncode:
            print("sanitize: the tests would not load the sanitized core", file=sys.stderr)
            return 1
        named = any(argument.startswith("tests") for argument in arguments)
        command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                   *([] if named else TESTS), *arguments]
        print("+", " ".join(command), flush=True)
        status, reports = _run(command, environment)
    seconds = time.perf_counter() - start
    if reports:
        print(f"sanitize: {reports} sanitizer report(s), {seconds:.0f} s", file=sys.stderr)
        return 1
    print(f"sanitize: pytest exit status {status}, no sanitizer report, {seconds:.0f} s")
    return status


def _run(command: list[str], environment: dict[str, str]) -> tuple[int, int]:
    """Run command, its output shown as it comes; its exit status and the reports seen."""
    reports = 0
    with subprocess.Popen(command, env=environment, cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            reports += any(report in line for report in REPORTS)
    return process.returncode, reports


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
