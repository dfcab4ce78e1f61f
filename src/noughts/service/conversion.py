"""Between the wire and the engine: request models to positions, results to responses.

>>> from noughts.service.schemas import MoveRequest
>>> position_from_request(MoveRequest.model_validate({"board": "X../.../..."})).to_move
'O'
>>> position_from_request(MoveRequest.model_validate({"board": "", "variant": "4x4"})).board
'..../..../..../....'
>>> position_from_request(MoveRequest.model_validate({"numX": 3, "numO": 1}))
Traceback (most recent call last):
...
noughts.errors.BoardError: overlapping marks: cell(s) 0 hold both X and O
"""

from __future__ import annotations

from noughts.errors import BoardError, VariantError
from noughts.geometry import scan_forward
from noughts.notation import parse_board
from noughts.position import Mark, Position
from noughts.results import describe
from noughts.service.moves import Analysis, MoveAnswer
from noughts.service.schemas import AnalyzeResponse, MoveResponse, MoveValueOut
from noughts.service.schemas import _PositionFields as PositionFields
from noughts.service.seed import position_from_bitmasks
from noughts.variants import variant

__all__ = ["position_from_request", "position_from_bitmasks", "move_response", "analyze_response"]


def _side(request: PositionFields) -> Mark | None:
    from_is_x: Mark | None = None if request.is_x is None else ("X" if request.is_x else "O")
    if from_is_x and request.to_move and from_is_x != request.to_move:
        raise BoardError(
            f"isX={str(request.is_x).lower()} and to_move={request.to_move!r} disagree "
            "about who is to move"
        )
    return request.to_move or from_is_x


def position_from_request(request: PositionFields, *, max_cells: int | None = None) -> Position:
    """The position a request describes (a board string, or bitmasks, or the empty board)."""
    geometry = variant(request.variant)
    if max_cells is not None and geometry.cells > max_cells:
        raise VariantError(
            f"variant {geometry.name} has {geometry.cells} cells; this server plays boards "
            f"of at most {max_cells} cells"
        )
    has_masks = request.num_x is not None or request.num_o is not None
    if request.board is not None and has_masks:
        raise BoardError("give the board either as 'board' or as 'numX'/'numO', not both")
    if request.board is not None:  # ("" is the empty board, as for Position)
        x, o = parse_board(request.board, geometry.geometry) if request.board else (0, 0)
    elif has_masks:
        if request.num_x is None or request.num_o is None:
            missing = "numX" if request.num_x is None else "numO"
            raise BoardError(f"{missing} is missing: give both numX and numO")
        x, o = request.num_x, request.num_o
    else:
        x = o = 0
    return position_from_bitmasks(x, o, geometry, _side(request))


def move_response(answer: MoveAnswer) -> MoveResponse:
    """The JSON answer of ``POST /api/v1/move``."""
    position, result = answer.position, answer.result
    after = position.play(result.move)
    winner = after.winner
    return MoveResponse(
        variant=position.variant,
        board=position.board,
        to_move=position.to_move,
        **result.to_json(),
        words=describe(result),
        cached=answer.cached,
        budget_ms=answer.budget_ms,
        board_after=after.board,
        game_over=winner is not None or not after.empty,
        winner=winner,
        winning_line=list(scan_forward(after.winning_line)) if winner else [],
    )


def analyze_response(analysis: Analysis) -> AnalyzeResponse:
    """The JSON answer of ``POST /api/v1/analyze``."""
    position = analysis.position
    return AnalyzeResponse(
        variant=position.variant,
        board=position.board,
        to_move=position.to_move,
        moves=[MoveValueOut(**m.to_json(), words=describe(m)) for m in analysis.moves],
        nodes=analysis.nodes,
        elapsed_ms=round(analysis.elapsed_ms, 3),
        cached=analysis.cached,
        budget_ms=analysis.budget_ms,
    )
