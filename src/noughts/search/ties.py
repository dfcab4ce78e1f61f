"""A game seed's pick among the deepening search's equally good root moves.

Where several moves are equally good, a game that always plays the same one can be
replayed to meet the same line again. Given a game seed, the anytime search
(:func:`~noughts.search.anytime.search_move`) picks among the root moves whose value at
its last whole depth is known exactly and lies within :func:`tie_margin` of the best.

*Known exactly*: the principal-variation search gives the first root move it tries a
full window and re-searches with a full window each move that beats the best so far;
every other move gets a null window, whose score is only a bound. So the candidates are
the first move searched and each move that raised the best, in the order searched (the
best among them): they cost no extra node. *Within the margin*: less apart than the
search's smallest unit of value, a line holding one mark of the side to move (24 in
Qubic's evaluation, where a line of two is worth 576): a difference the search's horizon
cannot tell from noise. The pick is then checked like the best move (the guard and, for
the second player, the defence by proof), and a proven value is never traded: the pick
is made only when the best score is no proof.

>>> scores = {5: 100, 7: 40, 9: 110, 2: 110, 4: 115}  # in the order searched
>>> near_best(scores, 115, margin=10)  # 5, 9 and 4 raised the best; 2 is a bound
[4, 9]
>>> seeded_pick([9, 4], seed=1, key="a position") in (9, 4)
True
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from noughts.search.evaluate import search_weights

if TYPE_CHECKING:
    from noughts.knowledge.learned import LearnedEval
    from noughts.position import Position
    from noughts.search.evaluate import Style

__all__ = ["near_best", "seeded_pick", "tie_margin", "pick"]


def tie_margin(position: Position, style: Style = "strong",
               learned: LearnedEval | None = None) -> int:
    """The largest difference of search values counted as a tie: the value of one line
    holding one mark of the side to move, in the weights its search uses.

    >>> from noughts.position import Position
    >>> tie_margin(Position("X" + "." * 63, "qubic"))
    24
    """
    return max(search_weights(position, style, learned).own[1], 1)


def near_best(scores: dict[int, int], best: int, margin: int) -> list[int]:
    """The moves of ``scores`` (one iteration's, in the order searched) whose value the
    iteration knows exactly (the first, and each that raised the best) and that lie
    within ``margin`` below ``best`` (and not above it), lowest cell first."""
    exact: list[tuple[int, int]] = []
    for move, score in scores.items():
        if not exact or score > exact[-1][1]:
            exact.append((move, score))
    return sorted(move for move, score in exact if best - margin <= score <= best)


def seeded_pick(moves: list[int], seed: int, key: str) -> int:
    """One of ``moves``, picked by ``seed`` and ``key`` (the position): the same pick
    in every process."""
    return moves[random.Random(f"{seed} {key}").randrange(len(moves))]


def pick(position: Position, scores: dict[int, int], best: int, allowed: list[int],
         seed: int, *, style: Style = "strong", learned: LearnedEval | None = None) -> int:
    """The seed's move among the near-best moves of ``scores`` (an iteration's) that are
    ``allowed`` (the search's remaining root moves), where ``best`` (the search's move)
    is one of them; else ``best``."""
    allowed_set = set(allowed)
    margin = tie_margin(position, style, learned)
    candidates = [m for m in near_best(scores, scores.get(best, 0), margin)
                  if m in allowed_set]
    if best not in candidates or len(candidates) < 2:
        return best
    return seeded_pick(candidates, seed, f"{position.x} {position.o} {position.first}")
