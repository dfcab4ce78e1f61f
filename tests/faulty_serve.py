"""``noughts serve`` whose move search fails on one board, for the tests of a real
server's 5xx answers: ``python faulty_serve.py serve --port N ...`` runs the command
line's own ``serve`` (uvicorn, its protocol, the whole app) with the engine's
``choose_move`` replaced in this process (``NOUGHTS_SEARCH_PROCESSES=0``: the searches
run here, in threads), raising on a position with one X and one O (such as
:data:`FAILING_BOARD`, in any of its symmetric forms: the service searches the
canonical one) and answering every other."""

from __future__ import annotations

import sys
from typing import Any

import noughts.service.jobs as jobs
from noughts.cli import main
from noughts.position import Position

FAILING_BOARD = "X../.../..O"
"""A 3x3 board whose move fails with a ``RuntimeError`` (X to move)."""

_real = jobs.choose_move


def fails(position: Position) -> bool:
    """Whether the faulty search fails on ``position``: one X and one O."""
    return position.x.bit_count() == 1 and position.o.bit_count() == 1


def faulty_choose_move(position: Position, *args: Any, **kwargs: Any) -> Any:
    """The engine's ``choose_move``, except that it raises where :func:`fails`."""
    if fails(position):
        raise RuntimeError("injected fault in the search")
    return _real(position, *args, **kwargs)


if __name__ == "__main__":
    jobs.choose_move = faulty_choose_move  # type: ignore[assignment]
    raise SystemExit(main(sys.argv[1:]))
