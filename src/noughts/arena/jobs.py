"""Arena games as executor jobs: each one guarded by the watchdog, lost workers re-run.

On a cluster (:mod:`noughts.cluster`) every game is one job, :func:`play_guarded`: the
worker that takes it plays the game in a child process of its own under the arena's
watchdog (:class:`~noughts.arena.pool.WorkerPool` of one), so an illegal move, a raise,
an overrun or a hang is recorded exactly as on the local pool. A job whose worker is lost
(:class:`~noughts.cluster.WorkerLostError`: the machine or the worker process went away,
not the player) is submitted again, and the game's index is reported as re-run.

>>> from concurrent.futures import ThreadPoolExecutor
>>> from noughts.arena.match import make_tasks
>>> from noughts.players.protocol import Allowance, parse_player
>>> specs = [parse_player("level:10"), parse_player("random")]
>>> tasks = make_tasks(2, 4, seed=3, openings=0, geometry_name="3x3")
>>> records = []
>>> with ThreadPoolExecutor(2) as executor:
...     reruns = run_jobs(executor, tasks, specs, "3x3", Allowance(), 30.0, 5.0, records.append)
>>> sorted(r.index for r in records), reruns, min(r.points(0) for r in records) >= 0.5
([0, 1, 2, 3], [], True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from functools import cache

from noughts.arena.games import GameRecord, GameTask
from noughts.arena.pool import WorkerPool
from noughts.cluster import WorkerLostError
from noughts.engine import choose_move
from noughts.errors import NoughtsError
from noughts.exact.solver import can_solve
from noughts.players.protocol import Allowance, PlayerSpec
from noughts.position import Position

__all__ = ["play_guarded", "prepare", "run_jobs", "MAX_RERUNS"]

MAX_RERUNS = 3
"""A game whose worker is lost this many times stops the run (something is wrong)."""

PREPARE_NODES = 200
"""Nodes of the tiny search that builds a board's search tables in a cluster worker."""


def play_guarded(
    task: GameTask,
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    allowance: Allowance,
    move_limit: float,
    kill_grace: float,
) -> GameRecord:
    """Play one game in a child process under the watchdog; the job a cluster worker runs.

    The worker builds the board's tables once (:func:`prepare`), so each game's child
    inherits them instead of building them again, as the local pool's workers keep theirs.
    """
    prepare(geometry_name)
    records: list[GameRecord] = []
    pool = WorkerPool(specs, geometry_name, allowance, move_limit, kill_grace, size=1)
    try:
        pool.run([task], records.append)
    finally:
        pool.close()
    return records[0]


@cache
def prepare(geometry_name: str) -> None:
    """Build ``geometry_name``'s one-off tables in this process (once): its symmetries and
    what a first, tiny search builds. Games do not depend on it, only their speed."""
    empty = Position("", geometry_name)
    _ = empty.geometry.symmetry_group.perms
    if not can_solve(empty):
        choose_move(empty, nodes=PREPARE_NODES)


def run_jobs(
    executor: Executor,
    tasks: Sequence[GameTask],
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    allowance: Allowance,
    move_limit: float,
    kill_grace: float,
    on_record: Callable[[GameRecord], None],
    on_tick: Callable[[], None] | None = None,
) -> list[int]:
    """Play ``tasks`` as jobs on ``executor``; the indices of games re-run after a lost worker.

    Unfinished jobs are cancelled when this returns early (Ctrl-C, an error).
    """
    lost: dict[int, int] = {}

    def submit(task: GameTask) -> Future[GameRecord]:
        return executor.submit(
            play_guarded, task, specs, geometry_name, allowance, move_limit, kill_grace
        )

    running = {submit(task): task for task in tasks}
    try:
        while running:
            done, _ = wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in done:
                task = running.pop(future)
                try:
                    record = future.result()
                except WorkerLostError as error:
                    lost[task.index] = lost.get(task.index, 0) + 1
                    if lost[task.index] >= MAX_RERUNS:
                        raise NoughtsError(
                            f"game {task.index} lost its worker {MAX_RERUNS} times: {error}"
                        ) from None
                    running[submit(task)] = task
                    continue
                on_record(record)
            if on_tick is not None:
                on_tick()
    finally:
        for future in running:
            future.cancel()
    return sorted(lost)
