"""A general player that hunts forced wins by successive threats, else weighs lines.

:class:`ThreatPlayer` plays any board of the family, in this order:

1. a winning cell, if it has one;
2. a block of the opponent's winning cell (the lowest, if there are several: the game
   is lost then anyway);
3. the first move of a forced win by successive threats (continuous threats: every
   move of the attacker makes a line one move from complete, so every reply is
   forced), found by the engine's threat search
   (:func:`noughts.search.threats.find_forced_win`) within ``nodes`` positions;
4. otherwise the cell of best line weight: each line through the cell that the
   opponent has not entered counts ``5**m`` for its ``m`` marks of the player's own, and
   each line the player has not entered counts ``4**t`` for the opponent's ``t`` marks
   (taking that line from the opponent); a cell that makes two lines one move from
   complete at once counts double. Among the ``checks`` best cells it takes the first
   after which the opponent has no forced win by successive threats (within ``guard``
   positions), else the best. Equal weights are broken at random from the player's
   seeded generator, so the same seed plays the same game.

It models no other program: no opening book, no knowledge of who it plays.

>>> from noughts.position import Position
>>> player = ThreatPlayer(seed=1)
>>> player.name
'threats'
>>> player.choose(Position("XX./OO./..."))  # X wins now
2
>>> player.choose(Position("XX./O../..."))  # O must block
2
"""

from __future__ import annotations

import random

from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.players.reference import Bot
from noughts.position import Position
from noughts.search.threats import find_forced_win

__all__ = ["ThreatPlayer", "DEFAULT_NODES"]

DEFAULT_NODES = 20_000
"""Threat-search positions a move, by default, for the player's own attack."""


class ThreatPlayer(Bot):
    """Forced wins by successive threats first, then a line-weight heuristic.

    ``nodes`` bounds the search for its own forced win, ``guard`` each check that a
    candidate cell leaves the opponent none, over the ``checks`` best cells; ``seed``
    seeds the random choice among equal weights.

    >>> ThreatPlayer(nodes=500).name
    'threats:500'
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        nodes: int = DEFAULT_NODES,
        guard: int = 2_000,
        checks: int = 6,
    ) -> None:
        for label, value in (("nodes", nodes), ("guard", guard), ("checks", checks)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise NoughtsError(f"{label} must be a positive integer, not {value!r}")
        self.nodes = nodes
        self.guard = guard
        self.checks = checks
        self.rng = random.Random(seed)
        self.name = "threats" if nodes == DEFAULT_NODES else f"threats:{nodes}"

    def choose(self, position: Position) -> int:
        if position.is_over:
            raise NoughtsError("the game is over: there is no move to choose")
        if position.game.misere:  # a line completed loses there: its threats would too
            raise NoughtsError(f"the threat player plays normal games, not {position.game.name}")
        geometry = position.geometry
        mine, theirs = ((position.x, position.o) if position.to_move == "X"
                        else (position.o, position.x))
        for marks in (mine, theirs):  # win now, else block
            finishing = geometry.completing(marks, position.empty)
            if finishing:
                return finishing[0]
        attack = find_forced_win(position, nodes=self.nodes)
        if attack is not None:
            return attack.moves[0]
        ranked = self.ranked(position)
        for cell in ranked[: self.checks]:
            if find_forced_win(position.play(cell), nodes=self.guard) is None:
                return cell
        return ranked[0]

    def ranked(self, position: Position) -> list[int]:
        """The legal cells, best line weight first, equal weights in a seeded random order.

        >>> from noughts.position import Position
        >>> ThreatPlayer(seed=3).ranked(Position("........."))[0]  # the centre: 4 lines
        4
        """
        geometry = position.geometry
        mine, theirs = ((position.x, position.o) if position.to_move == "X"
                        else (position.o, position.x))
        cells = sorted(position.legal_moves)
        self.rng.shuffle(cells)
        weights = {cell: line_weight(geometry, mine, theirs, cell) for cell in cells}
        return sorted(cells, key=lambda cell: -weights[cell])  # stable: the shuffle breaks ties


def line_weight(geometry: Geometry, mine: int, theirs: int, cell: int) -> int:
    """The weight of ``cell`` for the player holding ``mine`` (see the module docstring).

    >>> from noughts.variants import variant
    >>> g = variant("3x3").geometry
    >>> line_weight(g, 0, 0, 4), line_weight(g, 0, 0, 0), line_weight(g, 0, 0, 1)
    (4, 3, 2)
    >>> line_weight(g, 0b000000001, 0b000010000, 8)  # the diagonal is shared: 0
    2
    """
    k = geometry.k
    weight = 0
    near = 0  # lines this cell brings one move from complete
    for line in geometry.lines_through[cell]:
        own = (line & mine).bit_count()
        other = (line & theirs).bit_count()
        if other == 0:
            weight += 5 ** own
            near += own == k - 2
        if own == 0 and other:
            weight += 4 ** other
    return weight * 2 if near >= 2 else weight
