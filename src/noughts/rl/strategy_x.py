"""Qubic's exact X in the batched environment: the shipped winning strategy's moves.

The batched ``"exact"`` opponent has no table on Qubic (64 cells); as X it plays the
shipped strategy (:mod:`noughts.knowledge.strategy`) board by board in Python, and where
the strategy's entries end (a position its moves have won by a chain of threats) the
engine's move within a node budget, so a seed replays the same games.
"""

from __future__ import annotations

from noughts.errors import NoughtsError
from noughts.knowledge.shipped import SHIPPED
from noughts.knowledge.strategy import strategy_move
from noughts.players.protocol import parse_player
from noughts.position import Position
from noughts.results import MAX_LEVEL
from noughts.rl.opponents import opponent_allowance
from noughts.rl.tables import MAX_TABLE_CELLS
from noughts.variants import Variant

__all__ = ["strategy_x_serves", "strategy_x_move"]


def strategy_x_serves(game: Variant, agent: str) -> bool:
    """True if the exact opponent can be X playing the shipped strategy; else refused."""
    if game.strategy is not None and agent == "O":
        return True
    where = (
        "the shipped strategy plays X only: give agent='O'"
        if game.strategy is not None
        else f"{game.name} has neither (no table beyond {MAX_TABLE_CELLS} cells, no strategy)"
    )
    raise NoughtsError(
        f"the batched 'exact' opponent needs an exact table (boards of at most "
        f"{MAX_TABLE_CELLS} cells) or, on Qubic, the shipped strategy as X; {where}"
    )


def strategy_x_move(position: Position) -> int:
    """X's move in ``position`` by the shipped strategy: its proven move, else (a
    position its moves have already won by a chain of threats) the engine's at level 10
    within :data:`~noughts.rl.opponents.OPPONENT_NODES` nodes (its threat search finds
    the chain well within them; a node bound keeps the batch's games reproducible).

    >>> strategy_x_move(Position("", "qubic")) in (0, 3, 12, 15, 21, 22, 25, 26)
    True
    """
    found = strategy_move(position, SHIPPED.strategy_for(position))
    if found is not None:
        return found.move
    return _ENGINE.move(position, opponent_allowance()).move

_ENGINE = parse_player(f"level:{MAX_LEVEL}").create()
