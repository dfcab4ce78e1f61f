"""The request path warmed at server start, so a fresh server's first clients do not pay
for it.

FastAPI builds each route's state (its pydantic adapters) on the route's first request,
about 25 ms here, and the first wait for a client's disconnect imports anyio's event
loop backend (about 12 ms): both on the event loop, where a burst of first requests
(and every ``/healthz`` probe among them) would wait for them. So the server sends
itself one request of each kind through the app before it takes any: answers that need
no search (a finished game's 409, the variants, the stats), so they leave the engine and
its caches as they were.

>>> import asyncio
>>> from noughts.service.app import create_app
>>> from noughts.service.settings import Settings
>>> asyncio.run(warm_request_path(create_app(Settings(warmup=False))))
[200, 200, 200, 409, 409, 409]
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message

from noughts.service.middleware import INTERNAL

__all__ = ["warm_request_path"]

_FINISHED_3X3 = b'{"board": "XXX/OO./..."}'
_FINISHED_QUBIC = (
    b'{"variant": "qubic", "board": "XXXX/OOO./..../....|..../..../..../....|'
    b'..../..../..../....|..../..../..../...."}'
)
_FINISHED_SEED = b'{"numX": 7, "numO": 48, "isX": false}'

_REQUESTS: tuple[tuple[str, str, bytes], ...] = (
    ("GET", "/healthz", b""),
    ("GET", "/api/v1/variants", b""),
    ("GET", "/api/v1/stats", b""),
    ("POST", "/api/v1/move", _FINISHED_QUBIC),
    ("POST", "/api/v1/analyze", _FINISHED_3X3),
    ("POST", "/", _FINISHED_SEED),
)


async def warm_request_path(app: ASGIApp) -> list[int]:
    """Send ``app`` one request of each kind (none starts a search); their statuses."""
    import anyio

    await anyio.sleep(0)  # imports anyio's asyncio backend (the disconnect checks use it)
    return [await _call(app, method, path, body) for method, path, body in _REQUESTS]


async def _call(app: ASGIApp, method: str, path: str, body: bytes) -> int:
    headers = [(b"host", b"127.0.0.1"), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 0),
        "state": {INTERNAL: True},  # not an outside request: not counted or logged
    }
    statuses: list[int] = []
    delivered = False

    async def receive() -> Message:
        nonlocal delivered
        if delivered:
            return {"type": "http.disconnect"}
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0]
