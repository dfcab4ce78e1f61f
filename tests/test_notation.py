"""Board strings and the 4x4 backend seed's numX/numO bitmasks, on every geometry."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noughts.errors import BoardError
from noughts.geometry import Geometry
from noughts.notation import check_bitmasks, draw_grid, format_board, parse_board, to_bitmasks
from noughts.position import Position
from noughts.variants import variant
from strategies import positions

GEOMETRIES = ["3x3", "4x4k3", "4x4", "5x4k4", "3x7k3", "4x4x4", "3x3x3", "2x2x2"]


@st.composite
def marks(draw: st.DrawFn) -> tuple[Geometry, int, int]:
    """Any disjoint X and O sets on any geometry (counts and lines unchecked)."""
    geometry = variant(draw(st.sampled_from(GEOMETRIES)))
    cells = geometry.cells
    owners = draw(st.lists(st.sampled_from("XO."), min_size=cells, max_size=cells))
    x = sum(1 << cell for cell, owner in enumerate(owners) if owner == "X")
    o = sum(1 << cell for cell, owner in enumerate(owners) if owner == "O")
    return geometry, x, o


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(marks())
def test_board_strings_round_trip(case: tuple[Geometry, int, int]) -> None:
    geometry, x, o = case
    text = format_board(x, o, geometry)
    assert parse_board(text, geometry) == (x, o)
    # Separators and whitespace are ignored, marks are case-insensitive.
    loose = " ".join(text.replace("/", "\n").replace("|", " | ")).lower()
    assert parse_board(loose, geometry) == (x, o)
    assert parse_board(text.replace("/", "").replace("|", ""), geometry) == (x, o)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(marks())
def test_board_string_layout(case: tuple[Geometry, int, int]) -> None:
    geometry, x, o = case
    text = format_board(x, o, geometry)
    layers = text.split("|")
    assert len(layers) == (geometry.shape[0] if geometry.dims == 3 else 1)
    rows = [row for layer in layers for row in layer.split("/")]
    cols = geometry.shape[-1]
    assert all(len(row) == cols for row in rows)
    for cell in range(geometry.cells):
        char = rows[cell // cols][cell % cols]
        assert char == ("X" if x >> cell & 1 else "O" if o >> cell & 1 else ".")


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(GEOMETRIES))
def test_bitmasks_round_trip(position: Position) -> None:
    masks = to_bitmasks(position.x, position.o)
    x_to_move = position.to_move == "X"
    back = Position.from_bitmasks(
        masks["numX"], masks["numO"], position.geometry, x_to_move=x_to_move
    )
    assert back == position
    assert Position(position.board, position.variant, first=position.first) == position


def test_bitmask_bits_are_row_major() -> None:
    # 5 rows of 4 columns: the mark at row 2, column 3 is bit 2*4 + 3.
    position = Position.from_bitmasks(1 << 11, 0, "5x4k4")
    assert position.board == "..../..../...X/..../...."
    assert position.coords(11) == (2, 3)
    cube = Position.from_bitmasks(1 << (1 * 16 + 2 * 4 + 3), 0, "4x4x4")
    assert cube.board.split("|")[1] == "..../..../...X/...."
    assert to_bitmasks(cube.x, cube.o) == {"numX": 1 << 27, "numO": 0}


def test_from_bitmasks_side_to_move() -> None:
    assert Position.from_bitmasks(0, 0, "4x4k3", x_to_move=False).to_move == "O"
    assert Position.from_bitmasks(0, 0, "4x4k3").to_move == "X"
    assert Position.from_bitmasks(0b1, 0, "4x4k3").to_move == "O"
    assert Position.from_bitmasks(0, 0b1, "4x4k3").to_move == "X"  # so O started
    assert Position.from_bitmasks(0, 0b1, "4x4k3").first == "O"


@pytest.mark.parametrize(
    ("num_x", "num_o", "message"),
    [
        (1 << 9, 0, "bits outside the board: numX has bit 9 set but 3x3 has cells 0-8"),
        (0, 1 << 12, "bits outside the board: numO has bit 12"),
        (-1, 0, "numX must be a non-negative bitmask"),
        (True, 0, "numX must be an integer bitmask"),
        (0, "3", "numO must be an integer bitmask"),
        (0b11, 0b10, "overlapping marks: cell(s) 1 hold both X and O"),
    ],
)
def test_bad_bitmasks(num_x: object, num_o: object, message: str) -> None:
    with pytest.raises(BoardError, match=re.escape(message)):
        check_bitmasks(num_x, num_o, variant("3x3"))  # type: ignore[arg-type]
    with pytest.raises(BoardError, match=re.escape(message)):
        Position.from_bitmasks(num_x, num_o, "3x3")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("X.O/.X./..", "has 8 cells but 3x3 has 9"),
        ("X.O/.X./....", "has 10 cells but 3x3 has 9"),
        ("X.O/.Z./...", "unexpected character 'Z'"),
        ("X-O/...", "unexpected character '-'"),
    ],
)
def test_bad_board_strings(text: str, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        parse_board(text, variant("3x3"))


def test_non_string_board() -> None:
    with pytest.raises(BoardError, match="a board must be a string, not int"):
        parse_board(5, variant("3x3"))  # type: ignore[arg-type]


def test_grids() -> None:
    assert draw_grid(0b1, 0b10, variant("3x3")) == "X O .\n. . .\n. . ."
    grid = draw_grid(1, 1 << 4, variant("2x2x2"))
    assert grid == "X .   O .\n. .   . ."
    assert str(Position("", "3x3x3")).splitlines()[0] == ". . .   . . .   . . ."
