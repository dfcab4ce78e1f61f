"""Visible blunders (issue 50): the checker of ``benchmarks/blunders.py`` finds the one
the seed's bot punished in its real opening 5, and O, given about a second's nodes on
the compiled core, no longer plays it."""

from __future__ import annotations

import blunders
from noughts.engine import choose_move
from noughts.position import Position
from noughts.search.defence import killing_reply, proven_loss

# The seed's bot (look-ahead 3, lowest-cell ties) opened on cell 5 against the engine as O
# through the service; at this position (9 marks, O to move) O played 31, X replied 63
# and every O move was then proven lost.
OPENING_5 = [5, 51, 21, 15, 26, 37, 25, 27, 39]


def _after(moves: list[int]) -> Position:
    position = Position("", "qubic")
    for move in moves:
        position = position.play(move)
    return position


def test_the_checker_finds_the_blunder_of_opening_5() -> None:
    position = _after(OPENING_5)
    found = blunders.visible_blunder(position, 31)
    assert found is not None and (found.marks, found.played, found.reply) == (9, 31, 63)
    assert found.safe != 31 and killing_reply(position.play(found.safe)) is None
    lost = proven_loss(position.play(31).play(63))
    assert lost is not None and lost > 2  # a quiet move, then a win the proof finds
    assert proven_loss(position) is None  # O was not lost before its move
    # the game's blunders: the same one, and none in the moves before it
    game = blunders.game_blunders(Position("", "qubic"), [*OPENING_5, 31, 63])
    assert [(b.marks, b.played, b.reply) for b in game] == [(9, 31, 63)]


def test_o_looks_one_x_move_ahead_and_plays_another_move() -> None:
    # Here the search's favourite moves (31, 63, 16 and more) all lose to a quiet X reply
    # that takes the proof search 0.2 to 1.6 million positions to find; at 60 million
    # nodes (about a second and a half on the compiled core) the defence refutes enough of
    # them to reach a move the look ahead clears.
    position = _after(OPENING_5)
    choice = choose_move(position, nodes=60_000_000)
    assert choice.move != 31 and choice.nodes <= 60_000_000
    assert killing_reply(position.play(choice.move)) is None
    assert choose_move(position, nodes=60_000_000).move == choice.move  # at a node limit
