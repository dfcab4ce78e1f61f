"""Run the compiled core's tests on a build under AddressSanitizer and
UndefinedBehaviorSanitizer: a report of either fails the run.

It builds each compiled module (``noughts.search._core``, the search core, and
``noughts.rl._step``, the learning environments' batched step) from the sources
``pyproject.toml`` names for it, with its compile arguments (``-Wall -Wextra``) and
``-Werror``, ``-fsanitize=address,undefined``, ``-fno-sanitize-recover=all`` and
``-fno-omit-frame-pointer``, into a
scratch copy of the package (a tree of links to ``src/noughts``, the sanitized
extensions in place of the built ones), then runs the tests that drive them (the core's
parity tests, the conformance test, the border, fuzz and thread tests; the batched step's
parity with its NumPy reference) on it, the sanitizers'
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
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer", "-Werror", "-O1", "-g"]
EXTENSIONS = {
    "noughts.search._core": [
        "tests/test_core_parity_exact.py", "tests/test_core_parity_proof.py",
        "tests/test_core_parity_pvs.py", "tests/test_core_parity_plan.py",
        "tests/test_core_conformance.py", "tests/test_core_border.py",
        "tests/test_core_fuzz.py", "tests/test_core_threads.py"],
    "noughts.rl._step": ["tests/test_rl_native.py"],
}
"""Each compiled module, with the tests that drive it."""
TESTS = [test for tests in EXTENSIONS.values() for test in tests]
REPORTS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")
"""What a sanitizer's report starts with (AddressSanitizer's, UBSan's)."""


def _extension(name: str) -> tuple[list[str], list[str]]:
    """A compiled module's sources and compile arguments (its include folders among them),
    as pyproject.toml declares them."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)
    for module in project["tool"]["setuptools"]["ext-modules"]:
        if module["name"] == name:
            arguments = [a for a in module.get("extra-compile-args", []) if not a.startswith("-O")]
            arguments += [f"-I{ROOT / folder}" for folder in module.get("include-dirs", [])]
            return list(module["sources"]), arguments
    raise SystemExit(f"pyproject.toml declares no {name}")


def build(scratch: Path) -> Path:
    """The package as links under scratch, with the sanitized modules built in; its root."""
    package = scratch / "src" / "noughts"
    shutil.copytree(ROOT / "src" / "noughts", package, symlinks=True,
                    copy_function=os.symlink,
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "csrc"))
    compiler = shlex.split(os.environ.get("CC", "gcc"))
    for name in EXTENSIONS:
        sources, arguments = _extension(name)
        target = scratch / "src" / Path(*name.split(".")).with_suffix(".abi3.so")
        command = [*compiler, "-shared", "-fPIC", *arguments, *SANITIZE,
                   "-I", sysconfig.get_paths()["include"],
                   *(str(ROOT / source) for source in sources), "-o", str(target)]
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
        check = ("import importlib, sys; sys.exit(not all(importlib.import_module(name)"
                 f".__file__.startswith({scratch!r}) for name in {list(EXTENSIONS)!r}))")
        if subprocess.run([sys.executable, "-c", check], env=environment, cwd=ROOT).returncode:
            print("sanitize: the tests would not load the sanitized modules", file=sys.stderr)
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
