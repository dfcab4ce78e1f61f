"""The page on phones 320, 360 and 390 px wide: nothing outside its card, no sideways
scroll, the Learn view's window graphic legible (issue 45, points 4 and 5).

Each state a phone player meets is checked: a Qubic layer zoomed in (its bar of
buttons), Learn open on Qubic (its long position string) and on 3x3 with a step shown
(the alpha-beta window graphic), and the 3x3 and 4x4 games with the heat map on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

WIDTHS = (320, 360, 390)

ESCAPES = """() => {
  // Elements sticking out of the card (or the board's section, or the Learn view) they
  // sit in, skipping what a scrolling or clipping box between them holds.
  const cards = ".card, section.play, .learn";
  const out = [];
  for (const el of document.querySelectorAll(`:is(${cards}) *`)) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === "hidden") continue;
    const card = el.parentElement.closest(cards);
    let clipped = false;
    for (let up = el.parentElement; up && up !== card; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") clipped = true;
    }
    if (clipped) continue;
    const c = card.getBoundingClientRect();
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5) {
      const name = `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}#${el.id}`;
      out.push(`${name} spans ${Math.round(r.left)}-${Math.round(r.right)}, ` +
        `its card ${Math.round(c.left)}-${Math.round(c.right)}`);
    }
  }
  return out;
}"""

SIDEWAYS = """() => {
  // How far the page scrolls sideways, and what reaches past the screen's right edge.
  const width = document.documentElement.clientWidth;
  const past = [...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5)
    .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}#${el.id} ` +
      `to ${Math.round(el.getBoundingClientRect().right)}`);
  return [document.documentElement.scrollWidth - width, past.slice(0, 6)];
}"""


@pytest.fixture(params=WIDTHS, ids=[f"{width}px" for width in WIDTHS])
def phone(request: pytest.FixtureRequest, browser: Any, server_url: str) -> Iterator[Any]:
    """A phone's page (touch, mobile viewport) of the width under test."""
    context = browser.new_context(
        viewport={"width": request.param, "height": 740}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(20_000)
    page.server_url = server_url
    yield page
    context.close()
    assert not errors, errors


def open_game(page: Any, query: str) -> None:
    page.goto(f"{page.server_url}/?{query}")
    page.wait_for_selector("html[data-ready]")
    page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")


def assert_fits(page: Any, what: str) -> None:
    assert page.evaluate(ESCAPES) == [], what
    sideways, past = page.evaluate(SIDEWAYS)
    assert sideways == 0, f"{what}: the page scrolls sideways ({past})"


def test_a_zoomed_qubic_layer_keeps_its_bar_inside_the_card(phone: Any) -> None:
    open_game(phone, "variant=4x4x4&think=150&you=X")
    assert_fits(phone, "the cube")
    phone.tap(".cell[data-cell='21']")
    assert phone.locator("#board.zoomed").count() == 1
    assert_fits(phone, "a zoomed layer")
    for button in (".zoom-down", ".zoom-up", ".zoom-back"):
        box = phone.locator(button).bounding_box()
        assert box["x"] >= 0 and box["width"] >= 44 and box["height"] >= 44, button


def test_learn_on_qubic_keeps_the_position_string_inside(phone: Any) -> None:
    open_game(phone, "variant=4x4x4&think=150&you=X")
    phone.click("#learn-open")
    phone.wait_for_selector("#learn-position:not(:empty)")
    assert_fits(phone, "Learn on Qubic")


def test_learn_window_graphic_is_legible(phone: Any) -> None:
    open_game(phone, "variant=3x3&board=X../.O./...&you=X")
    phone.click("#learn-open")
    phone.wait_for_selector("#learn-tree [role=treeitem]")
    phone.wait_for_function("!document.getElementById('learn-view').hasAttribute('aria-busy')")
    phone.click("#learn-step")
    phone.wait_for_selector("#learn-window text")
    assert_fits(phone, "Learn on 3x3")
    sizes = phone.eval_on_selector_all(
        "#learn-window text",
        """texts => texts.map(t => {
            const svg = t.ownerSVGElement;
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return parseFloat(getComputedStyle(t).fontSize) * scale;
        })""",
    )
    assert sizes and min(sizes) >= 10, sizes  # px on the screen


@pytest.mark.parametrize("variant", ["3x3", "4x4"])
def test_a_game_with_the_heat_map_fits(phone: Any, variant: str) -> None:
    open_game(phone, f"variant={variant}&you=X")
    phone.click("label.switch")
    phone.wait_for_selector(".cell.has-heat")
    assert_fits(phone, f"{variant} with the heat map")
