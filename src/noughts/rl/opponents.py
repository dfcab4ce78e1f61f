"""Players as the environments and the judge take them: a level (0-10) or any player spec.

>>> player_spec(7).name, player_spec("random").name
('level:7', 'random')
>>> from noughts.budget import Limit
>>> from noughts.position import Position
>>> player_spec(10).create(seed=1).move(Position("XX./OO./..."), Limit()).move
2
"""

from __future__ import annotations

from noughts.players.protocol import PlayerSpec, as_spec, parse_player

__all__ = ["player_spec"]


def player_spec(who: object) -> PlayerSpec:
    """``who`` as a spec: an ``int`` is an engine level, anything else goes to ``as_spec``
    (a spec string such as ``"level:7"`` or ``"seed-qubic:2"``, a player, a player class,
    an object whose ``move(position)`` answers a cell, or a function ``f(position) -> cell``).
    """
    if isinstance(who, int) and not isinstance(who, bool):
        return parse_player(f"level:{who}")
    return as_spec(who)
