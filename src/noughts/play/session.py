"""One game in progress: who sits at each mark, the moves so far, undo, hints and analysis.

A :class:`Session` knows nothing about terminals; the prompt plays it through the
one game loop (:func:`noughts.players.game.play_game`) with the session's AI players and
a player for each human, records each move here, and takes moves back here.

>>> from noughts.variants import variant
>>> game = Session(variant("3x3"), {"X": Seat.human(), "O": Seat.ai(10)})
>>> game.play(4).ply, game.to_move, game.seat.is_ai
(1, 'O', True)
>>> game.ai_move().move in (0, 2, 6, 8)  # only a corner holds the draw
True
>>> taken = game.undo()   # takes back our move and the AI's reply
>>> taken[0], len(taken), game.position.ply
(4, 2, 0)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from noughts.budget import Limit
from noughts.engine import evaluate_moves
from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.players.protocol import LevelPlayer, Player
from noughts.position import Mark, Position, other
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval
from noughts.variants import Variant, variant

__all__ = ["Seat", "Session", "DEFAULT_TIME_LIMIT"]

DEFAULT_TIME_LIMIT = 1.0
"""Seconds per AI move (and per hint) where the board is too large to solve exactly."""


@dataclass(frozen=True)
class Seat:
    """Who plays a mark: a human, or the engine at a level (0 weakest .. 10 strongest)."""

    level: int | None = None

    @classmethod
    def human(cls) -> Seat:
        return cls(None)

    @classmethod
    def ai(cls, level: int = MAX_LEVEL) -> Seat:
        if isinstance(level, bool) or not 0 <= level <= MAX_LEVEL:
            raise NoughtsError(f"level must be an integer from 0 to {MAX_LEVEL}, not {level!r}")
        return cls(level)

    @property
    def is_ai(self) -> bool:
        return self.level is not None

    def __str__(self) -> str:
        return "human" if self.level is None else f"AI level {self.level}"


class Session:
    """A game between two seats; X and O, with ``first`` moving first.

    ``time_limit`` bounds each AI move, hint and analysis on boards too large to solve;
    ``seed`` makes the AI's choices (levels below 10) repeatable.
    """

    def __init__(
        self,
        geometry: Variant | Geometry,
        seats: dict[Mark, Seat],
        *,
        first: Mark = "X",
        time_limit: float = DEFAULT_TIME_LIMIT,
        seed: int | None = None,
    ) -> None:
        if set(seats) != {"X", "O"}:
            raise NoughtsError("a game needs a seat for X and a seat for O")
        if time_limit <= 0:
            raise NoughtsError(f"the time per move must be positive, not {time_limit}")
        self.game = variant(geometry)
        self.geometry = self.game.geometry
        self.seats = dict(seats)
        self.time_limit = time_limit
        self.seed = seed
        self._rng = random.Random(seed)
        self._players: dict[Mark, Player] = {  # the AI seats, through the player protocol
            mark: LevelPlayer(
                seat.level,
                None if seed is None else self._rng.randrange(2**32),
                time_limit=time_limit,
            )
            for mark, seat in sorted(self.seats.items())
            if seat.level is not None
        }
        self.history: list[Position] = [Position("", self.game, first=first)]
        self.moves: list[int] = []
        self._analysed: tuple[Position, list[MoveEval]] | None = None

    # -- state ------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        return self.history[-1]

    @property
    def to_move(self) -> Mark:
        return self.position.to_move

    @property
    def seat(self) -> Seat:
        """The seat whose turn it is."""
        return self.seats[self.to_move]

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def last_move(self) -> int | None:
        return self.moves[-1] if self.moves else None

    @property
    def is_over(self) -> bool:
        return self.position.is_over

    @property
    def humans(self) -> int:
        return sum(1 for seat in self.seats.values() if not seat.is_ai)

    def result_text(self) -> str:
        """``'X wins'``, ``'draw'`` or ``'O to move'`` (with who sits there when it matters).

        >>> from noughts.variants import variant
        >>> Session(variant("3x3"), {"X": Seat.human(), "O": Seat.ai()}).result_text()
        'X to move (you)'
        """
        position = self.position
        winner = position.winner
        if winner is not None:
            return f"{winner} wins{self._whose(winner)}"
        if position.is_over:
            return "draw"
        return f"{position.to_move} to move{self._whose(position.to_move)}"

    def _whose(self, mark: Mark) -> str:
        seat = self.seats[mark]
        if self.humans == 1:
            return " (you)" if not seat.is_ai else " (the AI)"
        if self.humans == 0:
            return f" ({seat})"
        return ""

    # -- moves ------------------------------------------------------------------------
    def play(self, cell: int) -> Position:
        """Play ``cell`` for the side to move; an illegal move raises and changes nothing."""
        position = self.position.play(cell)
        self.history.append(position)
        self.moves.append(cell)
        return position

    @property
    def ai_players(self) -> dict[Mark, Player]:
        """The players of the AI seats, by mark (the engine at each seat's level)."""
        return dict(self._players)

    def ai_move(self) -> MoveChoice:
        """Let the seat to move (an AI) choose and play its move; returns its choice."""
        player = self._players.get(self.to_move)
        if player is None:
            raise NoughtsError(f"{self.to_move} is played by a human, not the AI")
        result = player.move(self.position, Limit())
        self.play(result.move)
        return result

    def undo(self) -> list[int]:
        """Take back moves: the last human move and the AI replies after it.

        With two humans one move goes back; with none, the last move. Returns the moves
        taken back, oldest first (empty when there is nothing a human could take back).
        """
        if not self.moves:
            return []
        if self.humans != 1:
            return self._pop(1)
        human_moves = [
            index
            for index, before in enumerate(self.history[:-1])
            if not self.seats[before.to_move].is_ai
        ]
        if not human_moves:
            return []
        return self._pop(len(self.moves) - human_moves[-1])

    def restart(self) -> None:
        """Back to the empty board for another game, the seats' marks swapped: X moves
        first, so a human facing the AI moves first in every other game.

        >>> from noughts.variants import variant
        >>> game = Session(variant("3x3"), {"X": Seat.human(), "O": Seat.ai(10)})
        >>> game.restart()
        >>> game.to_move, game.seat.is_ai, game.seats["O"].is_ai, game.position.ply
        ('X', True, False, 0)
        >>> game.restart()
        >>> game.to_move, game.seat.is_ai
        ('X', False)
        """
        self.seats = {mark: self.seats[other(mark)] for mark in self.seats}
        self._players = {other(mark): player for mark, player in self._players.items()}
        self.history = [Position("", self.game, first=self.history[0].first)]
        self.moves.clear()

    def _pop(self, count: int) -> list[int]:
        taken = self.moves[-count:]
        del self.moves[-count:]
        del self.history[-count:]
        return taken

    # -- advice -----------------------------------------------------------------------
    def hint(self) -> MoveEval:
        """The first move of :meth:`analysis`, with the very value the analysis lists.

        Hint and analysis are one search of the position, so they never disagree.

        >>> from noughts.variants import variant
        >>> game = Session(variant("3x3"), {"X": Seat.human(), "O": Seat.human()})
        >>> for cell in (0, 3, 1):  # X a3, O a2, X b3: O must block at c3, and still loses
        ...     _ = game.play(cell)
        >>> hint = game.hint()
        >>> hint.square, str(hint.value), hint == game.analysis()[0]
        ('c3', 'loss in 4', True)
        """
        return self.analysis()[0]

    def analysis(self) -> list[MoveEval]:
        """Every legal move with its value for the side to move, best first.

        The position is searched once (the engine's ``evaluate_moves``); asking again,
        or asking for a hint, reads the same list.
        """
        position = self.position
        if self._analysed is None or self._analysed[0] != position:
            evals = evaluate_moves(position, time_limit=self.time_limit)
            self._analysed = (position, sorted(evals, key=_strength, reverse=True))
        return list(self._analysed[1])


def _strength(value: MoveEval) -> tuple[int, float]:
    """A sort key: proven wins (sooner first), heuristic scores, draws, losses (later first)."""
    if value.proven and value.outcome == "win":
        return (3, -(value.plies or 0))
    if value.proven and value.outcome == "loss":
        return (0, value.plies or 0)
    if value.proven:
        return (1, 0.0)
    return (1, value.score or 0.0)
