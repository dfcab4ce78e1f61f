"""The page as a person reads it (issue 53, item 5): heat-map labels inside their cells
from 320 to 1280 px, a cube that fills its card on a desktop, no empty band above the
status, nothing that moves when text appears, a hint that singles out its move, the
end of a game in one sentence, numbers that name their unit, and a Learn view that
opens without taking the board out of sight."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
EMPTY_QUBIC = "." * 64


@pytest.fixture
def opened(browser: Any, server_url: str) -> Iterator[Any]:
    """Open the page at a viewport: ``opened(query, viewport)``; contexts closed after,
    and the test fails on any JavaScript error."""
    pages: list[Any] = []

    def open_at(query: str, viewport: dict[str, int]) -> Any:
        phone = viewport["width"] < 600
        context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.set_default_timeout(30_000)
        page.goto(f"{server_url}/?{query}")
        page.wait_for_selector("html[data-ready]")
        wait_idle(page)
        pages.append(page)
        return page

    yield open_at
    errors = [error for page in pages for error in page.errors]
    for page in pages:
        page.context.close()
    assert not errors, errors


def wait_idle(page: Any) -> None:
    page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")


def box(page: Any, selector: str) -> tuple[float, float, float, float]:
    """An element's box on the page (not the viewport): left, top, width, height."""
    return tuple(  # type: ignore[return-value]
        page.eval_on_selector(
            selector,
            """e => { const r = e.getBoundingClientRect();
                return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }""",
        )
    )


LABELS_OUT = """() => [...document.querySelectorAll('.cell.has-heat')].flatMap(cell => {
    // the label's text as drawn (a range over it), and the label's own box: both inside
    // the cell, and nothing scrolled away inside the label
    const heat = cell.querySelector('.heat');
    if (!heat.getClientRects().length || !heat.textContent) return [];
    const c = cell.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(heat);
    const inside = (r) => r.left >= c.left - 0.5 && r.right <= c.right + 0.5
        && r.top >= c.top - 0.5 && r.bottom <= c.bottom + 0.5;
    const ok = inside(range.getBoundingClientRect()) && inside(heat.getBoundingClientRect())
        && heat.scrollWidth <= heat.clientWidth + 0.5;
    return ok ? [] : [`${cell.dataset.cell} "${heat.textContent}" ` +
        `${Math.round(range.getBoundingClientRect().width)} px in ${Math.round(c.width)} px`];
})"""


@pytest.mark.parametrize("width", [320, 390, 768, 1280])
def test_heat_map_labels_fit_their_cells(opened: Any, width: int) -> None:
    """Qubic's flat layers (the opening book's "win ≤57", the engine's strong, fine and
    weak, the raw scores behind Numbers) and the 4x4 board, at every width."""
    viewport = {"width": width, "height": 800}
    page = opened(f"variant=4x4x4&view=flat&think=150&board={EMPTY_QUBIC}&to=X&you=X", viewport)
    page.click("label.switch")
    page.wait_for_selector(".cell.has-heat")
    labels = page.eval_on_selector_all(".cell.has-heat .heat", "hs => hs.map(h => h.textContent)")
    assert len(labels) == 64 and "win ≤57" in labels, labels
    assert page.evaluate(LABELS_OUT) == []
    page.click("#numbers summary")
    page.wait_for_function(
        "[...document.querySelectorAll('.cell.has-heat .heat')]"
        ".some(h => /^[+−±]/.test(h.textContent))"
    )
    assert page.evaluate(LABELS_OUT) == []
    page = opened("variant=4x4&you=X&board=X.../.O../..../....&to=X", viewport)
    page.click("label.switch")
    page.wait_for_selector(".cell.has-heat")
    assert page.evaluate(LABELS_OUT) == []


def test_the_cube_fills_its_card_on_a_desktop(opened: Any) -> None:
    """Lying on its side, layer 1 at the left: most of the card's width, marks a
    person sees; every cell still takes its click."""
    board = "X.../..../..../....|..../.O../..../....|..../..../..X./....|..../..../..../...O"
    page = opened(f"variant=4x4x4&think=150&board={board}&to=X&you=X", DESKTOP)
    card = page.eval_on_selector(
        ".play",
        "e => e.clientWidth - parseFloat(getComputedStyle(e).paddingLeft) "
        "- parseFloat(getComputedStyle(e).paddingRight)",
    )
    lefts = [box(page, f".layer:nth-child({i + 1}) .grid")[0] for i in range(4)]
    span = page.evaluate(
        """() => { const rs = [...document.querySelectorAll('.layer .grid')]
            .map(g => g.getBoundingClientRect());
            return Math.max(...rs.map(r => r.right)) - Math.min(...rs.map(r => r.left)); }"""
    )
    assert span >= 0.75 * card, (span, card)
    assert lefts == sorted(lefts), lefts  # layer 1 at the left, layer 4 at the right
    marks = page.eval_on_selector_all(
        "svg.mark",
        "ms => ms.map(m => { const r = m.getBoundingClientRect(); "
        "return Math.min(r.width, r.height); })",
    )
    assert len(marks) == 4 and min(marks) >= 20, marks
    # the status and the buttons in sight with it
    for selector in ("#status", "#hint"):
        _, top, _, height = box(page, selector)
        assert top + height <= DESKTOP["height"], selector
    # a phone's narrow card: the cube stands, layer 1 at the bottom
    page = opened(f"variant=4x4x4&think=150&board={board}&to=X&you=X", PHONE)
    assert page.locator("#board.lying").count() == 0
    tops = [box(page, f".layer:nth-child({i + 1}) .grid")[1] for i in range(4)]
    assert tops == sorted(tops, reverse=True), tops


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_flat_layers_leave_no_empty_band_above_the_status(
    opened: Any, viewport: dict[str, int]
) -> None:
    page = opened("variant=4x4x4&view=flat&think=150&you=X", viewport)
    card = box(page, ".play")
    status = box(page, "#status")
    padding = page.eval_on_selector(".play", "e => parseFloat(getComputedStyle(e).paddingTop)")
    # the status line's pill sits at the card's top (its own row may be up to two lines)
    assert status[1] - card[1] <= padding + 12, (card, status)


def shapes(page: Any) -> dict[str, tuple[float, float, float, float]]:
    return {selector: box(page, selector) for selector in ("#board", ".actions", ".status-bar")}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_nothing_moves_when_text_appears(opened: Any, viewport: dict[str, int]) -> None:
    """The board (and the buttons under it) keep their place as the AI's verdict, a
    hint and the end of the game come; the room for them is kept while they are empty."""
    page = opened("variant=4x4x4&think=150&you=X&view=cube", viewport)
    before = shapes(page)
    assert page.is_hidden("#verdict-line") and page.is_hidden("#message")
    page.locator(".cell[data-cell='21']").click()
    if page.locator("#board.zoomed").count():  # a phone's first tap zooms into the layer
        page.locator(".cell[data-cell='21']").click()
    wait_idle(page)
    page.wait_for_selector("#verdict-line:not([hidden])")
    assert shapes(page) == before
    page.click("#hint")
    page.wait_for_selector("#message:not([hidden])")
    assert "Hint:" in page.inner_text("#message")
    assert shapes(page) == before
    # the end of a game: the AI completes the top row, and says so in one sentence
    page = opened("variant=3x3&board=OO./X../X..&to=X&you=X", viewport)
    before = shapes(page)
    page.click(".cell[data-cell='4']")
    page.wait_for_function("document.getElementById('status').dataset.state === 'lost'")
    assert shapes(page) == before
    status = page.inner_text("#status")
    assert status == "The AI wins with O: 3 in a row.", status
    assert len(re.findall(r"[.!?](\s|$)", status)) == 1
    assert page.is_hidden("#verdict-line")  # the status alone says it
    assert page.inner_text("#stat-verdict") == "The game is over: I won"


def test_a_hint_singles_out_its_move(opened: Any) -> None:
    """On the empty 3x3 board every move draws: the hint frames one cell and stars it;
    the eight as good are outlined, dashed and without a label, and said to be as good."""
    page = opened("variant=3x3&you=X", DESKTOP)
    page.click("#hint")
    page.wait_for_selector(".cell.hinted")
    hinted = page.eval_on_selector_all(".cell.hinted", "cs => cs.map(c => +c.dataset.cell)")
    assert len(hinted) == 1
    name = page.get_attribute(f".cell[data-cell='{hinted[0]}']", "aria-label") or ""
    message = page.inner_text("#message")
    assert message.startswith(f"Hint: {name.split(',')[0]} — draw"), (message, name)
    assert "8 other moves are as good" in message
    assert name.endswith(", the hint")
    styles = page.eval_on_selector_all(
        ".cell",
        """cs => cs.map(c => { const s = getComputedStyle(c);
            const star = getComputedStyle(c, '::before').content;
            return [+c.dataset.cell, s.outlineStyle, s.boxShadow, star,
                    c.querySelector('.heat').textContent, c.getAttribute('aria-label')]; })""",
    )
    for cell, outline, shadow, star, label, aria in styles:
        if cell == hinted[0]:
            assert "4px" in shadow and star == '"★"' and label == "draw", (shadow, star, label)
        else:
            assert outline == "dashed" and star in ("none", "normal") and label == "", cell
            assert aria.endswith(", as good as the hint"), aria
    # with the heat map on, every value is drawn and the hint still stands out
    page.click("label.switch")
    page.wait_for_function("document.querySelectorAll('.cell.has-heat').length === 9")
    assert page.eval_on_selector_all(".cell.hinted", "cs => cs.length") == 1
    thick = page.eval_on_selector_all(
        ".cell.has-heat",
        "cs => cs.filter(c => getComputedStyle(c).boxShadow.includes('4px')).length",
    )
    assert thick == 1


def test_the_numbers_name_their_unit(opened: Any) -> None:
    """The opening book's bound and the search's depth in plies, said so; a level that
    judged its move without looking ahead says that instead of "0"."""
    page = opened("variant=4x4x4&think=150&you=O", DESKTOP)  # X (the AI) opens from the book
    page.click("#numbers summary")
    score = page.inner_text("#stat-score")
    assert re.fullmatch(r"win in at most \d+ plies \(proven\)", score), score
    depth = page.inner_text("#stat-depth")
    assert re.fullmatch(r"\d+ plies", depth), depth
    assert "moves of mine" in page.inner_text("#stat-verdict")  # the words count moves
    assert "a ply being one move of either side" in page.inner_text("#numbers")
    page = opened("variant=4x4&level=2&you=O", DESKTOP)
    page.click("#numbers summary")
    depth = page.inner_text("#stat-depth")
    # a low level looks ahead 0 or a few plies, as its dice fall
    assert depth == "none (each move judged on its own)" or re.fullmatch(r"1 ply|\d+ plies", depth)
    page = opened("variant=3x3&level=10&you=O", DESKTOP)
    page.click("#numbers summary")
    assert re.fullmatch(r"to the end, \d+ plies", page.inner_text("#stat-depth"))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_learn_opens_without_taking_the_board_out_of_sight(
    opened: Any, viewport: dict[str, int]
) -> None:
    page = opened("variant=3x3&board=X../.O./...&you=X", viewport)
    page.click("#learn-open")
    page.wait_for_selector("#learn-tree [role=treeitem]")
    page.wait_for_function("!document.getElementById('learn-view').hasAttribute('aria-busy')")
    in_sight = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
        return r.bottom > 0 && r.top < innerHeight; }"""
    title_seen = """() => {
        const r = document.getElementById('learn-title').getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight; }"""
    assert page.evaluate(title_seen)
    board_top = page.eval_on_selector("#board", "b => b.getBoundingClientRect().top")
    assert board_top >= 0 and page.evaluate(in_sight, "#board")
    if viewport is DESKTOP:
        assert page.evaluate("scrollY") == 0
        # beside the board, not under it
        assert box(page, "#learn-view")[0] > box(page, "#board")[0] + box(page, "#board")[2]
    # playing the walk back scrolls the tree's own box, never the page
    page.locator("#learn-play").scroll_into_view_if_needed()
    scrolled = page.evaluate("scrollY")
    page.fill("#learn-speed", "20")
    page.click("#learn-play")
    page.wait_for_function(
        "+document.getElementById('learn-step-text').textContent.split(' ')[1] >= 60"
    )
    assert page.evaluate("scrollY") == scrolled
    assert page.eval_on_selector("#learn-tree", "t => t.scrollTop") > 0


@pytest.mark.parametrize("width", [320, 390])
def test_tree_rows_stay_on_one_line_on_a_phone(opened: Any, width: int) -> None:
    page = opened("variant=3x3&board=X../.O./...&you=X", {"width": width, "height": 740})
    page.click("#learn-open")
    page.wait_for_selector("#learn-tree [role=treeitem]")
    page.wait_for_function("!document.getElementById('learn-view').hasAttribute('aria-busy')")
    heights = page.eval_on_selector_all(
        "#learn-tree .row",
        """rows => rows.filter(r => r.getClientRects().length)
            .map(r => [r.getBoundingClientRect().height,
                       parseFloat(getComputedStyle(r).lineHeight) || 20])""",
    )
    assert len(heights) > 10
    assert all(height < 1.6 * line + 6 for height, line in heights), heights
    # the page itself does not scroll sideways: the tree does
    sideways = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(sideways) == 0


def test_the_cube_fits_again_when_learn_narrows_its_card(opened: Any) -> None:
    """Learn beside the board narrows the board's card: the cube is fitted to it anew."""
    page = opened("variant=4x4x4&think=150&you=X", DESKTOP)
    inside = """() => { const s = document.querySelector('.scene').getBoundingClientRect();
        return [...document.querySelectorAll('.cell')].every(c => {
            const r = c.getBoundingClientRect();
            return r.left >= s.left - 1 && r.right <= s.right + 1
                && r.top >= s.top - 1 && r.bottom <= s.bottom + 1; }); }"""
    wide = box(page, ".scene")[2]
    width = "document.querySelector('.scene').getBoundingClientRect().width"
    page.click("#learn-open")
    page.wait_for_selector("#learn-summary:not(:empty)")
    page.wait_for_function(f"{width} < {wide - 100}")
    page.wait_for_function(inside)
    page.click("#learn-close")
    page.wait_for_function(f"{width} > {wide - 1}")
    page.wait_for_function(inside)
