"""An arena worker whose parent is killed (a cluster worker lost, say) ends too."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing.connection import Connection

from noughts.arena.games import GameTask
from noughts.arena.jobs import game_executor, play_watched
from noughts.budget import Limit
from noughts.players.protocol import as_spec
from noughts.position import Position
from waiting import wait_until

ENTERED = multiprocessing.get_context("fork").Event()
"""Set by the hanging player once it is inside its move (the workers are forked: they
share it with the test)."""


def hang(position: Position) -> int:
    ENTERED.set()
    time.sleep(3600)
    return 0


def run_pool(report: Connection) -> None:
    specs = [as_spec(hang, name="hanger"), as_spec("random")]
    executor = game_executor(specs, "3x3", Limit(), move_limit=3600, size=1)
    executor.start()
    report.send(executor.pids()[0])
    task = GameTask(0, (0, 1), 0, 1, seed=1, opening=())
    play_watched(executor, [task], specs, "3x3", move_limit=3600, kill_grace=0, on_record=print)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_a_worker_ends_when_its_parent_is_killed() -> None:
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    parent = context.Process(target=run_pool, args=(send,))
    parent.start()
    worker = receive.recv()
    assert ENTERED.wait(30)  # the worker is inside the hanging move now
    assert alive(worker)
    os.kill(parent.pid, signal.SIGKILL)  # type: ignore[arg-type]
    parent.join()
    wait_until(lambda: not alive(worker), 5, "the orphaned worker to end")
