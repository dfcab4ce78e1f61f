"""Players as the environments and the judge take them: a level (0-10) or any player spec.

>>> player_spec(7).name, player_spec("random").name
('level:7', 'random')
>>> from noughts import Position
>>> ask(player_spec(10).create(seed=1), Position("XX./OO./..."))
2
"""

from __future__ import annotations

import numpy as np

from noughts import IllegalMoveError, Position
from noughts.players import Player, PlayerSpec, as_spec, move_of, parse_player

__all__ = ["player_spec", "ask"]


def player_spec(who: object) -> PlayerSpec:
    """``who`` as a spec: an ``int`` is an engine level, anything else goes to ``as_spec``
    (a spec string such as ``"level:7"`` or ``"seed-qubic:2"``, a player object, a player
    class, or a function ``f(position) -> cell``)."""
    if isinstance(who, int) and not isinstance(who, bool):
        return parse_player(f"level:{who}")
    return as_spec(who)


def ask(player: Player, position: Position) -> int:
    """The cell ``player`` answers in ``position`` (checked to be a cell index, not played)."""
    answer = move_of(player.move(position))
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
        raise IllegalMoveError(f"{player.name} answered {answer!r}, not a cell index")
    return int(answer)
