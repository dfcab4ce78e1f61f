"""ASGI middleware: each request's arrival time, request id, metrics and access log, the
request body size limit, CORS (open for the seed drop-in) and the answer to an
unexpected error (a 500 that carries the same headers as every other answer).

All are plain ASGI (no per-request task or body copy on the common path), so they cost
next to nothing on small JSON requests.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import sys
import time
from collections.abc import MutableMapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from noughts.service.metrics import RequestMetrics
    from noughts.service.settings import Settings

__all__ = [
    "ArrivalTime",
    "BodySizeLimit",
    "CorsDispatch",
    "InternalErrors",
    "internal_error_detail",
    "request_id_of",
    "RootPath",
    "arrival_of",
    "stamp_arrival",
    "note_variant",
    "INTERNAL",
    "log_json_lines",
    "json_log_line",
    "install_middleware",
    "access_logger",
]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


async def _send_json(
    send: Send, status: int, detail: str, extra: Sequence[tuple[bytes, bytes]]
) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _AnswersItself:
    """A middleware that answers some requests itself, before the app: on
    ``open_paths`` (the seed's drop-in, whose clients expect it on every answer, errors
    included) its answers let any origin read them."""

    def __init__(self, app: ASGIApp, open_paths: Sequence[str] = ()) -> None:
        self.app = app
        self.open_paths = frozenset(open_paths)

    def _cors(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        """The CORS header of an answer to ``scope``'s request (none off the open paths)."""
        return ([(b"access-control-allow-origin", b"*")] if scope["path"] in self.open_paths
                else [])


_ARRIVED = "noughts.arrived"
"""The scope state key of a request's arrival time."""

INTERNAL = "noughts.internal"
"""The scope state key that marks a request the server sends itself (its warm-up): not
counted in the metrics, not logged."""

_VARIANT = "noughts.variant"
"""The scope state key of the variant a request asked about (for the metrics)."""

_REQUEST_ID = b"x-request-id"

_ID = "noughts.request_id"
"""The scope state key of a request's id (set by :class:`ArrivalTime`)."""

_MAX_REQUEST_ID = 128

_ID_PREFIX = os.urandom(5).hex().encode()
"""New request ids are this process's random prefix and a serial number."""

_serial = itertools.count(1 << 20)

access_logger = logging.getLogger("noughts.access")
"""One JSON object a request, with ``NOUGHTS_ACCESS_LOG=json``."""


def _request_id(headers: Sequence[tuple[bytes, bytes]]) -> bytes:
    """The client's ``X-Request-ID`` if it is short printable ASCII, else a new one."""
    for name, value in headers:
        if name == _REQUEST_ID:
            if 0 < len(value) <= _MAX_REQUEST_ID and value.isascii() and all(
                32 < byte < 127 for byte in value
            ):
                return value
            break
    return b"%s%x" % (_ID_PREFIX, next(_serial))


class ArrivalTime:
    """Stamp each HTTP request with when it reached the app (:func:`arrival_of` reads it),
    so its budget counts from there: time spent waiting for the event loop, in a burst of
    requests, is the request's own, like time spent queueing for a search slot.

    A request already stamped when its bytes were read (:func:`stamp_arrival`, by
    ``noughts serve``'s protocol) keeps that time; one stamped here lets the loop go
    round once before it is worked on, so requests that came in together are all
    stamped before any of them is parsed. Its answer says
    how long it was in the app, in a ``Server-Timing`` header (``app;dur=`` ms, as
    browsers' developer tools show it), and carries its request id (``X-Request-ID``:
    the client's own if it sent one, else a new one). With ``metrics`` the request is
    counted there; with ``access_log`` it is logged as one JSON object
    (:data:`access_logger`).
    """

    def __init__(self, app: ASGIApp, metrics: RequestMetrics | None = None,
                 access_log: bool = False) -> None:
        self.app = app
        self.metrics = metrics
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        arrived = state.get(_ARRIVED)
        if arrived is None:  # (noughts serve's protocol stamps it as the request is read)
            arrived = state[_ARRIVED] = time.perf_counter()
            await asyncio.sleep(0)  # the other requests that came with it are stamped first
        request_id = state[_ID] = _request_id(scope.get("headers", ()))
        status = 500  # unless an answer starts

        async def timed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                spent_ms = (time.perf_counter() - arrived) * 1000
                extra = ((b"server-timing", f"app;dur={spent_ms:.1f}".encode()),
                         (_REQUEST_ID, request_id))
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        try:
            await self.app(scope, receive, timed)
        finally:
            if (self.metrics is not None or self.access_log) and INTERNAL not in state:
                self._account(scope, state.get(_VARIANT), status, arrived, request_id)

    def _account(self, scope: Scope, variant: str | None, status: int, arrived: float,
                 request_id: bytes) -> None:
        seconds = time.perf_counter() - arrived
        if self.metrics is not None:
            self.metrics.record(scope["method"], scope["path"], variant, status, seconds)
        if self.access_log:
            client = scope.get("client")
            access_logger.info(json_log_line({
                "request_id": request_id.decode(),
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "latency_ms": round(seconds * 1000, 2),
                "variant": variant,
                "client": client[0] if client else None,
            }))


def json_log_line(fields: dict[str, Any]) -> str:
    """One line of the JSON log: ``fields`` after the time they are logged at.

    >>> line = json.loads(json_log_line({"event": "serving"}))
    >>> list(line), line["time"].endswith("+00:00")
    (['time', 'event'], True)
    """
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    return json.dumps({"time": now, **fields}, separators=(",", ":"))


def log_json_lines() -> None:
    """Send the access log's JSON objects to stdout, one a line (once per process;
    uvicorn's own log stays as it is, on stderr)."""
    if access_logger.handlers:
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    access_logger.addHandler(handler)
    access_logger.setLevel(logging.INFO)
    access_logger.propagate = False


def note_variant(scope: Scope, name: str) -> None:
    """Say which variant the request of ``scope`` asked about (its metrics' label)."""
    scope.setdefault("state", {})[_VARIANT] = name


def request_id_of(scope: Scope) -> bytes | None:
    """The id :class:`ArrivalTime` gave the request of ``scope``, if it did.

    >>> request_id_of({"state": {"noughts.request_id": b"abc"}}), request_id_of({})
    (b'abc', None)
    """
    found: bytes | None = scope.get("state", {}).get(_ID)
    return found


def internal_error_detail(error: BaseException) -> str:
    """The ``detail`` of a 500: the error's kind, never its message (which may hold
    anything).

    >>> internal_error_detail(KeyError("secret"))
    'internal error: KeyError'
    """
    return f"internal error: {type(error).__name__}"


_error_logger = logging.getLogger("noughts.service")


class InternalErrors(_AnswersItself):
    """Answer an unexpected error with a 500 ``{"detail": "internal error: <kind>"}``
    here, inside the other middleware, so the 500 gets the request id, CORS and
    ``Server-Timing`` headers as every answer does, and the connection stays open for
    the client's next request (the error and its traceback go to the log, with the
    request id). An error after the answer started cannot be answered: it goes on up,
    and the server closes the connection (the answer is cut short, which says so).
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as error:
            if started:
                raise
            request_id = (request_id_of(scope) or b"-").decode()
            _error_logger.error("internal error answering %s %s (request %s)",
                                scope["method"], scope["path"], request_id, exc_info=error)
            await _send_json(send, 500, internal_error_detail(error), self._cors(scope))


def stamp_arrival(state: MutableMapping[str, Any]) -> None:
    """Stamp a request (by its scope's ``state``) as arriving now (a protocol does, as it
    reads the request)."""
    state[_ARRIVED] = time.perf_counter()


def arrival_of(scope: Scope) -> float | None:
    """When the request of ``scope`` reached the app (a ``perf_counter`` time), if
    :class:`ArrivalTime` stamped it.

    >>> arrival_of({"state": {"noughts.arrived": 12.5}}), arrival_of({})
    (12.5, None)
    """
    arrived: float | None = scope.get("state", {}).get(_ARRIVED)
    return arrived


class BodySizeLimit(_AnswersItself):
    """Answer 413 to a request whose body is larger than ``max_bytes``.

    A declared ``Content-Length`` is checked before anything is read; a body without one
    (chunked) is read up to the limit and handed on only if it fits.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, open_paths: Sequence[str] = ()) -> None:
        super().__init__(app, open_paths)
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None:
            text = declared.decode("latin-1").strip()
            if not text.isdigit():
                await _send_json(send, 400, f"invalid Content-Length {text!r}", self._cors(scope))
                return
            if int(text) > self.max_bytes:
                await _send_json(send, 413, self._too_large(int(text)), self._cors(scope))
                return
            await self.app(scope, receive, send)
            return
        if scope["method"] not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _send_json(send, 413, self._too_large(size, at_least=True), self._cors(scope))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def _too_large(self, size: int, *, at_least: bool = False) -> str:
        amount = f"more than {self.max_bytes}" if at_least else str(size)
        return f"request body too large: {amount} bytes; the limit is {self.max_bytes} bytes"


_VARY_ORIGIN = (b"vary", b"Origin")


def _vary_on_origin(send: Send) -> Send:
    """``send`` with ``Vary: Origin`` on the answer (as CORS middleware says on an answer
    to a request without an origin, so no cache hands it to one with an origin)."""

    async def varied(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), _VARY_ORIGIN]}
        await send(message)

    return varied


class CorsDispatch:
    """CORS with the configured origins, except on ``open_paths`` where any origin may call."""

    def __init__(
        self, app: ASGIApp, origins: Sequence[str], open_paths: Sequence[str] = ()
    ) -> None:
        common = {
            "allow_methods": ["GET", "POST", "OPTIONS"],
            "allow_headers": ["*"],
            "expose_headers": ["Retry-After", "Server-Timing", "X-Request-ID"],
            "max_age": 600,
        }
        self.app = app
        self.configured = CORSMiddleware(app, allow_origins=list(origins), **common)  # type: ignore[arg-type]
        self.open = CORSMiddleware(app, allow_origins=["*"], **common)  # type: ignore[arg-type]
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
        elif not any(name == b"origin" for name, _ in scope["headers"]):
            await self.app(scope, receive, _vary_on_origin(send))  # no CORS to answer
        elif scope["path"] in self.open_paths:
            await self.open(scope, receive, send)
        else:
            await self.configured(scope, receive, send)


class RootPath:
    """Tell the app the path prefix it is served under (an API Gateway stage, say), so
    the pages it generates (``/docs``) link to ``{root_path}/openapi.json``."""

    def __init__(self, app: ASGIApp, root_path: str) -> None:
        self.app = app
        self.root_path = root_path.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not scope.get("root_path"):
            scope = {**scope, "root_path": self.root_path}
        await self.app(scope, receive, send)


SEED_PATH = "/"
"""The seed-client drop-in's path: its answers, errors included, allow any origin."""


def install_middleware(
    app: Starlette, settings: Settings, metrics: RequestMetrics | None = None
) -> None:
    """The service's middleware, on the app and on the Lambda handler's first-request app
    alike: innermost the answer to unexpected errors, then the body size limit, CORS
    (open on :data:`SEED_PATH`), the root path and, outermost, the arrival time (with the
    request id, ``metrics`` if given, and the JSON access log if the settings ask for
    it)."""
    app.add_middleware(InternalErrors, open_paths=[SEED_PATH])
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes, open_paths=[SEED_PATH])
    app.add_middleware(CorsDispatch, origins=settings.cors_origins, open_paths=[SEED_PATH])
    if settings.root_path:
        app.add_middleware(RootPath, root_path=settings.root_path)
    json_log = settings.access_log == "json"
    if json_log:
        log_json_lines()
    app.add_middleware(ArrivalTime, metrics=metrics, access_log=json_log)
