"""Connections: slow clients cut off, and a stop that answers the requests on their way.

**Slow clients.** uvicorn closes a keep-alive connection that stays idle
``timeout_keep_alive`` seconds after a response, but it waits forever for a request that
never completes: a client that connects and sends nothing, or half a header, or half a
body, holds its socket (and, mid-body, a task) for as long as it likes. Here, from the
moment a connection opens, and again after each response, the client has
``request_timeout_s`` seconds to deliver a whole request (head and body); if it has not,
the connection is closed. An app still waiting for that body sees the client leave
(``http.disconnect``). The timer stops once the request is complete, so slow searches
are never cut short by it.

**A stop** (:mod:`noughts.service.drain`): uvicorn closes an idle keep-alive connection
at once, and a client that was sending its next request on it meanwhile gets a reset.
Here a stopping server answers every request that is already on its way: an idle
connection stays open for :data:`DRAIN_IDLE_S` (then closes if nothing came), and every
answer from then on says ``Connection: close``.

:class:`GuardedHttpToolsProtocol` (uvicorn's httptools parser, the fast one: what
``noughts serve`` runs) and :class:`GuardedH11Protocol` (the pure-Python h11 parser)
behave alike. The limit is the setting ``NOUGHTS_REQUEST_TIMEOUT_S`` (default 10 s),
read once per worker process.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from noughts.service.middleware import stamp_arrival

__all__ = [
    "GuardedHttpToolsProtocol",
    "GuardedH11Protocol",
    "configure",
    "request_timeout_s",
    "DRAIN_IDLE_S",
]

DRAIN_IDLE_S = 1.0
"""How long a stopping server keeps an idle keep-alive connection open for a request
that may be on its way (a busy client sends its next one within milliseconds)."""

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


class _Guarded:
    """The request timer and the drain, shared by both protocols (a mixin: the protocol
    gives ``loop``, ``transport``, ``cycle`` and the keep-alive timer)."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    _request_timer: asyncio.TimerHandle | None = None
    _draining = False
    if TYPE_CHECKING:

        def _unset_keepalive_if_required(self) -> None: ...  # (the protocol's)

    def _arm(self, seconds: float | None = None) -> None:
        self._disarm()
        wait = request_timeout_s() if seconds is None else seconds
        self._request_timer = self.loop.call_later(wait, self._on_request_timeout)

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _on_request_timeout(self) -> None:
        self._request_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _idle(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)

    def _close_after_this_request(self) -> None:
        """While draining, the request being read is answered with ``Connection: close``."""
        if self._draining and self.cycle is not None:
            self.cycle.keep_alive = False

    def shutdown(self) -> None:
        """The server is stopping: finish the request in progress, or give a request on
        its way :data:`DRAIN_IDLE_S` to arrive; either way, close after the answer."""
        self._draining = True
        if self._idle():
            self._unset_keepalive_if_required()
            self._arm(min(DRAIN_IDLE_S, request_timeout_s()))
        else:
            self.cycle.keep_alive = False


class GuardedHttpToolsProtocol(_Guarded, HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request is not complete
    in time, and answering the requests on their way when the server stops."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        stamp_arrival(self.scope["state"])  # its budget starts now, before other work on it

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._close_after_this_request()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()  # the request is all here

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:
            self._arm(DRAIN_IDLE_S if self._draining else None)


class GuardedH11Protocol(_Guarded, H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request is not complete in
    time, and answering the requests on their way when the server stops."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        self._close_after_this_request()
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm()  # the request is all here (or the connection is ending)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is not h11.DONE:
            self._arm(DRAIN_IDLE_S if self._draining else None)  # the next request's time
