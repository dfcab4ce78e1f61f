"""The 4x4 backend seed's drop-in, ``POST /``: its request model and its route.

Kept apart from the other routes and models, with light imports, so that the Lambda
handler answers a first ``POST /`` without building the rest of the app (its other
routes, their models, the explain view): see :mod:`noughts.service.lambda_handler`.
The full app registers the same endpoint, with its OpenAPI description, in
:mod:`noughts.service.routes`.

>>> SeedMoveRequest.model_validate({"numX": 3, "numO": 48, "isX": True}).numX
3
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from noughts.errors import BoardError, GameOverError
from noughts.geometry import Geometry
from noughts.position import Mark, Position
from noughts.results import MAX_LEVEL
from noughts.service.cache import CacheKey
from noughts.service.middleware import arrival_of, note_variant
from noughts.service.moves import MoveService
from noughts.service.problems import ProblemError, describe_validation_errors
from noughts.variants import Variant

__all__ = [
    "SeedMoveRequest",
    "SEED_MASK",
    "SEED_VARIANT",
    "post_seed_move",
    "position_from_bitmasks",
    "service_of",
]

SEED_MASK = 2**16 - 1
"""The largest bitmask on the 4x4 backend seed's board."""

SEED_VARIANT = "4x4k3"
"""The 4x4 backend seed's board: 4x4 with 3 in a row."""


class SeedMoveRequest(BaseModel):
    """The 4x4 backend seed's request: bitmasks on 4x4 with 3 in a row."""

    model_config = ConfigDict(extra="ignore")

    numX: StrictInt = Field(ge=0, le=SEED_MASK, description="Bitmask of X's cells, bit row*4+col.")
    numO: StrictInt = Field(ge=0, le=SEED_MASK, description="Bitmask of O's cells, bit row*4+col.")
    isX: StrictBool | None = Field(None, description="True if the bot plays X (X to move).")


def service_of(request: Request) -> MoveService:
    """The app's move service (looked up directly: a dependency costs more per request
    than the whole cache hit it would serve)."""
    service: MoveService = request.app.state.service
    return service


def position_from_bitmasks(
    x: int, o: int, variant_name: str | Variant | Geometry, to_move: Mark | None
) -> Position:
    """A playable position from bitmasks and the side to move (if it was given).

    >>> position_from_bitmasks(0b11, 0b1100, "4x4k3", "O").board
    'XXOO/..../..../....'
    >>> position_from_bitmasks(0b11, 0b100, "4x4k3", "X")
    Traceback (most recent call last):
    ...
    noughts.errors.BoardError: impossible counts: 2 X and 1 O means O is to move, not X
    """
    position = Position.from_bitmasks(
        x, o, variant_name, x_to_move=None if to_move is None else to_move == "X"
    )
    if to_move is not None and position.to_move != to_move:
        count_x, count_o = x.bit_count(), o.bit_count()
        raise BoardError(
            f"impossible counts: {count_x} X and {count_o} O means {position.to_move} is to "
            f"move, not {to_move}"
        )
    if position.is_over:
        winner = position.winner
        reason = f"{winner} has already won" if winner else "the board is full"
        raise GameOverError(f"the game is over: {reason}; there is no move to make")
    return position


_LENIENT_TYPES = frozenset(
    {"", "application/json", "text/plain", "application/x-www-form-urlencoded"}
)


async def post_seed_move(request: Request) -> Response:
    """The seed backend's one POST: ``{"numX", "numO", "isX"}`` on 4x4 with 3 in a row,
    answered with ``[row, col]`` and ``Access-Control-Allow-Origin: *``. Like the seed's
    Lambda it reads the body as JSON whatever the declared type (text/plain included)."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media not in _LENIENT_TYPES and not media.endswith("+json"):
        raise ProblemError(415, f"unsupported Content-Type {media!r}: send a JSON body")
    raw = await request.body()
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProblemError(400, f"request body is not valid JSON: {error}") from None
    except RecursionError:
        raise ProblemError(400, "request body is not valid JSON: nested too deeply") from None
    try:
        seed_request = SeedMoveRequest.model_validate(data)
    except ValidationError as error:
        status, message = describe_validation_errors(list(error.errors()))
        raise ProblemError(status, message) from None
    service = service_of(request)
    note_variant(request.scope, SEED_VARIANT)
    reply_key: CacheKey = ("seed", seed_request.numX, seed_request.numO, seed_request.isX)
    reply = service.replies.get(reply_key)
    if reply is None:
        to_move: Mark | None = None
        if seed_request.isX is not None:
            to_move = "X" if seed_request.isX else "O"
        position = position_from_bitmasks(
            seed_request.numX, seed_request.numO, SEED_VARIANT, to_move
        )
        answer = await service.move(
            position,
            level=MAX_LEVEL,
            time_ms=None,
            seed=None,
            arrived=arrival_of(request.scope),
        )
        row, col = answer.result.coords
        reply = json.dumps([row, col]).encode()
        if answer.reusable:
            service.replies.put(reply_key, reply)
    else:
        service.moves.record_hit()
    return Response(
        reply, media_type="application/json", headers={"Access-Control-Allow-Origin": "*"}
    )
