"""The Dockerfile, run without Docker: its RUN lines in a plain virtual environment, then its
CMD as its USER with its ENV, checked by its HEALTHCHECK and stopped by its STOPSIGNAL.

No image can be pulled here, so the base image's Python is this one, and the RUN lines'
``pip install`` is offline: the venv sees this interpreter's packages (what the base
image's pip would download). It builds the package as ``docker build`` does, with build
isolation, from the build requirements in pyproject: ``scripts/test.sh`` downloads them
into :data:`WHEELHOUSE` beforehand, so a machine whose own setuptools is older than
pyproject's floor builds the image as Docker would.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from serving import free_port
from waiting import wait_for

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Dockerfile:
    base: str = ""
    workdir: str = "/"
    copies: list[tuple[list[str], str]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    user: str = "root"
    stop_signal: str = "SIGTERM"
    health: list[str] = field(default_factory=list)
    health_options: dict[str, str] = field(default_factory=dict)
    cmd: list[str] = field(default_factory=list)


def parse(text: str) -> Dockerfile:
    """The instructions this project's Dockerfile uses (continuations joined)."""
    found = Dockerfile()
    lines = re.sub(r"\\\n\s*", " ", text).splitlines()
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "FROM":
            found.base = rest.strip()
        elif word == "WORKDIR":
            found.workdir = rest.strip()
        elif word == "COPY":
            *sources, target = shlex.split(rest)
            found.copies.append((sources, target))
        elif word == "RUN":
            found.runs.append(rest.strip())
        elif word == "ENV":
            for pair in shlex.split(rest):
                key, _, value = pair.partition("=")
                found.env[key] = value
        elif word == "USER":
            found.user = rest.strip()
        elif word == "STOPSIGNAL":
            found.stop_signal = rest.strip()
        elif word == "HEALTHCHECK":
            options, _, command = rest.partition(" CMD ")
            found.health = json.loads(command)
            found.health_options = dict(o.lstrip("-").split("=", 1) for o in options.split())
        elif word == "CMD":
            found.cmd = json.loads(rest)
        elif word not in ("EXPOSE", "LABEL", "ARG"):
            raise AssertionError(f"the test does not know {word}: teach it")
    return found


DOCKERFILE = parse((ROOT / "Dockerfile").read_text())

WHEELHOUSE = ROOT / "build" / "wheelhouse"
"""Wheels of pyproject's build requirements (scripts/test.sh downloads them here): the
image's pip installs them into its isolated build environment, offline."""
BUILD_REQUIRES: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text())[
    "build-system"]["requires"]


def _wheelhouse_problem() -> str | None:
    """Why :data:`WHEELHOUSE` cannot serve the build requirements, or None if it can."""
    names = {re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower().replace("-", "_")
             for requirement in BUILD_REQUIRES}
    found = {wheel.name.split("-")[0].lower() for wheel in WHEELHOUSE.glob("*.whl")}
    if missing := sorted(names - found):
        return (f"no wheel of {', '.join(missing)} in {WHEELHOUSE}: scripts/test.sh downloads "
                f"the build requirements {BUILD_REQUIRES} there")
    return None


def test_the_image_is_slim_not_root_and_checked() -> None:
    assert re.fullmatch(r"python:3\.\d+-slim(-\w+)?", DOCKERFILE.base), DOCKERFILE.base
    assert DOCKERFILE.user.split(":")[0] not in ("", "0", "root")
    assert DOCKERFILE.cmd[:2] == ["noughts", "serve"]
    assert DOCKERFILE.health and DOCKERFILE.health_options.get("start-period")
    assert DOCKERFILE.stop_signal == "SIGTERM"
    drain = float(DOCKERFILE.env.get("NOUGHTS_DRAIN_S", "8"))
    assert drain < 10  # docker stop's grace before SIGKILL


@pytest.fixture(scope="module")
def installed() -> Iterator[tuple[Path, Path]]:
    """The image's file system, as far as the app goes: the context copied, the RUN
    lines run in a venv. (A directory anyone may read: the CMD runs as its USER.)"""
    top = Path(tempfile.mkdtemp(prefix="noughts-image-"))
    top.chmod(0o755)
    try:
        app = top / DOCKERFILE.workdir.lstrip("/")
        app.mkdir(parents=True)
        for sources, target in DOCKERFILE.copies:
            for source in sources:
                origin = ROOT / source
                destination = app / target if target not in ("./", ".") else app
                if origin.is_dir():
                    shutil.copytree(origin, destination, ignore=shutil.ignore_patterns(
                        "__pycache__", "*.pyc"))
                else:
                    destination.mkdir(parents=True, exist_ok=True)
                    shutil.copy(origin, destination / origin.name)
        problem = _wheelhouse_problem()
        assert problem is None, problem
        venv = top / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                        "--without-pip", str(venv)], check=True)
        _see_this_environment(venv)
        shim = venv / "bin" / "pip"  # the base image's pip: this interpreter's, offline
        shim.write_text(f'#!/bin/sh\nexec "{venv}/bin/python" -m pip "$@"\n')
        shim.chmod(0o755)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("PIP_") and key != "PYTHONPATH"}
        env.update(DOCKERFILE.env, PATH=f"{venv / 'bin'}:{os.environ['PATH']}",
                   PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE))
        for line in DOCKERFILE.runs:
            run = subprocess.run(["/bin/sh", "-c", line], cwd=app, env=env,
                                 capture_output=True, text=True, timeout=300)
            assert run.returncode == 0, f"RUN {line}\n{run.stdout}\n{run.stderr}"
            if "pip install" in line:  # built as docker build builds: isolated
                assert "Installing build dependencies" in run.stdout, run.stdout
        for path in top.rglob("*"):  # readable by the image's user, as COPY leaves it
            path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))
        yield app, venv
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _see_this_environment(venv: Path) -> None:
    """Let ``venv`` see the packages of the environment running the tests, as the image's
    pip would see what it downloads: ``--system-site-packages`` alone shows the base
    interpreter's, which lack them when the tests run in a virtual environment."""
    site_packages = Path(sysconfig.get_paths(vars={"base": str(venv)})["purelib"])
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site_packages / "test-environment.pth").write_text("".join(f"{path}\n" for path in ours))


def _others_can_run(path: Path) -> bool:
    """True if a user who owns nothing can run ``path`` (every directory above it open)."""
    real = path.resolve()
    return all(parent.stat().st_mode & 0o001 for parent in real.parents) and bool(
        real.stat().st_mode & 0o001)


SWITCH_USER = os.geteuid() == 0 and _others_can_run(Path(sys.executable))
"""Only root can run the CMD as the image's user, and only with an interpreter that user
may run (one under a private home, as pyenv's under /root, cannot be)."""


def _as_user() -> dict[str, object]:
    """Popen's options to run as the Dockerfile's USER, where this machine allows it."""
    if not SWITCH_USER:
        return {}
    uid, _, gid = DOCKERFILE.user.partition(":")
    return {"user": int(uid), "group": int(gid or uid), "extra_groups": []}


def test_the_cmd_serves_passes_its_health_check_and_drains_on_its_stop_signal(
    installed: tuple[Path, Path],
) -> None:
    app, venv = installed
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(DOCKERFILE.env)
    env.update(PATH=f"{venv / 'bin'}:{os.environ['PATH']}", HOME="/nonexistent",
               NOUGHTS_HOST="127.0.0.1", NOUGHTS_PORT=str(port))  # tests stay on loopback
    server = subprocess.Popen(DOCKERFILE.cmd, cwd=app, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, **_as_user())  # type: ignore[call-overload]
    try:
        def healthy() -> bool:
            check = subprocess.run(DOCKERFILE.health, env=env, capture_output=True, timeout=10)
            return check.returncode == 0

        start_period = float(DOCKERFILE.health_options["start-period"].rstrip("s"))
        assert wait_for(healthy, start_period), "HEALTHCHECK never passed"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as answer:
            assert json.load(answer) == {"status": "ready"}
        if SWITCH_USER:
            owner = Path(f"/proc/{server.pid}/status").read_text()
            assert re.search(r"^Uid:\s+10001\b", owner, re.MULTILINE), owner
        server.send_signal(getattr(signal, DOCKERFILE.stop_signal))
        began = time.monotonic()
        out, err = server.communicate(timeout=30)
        assert time.monotonic() - began < float(DOCKERFILE.env["NOUGHTS_DRAIN_S"]) + 2
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert "Traceback" not in err, err
    logged = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert any(entry.get("path") == "/readyz" and entry.get("status") == 200
               for entry in logged), out
    assert str(venv) in subprocess.run(  # the CMD ran the venv's noughts, not this checkout's
        [str(venv / "bin" / "python"), "-c", "import noughts; print(noughts.__file__)"],
        capture_output=True, text=True, env=env, cwd=app, check=True).stdout
