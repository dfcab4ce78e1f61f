"""One opponent grammar for every environment, one default.

``gymnasium.make`` (:class:`~noughts.rl.NoughtsEnv`), ``make_vec`` in every mode
(``"sync"`` and ``"async"`` wrap that environment; ``"vector_entry_point"`` is the
batched :class:`~noughts.rl.NoughtsVectorEnv`) and the judge read ``opponent=`` alike:

- ``"random"`` (the default, :data:`DEFAULT_OPPONENT`): a uniformly random legal move;
  level ``0`` and ``"level:0"`` mean the same;
- ``"rules"``: one ply of rules, win if it can, else block, else random (the usual game
  only, not misère);
- ``"exact"``: a move of best exact value; level ``10``, ``"level:10"`` and
  ``"impossible"`` mean the same;
- an engine level ``1``-``9`` (``int``, ``"level:N"``, ``"easy"``, ``"medium"``,
  ``"hard"``) or any other player spec (``"seed-qubic:2"``, ``"module:callable"``, a
  player, a player class, a function ``f(position) -> cell``): the single environment
  plays them (and so ``"sync"`` and ``"async"``); the batched one computes its opponent
  in NumPy and takes ``"random"``, ``"rules"`` or ``"exact"`` only, naming them when
  refused;
- ``None``: self-play, the batched environment only (each board's action is for its
  side to move).

>>> player_spec(7).name, player_spec("random").name, player_spec(0).name
('level:7', 'random', 'random')
>>> batched_opponent(0), batched_opponent("level:10"), batched_opponent(None)
('random', 'exact', None)
>>> from noughts.budget import Limit
>>> from noughts.position import Position
>>> player_spec("exact").create(seed=1).move(Position("XX./OO./..."), Limit()).move
2

Engine opponents search within :func:`opponent_allowance`: :data:`OPPONENT_NODES` nodes
a move by default, never a time, so ``reset(seed=s)`` replays the same games whatever
the machine's load. A time-bounded opponent (``opponent_seconds=``, with
``opponent_nodes=None``) searches as deep as the time allows, and so plays differently
from run to run.

>>> opponent_allowance().node_limit, opponent_allowance().deadline
(200000, None)
>>> opponent_allowance(None, 0.5).seconds > 0, opponent_allowance(None, 0.5).node_limit
(True, None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.players.protocol import PlayerSpec, as_spec, parse_player
from noughts.results import MAX_LEVEL

__all__ = [
    "DEFAULT_OPPONENT",
    "BATCHED",
    "Batched",
    "OPPONENT_NODES",
    "player_spec",
    "batched_opponent",
    "opponent_allowance",
    "policy_moves",
]

DEFAULT_OPPONENT = "random"
"""The opponent of every environment when none is named."""

OPPONENT_NODES = 200_000
"""The nodes an engine opponent searches a move, in every environment and the judge
(some 20 ms on the compiled core, 2 s on the Python one, on a mid-game Qubic position;
the exact solver finishes every 3x3 and 4x4k3 position well within it)."""

Batched = Literal["random", "rules", "exact", "policy"]
BATCHED: tuple[Batched, ...] = ("random", "rules", "exact")
"""The opponents the batched environment computes itself (``None``: self-play); a
function on the batched observation plays too (``"policy"``: :func:`policy_moves`)."""


def _named(who: object) -> Batched | None:
    """The name among :data:`BATCHED` that ``who`` means, if it means one."""
    if isinstance(who, bool):
        return None
    if isinstance(who, int):
        level = who
    elif isinstance(who, str):
        text = who.strip().lower()
        if text in BATCHED:
            return text
        head, _, _ = text.partition(":")
        if ":" in text and head != "level":
            return None  # another player, or module:callable (not imported here)
        try:
            name = parse_player(text).name  # a level, or a preset: "hard" is level:8
        except NoughtsError:
            return None
        prefix, _, number = name.partition(":")
        if prefix != "level" or not number.isdigit():
            return None
        level = int(number)
    else:
        return None
    return "random" if level == 0 else "exact" if level == MAX_LEVEL else None


def player_spec(who: object) -> PlayerSpec:
    """``who`` as a player for the single environment and the judge (see the module
    docstring): ``"random"``/level 0 random play, ``"rules"``, ``"exact"``/level 10 the
    engine at level 10, an ``int`` an engine level, anything else :func:`as_spec`."""
    if who is None:
        raise NoughtsError(
            "opponent=None is self-play, which the batched environment plays "
            "(make_vec(..., vectorization_mode='vector_entry_point')) and the PettingZoo "
            "environments; this one needs an opponent such as 'random', 'rules' or 'exact'"
        )
    named = _named(who)
    if named == "random":
        return parse_player("random")
    if named == "rules":
        return parse_player("rules")
    if named == "exact":
        return parse_player(f"level:{MAX_LEVEL}")
    if isinstance(who, int) and not isinstance(who, bool):
        return parse_player(f"level:{who}")
    return as_spec(who)


def batched_opponent(who: object) -> Batched | None:
    """The batched environment's opponent for ``who``: ``"random"``, ``"rules"``,
    ``"exact"``, ``"policy"`` (a function) or ``None`` (self-play); anything else is
    refused, naming them."""
    if who is None:
        return None
    if callable(who) and not isinstance(who, type):
        return "policy"
    named = _named(who)
    if named is None:
        raise NoughtsError(
            f"the batched environment computes its opponent in NumPy: 'random' (level 0), "
            f"'rules', 'exact' (level 10), a function on the batched observation, or None "
            f"(self-play), not {who!r}; "
            "vectorization_mode='sync' or 'async' plays any opponent"
        )
    return named


def opponent_allowance(nodes: int | None = OPPONENT_NODES, seconds: float | None = None) -> Limit:
    """An engine opponent's allowance a move: ``nodes`` (the default: reproducible),
    ``seconds`` (not reproducible: the depth follows the machine's speed and load), or
    both (whichever ends first); each checked positive."""
    if nodes is None and seconds is None:
        raise NoughtsError(
            "an engine opponent needs a bound a move: opponent_nodes (reproducible), "
            "opponent_seconds, or both"
        )
    return Limit.within(seconds, nodes)


def policy_moves(
    policy: Callable[[dict[str, np.ndarray]], object],
    board: np.ndarray,
    mover: np.ndarray,
    shape: tuple[int, ...],
) -> np.ndarray:
    """A frozen policy's cells on the boards it moves on (the batched environment's
    ``opponent=policy``): ``policy`` gets the observation of those boards from its own
    side, ``{"observation": (M, *shape, 2), "action_mask": (M, cells)}`` as an agent
    sees it, and answers ``M`` cells; an illegal one is refused, naming it.

    >>> board = np.array([[1, 0, 0, 0, -1, 0, 0, 0, 0]], dtype=np.int8)
    >>> lowest = lambda seen: seen["action_mask"].argmax(axis=1)
    >>> policy_moves(lowest, board, np.array([1], dtype=np.int8), (3, 3)).tolist()
    [1]
    """
    planes = np.stack((board == mover[:, None], board == -mover[:, None]), axis=-1)
    seen = {
        "observation": planes.view(np.int8).reshape(len(board), *shape, 2),
        "action_mask": (board == 0).view(np.int8),
    }
    answer = np.asarray(policy(seen))
    if answer.shape != (len(board),) or not np.issubdtype(answer.dtype, np.integer):
        raise NoughtsError(
            f"the policy opponent answers an integer array of {len(board)} cells, one a "
            f"board, not {answer.dtype} {answer.shape}"
        )
    legal = (answer >= 0) & (answer < board.shape[1])
    legal[legal] = board[np.flatnonzero(legal), answer[legal]] == 0
    if not legal.all():
        raise NoughtsError(f"the policy opponent played an illegal cell: {answer[~legal][0]}")
    return answer.astype(np.intp)
