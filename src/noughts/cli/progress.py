"""A search that runs long shows it is alive: a Rich progress line on the terminal.

:func:`with_progress` runs the work in a thread. If it is still running after
:data:`QUIET_SECONDS`, and the command prints to a terminal (never with ``--json``,
never in a pipe), a line on stderr shows what runs, the time so far, a bar to the
deadline when there is one, and the nodes searched when the caller can count them. The
line goes away when the answer comes. Ctrl-C cancels the search's limit.

>>> with_progress(lambda: 6 * 7, "multiplying", show=True)
42
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import threading

    from rich.console import Console

    from noughts.budget import Limit

__all__ = ["with_progress", "QUIET_SECONDS", "on_terminal"]

QUIET_SECONDS = 2.0
"""A search that answers within this many seconds shows no progress."""

_T = TypeVar("_T")


def on_terminal() -> bool:
    """True when stderr (where the progress line goes) is a terminal."""
    import sys

    return sys.stderr.isatty()


def with_progress(
    work: Callable[[], _T],
    description: str,
    *,
    show: bool,
    limit: Limit | None = None,
    nodes: Callable[[], int] | None = None,
    quiet_s: float = QUIET_SECONDS,
    console: Console | None = None,
) -> _T:
    """``work()``'s answer; while it runs past ``quiet_s`` and ``show`` is true, a
    progress line (``description``, the time, a bar to ``limit``'s deadline, ``nodes()``).

    An exception of ``work`` is raised here; Ctrl-C cancels ``limit`` and is raised too.
    """
    if not show:
        return work()
    import threading

    done = threading.Event()
    answer: list[_T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            answer.append(work())
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)
        finally:
            done.set()

    thread = threading.Thread(target=run, name="noughts-search", daemon=True)
    thread.start()
    try:
        if not done.wait(quiet_s):
            _show(done, description, limit, nodes, console)
    except KeyboardInterrupt:
        if limit is not None:
            limit.cancel()
        raise
    thread.join()
    if failure:
        raise failure[0]
    return answer[0]


def _show(
    done: threading.Event,
    description: str,
    limit: Limit | None,
    nodes: Callable[[], int] | None,
    console: Console | None,
) -> None:
    """The progress line until ``done`` is set."""
    import time

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    seconds = None if limit is None else limit.seconds
    columns = [TextColumn("{task.description}"), TimeElapsedColumn()]
    if seconds is not None:
        columns += [BarColumn(), TextColumn(f"of {seconds:g} s")]
    if nodes is not None:
        columns.append(TextColumn("{task.fields[nodes]}"))
    target = console if console is not None else Console(stderr=True)
    with Progress(*columns, console=target, transient=True) as bar:
        started = time.perf_counter() if limit is None else limit.start
        task = bar.add_task(description, total=seconds, nodes="")
        while not done.wait(0.1):
            shown = "" if nodes is None else f"{nodes():,} nodes"
            bar.update(task, completed=time.perf_counter() - started, nodes=shown)
