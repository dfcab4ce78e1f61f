"""Errors to HTTP answers: every bad input is a 4xx with one message naming the problem.

>>> describe_validation_errors([{"type": "extra_forbidden", "loc": ("body", "colour"),
...                              "msg": "Extra inputs are not permitted", "input": 1}])
(422, "unknown field 'colour'")
>>> describe_validation_errors([{"type": "json_invalid", "loc": ("body", 1), "msg": "",
...                              "ctx": {"error": "Expecting value"}}])
(400, 'request body is not valid JSON: Expecting value at character 1')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from noughts.errors import GameOverError, NoughtsError
from noughts.runtime.executor import WorkerLostError
from noughts.service.middleware import SEED_PATH, internal_error_detail, request_id_of
from noughts.service.moves import EngineOverrunError
from noughts.service.runner import ClientGoneError, EngineBusyError

__all__ = [
    "ProblemError",
    "describe_validation_errors",
    "error_response",
    "install_error_handlers",
    "check_json_content_type",
    "SEED_PATH",
]


_STRIP = ("Value error, ", "Assertion failed, ")


class ProblemError(Exception):
    """A bad request found by the service itself, with its HTTP status."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe_one(error: Mapping[str, Any]) -> tuple[int, str]:
    kind = str(error.get("type", ""))
    loc = [str(part) for part in error.get("loc", ()) if part != "body"]
    message = str(error.get("msg", "invalid value"))
    for prefix in _STRIP:
        message = message.removeprefix(prefix)
    if kind == "json_invalid":
        reason = (error.get("ctx") or {}).get("error", "malformed JSON")
        where = f" at character {loc[-1]}" if loc else ""
        return 400, f"request body is not valid JSON: {reason}{where}"
    field = ".".join(loc)
    if not field:
        if kind == "missing":
            return 422, "request body is missing: send a JSON object"
        if kind in ("model_attributes_type", "dict_type", "model_type"):
            shown = _short(error.get("input"))
            return 422, f"request body must be a JSON object, not {shown}"
        return 422, message
    if kind == "extra_forbidden":
        return 422, f"unknown field {field!r}"
    if kind == "missing":
        return 422, f"{field} is required"
    if "input" in error:
        return 422, f"{field}: {message} (got {_short(error['input'])})"
    return 422, f"{field}: {message}"


def describe_validation_errors(errors: Sequence[Mapping[str, Any]]) -> tuple[int, str]:
    """The status and one-line message for pydantic/FastAPI validation errors."""
    if not errors:
        return 422, "invalid request"
    status, message = _describe_one(errors[0])
    if len(errors) > 1:
        more = len(errors) - 1
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return status, message


def error_response(
    request: Request, status_code: int, detail: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """``{"detail": ...}`` with ``status_code``; the seed drop-in's answers allow any origin."""
    all_headers = dict(headers or {})
    if request.url.path == SEED_PATH:
        all_headers["Access-Control-Allow-Origin"] = "*"
    return JSONResponse({"detail": detail}, status_code=status_code, headers=all_headers)


def check_json_content_type(request: Request) -> None:
    """Raise a 415 :class:`ProblemError` unless the request says its body is JSON."""
    value = request.headers.get("content-type")
    if value is None:
        raise ProblemError(415, "missing Content-Type header: send the body as application/json")
    media = value.split(";", 1)[0].strip().lower()
    is_json = media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )
    if is_json:
        return
    raise ProblemError(
        415, f"unsupported Content-Type {media or value!r}: send the body as application/json"
    )


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every known error into its HTTP answer."""

    async def on_problem(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ProblemError)
        return error_response(request, error.status_code, error.detail)

    async def on_validation(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        if request.method == "POST" and request.url.path != SEED_PATH:
            # FastAPI reads a body as JSON only when it says it is JSON; checked here, on
            # the error path, so good requests pay nothing for it.
            try:
                check_json_content_type(request)
            except ProblemError as problem:
                return error_response(request, problem.status_code, problem.detail)
        status, message = describe_validation_errors(list(error.errors()))
        return error_response(request, status, message)

    async def on_noughts(request: Request, error: Exception) -> JSONResponse:
        status = 409 if isinstance(error, GameOverError) else 400
        return error_response(request, status, str(error))

    async def on_busy(request: Request, error: Exception) -> JSONResponse:
        # busy, or the search's worker process was lost: nothing wrong with the request
        return error_response(request, 429, str(error), {"Retry-After": "1"})

    async def on_client_gone(request: Request, error: Exception) -> JSONResponse:
        return error_response(request, 499, str(error))  # nobody reads it: the client left

    async def on_overrun(request: Request, error: Exception) -> JSONResponse:
        return error_response(request, 503, str(error), {"Retry-After": "1"})

    async def on_http(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        headers = dict(error.headers) if error.headers else None
        return error_response(request, error.status_code, str(error.detail), headers)

    async def on_unexpected(request: Request, error: Exception) -> JSONResponse:
        # Only errors in the outer middleware come here (the app's own are answered by
        # middleware.InternalErrors): the server closes the connection after this
        # answer, so it says so, with the request id if it was given one.
        headers = {"Connection": "close"}
        request_id = request_id_of(request.scope)
        if request_id is not None:
            headers["X-Request-ID"] = request_id.decode()
        return error_response(request, 500, internal_error_detail(error), headers)

    app.add_exception_handler(ProblemError, on_problem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(NoughtsError, on_noughts)
    app.add_exception_handler(EngineBusyError, on_busy)
    app.add_exception_handler(WorkerLostError, on_busy)
    app.add_exception_handler(ClientGoneError, on_client_gone)
    app.add_exception_handler(ClientDisconnect, on_client_gone)  # left mid-body: no traceback
    app.add_exception_handler(EngineOverrunError, on_overrun)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
