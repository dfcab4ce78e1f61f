"""The FastAPI application factory: the move API, the web page and the seed drop-in.

>>> from fastapi.testclient import TestClient
>>> client = TestClient(create_app())
>>> client.post("/api/v1/move", json={"board": "XX./OO./..."}).json()["move"]
2
>>> client.post("/", json={"numX": 0, "numO": 0, "isX": True}).json()
[1, 1]
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from noughts.service.explain import router as explain_router
from noughts.service.first_requests import warm_request_path
from noughts.service.metrics import RequestMetrics
from noughts.service.middleware import install_middleware
from noughts.service.moves import MoveService
from noughts.service.problems import install_error_handlers
from noughts.service.readiness import LIFECYCLE_KEY, Lifecycle
from noughts.service.redoc import DOCS_ASSETS_URL
from noughts.service.redoc import router as redoc_router
from noughts.service.routes import api, site, web_directory
from noughts.service.settings import Settings
from noughts.service.warmup import warm_in_background
from noughts.variants import NAMED_VARIANTS, variant

__all__ = ["create_app", "WORKER_START_S"]

WORKER_START_S = 30.0
"""Longest wait at start for the search processes to be warm (then it serves anyway)."""

TITLE = "noughts move service"

DESCRIPTION = """\
Moves and analyses for the tic-tac-toe family (3x3, 4x4 with 3 in a row, 4x4, 4x4x4 Qubic
and any m x n board with k in a row): exact wherever the game can be solved on the spot,
time-bounded elsewhere. Positions are board strings (`X.O/.X./...`) or the 4x4 backend
seed's `numX`/`numO` bitmasks. Errors are `{"detail": "<what is wrong>"}`.
"""


def create_app(settings: Settings | None = None, *, service: MoveService | None = None
               ) -> FastAPI:
    """A new app with its own cache and search slots; ``settings`` default to the
    environment. ``service`` shares an existing move service (its cache and slots) instead:
    the Lambda handler's, which answered the first requests before the app was built."""
    from noughts import __version__

    settings = settings or Settings()
    service = service or MoveService(settings)
    lifecycle = Lifecycle(started=service.pool is None)
    metrics = RequestMetrics() if settings.metrics else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Lifecycle]]:
        # Server start (not Lambda, whose handler runs with lifespan="off"): start the
        # search processes, if any, and serve once they are warm (their own tables; the
        # port is bound, so early requests wait in its backlog); build the featured
        # variants' tables here in the background, so first requests find them.
        if service.pool is not None:
            await service.pool.started_and_warm(WORKER_START_S)
        if settings.warmup:
            featured = [variant(name) for name in NAMED_VARIANTS]
            here = [geometry for geometry in featured if service.searches_here(geometry)]
            warm_in_background(*here)
            if len(here) < len(featured):  # the workers run their searches: tables only
                warm_in_background(*(g for g in featured if g not in here), search=False)
            await warm_request_path(app)
        lifecycle.started = True
        yield {LIFECYCLE_KEY: lifecycle}  # the server finds it there to drain (SIGTERM)
        if service.pool is not None:
            service.pool.close()
        if service.shared is not None:
            service.shared.close()

    # /docs (Swagger UI) and /redoc (ReDoc): from files this server serves (the
    # fastapi-offline package's copies, under /docs/assets; ReDoc's script through
    # noughts.service.redoc, which drops the logo it would fetch), not from a CDN, so
    # both work offline too; none of them on a public deployment
    if settings.operator_pages:
        app: FastAPI = FastAPIOffline(
            lifespan=lifespan, title=TITLE, version=__version__, description=DESCRIPTION,
            docs_url="/docs", redoc_url=None, static_url=DOCS_ASSETS_URL,
        )
    else:
        app = FastAPI(lifespan=lifespan, title=TITLE, version=__version__,
                      description=DESCRIPTION, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.service = service
    app.state.lifecycle = lifecycle
    app.state.metrics = metrics
    install_error_handlers(app)
    app.include_router(site)  # first: the seed's POST / and the probes are matched soonest
    app.include_router(api)
    app.include_router(explain_router)
    if settings.operator_pages:
        app.include_router(redoc_router)
    app.mount("/static", StaticFiles(directory=web_directory()), name="static")
    install_middleware(app, settings, metrics)
    return app
