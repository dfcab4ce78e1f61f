"""Cell names of the terminal game: chess squares on m x n (3x3 also 1-9), 2b3 on cubes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from noughts.errors import IllegalMoveError
from noughts.play.coordinates import cell_name, describe_scheme, parse_cell, scheme_of
from noughts.variants import variant

VARIANTS = ["3x3", "2x2", "3x2k2", "4x4k3", "4x4", "5x5k4", "7x6k4", "19x19k5", "4x4x4", "3x3x3"]


@pytest.mark.parametrize("name", VARIANTS)
def test_every_cell_name_parses_back_to_its_cell(name: str) -> None:
    geometry = variant(name)
    names = [cell_name(geometry, cell) for cell in range(geometry.cells)]
    assert len(set(names)) == geometry.cells
    assert [parse_cell(geometry, text) for text in names] == list(range(geometry.cells))
    assert [parse_cell(geometry, f" {text.upper()} ") for text in names] == list(
        range(geometry.cells)
    )


def test_3x3_cells_are_named_as_everywhere_and_also_take_keypad_numbers() -> None:
    from noughts.notation import square_name

    geometry = variant("3x3")
    assert scheme_of(geometry) == "chess"
    names = [cell_name(geometry, cell) for cell in range(9)]
    assert names == [square_name(geometry, cell) for cell in range(9)]  # the API's 'square'
    assert names == ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
    assert [parse_cell(geometry, str(n)) for n in range(1, 10)] == list(range(9))
    assert parse_cell(variant("4x4"), "a1") == 12
    with pytest.raises(IllegalMoveError, match="type a square like b3"):
        parse_cell(variant("4x4"), "5")  # numbers only on 3x3 and smaller


def test_chess_names_count_ranks_from_the_bottom_and_files_from_the_left() -> None:
    geometry = variant("4x4k3")
    assert scheme_of(geometry) == "chess"
    assert parse_cell(geometry, "a1") == 12  # bottom-left
    assert parse_cell(geometry, "d4") == 3  # top-right
    assert parse_cell(geometry, "b3") == geometry.cell((1, 1))
    rectangle = variant("7x6k4")  # 7 rows, 6 columns
    assert parse_cell(rectangle, "f7") == 5
    assert parse_cell(rectangle, "a1") == 36
    big = variant("12x12k5")
    assert parse_cell(big, "l12") == 11
    assert cell_name(big, 143) == "l1"


def test_layer_names_put_the_layer_first() -> None:
    qubic = variant("qubic")
    assert scheme_of(qubic) == "layers"
    assert parse_cell(qubic, "1a4") == 0
    assert parse_cell(qubic, "2b3") == qubic.cell((1, 1, 1))
    assert parse_cell(qubic, "4d1") == 63
    assert cell_name(qubic, 63) == "4d1"


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("3x3", "0", "0 is off the board: cells are numbered 1-9"),
        ("3x3", "10", "10 is off the board: cells are numbered 1-9"),
        ("3x3", "five", "'five' is not a move: type a square like b3 (file a-c, rank 1-3"),
        ("3x3", "d1", "d1 is off the board: files run a-c"),
        ("3x3", "", "'' is not a move"),
        ("4x4", "e1", "e1 is off the board: files run a-d"),
        ("4x4", "a5", "a5 is off the board: ranks run 1-4"),
        ("4x4", "a0", "a0 is off the board: ranks run 1-4"),
        ("4x4", "5", "'5' is not a move: type a square like b3"),
        ("qubic", "5a1", "5a1 is off the board: layers run 1-4"),
        ("qubic", "2e1", "2e1 is off the board: files run a-d"),
        ("qubic", "a1", "'a1' is not a move: type a layer and square like 2b3"),
    ],
)
def test_bad_names_raise_a_one_line_reason(name: str, text: str, reason: str) -> None:
    with pytest.raises(IllegalMoveError) as caught:
        parse_cell(variant(name), text)
    message = str(caught.value)
    assert message.startswith(reason)
    assert "\n" not in message


def test_descriptions_name_the_ranges_of_the_board() -> None:
    assert describe_scheme(variant("7x6k4")) == (
        "a square like b3 (file a-f, rank 1-7 counted from the bottom)"
    )
    assert "layer 1-3" in describe_scheme(variant("3x3x3"))


@given(st.text(max_size=6))
def test_any_text_parses_to_a_cell_on_the_board_or_raises_illegal_move(text: str) -> None:
    for name in ("3x3", "4x4", "qubic"):
        geometry = variant(name)
        try:
            cell = parse_cell(geometry, text)
        except IllegalMoveError:
            continue
        assert 0 <= cell < geometry.cells
        assert parse_cell(geometry, cell_name(geometry, cell)) == cell
