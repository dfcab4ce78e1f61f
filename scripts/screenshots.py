"""Screenshots of the web page for the docs: every variant, Qubic as a cube and as flat
layers, the dark theme, a hint, and two phone-sized pages (Qubic, a finished 3x3 game).

Usage: python scripts/screenshots.py [--url http://127.0.0.1:8000] [--out docs/img]

Without --url it starts `python -m noughts serve` on a free port (with the browser
tests' helpers from tests/web/conftest.py, so it needs the test extra). It drives Debian's
Chromium through Playwright (sync API); the browser tests call :func:`capture` too.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}

# Qubic one move from a win for X (the player): the diagonal through the cube's centre,
# from layer 1's top-left corner (1a4) to layer 4's bottom-right one (4d1), lacks 4d1
QUBIC_NEAR_WIN = "XOO./..../..../....|O.../.X../..../....|..../..../..X./....|..../..../..../...."


@dataclass(frozen=True)
class Scene:
    """One screenshot: address parameters, cells the player clicks, and how it is shown."""

    params: dict[str, str]
    clicks: list[int] = field(default_factory=list)
    engine_view: bool = False
    hint: bool = False
    hover: int | None = None
    scheme: str = "light"
    phone: bool = False


SCENES: dict[str, Scene] = {
    "3x3": Scene({"variant": "3x3"}, [0, 8], engine_view=True),
    "4x4k3": Scene({"variant": "4x4k3", "level": "8"}, [5, 10], engine_view=True),
    "4x4": Scene({"variant": "4x4", "level": "10"}, [5, 10, 0]),
    # the cube, the player's winning move drawn through it
    "4x4x4": Scene({"variant": "4x4x4", "board": QUBIC_NEAR_WIN, "to": "X", "you": "X"}, [63]),
    # the flat layers with the heat map's words on the cells
    "4x4x4-flat": Scene({"variant": "4x4x4", "view": "flat"}, [21, 42], engine_view=True),
    "dark": Scene({"variant": "4x4x4"}, [21, 42], engine_view=True, hover=22, scheme="dark"),
    # a hint on the empty 3x3 board: one move singled out, the eight as good outlined
    "hint": Scene({"variant": "3x3", "you": "X"}, hint=True),
    "phone-qubic": Scene({"variant": "4x4x4"}, [21, 42], phone=True),
}


def _wait_idle(page: Any) -> None:
    page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")


def _open(page: Any, base_url: str, params: dict[str, str]) -> None:
    query = "&".join(f"{key}={value}" for key, value in params.items())
    page.goto(f"{base_url}/?{query}")
    page.wait_for_selector("html[data-ready]")
    _wait_idle(page)


def _click_empty(page: Any, cell: int, *, tap: bool = False) -> None:
    """Click (or tap) ``cell`` if it is empty, else the first empty cell after it."""
    empty = page.eval_on_selector_all(
        ".cell",
        "cells => cells.filter(c => !c.classList.contains('taken')).map(c => +c.dataset.cell)",
    )
    if not empty:
        return
    target = cell if cell in empty else min(empty, key=lambda c: (c < cell, c))
    if tap:
        page.tap(f".cell[data-cell='{target}']")
        if page.locator("#board.zoomed").count():  # a phone's tap on the cube zooms in
            page.tap(f".cell[data-cell='{target}']")
    else:
        page.click(f".cell[data-cell='{target}']")
    _wait_idle(page)


def capture(browser: Any, base_url: str, out_dir: Path, *, settle_ms: int = 450) -> list[Path]:
    """Save one screenshot per variant and a phone-sized finished game; return the paths.

    ``settle_ms`` lets the marks' drawing animations finish before each shot (the tests
    pass 0; the pictures then catch strokes half drawn).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    saved = []
    for name, scene in SCENES.items():
        if scene.phone:
            context = browser.new_context(
                viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
            )
        else:
            context = browser.new_context(
                viewport=DESKTOP, device_scale_factor=1, color_scheme=scene.scheme
            )
        page = context.new_page()
        # without settling (the tests), the AI also thinks less on Qubic
        _open(page, base_url, scene.params if settle_ms else {**scene.params, "think": "100"})
        for cell in scene.clicks:
            _click_empty(page, cell, tap=scene.phone)
        if scene.engine_view:
            page.click("label.switch")
            page.wait_for_selector(".cell.has-heat")
        if scene.hint:
            page.click("#hint")
            page.wait_for_selector(".cell.hinted")
        if scene.hover is not None:
            page.hover(f".cell[data-cell='{scene.hover}']")
        else:
            page.mouse.move(1, 1)  # no line tint from the last click
        page.wait_for_timeout(settle_ms)  # let the marks finish drawing
        page.evaluate("window.scrollTo(0, 0)")  # as a player opens it
        path = out_dir / f"{name}.png"
        page.screenshot(path=str(path), full_page=not scene.phone)
        saved.append(path)
        context.close()

    # a phone: a finished 3x3 game, the player having walked into a lost position
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    _open(page, base_url, {"variant": "3x3"})
    while page.get_attribute("#status", "data-state") == "playing":
        _click_empty(page, 0, tap=True)
    page.wait_for_timeout(settle_ms and 1500)  # the winning line's animations
    path = out_dir / "phone.png"
    page.screenshot(path=str(path), full_page=False)
    saved.append(path)
    context.close()
    return saved


def _web_test_support() -> Any:
    """The browser tests' conftest: its Chromium arguments and server start-up."""
    spec = importlib.util.spec_from_file_location(
        "web_test_support", ROOT / "tests" / "web" / "conftest.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running noughts server (default: start one)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    support = _web_test_support()
    with contextlib.ExitStack() as stack:
        url = args.url.rstrip("/") if args.url else stack.enter_context(support.running_server())
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=support.CHROMIUM_ARGS
        )
        for path in capture(browser, url, args.out):
            print(path)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
