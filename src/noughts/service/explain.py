"""``POST /api/v1/explain``: a search's trace and every algorithm's counts, for the Learn view.

Bounds keep an answer small and quick, and a request past one is refused with a 4xx
naming it: boards of at most :data:`MAX_CELLS` cells (else 400); at most
:data:`MAX_KEPT_NODES` nodes kept and returned (``max_nodes``, else 422); no walk
entering more than :data:`NODE_LIMIT` positions (else 413; in the comparison table such
a walk is reported as stopped instead). Comparison tables are cached by position.

>>> from fastapi.testclient import TestClient
>>> from noughts.service.app import create_app
>>> client = TestClient(create_app())
>>> answer = client.post("/api/v1/explain", json={"board": ".../.X./...", "tutorial": True})
>>> answer.json()["counted"], answer.json()["best_move"]
(8465, 0)
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field, StrictBool, StrictInt

from noughts.budget import EXPLAIN_SECONDS, Limit
from noughts.notation import square_name
from noughts.service.conversion import position_from_request
from noughts.service.jobs import EXPLAIN_NODE_LIMIT, Board, ExplainJob
from noughts.service.middleware import note_variant
from noughts.service.problems import ProblemError
from noughts.service.runner import DeadlineExceededError
from noughts.service.schemas import ErrorResponse
from noughts.service.schemas import _PositionFields as PositionFields
from noughts.teaching.trace import ALGORITHMS, DEFAULT_MAX_STORED, Algorithm, TraceTooLargeError

if TYPE_CHECKING:
    from noughts.position import Position

__all__ = [
    "router",
    "ExplainRequest",
    "ExplainResponse",
    "MAX_CELLS",
    "MAX_KEPT_NODES",
    "NODE_LIMIT",
    "DEADLINE_S",
    "with_squares",
]

MAX_CELLS = 16
"""Largest board traced: 3x3, 4x4k3 and 4x4 (the teaching boards) and smaller."""

MAX_KEPT_NODES = 5_000
"""Most nodes one answer keeps and returns (the page draws them)."""

NODE_LIMIT = EXPLAIN_NODE_LIMIT
"""Most positions one walk may enter: plain minimax on the empty 3x3 board (549,946) fits."""

DEADLINE_S = EXPLAIN_SECONDS
"""An explain job (the trace and the comparison) that runs longer is abandoned (503)."""

FIRST_EXPECTED_S = 0.5
"""How long an explain job of a kind not seen yet is expected to hold its search slot,
for admission (most walks take milliseconds, the largest a few seconds; then the
moving average of their kind's times counts)."""


class ExplainRequest(PositionFields):
    """Body of ``POST /api/v1/explain`` (``time_ms`` is accepted and ignored: the walks are
    bounded by positions, not time)."""

    algorithm: Algorithm = Field(
        "alphabeta", description="The search to trace: " + ", ".join(ALGORITHMS) + "."
    )
    depth: StrictInt | None = Field(
        None, ge=1, le=64, description="Horizon of the depth-limited search (default 2)."
    )
    max_nodes: StrictInt = Field(
        DEFAULT_MAX_STORED,
        ge=0,
        le=MAX_KEPT_NODES,
        description=f"Nodes to keep and return (at most {MAX_KEPT_NODES:,}); all are counted.",
    )
    tutorial: StrictBool = Field(
        False, description="Count the tutorial seed's way: a fresh window per root move."
    )
    compare: StrictBool = Field(True, description="Also run every algorithm for the table.")


class CutoffOut(BaseModel):
    after: int = Field(description="The move whose value closed the window.")
    alpha: int
    beta: int
    skipped: list[int] = Field(description="The moves never tried.")
    reason: str
    after_square: str = Field(description="after as a cell name ('b2').")
    skipped_squares: list[str] = Field(description="skipped as cell names.")


class TraceNodeOut(BaseModel):
    id: int = Field(description="Entry order; the root is 0.")
    parent: int | None
    depth: int
    move: int | None
    square: str | None = Field(description="move as a cell name ('b2'); null at the root.")
    board: str
    maximizing: bool = Field(description="True where the root's side is to move.")
    alpha: int = Field(description="The window's low edge on entry (root player's view).")
    beta: int = Field(description="The window's high edge on entry.")
    enter: int = Field(description="Playback step at which the search enters the node.")
    value: int = Field(description="The value returned (root player's view).")
    bound: Literal["exact", "lower", "upper"]
    best_move: int | None
    why: str = Field(description="searched, X wins, O wins, draw, horizon or table.")
    cutoff: CutoffOut | None
    subtree: int = Field(description="Positions entered at and below this node.")
    exit: int = Field(description="Playback step at which the search leaves the node.")


class AlgorithmCountOut(BaseModel):
    algorithm: str
    finished: bool = Field(description="False if the walk passed the node limit and stopped.")
    value: int | None
    value_text: str
    best_move: int | None
    best_square: str | None = Field(description="best_move as a cell name.")
    nodes: int
    counted: int
    cutoffs: int
    table_hits: int
    elapsed_ms: float


class ExplainResponse(BaseModel):
    """A trace: the answer, its cost, the kept nodes, and the comparison table."""

    algorithm: str
    description: str
    variant: str
    board: str
    to_move: Literal["X", "O"]
    depth: int | None
    style: str | None
    tutorial: bool
    value: int = Field(description="The root's value: win - plies for a win, 0 a draw...")
    value_text: str
    best_move: int
    best_square: str = Field(description="best_move as a cell name ('b2').")
    pv: list[int]
    pv_squares: list[str] = Field(description="pv as cell names.")
    nodes: int = Field(description="Every position entered, the root included.")
    counted: int = Field(description="The count by the algorithm's own convention.")
    counting: str
    cutoffs: int
    table_hits: int
    elapsed_ms: float
    win: int = Field(description="The score of a win at the root itself.")
    infinity: int = Field(description="The edge of the initial window (shown as infinity).")
    max_stored: int
    truncated: bool = Field(description="True when more positions were entered than kept.")
    stored: list[TraceNodeOut]
    node_limit: int = Field(description="Most positions one walk may enter.")
    compare: list[AlgorithmCountOut]


def with_squares(answer: dict[str, Any], position: Position) -> dict[str, Any]:
    """The answer with every cell index's name beside it (``best_square`` beside
    ``best_move``, ``square`` beside a node's ``move`` ...), as the move answer has ``square``.

    >>> from noughts.position import Position
    >>> named = with_squares({"best_move": 4, "pv": [4, 0], "stored": [], "compare": []},
    ...                      Position("X../.../..."))
    >>> named["best_square"], named["pv_squares"]
    ('b2', ['b2', 'a3'])
    """
    geometry = position.geometry

    def name(cell: int | None) -> str | None:
        return None if cell is None else square_name(geometry, cell)

    nodes = []
    for node in answer["stored"]:
        cutoff = node.get("cutoff")
        if cutoff is not None:
            cutoff = {
                **cutoff,
                "after_square": name(cutoff["after"]),
                "skipped_squares": [name(cell) for cell in cutoff["skipped"]],
            }
        nodes.append({**node, "square": name(node["move"]), "cutoff": cutoff})
    rows = [{**row, "best_square": name(row["best_move"])} for row in answer["compare"]]
    return {
        **answer,
        "best_square": name(answer["best_move"]),
        "pv_squares": [name(cell) for cell in answer["pv"]],
        "stored": nodes,
        "compare": rows,
    }


router = APIRouter(prefix="/api/v1", tags=["teaching"])


@router.post(
    "/explain",
    response_model=ExplainResponse,
    responses={code: {"model": ErrorResponse} for code in (400, 409, 413, 415, 422, 429, 503)},
    summary="Watch a search decide: its trace and every algorithm's counts",
)
async def post_explain(body: ExplainRequest, request: Request) -> Response:
    """The walk of ``algorithm`` from the position, node by node (the first ``max_nodes``
    kept), and, with ``compare``, each algorithm's value, node count and time."""
    service = request.app.state.service
    note_variant(request.scope, body.variant)
    position = position_from_request(body, max_cells=service.settings.max_cells)
    if position.geometry.cells > MAX_CELLS:
        raise ProblemError(
            400,
            f"explain traces boards of at most {MAX_CELLS} cells (the bound on its boards); "
            f"{position.variant} has {position.geometry.cells}",
        )
    if body.depth is not None and body.algorithm != "depth-limited":
        raise ProblemError(422, f"depth applies to the depth-limited search, not {body.algorithm}")
    job = ExplainJob(
        Board.of(position),
        body.algorithm,
        depth=body.depth,
        max_nodes=body.max_nodes,
        tutorial=body.tutorial,
        compare=body.compare,
    )
    runner = service.runner if service.pool is None else service.pool  # a walk takes seconds
    kind = ("explain", position.variant, body.algorithm, body.depth, body.tutorial, body.compare)
    first = FIRST_EXPECTED_S / DEADLINE_S
    began = time.perf_counter()
    try:
        walk, rows = await runner.run(
            job,
            Limit.within(seconds=DEADLINE_S),
            client_gone=request.is_disconnected,
            expected_s=service.durations.expected_s(kind, DEADLINE_S, first_share=first),
        )
    except TraceTooLargeError as error:
        raise ProblemError(413, str(error)) from None
    except DeadlineExceededError:
        raise ProblemError(
            503, f"the explanation took longer than {DEADLINE_S:.0f} s; try a smaller position"
        ) from None
    service.durations.record(kind, seconds=time.perf_counter() - began, budget_s=DEADLINE_S)
    answer = ExplainResponse.model_validate(
        with_squares({**walk, "node_limit": NODE_LIMIT, "compare": list(rows)}, position)
    )
    return Response(answer.model_dump_json(), media_type="application/json")
