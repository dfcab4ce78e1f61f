"""The engine's front door: the one plan that answers a move, and every move's value.

* :mod:`noughts.engine.plan` -- the plan's stages in order (:data:`PLAN`: level, exact,
  forced win, strategy, book, opening, proof, search) and the share of a move's time
  each gets;
* :mod:`noughts.engine.moves` -- :func:`choose_move`, the first answer of the plan on
  the canonical image of the position, mapped back (:mod:`noughts.orientation`), and
  :func:`evaluation`, every move's value by the same plan.

So a position gets one answer whoever asks (the command line, the service and its cache,
any worker process), and every symmetric image of the board gets that answer mapped. A
game ``seed`` picks among moves a stage finds equally good (the exact solver's tied best
moves, the deepening search's near-ties, :mod:`noughts.search.ties`), on that image, so
it never trades a proven value. ``method`` says which kind of stage answered (``level``,
``exact`` or ``anytime``). The service, the command line, the players (and through them
the arena, the terminal game and the learning environments) all ask here, with one
:class:`~noughts.budget.Limit`.

>>> from noughts.position import Position
>>> result = choose_move(Position("XX./OO./..."))
>>> result.move, result.outcome, result.plies, result.method
(2, 'win', 1, 'exact')
>>> [(e.move, e.outcome) for e in evaluate_moves(Position("XX./OO./..."))][:2]
[(2, 'win'), (5, 'draw')]
"""

from noughts.engine.moves import Evaluation, choose_move, evaluate_moves, evaluation
from noughts.engine.plan import MAX_RESERVE_S, PLAN, answers_exactly, reserve_s
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval

__all__ = [
    "MoveChoice",
    "MoveEval",
    "Evaluation",
    "PLAN",
    "choose_move",
    "evaluate_moves",
    "evaluation",
    "answers_exactly",
    "reserve_s",
    "MAX_LEVEL",
    "MAX_RESERVE_S",
]
