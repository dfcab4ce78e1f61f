"""The arena: bot-vs-bot matches and round-robins in worker processes, with statistics.

Every pair of players plays ``games`` games; the two games of each couple start from
the same ``openings`` random moves with colours swapped (the first player of the pair
is X in even games). Each game, its opening and the players' seeds derive from
``seed``, so the same seed gives the same games (as long as no player reads the
clock: a time-limited search is only as repeatable as the machine).

A player that answers an illegal move, raises, or overruns ``move_limit`` seconds
loses that game and the record says why (:class:`~noughts.players.game.Failure`).
Games run in worker processes (:func:`noughts.arena.jobs.play_watched`) whose watchdog
kills a hanging player's worker, so a hanging player never hangs the arena.

>>> match = run_match("level:10", "random", variant="3x3", games=4, seed=7, workers=0)
>>> match.stats.losses, len(match.records)
(0, 4)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from noughts.arena.games import GameRecord, GameTask, play_task
from noughts.arena.jobs import game_executor, play_watched, run_jobs
from noughts.arena.ratings import EloRow, MatchStats, elo_table, match_stats
from noughts.budget import Limit, check_nodes, check_seconds
from noughts.errors import NoughtsError
from noughts.players.protocol import PlayerSpec, as_spec
from noughts.position import Position
from noughts.variants import variant as parse_variant

__all__ = [
    "GameTask",
    "GameRecord",
    "PairSummary",
    "ArenaResult",
    "run_arena",
    "run_match",
    "DEFAULT_MOVE_LIMIT",
]

DEFAULT_MOVE_LIMIT = 30.0
"""Seconds a player may take for one move when no think time is given."""


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
    reruns: list[int] = field(default_factory=list)
    """Games played again because their cluster worker was lost (by index)."""

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
            kind = record.failure.value if record.failure is not None else record.reason
            key = f"{record.players[loser]}: {kind}"
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
    executor: Executor | None = None,
) -> ArenaResult:
    """Play every pair of ``players`` ``games`` times; ``workers=0`` plays in-process.

    With an ``executor`` (:func:`noughts.runtime.cluster.executor_for`: local processes or Ray),
    every game is a job on it instead (``workers`` is then only reported); a game whose
    worker is lost is played again and listed in ``reruns``.

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
    if time_limit is not None:
        check_seconds(time_limit, "the time per move")
    if nodes is not None:
        check_nodes(nodes, "the node budget")
    if move_limit is not None:
        check_seconds(move_limit, "the move limit")
    geometry_name = parse_variant(variant).name
    if openings >= parse_variant(geometry_name).cells:
        raise NoughtsError(f"{openings} opening moves do not fit on {geometry_name}")
    if move_limit is None:
        move_limit = DEFAULT_MOVE_LIMIT if time_limit is None else 3 * time_limit + 1
    names = _unique_names([spec.name for spec in specs])
    specs = [PlayerSpec(name, spec.factory) for name, spec in zip(names, specs, strict=True)]
    tasks = make_tasks(len(specs), games, seed, openings, geometry_name)
    allowance = Limit.within(time_limit, nodes)  # each move's
    records: list[GameRecord] = []

    def collect(record: GameRecord) -> None:
        records.append(record)
        if on_record is not None:
            on_record(record)

    reruns: list[int] = []
    if executor is not None:
        reruns = run_jobs(
            executor, tasks, specs, geometry_name, allowance, move_limit, kill_grace,
            collect, on_tick,
        )
    elif workers == 0:
        for task in tasks:
            collect(play_task(task, specs, geometry_name, allowance, move_limit, watched=True))
    else:
        size = min(workers, len(tasks))
        with game_executor(specs, geometry_name, allowance, move_limit, size) as pool:
            play_watched(pool, tasks, specs, geometry_name, move_limit, kill_grace, collect,
                         on_tick)
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
        geometry_name, names, records, pairs, elo_table(names, results), seed, settings, reruns
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
