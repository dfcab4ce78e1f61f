"""Hypothesis strategies shared by the tests (on pytest's path via ``pythonpath``)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from noughts.position import Position


@st.composite
def positions(draw: st.DrawFn, variants: Sequence[str]) -> Position:
    """A reachable position of one of ``variants``: random legal moves from the empty
    board, either side first."""
    position = Position("", draw(st.sampled_from(variants)), first=draw(st.sampled_from("XO")))
    for choice in draw(st.lists(st.integers(0, 10**6), max_size=position.geometry.cells)):
        moves = list(position.legal_moves)
        if not moves:
            break
        position = position.play(moves[choice % len(moves)])
    return position
