"""AWS Lambda entry point: ``noughts.service.lambda_handler.handler``.

Mangum over the same FastAPI app as ``noughts serve``, for API Gateway REST (v1) and
HTTP API (v2) proxy events. Settings come from the function's ``NOUGHTS_*`` environment.

A cold start imports only what the first request needs. Importing this module reads the
settings and makes the move service (no search, no table) and a small app that serves
the 4x4 backend seed's ``POST /``, the same endpoint with the same middleware and error
handlers as the full app; the full app (the JSON API, explain, the page, /docs) is built
on the first request for anything else, and shares that move service (its cache, its
counters). ``app`` is the full app, built when first read.

An event that is not an HTTP request (``{}``, S3, a schedule, a list, a string, ``None``)
or a malformed one (no ``path`` or ``httpMethod``, a body flagged base64 that is not)
gets a 400 result naming the problem, and a warning in the log, instead of an exception.

>>> answer = handler({"Records": [{"eventSource": "aws:s3"}]}, None)
>>> answer["statusCode"], json.loads(answer["body"])["detail"][:31]
(400, 'not an HTTP event this function')"""

from __future__ import annotations

import asyncio
import binascii
import json
import logging
from typing import Any

from fastapi import FastAPI
from mangum import Mangum
from starlette.types import Receive, Scope, Send

from noughts.service.middleware import SEED_PATH, install_middleware
from noughts.service.moves import MoveService
from noughts.service.problems import install_error_handlers
from noughts.service.seed import post_seed_move
from noughts.service.settings import Settings

__all__ = ["handler", "GuardedMangum", "FirstRequests", "first_requests"]

logger = logging.getLogger("noughts.lambda")


def _refusal(detail: str) -> dict[str, Any]:
    """A 400 proxy result with ``{"detail": ...}``."""
    return {
        "statusCode": 400,
        "headers": {"content-type": "application/json"},
        "multiValueHeaders": {},
        "isBase64Encoded": False,
        "body": json.dumps({"detail": detail}),
    }


def _shape(event: object) -> str:
    """A short description of an event for the log (its keys, never its contents)."""
    if isinstance(event, dict):
        return "an object with keys " + ", ".join(sorted(str(key) for key in event)[:12])
    return f"a {type(event).__name__}"


def _ensure_event_loop() -> None:
    """Give this thread an event loop if it has none (Mangum runs the app on the current
    one; an ``asyncio.run`` earlier in the process leaves none behind)."""
    try:
        asyncio.get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())


def _reason(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"it has no {error.args[0]!r} field"
    if isinstance(error, binascii.Error):
        return f"its body is flagged isBase64Encoded but is not base64 ({error})"
    return f"{type(error).__name__}: {error}"


class GuardedMangum(Mangum):
    """Mangum that answers events it cannot serve with a 400 result instead of raising."""

    def __call__(self, event: Any, context: Any) -> dict[str, Any]:
        if not isinstance(event, dict):
            return self._refuse(event, "the event must be a JSON object")
        try:
            handler = self.infer(event, context)
        except Exception:
            return self._refuse(
                event,
                "not an HTTP event this function answers (it serves API Gateway REST and "
                "HTTP API proxy events)",
            )
        try:
            handler.scope, handler.body  # noqa: B018  # read from the event's fields
        except Exception as error:  # the event's own fields are broken
            return self._refuse(event, f"malformed API Gateway event: {_reason(error)}")
        _ensure_event_loop()
        return super().__call__(event, context)

    @staticmethod
    def _refuse(event: object, detail: str) -> dict[str, Any]:
        logger.warning("noughts: refused a Lambda event (%s): %s", _shape(event), detail)
        return _refusal(detail)


class FirstRequests:
    """The handler's ASGI app: ``POST /`` (the seed drop-in) on a small app made at
    import, every other request on the full app, built the first time one comes.

    Both apps have the same settings, move service, middleware and error handlers, and
    the seed's endpoint is the same function in both, so an answer is the same whichever
    serves it (the full app documents the route; the small one only serves it).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.service = MoveService(settings)
        seed = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
        seed.state.settings, seed.state.service = settings, self.service
        install_error_handlers(seed)
        seed.router.add_route(SEED_PATH, post_seed_move, methods=["POST"])
        install_middleware(seed, settings)
        self.seed = seed
        self._full: FastAPI | None = None

    @property
    def full(self) -> FastAPI:
        """The full app (``create_app`` with these settings and this move service)."""
        if self._full is None:
            from noughts.service.app import create_app

            self._full = create_app(self.settings, service=self.service)
        return self._full

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == SEED_PATH:
            await self.seed(scope, receive, send)
        else:
            await self.full(scope, receive, send)


first_requests = FirstRequests(Settings())
handler = GuardedMangum(first_requests, lifespan="off")


def __getattr__(name: str) -> Any:
    """``app``: the full FastAPI app, built on first use."""
    if name == "app":
        return first_requests.full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
