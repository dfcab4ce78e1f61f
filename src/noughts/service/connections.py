"""Connections: slow clients cut off, request heads bounded, and a stop that answers the
requests on their way.

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

**Request heads** (the target and the headers) are bounded by
``NOUGHTS_MAX_HEADER_BYTES`` (default 32 KiB): measured as they arrive, in the protocol
(a parser holds a header's value whole until it ends, so a check in the app would come
after the memory is spent), and past the bound the client gets ``431 Request Header
Fields Too Large`` with ``Connection: close``; what it still sends is read and dropped,
not kept, while it keeps coming (:data:`LINGER_S`), then the connection closes. A head
that ends is measured whole; one still arriving by the reads that are head from end to
end, so a connection holds at most the bound and a read or two of a head.

:class:`GuardedHttpToolsProtocol` (uvicorn's httptools parser, the fast one: what
``noughts serve`` runs) and :class:`GuardedH11Protocol` (the pure-Python h11 parser)
behave alike. The limits are the settings ``NOUGHTS_REQUEST_TIMEOUT_S`` (default 10 s)
and ``NOUGHTS_MAX_HEADER_BYTES``, read once per worker process.
"""

from __future__ import annotations

import asyncio
import json
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
    "max_header_bytes",
    "DRAIN_IDLE_S",
    "LINGER_S",
]

DRAIN_IDLE_S = 1.0
"""How long a stopping server keeps an idle keep-alive connection open for a request
that may be on its way (a busy client sends its next one within milliseconds)."""

_MAX_READ = 1 << 20
"""More than one read from a socket holds (asyncio reads 256 KiB at most)."""

LINGER_S = 1.0
"""How long a connection refused for its head's size waits for more of what the client
still sends (read and dropped, so the client reads the 431 instead of a reset), each
time something comes, up to the request timeout in all."""

_limits: tuple[float, int] | None = None


def configure(seconds: float, header_bytes: int) -> None:
    """Set this process's request timeout and head bound (``noughts serve`` does, from
    its settings)."""
    global _limits
    _limits = (seconds, header_bytes)


def _configured() -> tuple[float, int]:
    global _limits
    if _limits is None:
        from noughts.service.settings import Settings

        settings = Settings()
        _limits = (settings.request_timeout_s, settings.max_header_bytes)
    return _limits


def request_timeout_s() -> float:
    """This process's request timeout: as configured, else from the ``NOUGHTS_*`` settings.

    >>> configure(2.5, 32_768); request_timeout_s()
    2.5
    """
    return _configured()[0]


def max_header_bytes() -> int:
    """This process's bound on a request head, in bytes: as configured, else from the
    ``NOUGHTS_*`` settings.

    >>> configure(2.5, 8192); max_header_bytes()
    8192
    """
    return _configured()[1]


def _too_large(limit: int) -> bytes:
    """The 431 answer to a head past ``limit`` bytes."""
    body = json.dumps({"detail": f"request headers too large: more than {limit} bytes; "
                                 f"the limit is {limit} bytes"}).encode()
    return b"".join([
        b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
        b"content-type: application/json\r\n",
        b"content-length: %d\r\n" % len(body),
        b"connection: close\r\n\r\n",
        body,
    ])


class _Guarded:
    """The request timer and the drain, shared by both protocols (a mixin: the protocol
    gives ``loop``, ``transport``, ``cycle`` and the keep-alive timer)."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    _request_timer: asyncio.TimerHandle | None = None
    _draining = False
    _refused = False  # the head was too large (a 431 went out): the rest is dropped
    _linger_until = 0.0  # (the loop's time) when a refused connection closes at the latest
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

    def _head_past_bound(self, size: int) -> bool:
        """Refuse the connection (a 431, then what the client still sends is dropped) if
        ``size``, what is known of the head being read, is past the bound; True if so."""
        limit = max_header_bytes()
        if size <= limit:
            return False
        self._refused = True
        if self._idle():  # (else an answer is being written: only closing is left)
            self.transport.write(_too_large(limit))
            if self.transport.can_write_eof():
                self.transport.write_eof()  # the client reads the 431, then the end
                self._linger_until = self.loop.time() + request_timeout_s()
                self._arm(LINGER_S)  # (and whatever it still sends is dropped meanwhile)
                return True
        self.transport.close()
        return True

    def _drop(self) -> None:
        """More bytes on a refused connection: dropped; it waits :data:`LINGER_S` more
        for the rest, within the request timeout from the refusal."""
        if self.loop.time() < self._linger_until:
            self._arm(LINGER_S)
        elif not self.transport.is_closing():
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

    # What is known of the head being read, two lower bounds of its size: the bytes of
    # the reads that were head from end to end (a head too long never ends: counted
    # before the parser holds more than the bound and one read), and what the parser has
    # handed over (the URL and each whole header: a head that ends is measured whole,
    # however the reads cut it). A read that also holds another request's bytes is
    # never counted whole, so pipelined requests are not taken for one long head.
    _in_head = False
    _head_reads = 0
    _head_parsed = 0

    def data_received(self, data: bytes) -> None:
        if self._refused:
            self._drop()
            return
        whole = self._in_head  # the last read ended in a head: this one starts in it
        super().data_received(data)
        if self._in_head and not self._refused:  # ... and it ends in one too
            self._head_reads += len(data) if whole else 0
            self._head_past_bound(max(self._head_reads, self._head_parsed))

    def send_400_response(self, msg: str) -> None:
        if not self._refused:  # (a refused connection's further bytes are not parsed)
            super().send_400_response(msg)

    def on_message_begin(self) -> None:
        if self._refused:
            return
        super().on_message_begin()
        self._in_head, self._head_reads, self._head_parsed = True, 0, 0
        stamp_arrival(self.scope["state"])  # its budget starts now, before other work on it

    def on_url(self, url: bytes) -> None:
        if not self._refused:
            self._head_parsed += len(url)
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._refused:
            self._head_parsed += len(name) + len(value) + 4  # ": " and the line's end
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        self._in_head = False
        if self._head_past_bound(max(self._head_reads, self._head_parsed)):
            return  # the app never sees it
        super().on_headers_complete()
        self._close_after_this_request()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused:
            return
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # h11's own bound on an incomplete head (16 KiB by default) answers 400: past ours
        # and one read, so the 431 comes first
        self.conn = _MeasuredConnection(h11.SERVER,
                                        max_incomplete_event_size=max_header_bytes() + _MAX_READ)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            self._drop()
            return
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and not self._refused:  # a head not yet whole:
            self._head_past_bound(len(self.conn.trailing_data[0]))  # h11 holds it, unparsed

    def send_400_response(self, msg: str) -> None:
        too_large = getattr(self.conn, "too_large", None)
        if too_large is not None:  # (see _MeasuredConnection)
            self._head_past_bound(too_large)
        elif not self._refused:
            super().send_400_response(msg)

    def handle_events(self) -> None:
        super().handle_events()
        self._close_after_this_request()
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm()  # the request is all here (or the connection is ending)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is not h11.DONE:
            self._arm(DRAIN_IDLE_S if self._draining else None)  # the next request's time


class _MeasuredConnection(h11.Connection):
    """h11's connection, refusing a whole request head past the bound (its target and
    headers, measured as :class:`GuardedHttpToolsProtocol` measures them) before the app
    sees it: it raises h11's protocol error, which uvicorn answers by
    ``send_400_response``, and :class:`GuardedH11Protocol` answers by the 431."""

    too_large: int | None = None

    def next_event(self) -> Any:
        event = super().next_event()
        if isinstance(event, h11.Request):
            size = len(event.target) + sum(len(name) + len(value) + 4
                                           for name, value in event.headers.raw_items())
            if size > max_header_bytes():
                self.too_large = size
                raise h11.RemoteProtocolError("request head too large", 431)
        return event
