"""Screenshots of the Learn view for docs/learn.md: what a student sees at each step.

Usage: python scripts/learn_screenshots.py [--url http://127.0.0.1:8000] [--out docs/img]

Borrows the page screenshots' helpers (scripts/screenshots.py: opening the page, the
browser tests' server start-up and Chromium arguments) and saves one picture of the
Learn view per scene; the browser tests call :func:`capture` too.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1280, "height": 900}
SCENES = ("learn-start", "learn-cutoff", "learn-pruned", "learn-tutorial", "learn-large")


def _screenshots() -> Any:
    path = ROOT / "scripts" / "screenshots.py"
    spec = importlib.util.spec_from_file_location("screenshots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # registered before it runs: its dataclasses look their module up in sys.modules
    module = sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def _open_learn(page: Any, base_url: str, board: str, you: str) -> None:
    _screenshots()._open(page, base_url, {"board": board, "you": you, "first": "you"})
    page.click("#learn-open")
    _wait_explained(page)


def _wait_explained(page: Any) -> None:
    page.wait_for_selector("#learn-tree [role=treeitem]")
    page.wait_for_function("!document.getElementById('learn-view').hasAttribute('aria-busy')")


def _shoot(page: Any, out_dir: Path, name: str) -> Path:
    path = out_dir / f"{name}.png"
    page.locator("#learn-view").screenshot(path=str(path))
    return path


def capture(browser: Any, base_url: str, out_dir: Path) -> list[Path]:
    """Save the Learn view's scenes (:data:`SCENES`) under ``out_dir``; return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    saved = []
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    page = context.new_page()

    # 1. opened on a middle game: the root entered with the whole window open
    _open_learn(page, base_url, "X../.O./...", "X")
    saved.append(_shoot(page, out_dir, "learn-start"))

    # 2. stepping on to the first cut-off: the window has closed (alpha >= beta)
    for _ in range(400):
        if page.is_visible("#learn-cut"):
            break
        page.click("#learn-step")
    saved.append(_shoot(page, out_dir, "learn-cutoff"))

    # 3. a cut node opened by keyboard: its pruned moves greyed, the reason in focus
    current = page.locator("#learn-tree [aria-current=step]")
    current.focus()
    if current.get_attribute("aria-expanded") == "false":
        page.keyboard.press("ArrowRight")
    pruned = page.locator("#learn-tree [aria-current=step] .pruned").first
    pruned.focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    saved.append(_shoot(page, out_dir, "learn-pruned"))

    # 4. the tutorial's position and counting: 55,505 against 8,465
    _open_learn(page, base_url, ".../.X./...", "O")
    page.check("#learn-tutorial")
    page.click("#learn-run")
    page.wait_for_function("document.getElementById('learn-summary').textContent.includes('8,465')")
    saved.append(_shoot(page, out_dir, "learn-tutorial"))

    # 5. a large trace: plain minimax on the empty board, summarised with its bound
    _open_learn(page, base_url, ".../.../...", "X")
    page.select_option("#learn-algorithm", "minimax")
    page.click("#learn-run")
    page.wait_for_function("document.getElementById('learn-summary').textContent"
                           ".startsWith('Minimax')")  # fmt: skip
    _wait_explained(page)
    saved.append(_shoot(page, out_dir, "learn-large"))
    context.close()
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running noughts server (default: start one)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    support = _screenshots()._web_test_support()
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
