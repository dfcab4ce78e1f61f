"""Whether the server should be sent requests: its readiness, for ``GET /readyz``.

A server is ready once it has started (its search workers warm, under ``noughts serve``)
while at least one search worker is ready, and stops being ready the moment it is told
to stop (SIGTERM: :mod:`noughts.service.drain`), before it closes its socket. Liveness
(``GET /healthz``) is another question: a draining or starting server is alive.

>>> lifecycle = Lifecycle(started=True)
>>> lifecycle.not_ready(None) is None
True
>>> lifecycle.drain()
>>> lifecycle.not_ready(None)
'draining: the server is stopping'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from noughts.service.processes import ProcessRunner

__all__ = ["Lifecycle", "LIFECYCLE_KEY"]

LIFECYCLE_KEY = "noughts.lifecycle"
"""The lifespan state's key of the app's :class:`Lifecycle` (the server finds it there)."""


class Lifecycle:
    """Where a server is in its life: starting, serving, draining."""

    def __init__(self, *, started: bool) -> None:
        self.started = started
        """True once the start-up is done (at once where there is none: Lambda)."""
        self.draining = False
        """True from the moment the server is told to stop."""

    def drain(self) -> None:
        """The server is stopping: readiness goes off now."""
        self.draining = True

    def not_ready(self, pool: ProcessRunner | None) -> str | None:
        """Why the server is not ready (``None``: it is), given its search workers."""
        if self.draining:
            return "draining: the server is stopping"
        if not self.started:
            return "starting: the search workers are warming up"
        if pool is not None and pool.ready == 0:
            return "no search worker ready: they are being replaced"
        return None
