"""Screenshots of every variant (scripts/screenshots.py) and their place in the README."""

from __future__ import annotations

import importlib.util
import re
import struct
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("3x3", "4x4k3", "4x4", "4x4x4")


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def load_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "screenshots", ROOT / "scripts" / "screenshots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_screenshot_of_every_variant(browser: Any, server_url: str, tmp_path: Path) -> None:
    saved = load_script().capture(browser, server_url, tmp_path, settle_ms=0)
    views = ("4x4x4-flat", "dark", "hint")
    phones = ("phone-qubic", "phone")
    assert [p.name for p in saved] == [f"{name}.png" for name in (*VARIANTS, *views, *phones)]
    for path in saved:
        width, height = png_size(path)
        if path.stem in phones:
            assert (width, height) == (780, 1688)  # 390 x 844 at device scale 2
        else:
            assert width == 1280 and 700 <= height <= 1400, (path.name, width, height)


def test_the_readme_shows_the_committed_screenshots() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- section: web -->", 1)[1].split("<!-- section:", 1)[0]
    shown = re.findall(r"!\[[^\]]*\]\((docs/img/[^)]+\.png)\)", section)
    assert {f"docs/img/{name}.png" for name in VARIANTS} <= set(shown)
    for path in shown:
        width, height = png_size(ROOT / path)
        assert width >= 390 and height >= 600
