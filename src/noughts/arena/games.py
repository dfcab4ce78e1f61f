"""One arena game: the task (who plays X, the seed, the opening), playing it, its record.

>>> from noughts.budget import Limit
>>> from noughts.players.protocol import parse_player
>>> task = GameTask(index=0, pair=(0, 1), x=0, o=1, seed=7, opening=())
>>> specs = [parse_player("level:10"), parse_player("random")]
>>> record = play_task(task, specs, "3x3", Limit(), move_limit=30.0)
>>> record.result in ("X", "draw"), record.failure
(True, None)
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from noughts.budget import Limit
from noughts.players.game import Failure, MoveOverrun, play_game
from noughts.players.protocol import Player, PlayerSpec
from noughts.position import Position, other
from noughts.results import Mark, MoveChoice

__all__ = ["GameTask", "GameRecord", "play_task", "failed_record"]


@dataclass(frozen=True)
class GameTask:
    """One game to play: player ``x`` (index into the players) against ``o``."""

    index: int
    pair: tuple[int, int]
    x: int
    o: int
    seed: int
    opening: tuple[int, ...]


@dataclass(frozen=True)
class GameRecord:
    """A finished game. ``result`` is ``"X"``, ``"O"`` or ``"draw"``; ``reason`` says how."""

    index: int
    variant: str
    pair: tuple[int, int]
    players: dict[str, str]
    seed: int
    opening: tuple[int, ...]
    moves: tuple[int, ...]
    result: str
    reason: str
    times: dict[str, list[float]]
    x: int = 0
    o: int = 1
    failure: Failure | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as JSON-ready data (one line of ``--games-out``)."""
        return {
            "game": self.index,
            "variant": self.variant,
            "players": self.players,
            "seed": self.seed,
            "opening": list(self.opening),
            "moves": list(self.moves),
            "result": self.result,
            "reason": self.reason,
            "failure": None if self.failure is None else self.failure.value,
            "move_times": self.times,
        }

    def points(self, player: int) -> float:
        """Points of player index ``player`` in this game (1, ½ or 0)."""
        if self.result == "draw":
            return 0.5
        winner = self.x if self.result == "X" else self.o
        return 1.0 if winner == player else 0.0


def play_task(
    task: GameTask,
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    allowance: Limit,
    move_limit: float,
    report: Callable[[int], None] | None = None,
    *,
    watched: bool = False,
) -> GameRecord:
    """Play one task's game: fresh seeded players, the opening, then the game loop.

    ``watched`` runs every move in a thread given ``move_limit`` plus a grace: the
    in-process arena's watchdog (worker processes have the pool's), so a player that
    hangs or calls ``sys.exit`` loses instead of stopping the arena.
    """
    rng = random.Random(task.seed)
    seed_x, seed_o = rng.getrandbits(63), rng.getrandbits(63)
    start = Position("", geometry_name)
    for move in task.opening:
        start = start.play(move)
    names = {"X": specs[task.x].name, "O": specs[task.o].name}
    players: dict[Mark, Player] = {}
    seats: tuple[tuple[Mark, int, int], ...] = (("X", task.x, seed_x), ("O", task.o, seed_o))
    for mark, index, seed in seats:
        try:
            player = specs[index].create(seed, allowance)
            if watched:
                player = WatchedPlayer(player, move_limit + WATCH_GRACE_S)
            players[mark] = player
        except Exception as error:
            reason = f"{mark} could not start: {error}"
            return failed_record(task, geometry_name, names, mark, reason, Failure.NOT_STARTED)
    seen = None if report is None else lambda choice: report(choice.move)
    game = play_game(players, start, move_limit=move_limit, report=seen)
    return GameRecord(
        index=task.index,
        variant=geometry_name,
        pair=task.pair,
        players=names,
        seed=task.seed,
        opening=task.opening,
        moves=task.opening + game.moves,
        result=game.result,
        reason=game.reason,
        times=game.times,
        x=task.x,
        o=task.o,
        failure=game.failure,
    )


WATCH_GRACE_S = 1.0
"""Seconds past the move limit a watched move may take before its player loses."""


class WatchedPlayer:
    """A player whose every move runs in a daemon thread that is waited for at most
    ``limit`` seconds. A move still running then loses (:class:`MoveOverrun`; its thread
    is abandoned), and a ``sys.exit`` or other exit from the move is an error like any.

    >>> from noughts.players.protocol import RandomPlayer
    >>> watched = WatchedPlayer(RandomPlayer(1), 5.0)
    >>> watched.move(Position("XX./OO./..."), Limit()).move in (2, 5, 6, 7, 8)
    True
    """

    def __init__(self, player: Player, limit: float) -> None:
        self.player = player
        self.limit = limit
        self.name = player.name

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        outcome: list[MoveChoice] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                outcome.append(self.player.move(position, limit))
            except BaseException as error:  # SystemExit included: it must not end the arena
                failure.append(error)

        thread = threading.Thread(target=run, name="noughts-arena-move", daemon=True)
        thread.start()
        thread.join(self.limit)
        if thread.is_alive():
            limit.cancel()
            raise MoveOverrun(f"no move within {self.limit:.1f} s")
        if failure:
            error = failure[0]
            if isinstance(error, Exception):
                raise error
            raise RuntimeError(f"{type(error).__name__}{error.args!r}: it tried to end the process")
        return outcome[0]


def failed_record(
    task: GameTask,
    geometry_name: str,
    names: dict[str, str],
    loser: Mark,
    reason: str,
    failure: Failure,
    moves: tuple[int, ...] | None = None,
) -> GameRecord:
    """The record of a game ``loser`` lost by ``failure`` after ``moves``."""
    return GameRecord(
        index=task.index,
        variant=geometry_name,
        pair=task.pair,
        players=names,
        seed=task.seed,
        opening=task.opening,
        moves=task.opening if moves is None else moves,
        result=other(loser),
        reason=reason,
        times={"X": [], "O": []},
        x=task.x,
        o=task.o,
        failure=failure,
    )
