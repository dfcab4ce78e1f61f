"""What searches answer: exact values, estimates, a chosen move, how a game ended.

One vocabulary for every search and every edge:

* :class:`Value` -- an exact value: the :class:`Outcome` for the side to move and the
  plies to the end. The winner hurries and the loser delays, so values order as
  win in 1 > win in 3 > ... > draw > ... > loss in 4 > loss in 2. A draw's plies are the
  empty cells left (a draw ends when the board is full). Values pack into one ``int``
  score for search: ``WIN_SCORE - plies`` for a win, ``0`` for a draw,
  ``plies - WIN_SCORE`` for a loss. A :class:`Bound` is a proven value whose plies are
  only the most the game can last (the length of a proof, not of best play).
* :class:`Estimate` -- a heuristic score on a named :class:`Scale` (the anytime search's
  line weights, or what a weaker level believes).
* :class:`MoveEval` -- one move with its value or estimate; :class:`MoveChoice` -- the
  move a player chose, with its value or estimate, line, depth, nodes, time and method.
  Both hold the move's ``game`` (its :class:`~noughts.variants.Variant`), from which a
  move's ``coords`` and ``square`` are derived.
* :class:`GameResult` -- how a finished game ended.

Each has one JSON form (``to_json()``, used by the CLI and the service) and one words
form (:func:`describe`, used by the CLI and the terminal game). They are immutable
named tuples (``_replace`` makes a changed copy): cheaper to define and to copy than
dataclasses, which matters to a command's cold start and to the 3x3 answer's speed.

>>> Value(Outcome.WIN, 3) > Value(Outcome.WIN, 5) > Value(Outcome.DRAW, 4)
True
>>> Value.from_score(-(WIN_SCORE - 2), empty=7)
Value(outcome=<Outcome.LOSS: 'loss'>, plies=2)
>>> Value(Outcome.LOSS, 2).negate_after_move()
Value(outcome=<Outcome.WIN: 'win'>, plies=3)
>>> describe(Value(Outcome.WIN, 1), units=True), describe(Estimate(0.25, Scale.SEARCH))
('win in 1 ply', 'heuristic score +0.25')
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from noughts.notation import square_name

if TYPE_CHECKING:
    from noughts.variants import Variant

__all__ = [
    "WIN_SCORE",
    "MAX_LEVEL",
    "Outcome",
    "Value",
    "Bound",
    "Scale",
    "Estimate",
    "Method",
    "MoveEval",
    "MoveChoice",
    "Mark",
    "GameResult",
    "describe",
    "format_score",
]

WIN_SCORE = 1000
"""Score of an immediate win; every board here ends in far fewer plies."""

MAX_LEVEL = 10
"""The strongest level: the engine at full strength (levels run 0-10)."""

Mark = Literal["X", "O"]
"""A player's mark."""

Method = Literal["exact", "anytime", "level", "bot"]
"""How a move was chosen: the exact solver, the anytime search, a weaker level, or a
player outside the engine (a reference bot, random play, a function)."""


class Outcome(StrEnum):
    """Outcome for the side to move under perfect play."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    def flipped(self) -> Outcome:
        """The same result seen by the other player."""
        if self is Outcome.WIN:
            return Outcome.LOSS
        if self is Outcome.LOSS:
            return Outcome.WIN
        return Outcome.DRAW


class Value(NamedTuple):
    """An exact value: outcome for the side to move and plies until the game ends."""

    outcome: Outcome
    plies: int

    @property
    def score(self) -> int:
        """The packed search score (higher is better for the side to move)."""
        if self.outcome is Outcome.WIN:
            return WIN_SCORE - self.plies
        if self.outcome is Outcome.LOSS:
            return self.plies - WIN_SCORE
        return 0

    @classmethod
    def from_score(cls, score: int, *, empty: int) -> Value:
        """Unpack a score; ``empty`` (cells left) gives a draw its plies."""
        if score > 0:
            return cls(Outcome.WIN, WIN_SCORE - score)
        if score < 0:
            return cls(Outcome.LOSS, WIN_SCORE + score)
        return cls(Outcome.DRAW, empty)

    @property
    def plies_exact(self) -> bool:
        """True: the plies are the game's length under best play (see :class:`Bound`)."""
        return True

    def negate_after_move(self) -> Value:
        """The value one ply earlier, seen by the player who moved into this position."""
        return Value(self.outcome.flipped(), self.plies + 1)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return self.score < other.score

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return self.score > other.score

    def __str__(self) -> str:
        """Human text: ``win in 3``, ``draw``, ``loss in 2``."""
        if self.outcome is Outcome.DRAW:
            return "draw"
        return f"{self.outcome.value} in {self.plies}"


class Bound(Value):
    """A proven outcome whose plies are the most the game can last, not its length
    under best play: the length of the proof that found it (a threat chain, a proof
    search, a stored strategy). It orders and packs as a :class:`Value` of those plies
    (and equals one).

    >>> value = Bound(Outcome.WIN, 57)
    >>> str(value), value.plies_exact, value == Value(Outcome.WIN, 57)
    ('win in at most 57', False, True)
    >>> Bound(Outcome.LOSS, 4).negate_after_move()
    Bound(outcome=<Outcome.WIN: 'win'>, plies=5)
    """

    __slots__ = ()

    @property
    def plies_exact(self) -> bool:
        """False: the plies bound the game's length."""
        return False

    def negate_after_move(self) -> Bound:
        """The bound one ply earlier, seen by the player who moved into this position."""
        return Bound(self.outcome.flipped(), self.plies + 1)

    def __str__(self) -> str:
        """Human text: ``win in at most 57``."""
        return f"{self.outcome.value} in at most {self.plies}"


class Scale(StrEnum):
    """What an :class:`Estimate`'s number measures.

    * ``search`` -- the anytime search's line weights, for the side to move (the
      larger the better; no fixed range).
    * ``level`` -- what a weaker level believes of its move: ``+1`` a win it sees,
      ``-1`` a loss it sees, in between its heuristic share of the lines.
    """

    SEARCH = "search"
    LEVEL = "level"


class Estimate(NamedTuple):
    """A heuristic score on a named scale (not a proof).

    >>> str(Estimate(-3.0, Scale.SEARCH))
    'heuristic score -3'
    """

    score: float
    scale: Scale

    def __str__(self) -> str:
        return f"heuristic score {format_score(self.score)}"


def format_score(score: float) -> str:
    """A heuristic score, signed, without needless decimals.

    >>> format_score(0.25), format_score(-3.0), format_score(412.7)
    ('+0.25', '-3', '+413')
    """
    if float(score).is_integer() or abs(score) >= 100:
        return f"{score:+.0f}"
    return f"{score:+.2f}"


class _Move:
    """What :class:`MoveEval` and :class:`MoveChoice` share: a move in a game (its
    coordinates and square derived from the game's board) and its exact value or
    estimate, and the JSON keys of those."""

    __slots__ = ()
    move: int
    game: Variant
    value: Value | None
    estimate: Estimate | None

    @property
    def coords(self) -> tuple[int, ...]:
        """The move's coordinates: ``(row, col)`` or ``(layer, row, col)``."""
        return self.game.geometry.coords(self.move)

    @property
    def square(self) -> str:
        """The move's cell name (``b2``, ``2b3``: :func:`noughts.notation.square_name`)."""
        return square_name(self.game.geometry, self.move)

    @property
    def proven(self) -> bool:
        """True when the value is exact."""
        return self.value is not None

    @property
    def outcome(self) -> str | None:
        """``"win"``, ``"draw"`` or ``"loss"`` when proven, else ``None``."""
        return None if self.value is None else self.value.outcome.value

    @property
    def plies(self) -> int | None:
        """Plies to the end of the game when proven, else ``None``."""
        return None if self.value is None else self.value.plies

    @property
    def score(self) -> float | None:
        """The estimate's score if there is one, else the exact value's packed score."""
        if self.estimate is not None:
            return self.estimate.score
        return None if self.value is None else self.value.score

    def _move_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "square": self.square,
            "coords": list(self.coords),
            "outcome": self.outcome,
            "plies": self.plies,
            "plies_exact": None if self.value is None else self.value.plies_exact,
            "proven": self.proven,
            "score": self.score,
        }


class _MoveEvalFields(NamedTuple):
    move: int
    game: Variant
    value: Value | None = None
    estimate: Estimate | None = None


class MoveEval(_MoveEvalFields, _Move):
    """One move's value for the player who makes it: exact (``value``) or an estimate.

    >>> from noughts.variants import variant
    >>> evaluation = MoveEval(4, variant("3x3"), Value(Outcome.DRAW, 8))
    >>> evaluation.square, evaluation.coords
    ('b2', (1, 1))
    >>> evaluation.to_json()
    {'move': 4, 'square': 'b2', 'coords': [1, 1], 'outcome': 'draw', 'plies': 8, \
'plies_exact': True, 'proven': True, 'score': 0}
    """

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        """The move's JSON form (the CLI's ``analyze --json`` and the service's)."""
        return self._move_json()


class _MoveChoiceFields(NamedTuple):
    move: int
    game: Variant
    value: Value | None
    estimate: Estimate | None
    depth: int | None
    pv: tuple[int, ...]
    nodes: int
    elapsed_ms: float
    method: Method
    level: int = MAX_LEVEL
    traps: int = 0
    moves: tuple[MoveEval, ...] = ()
    note: str = ""


class MoveChoice(_MoveChoiceFields, _Move):
    """The move a player chose, its value or estimate, and the effort behind it.

    ``depth`` is how many plies the answer looked ahead (for an exact answer: to the end
    of the game); ``pv`` a line of best play starting with ``move``; ``traps`` the
    opponent's losing replies (exact answers); ``moves`` every move's value when the
    search produced them; ``level`` the level that chose (``MAX_LEVEL``: full strength);
    ``note`` where the move came from, in words, when the method alone does not say it.
    """

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        """The choice's JSON form (the CLI's ``move --json`` and the service's); its
        ``note`` says in words where the move came from when the method alone does not
        (an opening book, a defence among lost replies), else it is empty."""
        return {
            **self._move_json(),
            "depth": self.depth,
            "pv": list(self.pv),
            "nodes": self.nodes,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "method": self.method,
            "level": self.level,
            "note": self.note,
        }

    def to_record(self) -> dict[str, Any]:
        """All the choice holds but its per-move values, as JSON (the shared cache stores
        it): its :meth:`to_json` with the estimate's scale, the traps and the time
        unrounded. :meth:`from_record` reads it back, given the game.

        >>> from noughts.variants import variant
        >>> choice = MoveChoice(4, variant("3x3"), None, Estimate(0.5, Scale.SEARCH), 3,
        ...                     (4, 0), 120, 12.3456, "anytime")
        >>> MoveChoice.from_record(choice.to_record(), choice.game) == choice
        True
        """
        return {
            **self.to_json(),
            "elapsed_ms": self.elapsed_ms,
            "scale": None if self.estimate is None else self.estimate.scale.value,
            "traps": self.traps,
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any], game: Variant) -> MoveChoice:
        """The choice a :meth:`to_record` holds, in ``game`` (``KeyError``, ``TypeError``
        or ``ValueError`` if ``data`` is not one, or its move is not on the board).

        >>> from noughts.variants import variant
        >>> exact = MoveChoice(2, variant("qubic"), Bound(Outcome.WIN, 57), None, 57, (2,),
        ...                    0, 0.1, "exact", traps=3)
        >>> MoveChoice.from_record(exact.to_record(), exact.game).value
        Bound(outcome=<Outcome.WIN: 'win'>, plies=57)
        """
        outcome, scale, depth = data["outcome"], data["scale"], data["depth"]
        value = None
        if outcome is not None:
            value = (Value if data["plies_exact"] else Bound)(Outcome(outcome), int(data["plies"]))
        method = data["method"]
        if method not in ("exact", "anytime", "level", "bot"):
            raise ValueError(f"unknown method {method!r}")
        move = int(data["move"])
        if not 0 <= move < game.cells:
            raise ValueError(f"cell {move} is off the board ({game.name})")
        return cls(
            move=move,
            game=game,
            value=value,
            estimate=None if scale is None else Estimate(float(data["score"]), Scale(scale)),
            depth=None if depth is None else int(depth),
            pv=tuple(int(c) for c in data["pv"]),
            nodes=int(data["nodes"]),
            elapsed_ms=float(data["elapsed_ms"]),
            method=method,
            level=int(data["level"]),
            traps=int(data["traps"]),
            note=str(data.get("note", "")),
        )


class GameResult(NamedTuple):
    """How a finished game ended: the winner (``None`` for a draw) and the winning line(s).

    >>> str(GameResult("X", 0b111)), str(GameResult(None, 0))
    ('X wins', 'draw')
    """

    winner: Mark | None
    line: int

    def __str__(self) -> str:
        return "draw" if self.winner is None else f"{self.winner} wins"


def describe(item: Value | Estimate | MoveEval | MoveChoice | None, *, units: bool = False) -> str:
    """A value, an estimate, or a move's value in words, for the player who makes it.

    ``units`` spells the plies out (``win in 3 plies``), as the command line prints them.

    >>> describe(Value(Outcome.LOSS, 2), units=True), describe(Value(Outcome.DRAW, 4))
    ('loss in 2 plies', 'draw')
    >>> from noughts.variants import variant
    >>> describe(MoveEval(0, variant("3x3"), estimate=Estimate(0.25, Scale.LEVEL)))
    'heuristic score +0.25'
    """
    if isinstance(item, MoveEval | MoveChoice):
        item = item.value if item.value is not None else item.estimate
    if item is None:
        return "unknown"
    if isinstance(item, Estimate) or not units or item.outcome is Outcome.DRAW:
        return str(item)
    return f"{item} {'ply' if item.plies == 1 else 'plies'}"
