"""The HTTP API's request and response models (pydantic), kept apart from engine types.

>>> MoveRequest.model_validate({"board": "X../.O./...", "level": 7}).level
7
>>> MoveRequest.model_validate({"numX": 1, "numO": 2, "isX": True}).num_x
1
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from noughts.service.seed import SeedMoveRequest  # the seed's, re-exported

__all__ = [
    "MoveRequest",
    "AnalyzeRequest",
    "SeedMoveRequest",
    "MoveResponse",
    "MoveValueOut",
    "AnalyzeResponse",
    "VariantInfo",
    "VariantsResponse",
    "CacheStats",
    "SharedCacheStats",
    "EngineStats",
    "StatsResponse",
    "HealthResponse",
    "ErrorResponse",
]

MAX_BOARD_TEXT = 4096
"""Longest board string accepted (a 19x19 board with separators fits easily)."""


SEED_LIMIT = 2**63
"""Bounds of ``seed``: from -2**63 to 2**63 - 1024, the largest integer below 2**63 that a
JSON number read as a double keeps exactly (so the schema's maximum means what it says)."""



class _PositionFields(BaseModel):
    """A position: a variant and a board string, or the 4x4 backend seed's bitmasks."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    variant: str = Field(
        "3x3",
        min_length=1,
        max_length=64,
        description="Variant name: 3x3 (tictactoe), 4x4k3, 4x4, 4x4x4 (qubic), any RxCkK...; "
        "add -misere for the misère game, where completing a line loses (3x3-misere). "
        "Answers echo the canonical name.",
        examples=["3x3", "4x4k3", "4x4", "4x4x4", "3x3-misere"],
    )
    board: str | None = Field(
        None,
        max_length=MAX_BOARD_TEXT,
        description="Cells row-major with X, O and '.'; '/' between rows, '|' between layers. "
        "It must have the variant's cells (else 400); \"\" is the empty board.",
        examples=["X.O/.X./..."],
    )
    num_x: StrictInt | None = Field(
        None,
        alias="numX",
        ge=0,
        description="Bitmask of X's cells (bit row*cols + col; bits off the board: 400).",
    )
    num_o: StrictInt | None = Field(
        None,
        alias="numO",
        ge=0,
        description="Bitmask of O's cells (bit row*cols + col; bits off the board: 400).",
    )
    is_x: StrictBool | None = Field(
        None, alias="isX", description="True if X is to move (settles who moves on equal counts)."
    )
    to_move: Literal["X", "O"] | None = Field(
        None, description="The side to move (settles who moves on equal counts)."
    )
    time_ms: StrictInt | None = Field(
        None, ge=1, le=10**9, description="Search budget in ms (clamped to the server's limits)."
    )


class MoveRequest(_PositionFields):
    """Body of ``POST /api/v1/move``."""

    level: StrictInt = Field(10, ge=0, le=10, description="Playing strength: 0 (weak) to 10.")
    seed: StrictInt | None = Field(
        None,
        ge=-SEED_LIMIT,
        le=SEED_LIMIT - 1024,
        description=(
            "A game seed: it picks among moves the engine finds equally good, and seeds "
            "the random choices of levels below 10. The same seed gives the same move "
            "(mapped, in any orientation of the board); the page sends a fresh one with "
            "each new game. Without it the answer is the engine's canonical one."
        ),
    )


class AnalyzeRequest(_PositionFields):
    """Body of ``POST /api/v1/analyze`` (``level`` is accepted and ignored)."""

    level: StrictInt | None = Field(None, ge=0, le=10, description="Ignored: analysis is level 10.")


_SQUARE = (
    "Cell name: column letter (a = left) and row number (1 = bottom row); "
    "on 3-D boards the layer number first (2b3)."
)

_WORDS = (
    "The value in words, for the mover: 'win in 3', 'draw', 'loss in 2', 'win in at most "
    "57' (a proof's bound), or 'heuristic score +0.25' when not proven (the engine's one "
    "words form)."
)

_PLIES_EXACT = (
    "When proven: true if plies is the game's length under perfect play (the exact "
    "solver), false if it only bounds it (a proof's length: Qubic's strategy, a threat "
    "chain); null when not proven."
)


class MoveValueOut(BaseModel):
    """One legal move's value for the player who makes it: the keys of
    :meth:`noughts.results.MoveEval.to_json` (the one JSON form of a move) and its words."""

    move: int = Field(description="Cell index, row-major from 0.")
    square: str = Field(description=_SQUARE)
    coords: list[int] = Field(description="[row, col] or [layer, row, col].")
    proven: bool
    outcome: Literal["win", "draw", "loss"] | None = Field(
        description="Proven outcome for the mover, or null when not proven."
    )
    plies: int | None = Field(
        description="Plies to the end when proven: under perfect play if plies_exact, else "
        "the most the game can last (the length of the proof)."
    )
    plies_exact: bool | None = Field(description=_PLIES_EXACT)
    score: float | None
    words: str = Field(description=_WORDS)


class MoveResponse(MoveValueOut):
    """The engine's move, its value, the effort behind it and the board after it: the
    keys of :meth:`noughts.results.MoveChoice.to_json`, its words, and the request's."""

    variant: str
    board: str = Field(description="The board before the move.")
    to_move: Literal["X", "O"]
    depth: int | None
    pv: list[int] = Field(description="Principal variation, starting with the move.")
    nodes: int
    elapsed_ms: float = Field(description="Time the search took (the original search on a hit).")
    method: Literal["exact", "anytime", "level"]
    level: int
    note: str = Field(
        default="",
        description="Where the move came from, in words, when the method alone does not "
        "say it (Qubic: O's opening book; the reply hardest to refute when every reply is "
        "proven lost); empty otherwise.",
    )
    cached: bool = Field(description="True if the answer came from the move cache.")
    budget_ms: int = Field(description="The search budget this request was given.")
    board_after: str
    game_over: bool
    winner: Literal["X", "O"] | None
    winning_line: list[int] = Field(description="Cells of the completed line(s), if any.")


class AnalyzeResponse(BaseModel):
    """Every legal move with its value (the page's hint heat map)."""

    variant: str
    board: str
    to_move: Literal["X", "O"]
    moves: list[MoveValueOut]
    nodes: int | None = Field(description="Solver nodes searched (null when not counted).")
    elapsed_ms: float
    cached: bool
    budget_ms: int


class VariantInfo(BaseModel):
    """A supported variant."""

    name: str
    aliases: list[str]
    shape: list[int]
    k: int
    cells: int
    lines: int
    exact: bool = Field(description="True if the empty board is solved exactly on the spot.")
    featured: bool = Field(description="One of the variants the web page offers.")
    winning_lines: list[list[int]] = Field(
        description="Every winning line as its cells (row-major indices), as the engine has them."
    )


class VariantsResponse(BaseModel):
    variants: list[VariantInfo]
    max_level: int = Field(description="The strongest level (levels run from 0, random play).")
    level_presets: dict[str, int] = Field(description="Named levels: easy, medium, hard...")


class EngineStats(BaseModel):
    running: int = Field(description="Searches running now (abandoned ones until they stop).")
    max_searches: int
    started: int
    rejected: int = Field(description="Requests answered 429 because every search slot was busy.")
    deadline_misses: int = Field(description="Searches stopped at their deadline.")
    fallbacks: int = Field(description="Exact solves that ran out of time and fell back.")
    warmed: list[str] = Field(
        description="Variants whose tables are built (in every process that searches them)."
    )
    cancelled: int = Field(0, description="Searches cancelled because their client went away.")
    processes: int = Field(
        0, description="Worker processes running searches (0: searches run in threads)."
    )
    processes_ready: int = Field(0, description="Worker processes started and warm.")
    processes_replaced: int = Field(
        0, description="Worker processes replaced because they died or hung."
    )
    core: Literal["compiled", "python"] = Field(
        "python", description="The search core that runs: compiled (the C extension) or "
        "python (its pure-Python reference; NOUGHTS_PURE_PYTHON=1, or no compiler at install)."
    )


class SharedCacheStats(BaseModel):
    """The Redis move cache shared by every worker and instance (``NOUGHTS_CACHE_URL``)."""

    url: str = Field(description="The Redis URL, without its password.")
    status: Literal["untried", "ok", "unreachable"] = Field(
        description="unreachable: the last call failed or was too slow; lookups skip Redis "
        "for a few seconds and the service answers from its in-process cache."
    )
    hits: int
    misses: int
    stored: int
    skipped: int = Field(description="Lookups and stores skipped while unreachable.")
    errors: int
    last_error: str | None
    timeout_ms: int
    maxsize: int
    ttl_s: float


class CacheStats(BaseModel):
    hits: int
    misses: int
    size: int
    maxsize: int
    ttl_s: float
    hit_rate: float | None
    shared: SharedCacheStats | None = None


class StatsResponse(BaseModel):
    """Cache and engine counters since the process started."""

    hits: int
    misses: int
    size: int
    maxsize: int
    ttl_s: float
    hit_rate: float | None
    cache: CacheStats
    engine: EngineStats
    uptime_s: float


class HealthResponse(BaseModel):
    """``/healthz``: ``ok`` while alive; ``/readyz``: ``ready`` while it should get requests."""

    status: Literal["ok", "ready"]


class ErrorResponse(BaseModel):
    """Every error: one message naming the problem."""

    detail: str
