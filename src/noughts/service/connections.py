"""Slow clients are cut off: a connection has a bounded time to deliver each request.

uvicorn closes a keep-alive connection that stays idle ``timeout_keep_alive`` seconds
after a response, but it waits forever for a request that never completes: a client
that connects and sends nothing, or half a header, or half a body, holds its socket
(and, mid-body, a task) for as long as it likes. :class:`GuardedH11Protocol` is
uvicorn's h11 protocol with one more timer: from the moment a connection opens, and
again after each response, the client has ``request_timeout_s`` seconds to deliver a
whole request (head and body); if it has not, the connection is closed. An app still
waiting for that body sees the client leave (``http.disconnect``). The timer stops
once the request is complete, so slow searches are never cut short by it.

``noughts serve`` runs uvicorn with this protocol; the limit is the setting
``NOUGHTS_REQUEST_TIMEOUT_S`` (default 10 s), read once per worker process.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["GuardedH11Protocol", "configure", "request_timeout_s"]

_timeout_s: float | None = None


def configure(seconds: float) -> None:
    """Set this process's request timeout (``noughts serve`` does, from its settings)."""
    global _timeout_s
    _timeout_s = seconds


def request_timeout_s() -> float:
    """This process's request timeout: as configured, else from the ``NOUGHTS_*`` settings.

    >>> configure(2.5); request_timeout_s()
    2.5
    """
    global _timeout_s
    if _timeout_s is None:
        from noughts.service.settings import Settings

        _timeout_s = Settings().request_timeout_s
    return _timeout_s


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request is not complete in time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._request_timer = self.loop.call_later(request_timeout_s(), self._on_request_timeout)

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _on_request_timeout(self) -> None:
        self._request_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm()  # the request is all here (or the connection is ending)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is not h11.DONE:
            self._arm()  # the next request on this connection gets its own time
