"""The web page in a real browser against a real `noughts serve` (see conftest.py)."""

from __future__ import annotations

import json
import random
import re
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
    for first, mark in (("you", "X"), ("ai", "O"), ("you", "O")):  # `you` names the side
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


def test_x_always_moves_first_whichever_side_you_play(game: Any) -> None:
    """Your side is one choice that cannot contradict the rules: X moves first, so as O
    you answer the AI's opening move (the address's ``you`` or the older ``first``)."""
    for params in ({"you": "O"}, {"first": "ai"}, {"you": "O", "first": "you"}):
        game.open(variant="3x3", level=10, **params)
        board = game.board()
        assert (board.count("X"), board.count("O")) == (1, 0), params
        assert "you play O" in game.status() and game.state() == "playing"
    game.open(variant="3x3", level=10, you="X")
    assert game.board() == "." * 9 and "you play X" in game.status()
    page = game.page
    assert page.locator("input[name='first'], input[name='mark']").count() == 0
    page.check("input[name='side'][value='O']", force=True)  # a new game: the AI opens
    game.wait_idle()
    assert game.board().count("X") == 1 and "you play O" in game.status()
    page.check("input[name='side'][value='random']", force=True)
    for _ in range(8):  # either side, and X first every time
        page.click("#new-game")
        game.wait_idle()
        board, status = game.board(), game.status()
        mark = "O" if board.count("X") == 1 else "X"
        assert board.count("O") == 0 and f"you play {mark}" in status
    page.reload()  # the choice is kept
    page.wait_for_selector("html[data-ready]")
    assert page.is_checked("input[name='side'][value='random']")


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


def test_a_game_asks_with_its_seed_and_a_new_game_with_another(game: Any) -> None:
    """The same seed gives the same game (undo and play again: the same reply, even from
    a level that errs at random); a new game sends a new seed."""
    game.open(variant="3x3", level=3, first="you")

    def reply_to(cell: int) -> tuple[int, int]:
        with game.page.expect_response(
            lambda r: r.url.endswith("/api/v1/move") and r.status == 200
        ) as response_info:
            game.cell(cell).click()
        game.wait_idle()
        sent = response_info.value.request.post_data_json
        return sent["seed"], response_info.value.json()["move"]

    seed, reply = reply_to(4)
    assert isinstance(seed, int) and 0 <= seed < 2**48
    for _ in range(3):
        game.page.click("#undo")
        assert reply_to(4) == (seed, reply)
    seeds = {seed}
    for _ in range(3):
        game.page.click("#new-game")
        game.wait_idle()
        seeds.add(reply_to(4)[0])
    assert len(seeds) == 4


def test_hint_marks_the_best_move_and_the_heat_map_shows_every_value(
    game: Any, server_url: str
) -> None:
    """One consistent control: a hint marks the best move only, and the heat-map switch
    (which stays as the player left it) shows every value."""
    game.open(variant="3x3", board="XX./OO./...", you="X")
    assert game.heat() == {}
    game.page.click("#hint")
    game.page.wait_for_selector(".cell.has-heat")
    assert game.heat() == {2: "win 1"}  # the best move only
    assert not game.page.is_checked("#engine-view") and game.page.is_hidden("#legend")
    assert "Hint: c3" in game.page.inner_text("#message")
    game.page.click("label.switch")
    expected = {2: "win 1", 5: "draw", 6: "loss 2", 7: "loss 2", 8: "loss 2"}
    assert game.heat() == expected
    assert game.page.is_checked("#engine-view") and game.page.is_visible("#legend")
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
    game.page.click("label.switch")  # off: no values at all, until the next hint
    assert game.heat() == {}


def test_a_hint_with_the_numbers_open_says_each_thing_once(game: Any) -> None:
    """With Numbers open a proven value's number is its words: "draw", not "draw, draw";
    an unproven one still shows its raw score beside the words."""
    game.open(variant="3x3", board="X../.../...", to="O", you="O")
    game.page.click("#numbers summary")
    game.page.click("#hint")
    game.page.wait_for_selector(".cell.has-heat")
    message = game.page.inner_text("#message")
    assert re.fullmatch(r"Hint: b2 — draw\.", message.strip()), message
    game.open(variant="4x4x4", think=200, board="." * 64, to="X", you="X")
    game.page.click("#numbers summary")
    game.page.click("#hint")
    game.page.wait_for_selector(".cell.has-heat", timeout=30_000)
    message = game.page.inner_text("#message").strip()
    words = message.split(" — ")[1]
    assert len(set(words.rstrip(".").split(", "))) == len(words.rstrip(".").split(", ")), message


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
    game.page.click("#numbers summary")
    for stat in ("#stat-score", "#stat-depth", "#stat-nodes", "#stat-time"):
        assert game.page.inner_text(stat) not in ("", "—")


def test_qubic_heat_map_speaks_plain_words_from_the_players_side(game: Any) -> None:
    layers = ["XX../..../..../....", "O.../..../..../....", "..../..../..../...."]
    game.open(variant="4x4x4", think=150, board="|".join([*layers, layers[1]]), to="X")
    game.page.click("label.switch")
    game.page.wait_for_selector(".cell.has-heat")
    heat = game.heat()
    assert len(heat) == 60
    plain = re.compile(r"^(win \d+|loss \d+|draw|strong|fine|weak)$")
    assert all(plain.match(text) for text in heat.values()), heat
    assert "strong" in heat.values()  # the best guesses are strong, never a raw score
    words = {cell for cell, text in heat.items() if text in ("strong", "fine", "weak")}
    label = game.cell(min(words)).get_attribute("aria-label") or ""
    assert "(not proven)" in label and not re.search(r"\d{2,}", label.split(",", 2)[-1])
    # the raw scores wait behind the Numbers details
    game.page.click("#numbers summary")
    numbers_shown = (
        "[...document.querySelectorAll('.cell.has-heat .heat')]"
        ".some(h => /^[+−±]/.test(h.textContent))"
    )
    game.page.wait_for_function(numbers_shown)
    numbers = game.heat()
    assert all(re.match(r"^([+−]\d|±0)", numbers[cell]) for cell in words), numbers
    game.page.click("#numbers summary")
    game.page.wait_for_function(f"!({numbers_shown})")
    assert game.heat() == heat


def test_plain_words_first_and_numbers_behind_details(game: Any) -> None:
    game.open(variant="3x3", level=3, first="you")
    game.play(0)
    verdict = game.page.inner_text("#stat-verdict")
    assert verdict.startswith(("I think", "I am sure")), verdict
    for stat in ("#stat-depth", "#stat-nodes", "#stat-score"):
        assert game.page.is_hidden(stat)
    game.open(variant="3x3", level=10, first="you")
    game.play(4)
    assert game.page.inner_text("#stat-verdict") == "I am sure this is a draw if we both play well"
    game.page.click("#numbers summary")
    assert game.page.is_visible("#stat-depth")
    assert game.page.inner_text("#stat-nodes") == "none (solved)"
    assert game.page.inner_text("#stat-score") == "draw (proven)"


def test_undo_brings_back_the_engines_view_of_the_move_still_on_the_board(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you")
    game.play(4)
    first_reply = game.page.inner_text("#stat-move")
    assert first_reply != "—"
    game.page.click("#numbers summary")
    first_depth = game.page.inner_text("#stat-depth")
    game.play(empty_cells(game.board())[0])
    assert game.page.inner_text("#stat-move") != first_reply
    game.page.click("#undo")
    assert game.page.inner_text("#stat-move") == first_reply
    assert game.page.inner_text("#stat-depth") == first_depth
    assert f"The AI played {first_reply}" in game.status()
    game.page.click("#undo")
    assert game.page.inner_text("#stat-move") == "—"


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


def test_a_reload_keeps_the_game_and_the_address_shares_the_position(
    game: Any, browser: Any, server_url: str
) -> None:
    game.open(variant="3x3", level=10, first="you")
    game.page.click("button.stop[data-level='5']")  # a setting the reload must keep
    game.play(4)
    game.play(empty_cells(game.board())[0])
    board = game.board()
    address = game.page.url
    assert "board=" in address and "variant=3x3" in address
    game.page.reload()
    game.page.wait_for_selector("html[data-ready]")
    game.wait_idle()
    assert game.board() == board and "Your turn" in game.status()
    assert game.page.input_value("#level") == "5"
    game.page.click("#undo")  # the moves came back too, not just the marks
    assert game.board().count("X") == 1 and game.board().count("O") == 1
    # the address opens the same position for someone else (a fresh browser)
    other = open_in_a_fresh_browser(browser, address)
    assert other.board() == board and "Your turn" in other.status()
    other.page.context.close()


def open_in_a_fresh_browser(browser: Any, url: str) -> Any:
    """The page at ``url`` in a new context (its own storage), as a GamePage."""
    from web.conftest import GamePage

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    return GamePage(context.new_page(), url).open_url(url)


def test_a_bad_board_in_the_address_is_explained(game: Any) -> None:
    game.open(variant="3x3", board="garbage")
    message = game.page.inner_text("#message")
    assert "Could not open the position" in message and "unexpected character" in message
    assert game.board() == "." * 9 and game.state() == "playing"
    game.open(variant="3x3", board="XXX/X../...")
    assert "4 X and 0 O" in game.page.inner_text("#message")


def test_a_finished_board_in_the_address_is_shown_as_finished(game: Any) -> None:
    game.open(variant="3x3", board="XXX/OO./...", you="X")
    assert "already over" in game.status() and "X already has 3 in a row" in game.status()
    assert "win" not in game.status().lower()
    assert game.page.locator(".cell.win").count() == 3
    assert game.page.locator(".cell.playable").count() == 0
    assert game.page.is_disabled("#undo")
    tally = [game.page.inner_text(f"#tally-{who}") for who in ("you", "draws", "ai")]
    assert tally == ["0", "0", "0"]  # nothing was played, nothing is counted


def test_a_lost_game_taken_back_leaves_the_tally(game: Any) -> None:
    game.open(variant="3x3", level=10, first="you")
    while game.state() == "playing":  # always the first empty cell: a losing plan
        game.play(empty_cells(game.board())[0])
    assert game.state() == "lost" and game.page.inner_text("#tally-ai") == "1"
    game.page.click("#undo")
    assert game.page.inner_text("#tally-ai") == "0"


def test_try_again_stays_on_one_line_on_a_phone(browser: Any, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    page = context.new_page()
    page.route("**/api/v1/move", lambda route: route.abort())
    page.goto(f"{server_url}/?variant=3x3&first=ai")
    page.wait_for_selector("#retry:visible")
    box = page.locator("#retry").bounding_box()
    line = page.evaluate(
        "parseFloat(getComputedStyle(document.getElementById('retry')).lineHeight)"
    )
    assert box is not None and box["height"] < 2 * line + 12
    context.close()


def test_hovering_a_cell_of_a_flat_board_shows_its_lines(game: Any) -> None:
    game.open(variant="3x3", first="you")
    game.cell(4).hover()  # the centre: four lines, eight other cells
    assert game.page.locator(".cell.on-line").count() == 8
    game.page.mouse.move(0, 0)
    assert game.page.locator(".cell.on-line").count() == 0


def test_api_docs_render_with_no_outside_request(page: Any, server_url: str) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{server_url}/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20_000)
    assert "/api/v1/move" in page.inner_text(".swagger-ui")
    assert requests and all(url.startswith(f"{server_url}/") for url in requests), requests


def test_api_reference_pages_fetch_nothing_from_elsewhere(page: Any, server_url: str) -> None:
    """/redoc and /docs in a browser: every request goes to this server (ReDoc's script
    asked a CDN for the Redocly logo)."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{server_url}/redoc")
    page.wait_for_selector("[role=menuitem]", state="attached")  # ReDoc drew its menu
    page.wait_for_load_state("networkidle")
    page.goto(f"{server_url}/docs")
    page.wait_for_selector(".swagger-ui .opblock", state="attached")
    page.wait_for_load_state("networkidle")
    here = (f"{server_url}/", f"blob:{server_url}/", "data:")  # blob: a worker ReDoc makes
    elsewhere = [url for url in requests if not url.startswith(here)]
    assert requests and elsewhere == []


def test_keyboard_help_names_only_the_keys_of_the_view_shown(game: Any) -> None:
    """The flat Qubic layers cannot be turned: their help leaves the cube's keys out."""
    game.open(variant="4x4x4", think=150, view="flat", you="X")
    flat = game.page.inner_text(".keys-help")
    assert "PageUp/PageDown change layer" in flat and "turn the cube" not in flat
    game.page.check("input[name='view'][value='cube']", force=True)
    assert "Shift+arrows turn the cube" in game.page.inner_text(".keys-help")
    game.open(variant="3x3", you="X")
    assert "layer" not in game.page.inner_text(".keys-help")
