"""ASGI middleware: each request's arrival time, the request body size limit and CORS
(open for the seed drop-in).

All are plain ASGI (no per-request task or body copy on the common path), so they cost
next to nothing on small JSON requests.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from noughts.service.settings import Settings

__all__ = [
    "ArrivalTime",
    "BodySizeLimit",
    "CorsDispatch",
    "RootPath",
    "arrival_of",
    "install_middleware",
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


_ARRIVED = "noughts.arrived"
"""The scope state key of a request's arrival time."""


class ArrivalTime:
    """Stamp each HTTP request with when it reached the app (:func:`arrival_of` reads it),
    so its budget counts from there: time spent waiting for the event loop, in a burst of
    requests, is the request's own, like time spent queueing for a search slot.

    A stamped request lets the loop go round once before it is worked on, so requests
    that came in together are all stamped before any of them is parsed. Its answer says
    how long it was in the app, in a ``Server-Timing`` header (``app;dur=`` ms, as
    browsers' developer tools show it).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived = time.perf_counter()
        scope.setdefault("state", {})[_ARRIVED] = arrived

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                spent_ms = (time.perf_counter() - arrived) * 1000
                timing = (b"server-timing", f"app;dur={spent_ms:.1f}".encode())
                message = {**message, "headers": [*message.get("headers", ()), timing]}
            await send(message)

        await asyncio.sleep(0)
        await self.app(scope, receive, timed)


def arrival_of(scope: Scope) -> float | None:
    """When the request of ``scope`` reached the app (a ``perf_counter`` time), if
    :class:`ArrivalTime` stamped it.

    >>> arrival_of({"state": {"noughts.arrived": 12.5}}), arrival_of({})
    (12.5, None)
    """
    arrived: float | None = scope.get("state", {}).get(_ARRIVED)
    return arrived


class BodySizeLimit:
    """Answer 413 to a request whose body is larger than ``max_bytes``.

    A declared ``Content-Length`` is checked before anything is read; a body without one
    (chunked) is read up to the limit and handed on only if it fits.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, open_paths: Sequence[str] = ()) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.open_paths = frozenset(open_paths)

    def _cors(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        return [(b"access-control-allow-origin", b"*")] if scope["path"] in self.open_paths else []

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


class CorsDispatch:
    """CORS with the configured origins, except on ``open_paths`` where any origin may call."""

    def __init__(
        self, app: ASGIApp, origins: Sequence[str], open_paths: Sequence[str] = ()
    ) -> None:
        common = {
            "allow_methods": ["GET", "POST", "OPTIONS"],
            "allow_headers": ["*"],
            "expose_headers": ["Retry-After", "Server-Timing"],
            "max_age": 600,
        }
        self.configured = CORSMiddleware(app, allow_origins=list(origins), **common)  # type: ignore[arg-type]
        self.open = CORSMiddleware(app, allow_origins=["*"], **common)  # type: ignore[arg-type]
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in self.open_paths:
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


def install_middleware(app: Starlette, settings: Settings) -> None:
    """The service's middleware, on the app and on the Lambda handler's first-request app
    alike: the body size limit, CORS (open on :data:`SEED_PATH`), the root path and,
    outermost, the arrival time."""
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes, open_paths=[SEED_PATH])
    app.add_middleware(CorsDispatch, origins=settings.cors_origins, open_paths=[SEED_PATH])
    if settings.root_path:
        app.add_middleware(RootPath, root_path=settings.root_path)
    app.add_middleware(ArrivalTime)
