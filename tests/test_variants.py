"""Variant names are parsed, not listed; bad names fail with a message naming the problem."""

from __future__ import annotations

import pytest

from noughts.errors import NoughtsError, VariantError
from noughts.variants import MAX_SIDE_2D, MAX_SIDE_3D, variant


@pytest.mark.parametrize(
    ("name", "shape", "k"),
    [
        ("3x3", (3, 3), 3),
        ("tictactoe", (3, 3), 3),
        ("TicTacToe", (3, 3), 3),
        ("tic-tac-toe", (3, 3), 3),
        (" 3X3 ", (3, 3), 3),
        ("4x4k3", (4, 4), 3),
        ("4x4", (4, 4), 4),
        ("4x4x4", (4, 4, 4), 4),
        ("qubic", (4, 4, 4), 4),
        ("3x3x3", (3, 3, 3), 3),
        ("5x4k4", (5, 4), 4),
        ("5x4", (5, 4), 4),  # k defaults to the smallest side
        ("3x7", (3, 7), 3),
        ("3x7k5", (3, 7), 5),  # k may exceed a side as long as it fits another
        ("4x4x4k3", (4, 4, 4), 3),
        ("19x19k5", (19, 19), 5),
        ("5x5x5", (5, 5, 5), 5),
        ("1x1", (1, 1), 1),
    ],
)
def test_names_parse(name: str, shape: tuple[int, ...], k: int) -> None:
    geometry = variant(name)
    assert (geometry.shape, geometry.k) == (shape, k)
    assert variant(geometry.name) is geometry  # canonical names parse back, cached


def test_canonical_names() -> None:
    assert [variant(n).name for n in ("tictactoe", "qubic", "4x4k4", "4x4x4k4", "5x4k3")] == [
        "3x3",
        "4x4x4",
        "4x4",
        "4x4x4",
        "5x4k3",
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("chess", "expected a name like 3x3"),
        ("3x", "expected a name like 3x3"),
        ("3x3k", "expected a name like 3x3"),
        ("3x3x3x3", "expected a name like 3x3"),
        ("-3x3", "expected a name like 3x3"),
        ("", "expected a name like 3x3"),
        ("3x3k4", "k=4 in a row cannot fit on a board of sides (3, 3)"),
        ("4x4x4k5", "k=5 in a row cannot fit"),
        ("3x3k0", "at least 1 mark in a row"),
        ("0x3", "every side must be at least 1"),
        ("3x0k1", "every side must be at least 1"),
        ("0x0x0", "every side must be at least 1"),
        ("3x3x4", "a 3-D board must be a cube"),
        ("4x4x3k3", "a 3-D board must be a cube"),
        (f"{MAX_SIDE_2D + 1}x3", f"sides are limited to {MAX_SIDE_2D} in 2-D"),
        (f"3x{MAX_SIDE_2D + 1}k3", f"sides are limited to {MAX_SIDE_2D} in 2-D"),
        ("6x6x6", f"sides are limited to {MAX_SIDE_3D} in 3-D"),
    ],
)
def test_bad_names_say_why(name: str, message: str) -> None:
    with pytest.raises(VariantError) as caught:
        variant(name)
    text = str(caught.value)
    assert message in text
    assert repr(name.strip().lower()) in text or name == ""
    assert isinstance(caught.value, NoughtsError) and isinstance(caught.value, ValueError)


def test_non_string_names() -> None:
    with pytest.raises(VariantError, match="must be a string, not int"):
        variant(3)  # type: ignore[arg-type]


def test_limits() -> None:
    assert MAX_SIDE_2D == 19 and MAX_SIDE_3D == 5
    assert variant("19x1").cells == 19
    assert variant("5x5x5").cells == 125
