"""Browser tests of the web page: a real `noughts serve` and Debian's Chromium via Playwright.

Every test here that needs the browser is skipped, with the reason, when Chromium or
Playwright is missing (``scripts/test.sh`` installs Chromium; under it, and in CI, such a
skip fails instead: ``tests/strict_skips.py``). ``NOUGHTS_WEB_TEST_URL``
points the tests at a server that is already running instead of starting one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

ROOT = Path(__file__).resolve().parents[2]


def _missing_browser() -> str | None:
    if shutil.which("chromium") is None:
        return "needs chromium: it is not installed (scripts/test.sh installs it with apt)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "needs playwright (Python): pip install -e '.[test]'"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _missing_browser()
    if reason is None:
        return
    here = Path(__file__).parent
    for item in items:
        if here not in Path(str(item.fspath)).parents:
            continue
        if {"browser", "page", "game", "axe"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.skip(reason=reason))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(url: str, process: subprocess.Popen[bytes] | None, timeout: float = 30,
                 log: Path | None = None) -> None:
    """Poll ``url``/healthz until it answers ok; fail with the server's output (its
    ``log``) otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            output = log.read_text(errors="replace") if log is not None else ""
            pytest.fail(f"the server exited with {process.returncode}:\n{output}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.1)
    pytest.fail(f"the server at {url} did not become healthy within {timeout} s")


@contextlib.contextmanager
def running_server(env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``python -m noughts serve`` on a free port; yield its base URL. Its output
    goes to a file (a pipe nobody read would fill with access lines and stop the server)."""
    port = free_port()
    with tempfile.NamedTemporaryFile(prefix="noughts-serve-", suffix=".log", delete=False) as out:
        log = Path(out.name)
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "noughts", "serve", "--host", "127.0.0.1", "--port",
             str(port)],
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process, log=log)
        yield url
    finally:
        log.unlink(missing_ok=True)
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="package")
def server_url() -> Iterator[str]:
    """Base URL of a real noughts server (the page at /, the API at /api/v1)."""
    given = os.environ.get("NOUGHTS_WEB_TEST_URL")
    if given:
        wait_healthy(given.rstrip("/"), None)
        yield given.rstrip("/")
        return
    with running_server() as url:
        yield url


@pytest.fixture(scope="package")
def static_web_url() -> Iterator[str]:
    """The page's files (src/noughts/web) served as plain static files, without the API."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=ROOT / "src" / "noughts" / "web",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{url}/index.html", timeout=2),
            ):
                break
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (own storage) that fails the test on any JavaScript error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.set_default_timeout(15_000)
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


class GamePage:
    """The page under test, with the few moves the tests need."""

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.url = url

    def open(self, **params: str | int) -> GamePage:
        from urllib.parse import urlencode

        query = f"?{urlencode(params)}" if params else ""
        return self.open_url(f"{self.url}/{query}")

    def open_url(self, url: str) -> GamePage:
        self.page.goto(url)
        self.page.wait_for_selector("html[data-ready]")
        self.wait_idle()
        return self

    def wait_idle(self) -> None:
        """Wait until the AI is not thinking."""
        self.page.wait_for_function(
            "document.getElementById('status').dataset.state !== 'thinking'"
        )

    def board(self) -> str:
        """The marks on the page, one character a cell ('X', 'O', '.')."""
        return str(
            self.page.eval_on_selector_all(
                ".cell",
                """cells => cells.map(c => c.querySelector('svg.mark-x') ? 'X'
                    : c.querySelector('svg.mark-o') ? 'O' : '.').join('')""",
            )
        )

    def status(self) -> str:
        return str(self.page.inner_text("#status"))

    def state(self) -> str:
        return str(self.page.get_attribute("#status", "data-state"))

    def cell(self, index: int) -> Any:
        return self.page.locator(f".cell[data-cell='{index}']")

    def play(self, index: int) -> None:
        """Click a cell and wait for the AI's reply (if the game goes on)."""
        self.cell(index).click()
        self.wait_idle()

    def heat(self) -> dict[int, str]:
        """The heat-map text of every empty cell that shows one."""
        texts = self.page.eval_on_selector_all(
            ".cell.has-heat",
            "cells => cells.map(c => [+c.dataset.cell, c.querySelector('.heat').textContent])",
        )
        return {int(cell): str(text) for cell, text in texts}


@pytest.fixture
def game(page: Any, server_url: str) -> GamePage:
    return GamePage(page, server_url)


def axe_violations(page: Any) -> list[str]:
    """axe-core's violations on the whole page as it stands, one line each (none: []).

    axe-core comes with the ``axe-playwright-python`` package (the test extra) and runs
    inside the page; nothing is fetched from elsewhere.
    """
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in results.response["violations"]
    ]


@pytest.fixture
def axe() -> Callable[[Any], list[str]]:
    """:func:`axe_violations`, for tests that check a page as they go."""
    return axe_violations
