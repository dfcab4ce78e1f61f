"""The HTTP routes: the JSON API under /api/v1, health, the page, and the seed drop-in."""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel

from noughts.engine import answers_exactly
from noughts.errors import NoughtsError
from noughts.geometry import scan_forward
from noughts.levels import PRESETS
from noughts.position import Position
from noughts.results import MAX_LEVEL
from noughts.service.cache import CacheKey
from noughts.service.conversion import (
    analyze_response,
    move_response,
    position_from_request,
)
from noughts.service.metrics import CONTENT_TYPE, RequestMetrics, exposition
from noughts.service.middleware import arrival_of, note_variant
from noughts.service.moves import MoveService
from noughts.service.problems import SEED_PATH, ProblemError
from noughts.service.readiness import Lifecycle
from noughts.service.runner import SearchRunner
from noughts.service.schemas import (
    AnalyzeRequest,
    AnalyzeResponse,
    CacheStats,
    EngineStats,
    ErrorResponse,
    HealthResponse,
    MoveRequest,
    MoveResponse,
    SeedMoveRequest,
    SharedCacheStats,
    StatsResponse,
    VariantInfo,
    VariantsResponse,
)
from noughts.service.seed import SEED_VARIANT, post_seed_move, service_of
from noughts.service.warmup import warmed_names
from noughts.variants import ALIASES, is_built, listed_variants, variant

__all__ = ["api", "site", "SEED_VARIANT"]

def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorResponse} for code in codes}


_POST_ERRORS = _errors(400, 409, 413, 415, 422, 429, 503)


def _json(model: BaseModel) -> Response:
    """The model as JSON, serialised once (the route's response_model documents it)."""
    return Response(model.model_dump_json(), media_type="application/json")


async def _position(body: MoveRequest | AnalyzeRequest, service: MoveService) -> Position:
    """The request's position; a variant not in memory is built in a thread first (a
    19x19 board's lines take tens of milliseconds: not on the event loop)."""
    if not is_built(body.variant):
        await asyncio.to_thread(variant, body.variant)
    return position_from_request(body, max_cells=service.settings.max_cells)


api = APIRouter(prefix="/api/v1", tags=["engine"])
site = APIRouter()


@api.post(
    "/move",
    response_model=MoveResponse,
    responses=_POST_ERRORS,
    summary="The engine's move",
)
async def post_move(body: MoveRequest, request: Request) -> Response:
    """The move for the side to move, its value (proven outcome and plies, or score and
    depth), the effort behind it, and the board after it."""
    service = service_of(request)
    note_variant(request.scope, body.variant)
    reply_key: CacheKey | None = None
    if body.level == MAX_LEVEL and body.seed is None:
        limit = service.settings.budget_ms(body.time_ms)
        reply_key = ("move", body.variant, body.board, body.num_x, body.num_o, body.is_x,
                     body.to_move, limit)
        reply = service.replies.get(reply_key)
        if reply is not None:
            service.moves.record_hit()
            return Response(reply, media_type="application/json")
    position = await _position(body, service)
    answer = await service.move(
        position,
        level=body.level,
        time_ms=body.time_ms,
        seed=body.seed,
        client_gone=request.is_disconnected,
        arrived=arrival_of(request.scope),
    )
    response = move_response(answer)
    if reply_key is not None and answer.reusable:
        again = response.model_copy(update={"cached": True})
        service.replies.put(reply_key, again.model_dump_json().encode())
    return _json(response)


@api.post(
    "/analyze",
    response_model=AnalyzeResponse,
    responses=_POST_ERRORS,
    summary="Every legal move with its value",
)
async def post_analyze(body: AnalyzeRequest, request: Request) -> Response:
    """Each legal move's value for the side to move (for the page's hint heat map)."""
    service = service_of(request)
    note_variant(request.scope, body.variant)
    position = await _position(body, service)
    analysis = await service.analyze(
        position,
        time_ms=body.time_ms,
        client_gone=request.is_disconnected,
        arrived=arrival_of(request.scope),
    )
    return _json(analyze_response(analysis))


@lru_cache(maxsize=1)
def _variants() -> VariantsResponse:
    aliases: dict[str, list[str]] = {}
    for alias, name in ALIASES.items():
        aliases.setdefault(variant(name).name, []).append(alias)
    infos = []
    for geometry in listed_variants():  # (any parseable name is accepted by the POSTs)
        infos.append(
            VariantInfo(
                name=geometry.name,
                aliases=aliases.get(geometry.name, []),
                shape=list(geometry.shape),
                k=geometry.k,
                cells=geometry.cells,
                lines=len(geometry.lines),
                exact=answers_exactly(Position("", geometry)),
                featured=geometry.featured,
                winning_lines=[list(scan_forward(line)) for line in geometry.lines],
            )
        )
    return VariantsResponse(variants=infos, max_level=MAX_LEVEL, level_presets=dict(PRESETS))


@api.get("/variants", response_model=VariantsResponse, summary="Supported variants")
async def get_variants() -> VariantsResponse:
    """The variants the page offers and a few more, with their size and whether exact play
    is available from the empty board."""
    return _variants()


@api.get("/stats", response_model=StatsResponse, summary="Cache and engine counters")
async def get_stats(request: Request) -> StatsResponse:
    """Move-cache hits, misses and size; engine searches started, rejected and stopped
    (not on a public deployment: ``NOUGHTS_PUBLIC``)."""
    service = service_of(request)
    if not service.settings.operator_pages:
        raise ProblemError(404, "not found: the stats are off on this public deployment")
    moves, analyses = service.moves, service.analyses
    hits, misses = moves.hits + analyses.hits, moves.misses + analyses.misses
    cache = CacheStats(
        hits=hits,
        misses=misses,
        size=len(moves) + len(analyses),
        maxsize=moves.maxsize + analyses.maxsize,
        ttl_s=moves.ttl_s,
        hit_rate=round(hits / (hits + misses), 4) if hits + misses else None,
        shared=None if service.shared is None else SharedCacheStats(**service.shared.as_json()),
    )
    engine = _engine_stats(service)
    return StatsResponse(
        **cache.model_dump(), cache=cache, engine=engine, uptime_s=round(service.uptime_s, 3)
    )


def _engine_stats(service: MoveService) -> EngineStats:
    """The searches' counters (in threads, or in worker processes)."""
    pool = service.pool
    runner: SearchRunner = service.runner if pool is None else pool
    warmed = warmed_names()
    if pool is not None and pool.ready < pool.processes:  # not warm in every worker yet
        warmed = [name for name in warmed if service.searches_here(variant(name))]
    return EngineStats(
        running=runner.running,
        max_searches=runner.max_searches,
        started=runner.started,
        rejected=runner.rejected,
        deadline_misses=runner.deadline_misses,
        fallbacks=service.fallbacks,
        warmed=warmed,
        cancelled=runner.cancelled,
        processes=0 if pool is None else pool.processes,
        processes_ready=0 if pool is None else pool.ready,
        processes_replaced=0 if pool is None else pool.replaced,
        core=_core_name(),
    )


def _core_name() -> Literal["compiled", "python"]:
    """Which search core runs (the module is loaded here, not at the app's start)."""
    from noughts.search import core

    return core.name()


@site.get("/healthz", response_model=HealthResponse, tags=["service"], summary="Liveness")
async def get_health() -> HealthResponse:
    """``{"status": "ok"}`` while the process serves requests."""
    return HealthResponse(status="ok")


@site.get(
    "/readyz",
    response_model=HealthResponse,
    responses={503: {"model": ErrorResponse}},
    tags=["service"],
    summary="Readiness",
)
async def get_readiness(request: Request) -> Response:
    """``{"status": "ready"}`` while the server should be sent requests; 503 with the
    reason while it starts (its search workers warming), while no search worker is
    ready, and from the moment it is told to stop (draining)."""
    lifecycle: Lifecycle = request.app.state.lifecycle
    reason = lifecycle.not_ready(service_of(request).pool)
    if reason is not None:
        return Response(json.dumps({"detail": reason}), status_code=503,
                        media_type="application/json", headers={"Retry-After": "1"})
    return _json(HealthResponse(status="ready"))


@site.get("/metrics", include_in_schema=False)
async def get_metrics(request: Request) -> Response:
    """Prometheus metrics (text format), unless turned off (``NOUGHTS_METRICS``)."""
    metrics: RequestMetrics | None = request.app.state.metrics
    if metrics is None:
        raise ProblemError(404, "not found: metrics are off (NOUGHTS_METRICS)")
    try:
        body = exposition(metrics, service_of(request), request.app.state.lifecycle)
    except NoughtsError as missing:  # the metrics extra is not installed
        raise ProblemError(404, str(missing)) from None
    return Response(body, media_type=CONTENT_TYPE)


def web_directory() -> Path:
    """The installed web page's directory (``noughts/web``)."""
    return Path(__file__).resolve().parent.parent / "web"


@site.get("/", include_in_schema=False)
async def get_page() -> FileResponse:
    """The web page (it ships with the package)."""
    return FileResponse(web_directory() / "index.html", media_type="text/html; charset=utf-8")


# The seed's POST / is served by a plain route (no dependency solving or response model:
# the drop-in's hot path), matched before the documented one below, which only gives it
# its OpenAPI description.
site.add_route(SEED_PATH, post_seed_move, methods=["POST"], include_in_schema=False)
site.post(
    SEED_PATH,
    response_model=list[int],
    responses={
        200: {"description": "The move as [row, col]", "content": {"application/json": {
            "example": [1, 1]}}},
        **_POST_ERRORS,
    },
    tags=["seed"],
    summary="Drop-in for the 4x4 backend seed's clients",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SeedMoveRequest.model_json_schema()}},
        }
    },
)(post_seed_move)
