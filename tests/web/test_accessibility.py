"""The whole page passes axe-core with no violations, contrast included, light and dark,
in the states a player meets: a fresh board, the heat map with its numbers open, a hint,
a finished game, Qubic as a cube and as flat layers, and an error message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_passes_axe_in_every_state(
    browser: Any, server_url: str, axe: Callable[[Any], list[str]], scheme: str
) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    problems: dict[str, list[str]] = {}

    def check(state: str) -> None:
        page.wait_for_timeout(50)
        found = axe(page)
        if found:
            problems[state] = found

    def open_page(query: str) -> None:
        page.goto(f"{server_url}/?{query}")
        page.wait_for_selector("html[data-ready]")
        page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")

    open_page("variant=3x3&first=you")
    check("3x3, a new game")
    page.click("#hint")
    page.wait_for_selector(".cell.has-heat")
    check("3x3 after a hint")
    page.click("label.switch")
    page.click("#numbers summary")
    page.wait_for_selector(".cell.has-heat >> nth=3")
    check("3x3 with the heat map and its numbers")
    open_page("variant=3x3&board=XXX/OO./...")
    check("a finished position")
    open_page("variant=3x3&board=garbage")
    check("a bad ?board= explained")
    layers = ["XX../..../..../....", "O.../..../..../....", "..../..../..../...."]
    open_page(f"variant=4x4x4&think=100&board={'|'.join([*layers, layers[1]])}&to=X")
    check("Qubic as a cube")
    page.check("input[name='view'][value='flat']", force=True)
    check("Qubic as flat layers")
    page.check("input[name='view'][value='cube']", force=True)
    if not page.is_checked("#engine-view"):  # on since the 3x3 check (a saved choice)
        page.click("label.switch")  # the heat map: colours on the cube, words on hover
    page.wait_for_selector(".cell.has-heat")
    page.hover(".cell[data-cell='21']")
    check("Qubic's heat map on the cube")
    page.check("#misere", force=True)
    page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")
    check("the misère switch on")
    context.close()
    assert not errors, errors
    assert not problems, problems
