"""Check the package as a user gets it: build, metadata, contents, and the README's examples.

Run by ``scripts/test.sh`` (or alone: ``python scripts/check_package.py``):

1. ``python -m build`` makes the sdist and the wheel (in a scratch directory);
2. ``twine check --strict`` checks their metadata (the README renders, the licence is
   an SPDX expression);
3. the wheel must hold everything the package reads at run time: the Qubic strategy,
   the opening books, the 3x3 table (``noughts/data/*``), the web page
   (``noughts/web/*``), file for file as in the source tree, the compiled search core
   and the learning environments' compiled step (``noughts.rl._step``; a platform wheel
   on the stable ABI: ``cp311-abi3``), and its metadata must give
   the licence as an SPDX expression (``License-Expression: MIT``, PEP 639);
4. a fresh virtual environment gets only that wheel (what ``pip install .`` builds and
   installs; pip's cache makes the dependencies quick after the first time), runs on the
   compiled core, and the README's Python examples run there as doctests, from a
   directory outside the source tree, with no ``PYTHONPATH``; so do its ``noughts``
   console examples (all but the interactive game), each of which must exit 0;
5. another fresh virtual environment installs the sdist with no C compiler to be found
   (``CC`` names none): the install must go on without the extension, and the engine
   run on its Python core.

Prints one line a step and exits non-zero at the first failure.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "noughts"
MUST_HOLD = ("noughts/data/qubic-strategy.bin", "noughts/data/table-3x3.bin",
             "noughts/data/book-4x4.bin", "noughts/data/qubic-eval.json",
             "noughts/data/qubic-o-book.json.gz", "noughts/web/index.html",
             "noughts/search/_core.abi3.so", "noughts/search/_core.pyi",
             "noughts/rl/_step.abi3.so", "noughts/rl/_step.pyi")
WHEEL_TAG = "-cp311-abi3-"
"""The compiled core makes a platform wheel, one for every CPython from 3.11 on."""
CORE = "from noughts.search import core; print(core.name())"
"""Prints which search core an installation runs."""
"""Named here too, so that a file missing from the source tree is caught as well."""


def run(command: list[str], **kwargs: object) -> None:
    """Run a command, its output shown only if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode:
        sys.stdout.write(done.stdout + done.stderr)
        raise SystemExit(f"check_package: failed: {shlex.join(command)}")


def wheel_problems(wheel: Path) -> list[str]:
    """What the wheel lacks of the package's data and page, and of its metadata: the
    licence as an SPDX expression (PEP 639), not the deprecated table."""
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    metadata = next(name for name in names if name.endswith(".dist-info/METADATA"))
    problems = [] if "License-Expression: MIT" in archive.read(metadata).decode() else [
        "the METADATA line License-Expression: MIT"]
    wanted = {f"noughts/data/{p.name}" for p in (PACKAGE / "data").iterdir() if p.is_file()}
    wanted |= {f"noughts/web/{p.name}" for p in (PACKAGE / "web").iterdir() if p.is_file()}
    wanted |= set(MUST_HOLD)
    if WHEEL_TAG not in wheel.name:
        problems.append(f"the tag {WHEEL_TAG.strip('-')} in its name ({wheel.name})")
    return problems + sorted(wanted - names)


def fresh_venv(path: Path) -> tuple[Path, dict[str, str]]:
    """A new virtual environment at ``path``: its python and an environment for it."""
    run([sys.executable, "-m", "venv", str(path)])
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NOUGHTS_PURE_PYTHON")}
    env["PATH"] = f"{path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return path / "bin" / "python", env


def core_name(python: Path, cwd: Path, env: dict[str, str]) -> str:
    """Which search core ``python``'s installation runs."""
    done = subprocess.run([str(python), "-c", CORE], capture_output=True, text=True,
                          cwd=cwd, env=env, check=True)
    return done.stdout.strip()


def console_examples(readme: str) -> list[list[str]]:
    """The README's ``$ noughts ...`` lines, but the interactive game."""
    commands = []
    for line in readme.splitlines():
        if line.startswith("$ noughts "):
            words = shlex.split(line[2:], comments=True)
            if words[1] != "play":
                commands.append(words)
    return commands


def main() -> None:
    readme = (ROOT / "README.md").read_text()
    with tempfile.TemporaryDirectory(prefix="noughts-package-") as scratch:
        out = Path(scratch)
        run([sys.executable, "-m", "build", "--outdir", str(out / "dist"), str(ROOT)])
        wheels = sorted((out / "dist").glob("*.whl"))
        sdists = sorted((out / "dist").glob("*.tar.gz"))
        if len(wheels) != 1 or len(sdists) != 1:
            raise SystemExit(f"check_package: expected one wheel and one sdist, got "
                             f"{[p.name for p in wheels + sdists]}")
        print(f"built {sdists[0].name} and {wheels[0].name}")
        run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)])
        print("twine check: passed")
        missing = wheel_problems(wheels[0])
        if missing:
            raise SystemExit(f"check_package: the wheel lacks {', '.join(missing)}")
        print("the wheel holds the strategy, the books, the table, the page and the compiled "
              "core, and its licence is an SPDX expression")
        python, env = fresh_venv(out / "venv")
        run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             str(wheels[0])])
        work = out / "work"
        work.mkdir()
        if core_name(python, work, env) != "compiled":
            raise SystemExit("check_package: the installed wheel does not run the compiled core")
        # the examples must come from the installed package, not from the source tree
        run([str(python), "-c", "import noughts, sys; "
             "sys.exit(0 if 'site-packages' in noughts.__file__ else noughts.__file__)"],
            cwd=work, env=env)
        examples = len(re.findall(r"^>>> ", readme, flags=re.MULTILINE))
        run([str(python), "-m", "doctest", "-o", "ELLIPSIS", str(ROOT / "README.md")],
            cwd=work, env=env)
        print(f"the README's {examples} Python example lines pass after installing the wheel")
        commands = console_examples(readme)
        for command in commands:
            run(command, cwd=work, env=env)
        print(f"the README's {len(commands)} console examples exit 0 there")
        bare, bare_env = fresh_venv(out / "venv-no-compiler")
        bare_env["CC"] = str(out / "no-such-compiler")
        run([str(bare), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-cache-dir", str(sdists[0])], env=bare_env)  # (no wheel built before)
        if core_name(bare, work, bare_env) != "python":
            raise SystemExit("check_package: without a compiler the install should run on "
                             "the Python core")
        run([str(bare), "-m", "noughts", "move", "--variant", "qubic", "--nodes", "500"],
            cwd=work, env=bare_env)
        print("without a C compiler the sdist installs and plays on the Python core")


if __name__ == "__main__":
    main()
