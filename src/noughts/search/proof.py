"""Proofs of a position's result: a win, a loss or a draw for the side to move, and a
proven winning move, by the proof-number search of the core that runs.

The search itself is :class:`~noughts.search.proof_search.ProofSearch` (the pure-Python
reference, read it for how df-pn proves) or its compiled port;
:func:`noughts.search.core.proof_search` gives the one of the core that runs.

>>> from noughts.position import Position
>>> result = prove(Position("", "4x4k3"))
>>> result.status, result.plies
('win', 5)
>>> prove(Position("XX./OO./...")).status, prove(Position("X../.O./...")).status
('win', 'draw')
>>> prove(Position("XO./.X./...")).status  # O must block at 8, then X forks
'loss'
"""

from __future__ import annotations

import time
from typing import Literal, NamedTuple

from noughts.budget import Limit
from noughts.errors import GameOverError, VariantError
from noughts.position import Position
from noughts.search.core import ProofSearcher, proof_search
from noughts.search.proof_search import INFINITY, ProofSearch, widen

__all__ = [
    "widen",
    "INFINITY",
    "ProofResult",
    "ProofSearch",
    "Status",
    "prove",
    "find_win",
]

Status = Literal["win", "loss", "draw", "unknown"]


class ProofResult(NamedTuple):
    """What the proof search settled, for the side to move.

    ``status`` is ``win``/``loss``/``draw`` when proven, ``unknown`` when the limit ran
    out first. ``move`` is a winning move (``win``), or the move that resists longest
    in the search's view otherwise (``None`` if the game is over). ``proof_size``
    counts the positions in the proof (``None`` unless proven win or loss), ``plies``
    bounds the length of the game under the proof's strategy.
    """

    status: Status
    move: int | None
    nodes: int
    elapsed: float
    proof_size: int | None = None
    plies: int | None = None
    proof_number: int = 0
    disproof_number: int = 0

    @property
    def proven(self) -> bool:
        """True for a settled result (win, loss or draw)."""
        return self.status != "unknown"


FIRST_SLICE = 2_000
"""Nodes of the first turn of each side's search in :func:`prove`; turns double."""


def prove(
    position: Position,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    limit: Limit | None = None,
) -> ProofResult:
    """Prove a win, a loss or a draw for the side to move within the limit.

    ``time_limit`` is in seconds, ``nodes`` counts searched positions (both checked),
    ``limit`` bounds the search too (cancelling it stops the search); with none of
    them the search runs until it settles. Two searches take turns, each keeping its
    table: one for a win of the side to move, one for a win of its opponent (a loss),
    each turn twice as long as the last. Both failing proves a draw.
    """
    if position.is_over:
        raise GameOverError("the game is over: nothing to prove")
    if not position.game.rules.threat_search:
        raise VariantError(
            f"proof-number search proves games won by threats; {position.variant} is not "
            "(its exact values come from the solver, forced results from the anytime search)"
        )
    own = Limit.within(time_limit, nodes)
    whole = own if limit is None else limit.narrowed(
        deadline=own.deadline, node_limit=own.node_limit, start=own.start)
    start = whole.start
    player = 0 if position.to_move == "X" else 1
    searches = [proof_search(position, attacker) for attacker in (player, 1 - player)]
    numbers = [(1, 1), (1, 1)]
    turn = FIRST_SLICE
    while True:
        for index, search in enumerate(searches):
            if not numbers[index][1]:
                continue  # disproven already
            spent = sum(s.nodes for s in searches)
            left = turn if whole.node_limit is None else min(turn, whole.node_limit - spent)
            if left > 0:
                # the whole limit's deadline and cancel switch; this turn's nodes
                numbers[index] = search.run(whole.limited(deadline=whole.deadline,
                                                          node_limit=None), nodes=left)
            if not numbers[index][0]:
                return _proven(searches, index, start)
        spent = sum(s.nodes for s in searches)
        if not numbers[0][1] and not numbers[1][1]:
            return ProofResult("draw", searches[0].best_move(), spent,
                               time.perf_counter() - start)
        if whole.expired(spent):
            pn, dn = numbers[0]
            return ProofResult("unknown", searches[0].best_move(), spent,
                               time.perf_counter() - start, proof_number=pn,
                               disproof_number=dn)
        turn *= 2


def _proven(searches: list[ProofSearcher], index: int, start: float) -> ProofResult:
    """The result once ``searches[index]`` proved its attacker's win."""
    search = searches[index]
    spent = sum(s.nodes for s in searches)
    move = search.best_move() if index == 0 else search.resisting_move()
    return ProofResult("win" if index == 0 else "loss", move, spent,
                       time.perf_counter() - start,
                       proof_size=len(search.proof()), plies=search.plies())


def find_win(position: Position, *, limit: Limit | None = None) -> tuple[int, int] | None:
    """A proven winning move for the side to move and the most plies its proof lets
    the game last, if the search proves a win within ``limit``; else ``None``.

    >>> find_win(Position("XX./OO./..."))
    (2, 1)
    """
    if position.is_over or not position.game.rules.threat_search:
        return None  # (misère: no threats to search; see noughts.search.pvs)
    player = 0 if position.to_move == "X" else 1
    search = proof_search(position, player)
    pn, _ = search.run(limit)
    move = search.best_move()
    if pn or move is None:
        return None
    return move, search.plies()
