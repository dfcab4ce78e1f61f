"""The web page in a real browser against a real `noughts serve` (see conftest.py)."""

from __future__ import annotations

import json
import random
import urllib.request
from typing import Any

from noughts.notation import parse_board, square_name
from noughts.variants import variant


def api(server_url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server_url}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return dict(json.loads(answer.read()))


def line_owner(board: str, name: str) -> str | None:
    """The mark that completed a line on ``board`` (either side may have started)."""
    for line in variant(name).lines:
        marks = {board[cell] for cell in range(len(board)) if line >> cell & 1}
        if len(marks) == 1 and marks != {"."}:
            return marks.pop()
    return None


def empty_cells(board: str) -> list[int]:
    return [i for i, mark in enumerate(board) if mark == "."]


def test_level_10_never_loses_a_full_3x3_game(game: Any, server_url: str) -> None:
    requests: list[str] = []
    game.page.on("request", lambda request: requests.append(request.url))
    rng = random.Random(6)
    results = []
    for first, mark in (("you", "X"), ("ai", "X"), ("you", "O")):  # O may move first
        game.open(variant="3x3", level=10, first=first, you=mark)
        while game.state() == "playing":
            assert f"you play {mark}" in game.status()
            game.play(rng.choice(empty_cells(game.board())))
        board = game.board()
        assert line_owner(board, "3x3") != mark, board
        results.append(game.state())
        if game.state() == "draw":
            assert "draw" in game.status()
        else:
            assert game.state() == "lost"
            assert "The AI wins" in game.status()
    # the tally (localStorage, per variant) counted both games and no player win
    tally = [game.page.inner_text(f"#tally-{who}") for who in ("you", "draws", "ai")]
    assert tally[0] == "0"
    assert int(tally[1]) + int(tally[2]) == 3
    assert int(tally[1]) == results.count("draw")
    game.page.click("#tally-reset")
    assert [game.page.inner_text(f"#tally-{who}") for who in ("you", "draws", "ai")] == ["0"] * 3
    # nothing but the page's own server: no CDN, no fonts, no trackers
    assert requests and all(url.startswith(f"{server_url}/") for url in requests)


def test_winning_line_is_highlighted_and_the_game_is_closed(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you")
    while game.state() == "playing":  # always the first empty cell: a losing plan
        game.play(empty_cells(game.board())[0])
    assert game.state() == "lost" and "The AI wins" in game.status()
    board = game.board()
    highlighted = game.page.eval_on_selector_all(".cell.win", "c => c.map(e => +e.dataset.cell)")
    line = sum(1 << cell for cell in highlighted)
    assert line in variant("3x3").lines
    assert all(board[cell] == "O" for cell in highlighted)
    assert "winning line" in (game.cell(highlighted[0]).get_attribute("aria-label") or "")
    # no more moves once the game has ended
    game.cell(empty_cells(board)[0]).click(force=True)
    assert game.board() == board
    assert "over" in game.page.inner_text("#message")
    # undo reopens the game: the AI's winning move and the player's last move go
    game.page.click("#undo")
    assert game.state() == "playing" and "Your turn" in game.status()
    assert game.page.locator(".cell.win").count() == 0
    assert game.board().count("O") == board.count("O") - 1
    assert game.board().count("X") == board.count("X") - 1


def test_undo_takes_back_the_move_and_the_reply(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you")
    assert game.page.is_disabled("#undo")
    game.play(4)
    before = game.board()
    assert before.count("X") == 1 and before.count("O") == 1
    game.play(empty_cells(before)[0])
    assert game.board().count("O") == 2
    game.page.click("#undo")
    assert game.board() == before
    assert game.state() == "playing" and "Your turn" in game.status()
    game.page.keyboard.press("u")  # the shortcut does the same
    assert game.board() == "." * 9
    assert game.page.is_disabled("#undo")


def test_hint_heat_map_shows_the_values_of_a_known_position(game: Any, server_url: str) -> None:
    game.open(variant="3x3", board="XX./OO./...", you="X")
    assert game.heat() == {}
    game.page.click("#hint")
    game.page.wait_for_selector(".cell.has-heat")
    expected = {2: "win 1", 5: "draw", 6: "loss 2", 7: "loss 2", 8: "loss 2"}
    assert game.heat() == expected
    # the same values as the API's own analysis
    analysis = api(server_url, "/api/v1/analyze", {"variant": "3x3", "board": "XX./OO./..."})
    from_api = {m["move"]: (m["outcome"], m["plies"]) for m in analysis["moves"]}
    assert from_api == {
        2: ("win", 1),
        5: ("draw", from_api[5][1]),
        6: ("loss", 2),
        7: ("loss", 2),
        8: ("loss", 2),
    }
    best = game.page.eval_on_selector_all(".cell.best", "c => c.map(e => +e.dataset.cell)")
    assert best == [2]
    assert "c3, empty, win in 1" in (game.cell(2).get_attribute("aria-label") or "")
    assert "Hint: c3" in game.page.inner_text("#message")


def test_engine_view_shows_a_heat_map_every_turn(game: Any) -> None:
    game.open(variant="4x4k3", level=10, first="you")
    game.page.click("label.switch")
    game.page.wait_for_selector(".cell.has-heat")
    heat = game.heat()
    # 4x4 with 3 in a row is a first-player win: fastest from the centre
    assert {heat[c] for c in (5, 6, 9, 10)} == {"win 5"}
    assert {heat[c] for c in (0, 3, 12, 15)} == {"win 11"}
    game.play(5)
    game.page.wait_for_selector(".cell.has-heat")
    assert len(game.heat()) == 14
    for stat in ("#stat-depth", "#stat-nodes", "#stat-time"):
        assert game.page.inner_text(stat) not in ("", "—")


def test_qubic_clicks_land_in_the_right_cells(game: Any) -> None:
    game.open(variant="4x4x4", level=10, think=300, first="you")
    layers = game.page.locator(".board-3d .layer")
    assert layers.count() == 4
    geometry = variant("4x4x4")
    for cell in (0, 22, 41, 63, 17, 50):  # all four layers, no four of them in a line
        if game.board()[cell] != ".":
            continue
        layer, row, col = geometry.coords(cell)
        button = layers.nth(layer).locator(".cell").nth(row * 4 + col)
        assert button.get_attribute("aria-label") == (
            f"{square_name(geometry, cell)}, empty"  # the engine's name of the cell
        )
        with game.page.expect_response(
            lambda r: r.url.endswith("/api/v1/move") and r.status == 200
        ) as response_info:  # a fresh server's first Qubic move may need a retry (503)
            button.click()
        answer = response_info.value.json()
        sent = response_info.value.request.post_data_json
        assert sent["level"] == 10 and sent["time_ms"] in (300, 600, 1200, 2400)  # + retries
        x, _ = parse_board(answer["board"], geometry)
        assert x >> cell & 1, f"the API did not get X on cell {cell}: {answer['board']}"
        assert answer["square"] == square_name(geometry, answer["move"])
        game.wait_idle()
        after_x, after_o = parse_board(answer["board_after"], geometry)
        page_board = game.board()
        assert {i for i, m in enumerate(page_board) if m == "X"} == {
            i for i in range(64) if after_x >> i & 1
        }
        assert {i for i, m in enumerate(page_board) if m == "O"} == {
            i for i in range(64) if after_o >> i & 1
        }
        last = game.page.eval_on_selector_all(".cell.last", "c => c.map(e => +e.dataset.cell)")
        assert last == [answer["move"]]
        if game.state() != "playing":
            break
    # hovering a corner shows the 7 lines through it: 21 other cells
    game.cell(0).hover()
    assert game.page.locator(".cell.on-line").count() == 21


def test_keyboard_only_play(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you")
    page = game.page
    for _ in range(40):  # tab into the board (one tab stop for all its cells)
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('cell')"):
            break
    focused = lambda: page.evaluate("+document.activeElement.dataset.cell")  # noqa: E731
    assert focused() == 0
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    assert focused() == 4
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == (
        "b2, empty"
    )
    page.keyboard.press("Enter")
    game.wait_idle()
    assert game.board()[4] == "X" and game.board().count("O") == 1
    page.keyboard.press("Enter")  # an occupied cell: nothing happens
    assert game.board().count("X") == 1
    assert "taken" in page.inner_text("#message")
    status = page.get_by_role("status")
    while game.state() == "playing":
        assert "Your turn" in status.inner_text()
        target = empty_cells(game.board())[-1]
        row, col = divmod(target, 3)
        here_row, here_col = divmod(focused(), 3)
        for _ in range(abs(row - here_row)):
            page.keyboard.press("ArrowDown" if row > here_row else "ArrowUp")
        for _ in range(abs(col - here_col)):
            page.keyboard.press("ArrowRight" if col > here_col else "ArrowLeft")
        assert focused() == target
        page.keyboard.press("Enter")
        game.wait_idle()
    assert game.state() in ("draw", "lost")
    assert ("draw" in status.inner_text()) or ("The AI wins" in status.inner_text())


def test_qubic_arrow_keys_cross_the_layers(game: Any) -> None:
    game.open(variant="4x4x4", first="you", think=500)
    page = game.page
    assert page.is_visible("#think") and page.input_value("#think") == "500"
    game.cell(3).focus()  # layer 1, row 1, column 4
    focused = lambda: page.evaluate("+document.activeElement.dataset.cell")  # noqa: E731
    for key, cell in [
        ("ArrowRight", 16),  # into layer 2, column 1
        ("ArrowDown", 20),
        ("PageDown", 36),  # layer 3, same row and column
        ("End", 39),
        ("ArrowLeft", 38),
        ("PageUp", 22),
        ("Home", 20),
        ("ArrowLeft", 7),  # back into layer 1, column 4
    ]:
        page.keyboard.press(key)
        assert focused() == cell, key
    assert page.locator(".cell.on-line").count() > 0  # focus traces the lines too
    assert page.evaluate(
        "[...document.querySelectorAll('.cell')].filter(c => c.tabIndex === 0)"
        ".map(c => +c.dataset.cell)"
    ) == [7]  # one tab stop


def test_api_failures_show_a_friendly_message_and_retry(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you")
    page = game.page
    page.route("**/api/v1/move", lambda route: route.abort())
    game.play(0)
    assert "Cannot reach the engine" in page.inner_text("#message")
    assert game.board() == "X........"
    game.cell(1).click(force=True)  # not the player's turn: the AI still has to move
    assert game.board() == "X........"
    page.unroute("**/api/v1/move")
    page.route(
        "**/api/v1/move",
        lambda route: route.fulfill(
            status=429, content_type="application/json", body='{"detail": "too busy"}'
        ),
    )
    page.click("#retry")
    game.wait_idle()
    assert "busy" in page.inner_text("#message")
    page.unroute("**/api/v1/move")
    page.click("#retry")
    game.wait_idle()
    assert game.board().count("O") == 1
    assert page.is_hidden("#message")


def test_a_silent_server_times_out_with_a_friendly_message(game: Any) -> None:
    page = game.page
    page.clock.install()
    game.open(variant="3x3", level=10, first="you")
    held: list[Any] = []
    page.route("**/api/v1/move", lambda route: held.append(route))  # never answered
    game.cell(4).click()
    page.wait_for_function("document.getElementById('status').dataset.state === 'thinking'")
    game.cell(0).click(force=True)  # out of turn: the AI is thinking
    assert game.board() == "....X...."
    assert "Wait for the AI" in page.inner_text("#message")
    page.clock.run_for(21_000)
    game.wait_idle()
    assert "did not answer within 20 s" in page.inner_text("#message")
    assert page.is_visible("#retry")
    assert game.board() == "....X...."
    assert len(held) == 1  # the page gave up on it (aborted) rather than waiting on


def test_the_think_time_is_only_offered_on_qubic(game: Any) -> None:
    game.open(variant="3x3")
    assert game.page.is_hidden("#think")
    game.page.check("input[name='variant'][value='4x4x4']", force=True)
    assert game.page.is_visible("#think")
    assert game.page.locator(".cell").count() == 64


def test_fits_a_phone_screen(browser: Any, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    for name in ("3x3", "4x4x4"):
        page.goto(f"{server_url}/?variant={name}&think=100")
        page.wait_for_selector("html[data-ready]")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator(".cell").last.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390 and box["width"] >= 30
    context.close()


def test_static_files_pointed_at_the_api_with_a_parameter(
    game: Any, server_url: str, static_web_url: str
) -> None:
    """The page's files served by any static server, the API elsewhere (?api=)."""
    requests: list[str] = []
    game.page.on("request", lambda request: requests.append(request.url))
    game.open_url(f"{static_web_url}/index.html?api={server_url}&variant=3x3&first=you")
    game.play(4)
    assert game.board().count("O") == 1
    assert f"{server_url}/api/v1/move" in requests
    # styled: the fallback found style.css next to the page
    assert game.page.eval_on_selector(".grid", "e => getComputedStyle(e).display") == "grid"
    # without ?api= a static host has no API (not even the variants): the page says what
    # to do as soon as it opens
    game.open_url(f"{static_web_url}/index.html?variant=3x3&first=you")
    assert "no noughts API at this address" in game.page.inner_text("#message")


def test_the_page_knows_the_same_lines_as_the_engine(game: Any) -> None:
    """The page's geometry (hover lines, wins after the player's move) is built from the
    engine's catalogue, GET /api/v1/variants, and so has the engine's lines."""
    game.open(variant="3x3")
    names = ["3x3", "4x4k3", "4x4", "qubic", "5x5k4", "3x3x3"]
    lines = game.page.evaluate(
        """async names => {
            const { findVariant, geometryFrom } = await import('./static/geometry.js');
            const catalog = await (await fetch('api/v1/variants')).json();
            return names.map(name => geometryFrom(findVariant(catalog, name)).lines);
        }""",
        names,
    )
    for name, js_lines in zip(names, lines, strict=True):
        assert sorted(sum(1 << c for c in line) for line in js_lines) == sorted(
            variant(name).lines
        ), name
