"""The arena: bot-vs-bot matches and round-robins in worker processes, with statistics.

Every pair of players plays ``games`` games; the two games of each couple start from
the same ``openings`` random moves with colours swapped (the first player of the pair
is X in even games). Each game, its opening and the players' seeds derive from
``seed``, so the same seed gives the same games (as long as no player reads the
clock: a time-limited search is only as repeatable as the machine).

A player that answers an illegal move, raises, or overruns ``move_limit`` seconds
loses that game and the record says why. Games run in worker processes that report
every move; a worker silent for ``move_limit + kill_grace`` seconds is killed and the
player to move loses, so a hanging player never hangs the arena.

>>> match = run_match("level:10", "random", variant="3x3", games=4, seed=7, workers=0)
>>> match.stats.losses, len(match.records)
(0, 4)
"""

from __future__ import annotations

import contextlib
import multiprocessing
import operator
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from noughts.arena.ratings import EloRow, MatchStats, elo_table, match_stats
from noughts.errors import IllegalMoveError, NoughtsError
from noughts.players.protocol import Budget, PlayerSpec, as_spec, move_of
from noughts.position import Position
from noughts.variants import variant as parse_variant

__all__ = [
    "GameTask",
    "GameRecord",
    "PairSummary",
    "ArenaResult",
    "play_game",
    "run_arena",
    "run_match",
    "DEFAULT_MOVE_LIMIT",
]

DEFAULT_MOVE_LIMIT = 30.0
"""Seconds a player may take for one move when no think time is given."""


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
            "move_times": self.times,
        }

    def points(self, player: int) -> float:
        """Points of player index ``player`` in this game (1, ½ or 0)."""
        if self.result == "draw":
            return 0.5
        winner = self.x if self.result == "X" else self.o
        return 1.0 if winner == player else 0.0


# -- one game -----------------------------------------------------------------------------
def play_game(
    players: dict[str, Any],
    position: Position,
    *,
    move_limit: float,
    report: Callable[[int], None] | None = None,
) -> tuple[tuple[int, ...], str, str, dict[str, list[float]]]:
    """Play ``players`` (by mark) from ``position``: moves, result, reason, move times."""
    moves: list[int] = []
    times: dict[str, list[float]] = {"X": [], "O": []}
    while not position.is_over:
        mover = position.to_move
        started = time.perf_counter()
        try:
            answer = players[mover].move(position)
        except Exception as error:  # a broken player loses; the arena goes on
            reason = f"{mover} raised {type(error).__name__}: {error}"
            return tuple(moves), _other(mover), reason, times
        elapsed = time.perf_counter() - started
        times[mover].append(elapsed)
        if elapsed > move_limit:
            reason = f"{mover} overran its time: {elapsed:.2f} s > {move_limit:.2f} s"
            return tuple(moves), _other(mover), reason, times
        answered = move_of(answer)
        try:
            if isinstance(answered, bool) or not hasattr(answered, "__index__"):
                raise IllegalMoveError(f"a move is a cell index, not {answered!r}")
            cell = operator.index(answered)  # numpy integers are fine too
            position = position.play(cell)
        except IllegalMoveError as error:
            return tuple(moves), _other(mover), f"{mover} played an illegal move: {error}", times
        moves.append(cell)
        if report is not None:
            report(cell)
    if position.winner is not None:
        return tuple(moves), position.winner, f"{position.winner} completed a line", times
    return tuple(moves), "draw", "board full", times


def _other(mark: str) -> str:
    return "O" if mark == "X" else "X"


def _random_opening(geometry_name: str, count: int, rng: random.Random) -> tuple[int, ...]:
    """``count`` random moves that neither finish the game nor leave a win on the spot."""
    position = Position("", geometry_name)
    moves: list[int] = []
    for _ in range(count):
        choices = [m for m in position.legal_moves if not position.play(m).is_over]
        rng.shuffle(choices)
        for move in choices:
            after = position.play(move)
            if not _has_immediate_win(after):
                break
        else:
            break
        position = after
        moves.append(move)
    return tuple(moves)


def _has_immediate_win(position: Position) -> bool:
    return any(position.play(m).winner is not None for m in position.legal_moves)


def _play_task(
    task: GameTask,
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    budget: Budget,
    move_limit: float,
    report: Callable[[int], None] | None = None,
) -> GameRecord:
    rng = random.Random(task.seed)
    seed_x, seed_o = rng.getrandbits(63), rng.getrandbits(63)
    start = Position("", geometry_name)
    for move in task.opening:
        start = start.play(move)
    names = {"X": specs[task.x].name, "O": specs[task.o].name}
    players: dict[str, Any] = {}
    try:
        players["X"] = specs[task.x].create(seed_x, budget)
    except Exception as error:
        return _failed(task, geometry_name, names, "X", f"X could not start: {error}")
    try:
        players["O"] = specs[task.o].create(seed_o, budget)
    except Exception as error:
        return _failed(task, geometry_name, names, "O", f"O could not start: {error}")
    moves, result, reason, times = play_game(players, start, move_limit=move_limit, report=report)
    return GameRecord(
        index=task.index,
        variant=geometry_name,
        pair=task.pair,
        players=names,
        seed=task.seed,
        opening=task.opening,
        moves=task.opening + moves,
        result=result,
        reason=reason,
        times=times,
        x=task.x,
        o=task.o,
    )


def _failed(
    task: GameTask,
    geometry_name: str,
    names: dict[str, str],
    loser: str,
    reason: str,
    moves: tuple[int, ...] | None = None,
) -> GameRecord:
    return GameRecord(
        index=task.index,
        variant=geometry_name,
        pair=task.pair,
        players=names,
        seed=task.seed,
        opening=task.opening,
        moves=task.opening if moves is None else moves,
        result=_other(loser),
        reason=reason,
        times={"X": [], "O": []},
        x=task.x,
        o=task.o,
    )


# -- worker processes --------------------------------------------------------------------
def _worker_main(
    connection: Connection,
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    budget: Budget,
    move_limit: float,
) -> None:
    """Play the games the parent sends until it sends ``None``; report every move."""
    while True:
        task = connection.recv()
        if task is None:
            return

        def report(cell: int, index: int = task.index) -> None:
            connection.send(("move", index, cell))

        record = _play_task(task, specs, geometry_name, budget, move_limit, report)
        connection.send(("done", task.index, record))


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    connection: Connection
    task: GameTask | None = None
    moves: list[int] = field(default_factory=list)
    deadline: float = 0.0


class _Pool:
    """Worker processes with a watchdog: a silent worker is killed and replaced."""

    def __init__(
        self,
        specs: Sequence[PlayerSpec],
        geometry_name: str,
        budget: Budget,
        move_limit: float,
        kill_grace: float,
        size: int,
    ) -> None:
        self._context = multiprocessing.get_context("fork")
        self._args = (specs, geometry_name, budget, move_limit)
        self._silence = move_limit + kill_grace
        self.workers = [self._start() for _ in range(size)]

    def _start(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main, args=(child, *self._args), daemon=True
        )
        process.start()
        child.close()
        return _Worker(process, parent)

    def run(
        self,
        tasks: list[GameTask],
        on_record: Callable[[GameRecord], None],
        on_tick: Callable[[], None] | None = None,
    ) -> None:
        queue = list(reversed(tasks))
        while queue or any(w.task is not None for w in self.workers):
            for worker in self.workers:
                if worker.task is None and queue:
                    worker.task = queue.pop()
                    worker.moves = []
                    worker.deadline = time.monotonic() + self._silence
                    worker.connection.send(worker.task)
            busy = [w for w in self.workers if w.task is not None]
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = wait([w.connection for w in busy], timeout=min(timeout, 0.25))
            for worker in busy:
                if worker.connection in ready:
                    self._receive(worker, on_record)
                elif time.monotonic() > worker.deadline:
                    self._replace(worker, on_record, f"no move within {self._silence:.1f} s")
            if on_tick is not None:
                on_tick()

    def _receive(self, worker: _Worker, on_record: Callable[[GameRecord], None]) -> None:
        try:
            kind, _, payload = worker.connection.recv()
        except (EOFError, OSError):
            self._replace(worker, on_record, "its worker process died")
            return
        worker.deadline = time.monotonic() + self._silence
        if kind == "move":
            worker.moves.append(payload)
        else:
            worker.task = None
            on_record(payload)

    def _replace(self, worker: _Worker, on_record: Callable[[GameRecord], None], why: str) -> None:
        task = worker.task
        assert task is not None
        position = Position("", self._args[1])
        for move in task.opening + tuple(worker.moves):
            position = position.play(move)
        mover = position.to_move
        specs = self._args[0]
        names = {"X": specs[task.x].name, "O": specs[task.o].name}
        self._kill(worker)
        fresh = self._start()
        worker.process, worker.connection, worker.task = fresh.process, fresh.connection, None
        reason = f"{mover} was killed: {why}"
        moves = task.opening + tuple(worker.moves)
        on_record(_failed(task, self._args[1], names, mover, reason, moves))

    @staticmethod
    def _kill(worker: _Worker) -> None:
        worker.process.kill()
        worker.process.join(5)
        worker.connection.close()

    def close(self) -> None:
        for worker in self.workers:
            with contextlib.suppress(BrokenPipeError, OSError):
                worker.connection.send(None)
        for worker in self.workers:
            worker.process.join(2)
            if worker.process.is_alive():
                self._kill(worker)


# -- matches and tournaments ---------------------------------------------------------------
@dataclass(frozen=True)
class PairSummary:
    """One pairing from the first player's view."""

    first: int
    second: int
    as_x: tuple[int, int, int]
    as_o: tuple[int, int, int]
    stats: MatchStats
    mean_move_ms: tuple[float, float]
    mean_plies: float
    failures: dict[str, int]

    @property
    def total(self) -> tuple[int, int, int]:
        """(wins, draws, losses) of the first player."""
        return (
            self.as_x[0] + self.as_o[0],
            self.as_x[1] + self.as_o[1],
            self.as_x[2] + self.as_o[2],
        )


@dataclass
class ArenaResult:
    """Every game, the per-pair summaries and (for three players or more) an Elo table."""

    variant: str
    names: list[str]
    records: list[GameRecord]
    pairs: list[PairSummary]
    table: list[EloRow]
    seed: int
    settings: dict[str, Any]

    @property
    def stats(self) -> MatchStats:
        """The first pairing's statistics (a match's, from the first player's view)."""
        return self.pairs[0].stats


def summarize(records: Sequence[GameRecord], first: int, second: int) -> PairSummary:
    """Wins/draws/losses of ``first`` against ``second`` as X, as O and in total."""
    tallies = {"X": [0, 0, 0], "O": [0, 0, 0]}
    times: dict[int, list[float]] = {first: [], second: []}
    plies: list[int] = []
    failures: dict[str, int] = {}
    for record in records:
        if {record.x, record.o} != {first, second}:
            continue
        mark = "X" if record.x == first else "O"
        points = record.points(first)
        tallies[mark][0 if points == 1 else 1 if points == 0.5 else 2] += 1
        for side, index in (("X", record.x), ("O", record.o)):
            times[index].extend(record.times.get(side, []))
        plies.append(len(record.moves))
        if "completed a line" not in record.reason and record.reason != "board full":
            loser = "O" if record.result == "X" else "X"
            key = f"{record.players[loser]}: {_failure_kind(record.reason)}"
            failures[key] = failures.get(key, 0) + 1
    wins = tallies["X"][0] + tallies["O"][0]
    draws = tallies["X"][1] + tallies["O"][1]
    losses = tallies["X"][2] + tallies["O"][2]

    def mean_ms(values: list[float]) -> float:
        return 1000 * sum(values) / len(values) if values else 0.0

    return PairSummary(
        first=first,
        second=second,
        as_x=(tallies["X"][0], tallies["X"][1], tallies["X"][2]),
        as_o=(tallies["O"][0], tallies["O"][1], tallies["O"][2]),
        stats=match_stats(wins, draws, losses),
        mean_move_ms=(mean_ms(times[first]), mean_ms(times[second])),
        mean_plies=sum(plies) / len(plies) if plies else 0.0,
        failures=failures,
    )


def _failure_kind(reason: str) -> str:
    for kind in ("raised", "illegal move", "overran its time", "was killed", "could not start"):
        if kind in reason:
            return kind
    return reason


def make_tasks(
    count_players: int, games: int, seed: int, openings: int, geometry_name: str
) -> list[GameTask]:
    """Every pair's games: couples share an opening, colours alternate."""
    tasks: list[GameTask] = []
    for first in range(count_players):
        for second in range(first + 1, count_players):
            for game in range(games):
                couple = random.Random(f"{seed}:{first}:{second}:{game // 2}:opening")
                opening = _random_opening(geometry_name, openings, couple)
                x, o = (first, second) if game % 2 == 0 else (second, first)
                game_seed = random.Random(f"{seed}:{first}:{second}:{game}").getrandbits(63)
                tasks.append(GameTask(len(tasks), (first, second), x, o, game_seed, opening))
    return tasks


def run_arena(
    players: Sequence[object],
    *,
    variant: str = "3x3",
    games: int = 100,
    time_limit: float | None = None,
    nodes: int | None = None,
    move_limit: float | None = None,
    workers: int = 1,
    seed: int = 0,
    openings: int = 0,
    kill_grace: float = 5.0,
    on_record: Callable[[GameRecord], None] | None = None,
    on_tick: Callable[[], None] | None = None,
) -> ArenaResult:
    """Play every pair of ``players`` ``games`` times; ``workers=0`` plays in-process.

    ``time_limit`` (seconds) and ``nodes`` bound engine players' searches (a node budget
    alone keeps Qubic games repeatable and independent of the machine's load);
    ``move_limit`` is the hard
    limit per move (default ``3 * time_limit + 1``, or 30 s without a think time).
    ``on_record`` sees every finished game; ``on_tick`` is called a few times a second.
    """
    specs = [as_spec(player) for player in players]
    if len(specs) < 2:
        raise NoughtsError("the arena needs at least two players")
    if games < 1:
        raise NoughtsError(f"games must be at least 1, not {games}")
    if workers < 0:
        raise NoughtsError(f"workers cannot be negative, not {workers}")
    if openings < 0:
        raise NoughtsError(f"openings cannot be negative, not {openings}")
    if time_limit is not None and time_limit <= 0:
        raise NoughtsError(f"the time per move must be positive, not {time_limit}")
    if nodes is not None and nodes < 1:
        raise NoughtsError(f"the node budget must be positive, not {nodes}")
    geometry_name = parse_variant(variant).name
    if openings >= parse_variant(geometry_name).cells:
        raise NoughtsError(f"{openings} opening moves do not fit on {geometry_name}")
    if move_limit is None:
        move_limit = DEFAULT_MOVE_LIMIT if time_limit is None else 3 * time_limit + 1
    names = _unique_names([spec.name for spec in specs])
    specs = [PlayerSpec(name, spec.factory) for name, spec in zip(names, specs, strict=True)]
    tasks = make_tasks(len(specs), games, seed, openings, geometry_name)
    budget = Budget(time_limit, nodes)
    records: list[GameRecord] = []

    def collect(record: GameRecord) -> None:
        records.append(record)
        if on_record is not None:
            on_record(record)

    if workers == 0:
        for task in tasks:
            collect(_play_task(task, specs, geometry_name, budget, move_limit))
    else:
        size = min(workers, len(tasks))
        pool = _Pool(specs, geometry_name, budget, move_limit, kill_grace, size)
        try:
            pool.run(tasks, collect, on_tick)
        finally:
            pool.close()
    records.sort(key=lambda record: record.index)
    pairs = [
        summarize(records, first, second)
        for first in range(len(specs))
        for second in range(first + 1, len(specs))
    ]
    results = {(p.first, p.second): p.total for p in pairs}
    settings = {
        "games": games,
        "time": time_limit,
        "nodes": nodes,
        "move_limit": move_limit,
        "workers": workers,
        "openings": openings,
    }
    return ArenaResult(
        geometry_name, names, records, pairs, elo_table(names, results), seed, settings
    )


def run_match(a: object, b: object, **options: Any) -> ArenaResult:
    """A two-player match (see :func:`run_arena` for the options)."""
    return run_arena([a, b], **options)


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    result = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return result
