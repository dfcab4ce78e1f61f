"""Arena games as executor jobs, each one watched: a hanging player's worker is killed.

Locally (:func:`play_watched`) games are jobs on a
:class:`~noughts.runtime.executor.ProcessExecutor` whose workers were handed the players once
(:func:`game_executor`). A game reports every move (:func:`noughts.runtime.executor.report`); a
worker silent for ``move_limit + kill_grace`` seconds is killed and replaced by the
executor's watchdog, and the player to move loses that game
(:attr:`~noughts.players.game.Failure.KILLED`), as when its worker dies; so a hanging
player never hangs the arena.

On a cluster (:mod:`noughts.runtime.cluster`) every game is one job, :func:`play_guarded`: the
worker that takes it plays the game on a watched executor of one worker of its own, so
an illegal move, a raise, an overrun or a hang is recorded exactly as locally. A job
whose worker is lost (:class:`~noughts.runtime.executor.WorkerLostError`: the machine or the
worker process went away, not the player) is submitted again, and the game's index is
reported as re-run.

>>> from concurrent.futures import ThreadPoolExecutor
>>> from noughts.arena.match import make_tasks
>>> from noughts.budget import Limit
>>> from noughts.players.protocol import parse_player
>>> specs = [parse_player("level:10"), parse_player("random")]
>>> tasks = make_tasks(2, 4, seed=3, openings=0, geometry_name="3x3")
>>> records = []
>>> with ThreadPoolExecutor(2) as executor:
...     reruns = run_jobs(executor, tasks, specs, "3x3", Limit(), 30.0, 5.0, records.append)
>>> sorted(r.index for r in records), reruns, min(r.points(0) for r in records) >= 0.5
([0, 1, 2, 3], [], True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from functools import cache
from typing import cast

from noughts.arena.games import GameRecord, GameTask, failed_record, play_task
from noughts.budget import Limit
from noughts.engine import answers_exactly, choose_move
from noughts.errors import NoughtsError
from noughts.players.game import Failure
from noughts.players.protocol import PlayerSpec
from noughts.position import Position
from noughts.runtime.executor import ProcessExecutor, WorkerLostError, report

__all__ = ["game_executor", "play_watched", "play_guarded", "prepare", "run_jobs", "MAX_RERUNS"]

_Setup = tuple[Sequence[PlayerSpec], str, Limit, float]

_setup: _Setup | None = None
"""The players, board, allowance and move limit of this arena worker (set at its start)."""


def game_executor(
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    allowance: Limit,
    move_limit: float,
    size: int,
) -> ProcessExecutor:
    """``size`` forked worker processes handed the players once (they need not pickle)."""
    return ProcessExecutor(
        size,
        initializer=_adopt,
        initargs=(specs, geometry_name, allowance, move_limit),
        name="noughts-arena",
    )


def _adopt(
    specs: Sequence[PlayerSpec], geometry_name: str, allowance: Limit, move_limit: float
) -> None:
    global _setup
    _setup = (specs, geometry_name, allowance, move_limit)


def _play(task: GameTask) -> GameRecord:
    """The job: play ``task`` with this worker's players, reporting every move."""
    assert _setup is not None, "an arena job runs on a game_executor's worker"
    specs, geometry_name, allowance, move_limit = _setup
    return play_task(task, specs, geometry_name, allowance, move_limit, report)


def play_watched(
    executor: ProcessExecutor,
    tasks: Sequence[GameTask],
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    move_limit: float,
    kill_grace: float,
    on_record: Callable[[GameRecord], None],
    on_tick: Callable[[], None] | None = None,
) -> None:
    """Play ``tasks`` on ``executor`` (a :func:`game_executor` of the same players); a
    game whose worker is silent ``move_limit + kill_grace`` seconds, or dies, is lost by
    the player to move. Games not started are cancelled when this returns early."""
    silence = move_limit + kill_grace
    moves: dict[int, list[int]] = {task.index: [] for task in tasks}
    running: dict[Future[GameRecord], GameTask] = {}
    for task in tasks:
        job = executor.run(
            _play, (task,), silence_s=silence, on_progress=_recorder(moves[task.index])
        )
        running[job] = task

    def lost(task: GameTask, error: WorkerLostError) -> GameRecord:
        why = f"no move within {silence:.1f} s" if error.hung else "its worker process died"
        return _killed(task, specs, geometry_name, tuple(moves[task.index]), why)

    _gather(running, lost, on_record, on_tick, executor.cancel)


def _gather(
    running: dict[Future[GameRecord], GameTask],
    lost: Callable[[GameTask, WorkerLostError], GameRecord | Future[GameRecord]],
    on_record: Callable[[GameRecord], None],
    on_tick: Callable[[], None] | None,
    cancel: Callable[[Future[GameRecord]], object],
) -> None:
    """Hand each game's record to ``on_record`` as it finishes; a game whose worker was
    lost gets ``lost``'s record, or is running again as ``lost``'s future. The games
    still running are cancelled when this returns early (Ctrl-C, an error)."""
    try:
        while running:
            done, _ = wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in done:
                task = running.pop(future)
                try:
                    record = future.result()
                except WorkerLostError as error:
                    answer = lost(task, error)
                    if isinstance(answer, Future):
                        running[answer] = task
                        continue
                    record = answer
                on_record(record)
            if on_tick is not None:
                on_tick()
    finally:
        for future in running:
            cancel(future)


def _recorder(played: list[int]) -> Callable[[object], None]:
    """Adds a reported move to ``played``."""

    def record(cell: object) -> None:
        played.append(cast(int, cell))

    return record


def _killed(
    task: GameTask,
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    played: tuple[int, ...],
    why: str,
) -> GameRecord:
    """The record of a game whose worker was killed (or died) with ``played`` reported."""
    moves = task.opening + played
    position = Position("", geometry_name)
    for move in moves:
        position = position.play(move)
    mover = position.to_move
    names = {"X": specs[task.x].name, "O": specs[task.o].name}
    reason = f"{mover} was killed: {why}"
    return failed_record(task, geometry_name, names, mover, reason, Failure.KILLED, moves)


MAX_RERUNS = 3
"""A game whose worker is lost this many times stops the run (something is wrong)."""

PREPARE_NODES = 200
"""Nodes of the tiny search that builds a board's search tables in a cluster worker."""


def play_guarded(
    task: GameTask,
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    allowance: Limit,
    move_limit: float,
    kill_grace: float,
) -> GameRecord:
    """Play one game in a child process under the watchdog; the job a cluster worker runs.

    The worker builds the board's tables once (:func:`prepare`), so each game's child
    inherits them instead of building them again, as the local workers keep theirs.
    """
    prepare(geometry_name)
    records: list[GameRecord] = []
    with game_executor(specs, geometry_name, allowance, move_limit, 1) as executor:
        play_watched(executor, [task], specs, geometry_name, move_limit, kill_grace, records.append)
    return records[0]


@cache
def prepare(geometry_name: str) -> None:
    """Build ``geometry_name``'s one-off tables in this process (once): its symmetries and
    what a first, tiny search builds. Games do not depend on it, only their speed."""
    empty = Position("", geometry_name)
    _ = empty.geometry.symmetry_group.perms
    if not answers_exactly(empty):
        choose_move(empty, nodes=PREPARE_NODES)


def run_jobs(
    executor: Executor,
    tasks: Sequence[GameTask],
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    allowance: Limit,
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

    def again(task: GameTask, error: WorkerLostError) -> Future[GameRecord]:
        lost[task.index] = lost.get(task.index, 0) + 1
        if lost[task.index] >= MAX_RERUNS:
            raise NoughtsError(
                f"game {task.index} lost its worker {MAX_RERUNS} times: {error}"
            ) from None
        return submit(task)

    _gather({submit(task): task for task in tasks}, again, on_record, on_tick, Future.cancel)
    return sorted(lost)
