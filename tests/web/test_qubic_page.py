"""Qubic on the page as a new player meets it: feedback in sight, every cell clickable at
every angle, a heat map readable on the turned cube, a grid visible in the dark theme,
cells a finger can hit, the AI's verdict in true words, and a board change that keeps
the game (issue 26, items 1-7), and the misère switch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

# two marks each, X to move: 60 empty cells
OPEN = "X.../..../..../....|..../.O../..../....|..../..../..X./....|..../..../..../...O"

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def open_page(browser: Any, url: str, query: str, viewport: dict[str, int], **options: Any) -> Any:
    phone = viewport["width"] < 600
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/?{query}")
    page.wait_for_selector("html[data-ready]")
    page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")
    page.errors = errors  # checked by close()
    return page


def close(page: Any) -> None:
    errors = page.errors
    page.context.close()
    assert not errors, errors


def in_viewport(page: Any, selector: str) -> bool:
    """The element is visible and wholly inside the viewport, as the page is scrolled."""
    return bool(
        page.eval_on_selector(
            selector,
            """e => {
                const r = e.getBoundingClientRect();
                return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
                    && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
            }""",
        )
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_hint_the_status_and_the_verdict_are_in_sight(
    browser: Any, server_url: str, viewport: dict[str, int]
) -> None:
    page = open_page(browser, server_url, "variant=4x4x4&think=150&first=ai", viewport)
    assert page.evaluate("window.scrollY") == 0
    assert in_viewport(page, "#status")
    assert in_viewport(page, "#hint")
    page.click("#hint")
    page.wait_for_selector("#message:not([hidden])")
    assert "Hint:" in page.inner_text("#message")
    assert page.evaluate("window.scrollY") == 0  # nothing scrolled to show it
    for selector in ("#message", "#status", "#hint"):
        assert in_viewport(page, selector), selector
    # the AI moved first: what it thinks of its move, in sight too
    assert in_viewport(page, "#verdict-line")
    assert page.inner_text("#verdict-line").startswith("The AI:")
    close(page)


EMPTY_CELLS_HIT = """() => [...document.querySelectorAll('.cell:not(.taken)')].filter(cell => {
    const r = cell.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !(hit && hit.closest('.cell') === cell);
}).map(cell => +cell.dataset.cell)"""


def test_every_empty_cell_is_clicked_at_three_angles(browser: Any, server_url: str) -> None:
    page = open_page(browser, server_url, f"variant=4x4x4&board={OPEN}&to=X&you=X", DESKTOP)
    board = page.locator("#board")
    # the board records each click that reaches a cell and stops it there (no move)
    page.evaluate(
        """() => { window.clicked = new Set();
            document.getElementById('board').addEventListener('click', e => {
                const c = e.target.closest('.cell');
                if (c) { window.clicked.add(+c.dataset.cell); e.stopPropagation(); }
            }, true); }"""
    )
    empty = page.eval_on_selector_all(
        ".cell:not(.taken)", "cells => cells.map(c => +c.dataset.cell)"
    )
    assert len(empty) == 60
    angles = []
    # the starting angles; tilted as low as it goes and spun by 45 degrees (the widest
    # picture of a layer); tilted high and spun round
    low = ["Shift+ArrowDown"] * 3 + ["Shift+ArrowLeft"] * 6
    high = ["Shift+ArrowUp"] * 6 + ["Shift+ArrowRight"] * 12
    for keys in ([], low, high):
        page.locator(".cell[data-cell='4']").focus()
        for key in keys:
            page.keyboard.press(key)
        angles.append((board.get_attribute("data-tilt"), board.get_attribute("data-spin")))
        page.evaluate("window.clicked.clear()")
        for cell in empty:
            # Playwright's click fails when another element would take it at that point
            page.locator(f".cell[data-cell='{cell}']").click(timeout=2000)
        assert page.evaluate("[...window.clicked].sort((a, b) => a - b)") == empty
    assert len(set(angles)) == 3 and ("45", angles[1][1]) == angles[1], angles
    assert page.locator(".cell.taken").count() == 4  # nothing was played
    close(page)


def test_no_layer_hides_a_cell_at_any_angle_the_page_allows(browser: Any, server_url: str) -> None:
    for viewport in (DESKTOP, PHONE):
        page = open_page(browser, server_url, "variant=4x4x4&think=150&first=you", viewport)
        page.locator(".cell[data-cell='0']").focus()
        for _ in range(3):
            page.keyboard.press("Shift+ArrowDown")  # the lowest tilt
        hidden: dict[str, list[int]] = {}
        for tilt in range(5):
            for _ in range(36):  # a whole turn, ten degrees at a time
                page.keyboard.press("Shift+ArrowLeft")
                found = page.evaluate(EMPTY_CELLS_HIT)
                if found:
                    angle = page.eval_on_selector(
                        "#board", "b => b.dataset.tilt + '/' + b.dataset.spin"
                    )
                    hidden[angle] = found
            if tilt < 4:
                page.keyboard.press("Shift+ArrowUp")
        assert page.get_attribute("#board", "data-tilt") == "80"
        assert not hidden, (viewport, hidden)
        # captions never sit over a cell
        overlaps = page.evaluate(
            """() => {
                const boxes = [...document.querySelectorAll('.cell')]
                    .map(c => c.getBoundingClientRect());
                return [...document.querySelectorAll('.cube-caption')].filter(cap => {
                    const r = cap.getBoundingClientRect();
                    return boxes.some(b => r.left < b.right && b.left < r.right
                        && r.top < b.bottom && b.top < r.bottom);
                }).map(c => c.textContent);
            }"""
        )
        assert overlaps == []
        # the whole picture stays inside the scene
        inside = page.evaluate(
            """() => {
                const s = document.querySelector('.scene').getBoundingClientRect();
                return [...document.querySelectorAll('.cell')].every(c => {
                    const r = c.getBoundingClientRect();
                    return r.top >= s.top - 1 && r.bottom <= s.bottom + 1
                        && r.left >= s.left - 1 && r.right <= s.right + 1;
                });
            }"""
        )
        assert inside
        page.click("#reset-view")
        angle = [page.get_attribute("#board", f"data-{name}") for name in ("tilt", "spin")]
        assert angle == ["62", "348"]
        close(page)


def test_the_heat_map_on_the_cube_is_colour_and_words_on_hover(
    browser: Any, server_url: str
) -> None:
    layers = ["XX../..../..../....", "O.../..../..../....", "..../..../..../...."]
    board = "|".join([*layers, layers[1]])
    page = open_page(browser, server_url, f"variant=4x4x4&think=150&board={board}&to=X", DESKTOP)
    page.locator(".cell[data-cell='5']").focus()
    page.keyboard.press("Shift+ArrowLeft")  # a turned cube
    page.keyboard.press("Shift+ArrowDown")
    page.click("label.switch")
    page.wait_for_selector(".cell.has-heat")
    # no words drawn on the cube's cells: they could overlap at an angle
    drawn = page.eval_on_selector_all(
        ".cell.has-heat .heat", "hs => hs.filter(h => h.getClientRects().length).length"
    )
    assert drawn == 0
    tones = page.eval_on_selector_all(
        ".cell.has-heat", "cs => new Set(cs.map(c => getComputedStyle(c).backgroundColor)).size"
    )
    assert tones >= 2  # the colours show the values
    page.hover(".cell[data-cell='21']")
    label = page.get_attribute(".cell[data-cell='21']", "aria-label") or ""
    words = label.split(", ", 2)[-1]
    assert page.inner_text("#cell-info") == f"2b3: {words} for you"
    assert in_viewport(page, "#cell-info")
    # the flat layers show the words on the cells
    page.check("input[name='view'][value='flat']", force=True)
    drawn = page.eval_on_selector_all(
        ".cell.has-heat .heat",
        "hs => hs.filter(h => h.getClientRects().length && h.textContent).length",
    )
    assert drawn == 60
    close(page)


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_cubes_grid_stands_out_in_the_dark_theme_on_a_phone(
    browser: Any, server_url: str
) -> None:
    page = open_page(
        browser, server_url, "variant=4x4x4&think=150&first=you", PHONE, color_scheme="dark"
    )
    colour = """(sel, prop) => {
        const probe = document.createElement('div');
        probe.style.color = getComputedStyle(document.querySelector(sel)).getPropertyValue(prop);
        document.body.append(probe);
        const rgb = getComputedStyle(probe).color.match(/[\\d.]+/g).slice(0, 3).map(Number);
        probe.remove();
        return rgb;
    }"""
    card = tuple(page.evaluate(f"({colour})('.play', 'background-color')"))
    edge = tuple(page.evaluate(f"({colour})('#board', '--cube-edge')"))
    cell = tuple(page.evaluate(f"({colour})('#board', '--cube-cell')"))
    tray = tuple(page.evaluate(f"({colour})('#board', '--cube-tray')"))
    # the cells' edges and the grid's frame: 3:1 against the card and the cells
    # (WCAG's contrast for the parts of a control); the tray apart from the cells
    assert contrast(edge, card) >= 3, (edge, card)
    assert contrast(edge, cell) >= 3, (edge, cell)
    assert contrast(tray, cell) >= 1.4, (tray, cell)
    shadow = page.eval_on_selector(".board-3d.cube .cell", "c => getComputedStyle(c).boxShadow")
    assert "inset" in shadow
    close(page)


def test_a_phone_zooms_into_a_layer_with_cells_a_finger_can_hit(
    browser: Any, server_url: str, axe: Callable[[Any], list[str]]
) -> None:
    page = open_page(browser, server_url, "variant=4x4x4&think=150&first=you", PHONE)
    page.tap(".cell[data-cell='21']")
    assert page.locator("#board.zoomed").count() == 1
    assert page.evaluate("document.querySelectorAll('.cell.taken').length") == 0  # no move yet
    assert page.inner_text(".zoom-name") == "Layer 2 of 4"
    sizes = page.eval_on_selector_all(
        ".layer.zoom .cell",
        "cs => cs.map(c => [c.getBoundingClientRect().width, c.getBoundingClientRect().height])",
    )
    assert len(sizes) == 16 and all(w >= 44 and h >= 44 for w, h in sizes), sizes
    for button in (".zoom-down", ".zoom-up", ".zoom-back"):
        assert page.locator(button).bounding_box()["height"] >= 44
    assert axe(page) == []
    page.tap(".zoom-up")
    assert page.inner_text(".zoom-name") == "Layer 3 of 4"
    page.tap(".zoom-down")
    page.tap(".cell[data-cell='21']")  # the second tap plays, and the cube comes back
    page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")
    assert page.get_attribute(".cell[data-cell='21']", "aria-label").startswith("2b3, X")
    assert page.locator("#board.zoomed").count() == 0
    assert page.locator(".cell.taken").count() == 2
    close(page)


def test_the_verdict_is_replaced_when_the_game_ends(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you", board="XX./OO./...", to="O", you="X")
    game.page.wait_for_selector(".cell.taken >> nth=4")
    # O was to move and took c2: the AI won; the status says so in one sentence, the
    # line under it (its verdict while the game went on) is empty, and the engine's view
    # gives the result in place of the verdict
    assert game.state() == "lost"
    assert game.status() == "The AI wins with O: 3 in a row."
    assert game.page.inner_text("#stat-verdict") == "The game is over: I won"
    assert game.page.is_hidden("#verdict-line")


def test_a_board_change_keeps_the_game_on_the_board_left(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you")
    game.play(4)
    before = game.board()
    assert before.count("X") == 1 and before.count("O") == 1
    game.page.check("input[name='variant'][value='4x4']", force=True)
    game.wait_idle()
    assert game.board() == "." * 16
    assert "3×3 game is kept" in game.page.inner_text("#message")
    game.page.check("input[name='variant'][value='3x3']", force=True)
    game.wait_idle()
    assert game.board() == before
    assert "back where you left it" in game.page.inner_text("#message")
    assert "Your turn" in game.status()


def test_a_misere_game_move_through_the_switch(game: Any) -> None:
    """The switch sends the board's misère name; whoever completes a line loses."""
    game.open(variant="3x3", level=10, first="you")
    page = game.page
    page.check("#misere", force=True)
    game.wait_idle()
    assert "completing a line loses" in game.status()
    assert "variant=3x3-misere" in page.url
    with page.expect_response(lambda r: r.url.endswith("/api/v1/move")) as response_info:
        game.cell(4).click()
    response = response_info.value
    assert response.status == 200, response.text()
    assert response.request.post_data_json["variant"] == "3x3-misere"
    game.wait_idle()
    assert game.board().count("X") == 1 and game.board().count("O") == 1
    # X to move with two in the top row and every other cell bad: completing loses
    game.open(variant="3x3-misere", board="XX./OO./O..", to="X", you="X", level=10)
    assert page.is_checked("#misere")
    game.play(2)  # X completes the top row: X loses
    assert game.state() == "lost" and "you completed a line" in game.status()
