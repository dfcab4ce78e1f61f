"""Between the wire and the engine: request models to positions, results to responses.

>>> from noughts.service.schemas import MoveRequest
>>> position_from_request(MoveRequest.model_validate({"board": "X../.../..."})).to_move
'O'
>>> position_from_request(MoveRequest.model_validate({"numX": 3, "numO": 1}))
Traceback (most recent call last):
...
noughts.errors.BoardError: overlapping marks: cell(s) 0 hold both X and O
"""

from __future__ import annotations

from noughts.errors import BoardError, GameOverError, VariantError
from noughts.geometry import Geometry, scan_forward
from noughts.notation import parse_board
from noughts.position import Mark, Position
from noughts.results import describe
from noughts.service.moves import Analysis, MoveAnswer
from noughts.service.schemas import AnalyzeResponse, MoveResponse, MoveValueOut
from noughts.service.schemas import _PositionFields as PositionFields
from noughts.variants import Variant, variant

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
    if request.board is not None:
        x, o = parse_board(request.board, geometry.geometry)
    elif has_masks:
        if request.num_x is None or request.num_o is None:
            missing = "numX" if request.num_x is None else "numO"
            raise BoardError(f"{missing} is missing: give both numX and numO")
        x, o = request.num_x, request.num_o
    else:
        x = o = 0
    return position_from_bitmasks(x, o, geometry, _side(request))


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
