"""The game loop: players take turns until the game ends or one of them fails.

Each move the player to move gets a fresh :class:`~noughts.budget.Limit` (from
``budget_for``) and answers a :class:`~noughts.results.MoveChoice`. A player that raises,
answers an illegal move, or takes longer than ``move_limit`` seconds loses the game; the
outcome says which :class:`Failure` it was. A player may also stop the game where it
stands by raising :class:`StopGame` (a person who quits, or takes moves back): that is
no failure, and it reaches the caller.

>>> from noughts.players.protocol import LevelPlayer, RandomPlayer
>>> from noughts.position import Position
>>> game = play_game({"X": LevelPlayer(10), "O": RandomPlayer(seed=1)}, Position())
>>> game.result in ("X", "draw"), game.failure
(True, None)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from noughts.budget import Limit
from noughts.errors import IllegalMoveError
from noughts.players.protocol import Player
from noughts.position import Position, other
from noughts.results import Mark, MoveChoice

__all__ = ["Failure", "GameOutcome", "MoveOverrun", "StopGame", "play_game"]


class Failure(StrEnum):
    """How a player lost a game other than on the board."""

    RAISED = "raised"
    ILLEGAL = "illegal move"
    OVERRAN = "overran its time"
    KILLED = "was killed"
    NOT_STARTED = "could not start"


class MoveOverrun(Exception):
    """A player's move did not come within its hard limit (raised by a watchdog)."""


class StopGame(Exception):
    """Raised by a player to stop the game where it stands; :func:`play_game` lets it
    through to its caller. ``reason`` says why, in words ("you quit")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class GameOutcome:
    """A game played out: ``result`` is ``"X"``, ``"O"`` or ``"draw"``; ``reason`` says
    how in words, ``failure`` which failure it was (``None`` for a game played out)."""

    moves: tuple[int, ...]
    result: str
    reason: str
    failure: Failure | None = None
    times: dict[str, list[float]] = field(default_factory=lambda: {"X": [], "O": []})
    choices: tuple[MoveChoice, ...] = field(default=(), repr=False)


def play_game(
    players: Mapping[Mark, Player],
    position: Position,
    *,
    move_limit: float | None = None,
    budget_for: Callable[[], Limit] = Limit,
    report: Callable[[MoveChoice], None] | None = None,
) -> GameOutcome:
    """Play ``players`` (by mark) from ``position`` to the end; ``report`` sees each move
    once it is on the board."""
    moves: list[int] = []
    choices: list[MoveChoice] = []
    times: dict[str, list[float]] = {"X": [], "O": []}

    def lost(mover: Mark, failure: Failure, why: str) -> GameOutcome:
        return GameOutcome(
            tuple(moves), other(mover), f"{mover} {why}", failure, times, tuple(choices)
        )

    while not position.is_over:
        mover = position.to_move
        started = time.perf_counter()
        try:
            choice = players[mover].move(position, budget_for())
        except IllegalMoveError as error:  # an answer that is not a cell at all
            return lost(mover, Failure.ILLEGAL, f"played an illegal move: {error}")
        except MoveOverrun as error:
            times[mover].append(time.perf_counter() - started)
            return lost(mover, Failure.OVERRAN, f"overran its time: {error}")
        except StopGame:
            raise
        except Exception as error:  # a broken player loses; the game loop goes on
            return lost(mover, Failure.RAISED, f"raised {type(error).__name__}: {error}")
        elapsed = time.perf_counter() - started
        times[mover].append(elapsed)
        if move_limit is not None and elapsed > move_limit:
            return lost(
                mover, Failure.OVERRAN, f"overran its time: {elapsed:.2f} s > {move_limit:.2f} s"
            )
        try:
            position = position.play(choice.move)
        except IllegalMoveError as error:
            return lost(mover, Failure.ILLEGAL, f"played an illegal move: {error}")
        moves.append(choice.move)
        choices.append(choice)
        if report is not None:
            report(choice)
    result = position.result
    assert result is not None
    if result.winner is not None:
        reason = f"{result.winner} completed a line"
        return GameOutcome(tuple(moves), result.winner, reason, None, times, tuple(choices))
    return GameOutcome(tuple(moves), "draw", "board full", None, times, tuple(choices))
