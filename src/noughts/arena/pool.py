"""The arena's worker processes, with a watchdog: a worker silent too long is killed.

Games run in worker processes that report every move; a worker silent for
``move_limit + kill_grace`` seconds is killed and replaced, and the player to move
loses that game (:attr:`~noughts.players.game.Failure.KILLED`), so a hanging player
never hangs the arena.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

from noughts.arena.games import GameRecord, GameTask, failed_record, play_task
from noughts.players.game import Failure
from noughts.players.protocol import Allowance, PlayerSpec
from noughts.position import Position

__all__ = ["WorkerPool"]


def _worker_main(
    connection: Connection,
    specs: Sequence[PlayerSpec],
    geometry_name: str,
    allowance: Allowance,
    move_limit: float,
) -> None:
    """Play the games the parent sends until it sends ``None``; report every move."""
    threading.Thread(target=_exit_when_orphaned, args=(os.getppid(),), daemon=True).start()
    while True:
        task = connection.recv()
        if task is None:
            return

        def report(cell: int, index: int = task.index) -> None:
            connection.send(("move", index, cell))

        record = play_task(task, specs, geometry_name, allowance, move_limit, report)
        connection.send(("done", task.index, record))


def _exit_when_orphaned(parent: int) -> None:
    """End this worker once its parent is gone (killed, say), even inside a hanging move."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    connection: Connection
    task: GameTask | None = None
    moves: list[int] = field(default_factory=list)
    deadline: float = 0.0


class WorkerPool:
    """Worker processes with a watchdog: a silent worker is killed and replaced."""

    def __init__(
        self,
        specs: Sequence[PlayerSpec],
        geometry_name: str,
        allowance: Allowance,
        move_limit: float,
        kill_grace: float,
        size: int,
    ) -> None:
        self._context = multiprocessing.get_context("fork")
        self._args = (specs, geometry_name, allowance, move_limit)
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
        on_record(failed_record(task, self._args[1], names, mover, reason, Failure.KILLED, moves))

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
