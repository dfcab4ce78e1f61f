"""Qubic as a cube: four layers stacked in perspective (CSS 3-D transforms), turned by
dragging or Shift+arrow keys, played directly by mouse and keyboard, the winning line
drawn through it; the flat layers stay as a second view of the same cells."""

from __future__ import annotations

from typing import Any

from noughts.notation import square_name
from noughts.variants import variant

# X has three of the four cells of layer 1's top row and is to move: 3 wins
NEAR_WIN = "XXX./..../..../....|OO../..../..../....|O.../..../..../....|..../..../..../...."


def test_qubic_opens_as_a_cube_of_four_stacked_layers(game: Any) -> None:
    game.open(variant="4x4x4", think=150, first="you")
    page = game.page
    assert page.locator(".board.cube .solid .layer").count() == 4
    assert page.is_checked("input[name='view'][value='cube']")
    # the layers are really stacked: on a desktop's wide card the cube lies on its side,
    # each layer drawn right of the one before it (on a narrow card: above it)
    assert page.locator("#board.lying").count() == 1
    lefts = [page.locator(".layer .grid").nth(i).bounding_box()["x"] for i in range(4)]
    assert lefts[0] < lefts[1] < lefts[2] < lefts[3], lefts
    transform = page.eval_on_selector(".solid", "e => getComputedStyle(e).transform")
    assert transform.startswith("matrix3d"), transform
    # every one of the 64 cells takes a click at its centre (no layer hides another)
    hidden = page.evaluate(
        """() => [...document.querySelectorAll('.cell')].filter(cell => {
            cell.scrollIntoView({ block: 'center' });
            const r = cell.getBoundingClientRect();
            const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return !(hit && hit.closest('.cell') === cell);
        }).map(cell => +cell.dataset.cell)"""
    )
    assert hidden == []


def test_a_mouse_plays_on_the_cube_and_the_winning_line_runs_through_it(game: Any) -> None:
    game.open(variant="4x4x4", think=150, board=NEAR_WIN, to="X", you="X")
    game.play(3)
    assert game.state() == "won"
    winners = game.page.eval_on_selector_all(".cell.win", "c => c.map(e => +e.dataset.cell)")
    assert winners == [0, 1, 2, 3]
    strike = game.page.locator(".scene > svg.strike line")
    assert strike.count() == 1
    # the stroke runs from the first cell's centre to the last one's, as drawn now
    ends = [game.cell(c).bounding_box() for c in (0, 3)]
    box = game.page.locator(".scene").bounding_box()
    x1 = float(strike.get_attribute("x1") or 0) + box["x"]
    x2 = float(strike.get_attribute("x2") or 0) + box["x"]
    assert x1 < ends[0]["x"] + ends[0]["width"] and x2 > ends[1]["x"]


def test_the_cube_turns_by_drag_and_keys_and_play_goes_on(game: Any) -> None:
    game.open(variant="4x4x4", think=150, first="you")
    page = game.page
    board = page.locator("#board")
    spin, tilt = board.get_attribute("data-spin"), board.get_attribute("data-tilt")
    scene = page.locator(".scene").bounding_box()
    page.mouse.move(scene["x"] + 8, scene["y"] + 8)  # a corner of the scene, off the cells
    page.mouse.down()
    page.mouse.move(scene["x"] + 108, scene["y"] + 38, steps=5)
    page.mouse.up()
    assert board.get_attribute("data-spin") != spin and board.get_attribute("data-tilt") != tilt
    assert game.board() == "." * 64  # turning plays nothing
    # keyboard: Shift+arrows turn, plain arrows move between cells, Enter plays
    game.cell(0).focus()
    spin = board.get_attribute("data-spin")
    page.keyboard.press("Shift+ArrowLeft")
    assert board.get_attribute("data-spin") == str((int(spin or 0) + 10) % 360)
    assert page.evaluate("+document.activeElement.dataset.cell") == 0
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("+document.activeElement.dataset.cell") == 21
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert label == f"{square_name(variant('4x4x4'), 21)}, empty"
    page.keyboard.press("Enter")
    game.wait_idle()
    assert game.board()[21] == "X" and game.board().count("O") == 1


def test_keyboard_play_wins_on_the_cube(game: Any) -> None:
    game.open(variant="4x4x4", think=150, board=NEAR_WIN, to="X", you="X")
    page = game.page
    game.cell(2).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    game.wait_idle()
    assert game.state() == "won"
    assert "winning line" in (game.cell(3).get_attribute("aria-label") or "")
    assert game.page.locator(".scene > svg.strike").count() == 1


def test_the_flat_layers_are_a_second_view_of_the_same_cells(game: Any) -> None:
    game.open(variant="4x4x4", think=150, board=NEAR_WIN, to="X", you="X")
    page = game.page
    page.check("input[name='view'][value='flat']", force=True)
    assert page.locator(".board.cube").count() == 0
    assert page.eval_on_selector(".solid", "e => getComputedStyle(e).display") == "contents"
    tops = {round(page.locator(".layer").nth(i).bounding_box()["y"]) for i in range(4)}
    assert len(tops) == 1  # side by side
    game.play(3)
    assert game.state() == "won"
    page.reload()  # the choice of view is kept
    page.wait_for_selector("html[data-ready]")
    assert page.is_checked("input[name='view'][value='flat']")
    assert page.locator(".cell.win").count() == 4  # and so is the finished game


def test_a_tap_leaves_no_line_tint_behind(browser: Any, server_url: str) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    page.goto(f"{server_url}/?variant=4x4x4&think=150&first=you")
    page.wait_for_selector("html[data-ready]")
    page.locator(".cell[data-cell='21']").tap()  # zooms into layer 2
    page.locator(".cell[data-cell='21']").tap()  # plays
    page.wait_for_function("document.getElementById('status').dataset.state !== 'thinking'")
    assert page.locator(".cell.taken").count() == 2
    assert page.locator(".cell.on-line").count() == 0
    context.close()
