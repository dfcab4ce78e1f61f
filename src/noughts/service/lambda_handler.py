"""AWS Lambda entry point: ``noughts.service.lambda_handler.handler``.

Mangum over the same FastAPI app as ``noughts serve``, for API Gateway REST (v1) and
HTTP API (v2) proxy events. Settings come from the function's ``NOUGHTS_*`` environment.
Importing this module builds the app and nothing more (no search, no table), so a cold
start stays short.

An event that is not an HTTP request (``{}``, S3, a schedule, a list, a string, ``None``)
or a malformed one (no ``path`` or ``httpMethod``, a body flagged base64 that is not)
gets a 400 result naming the problem, and a warning in the log, instead of an exception.

>>> answer = handler({"Records": [{"eventSource": "aws:s3"}]}, None)
>>> answer["statusCode"], json.loads(answer["body"])["detail"][:31]
(400, 'not an HTTP event this function')
"""

from __future__ import annotations

import asyncio
import binascii
import json
import logging
from typing import Any

from mangum import Mangum

from noughts.service.app import create_app

__all__ = ["app", "handler", "GuardedMangum"]

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


app = create_app()
handler = GuardedMangum(app, lifespan="off")
