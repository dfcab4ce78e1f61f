"""Visible blunders: O moves after which the engine's own analysis, one X move later,
proves every O reply lost, when another O move left X no such reply.

An O move ``m`` is a *visible blunder* if after it some X reply ``r`` reaches a position
where the proof-number search from X's side (O to move: X's win proven against every O
reply) succeeds within ``ANALYSIS_NODES`` positions (:mod:`noughts.search.defence`),
about what a second of the compiled core's analysis searches, while some other O move
``m'`` had no such reply.
Qubic is lost for O against perfect play, so a position may be lost everywhere; that is
no blunder. Only a loss the engine could have seen coming one X move ahead counts.

Finding ``r`` is the engine's own look one move ahead,
:func:`noughts.search.defence.killing_reply`: X's immediate wins first, then the move of a
proof search from X's side on the position after ``m`` (``ROOT_NODES`` positions: it
looks at every reply and works on the likeliest); each candidate is confirmed by the
search after it within ``ANALYSIS_NODES``. With ``exhaustive``, X's moves that make a
threat and then every other X reply are confirmed or not the same way as well (the
definition read to the letter, about fifty times the cost). A blunder reported is one by
the definition; a move passed as clean had no such reply that these searches found.

The family benchmark (``bench_qubic.py --parts family``) counts them in every game O
plays, and ``qubic_family.py RESULTS --blunders`` in a finished run.

>>> from noughts.position import Position
>>> # O to move, X holds 0, 1 and 6, 10: two lines of two cross on cell 2 (0-3, 2-14)
>>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
...                             sum(1 << c for c in (12, 15, 60)), "qubic")
>>> found = visible_blunder(p, 63, nodes=20_000)
>>> found.played, found.reply, found.safe
(63, 2, 14)
>>> visible_blunder(p, 2, nodes=20_000) is None
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from noughts.position import Position
from noughts.search.core import anytime_search
from noughts.search.defence import killing_reply, proven_loss

__all__ = ["Blunder", "visible_blunder", "game_blunders"]



@dataclass(frozen=True)
class Blunder:
    """O's move ``played`` with ``marks`` marks on the board; X's ``reply`` after which
    every O move is proven lost (the game lasting at most ``plies`` more plies); and
    ``safe``, an O move after which no such reply was found."""

    marks: int
    played: int
    reply: int
    plies: int
    safe: int

    def to_json(self) -> dict[str, int]:
        """The blunder as a JSON object."""
        return asdict(self)


def visible_blunder(position: Position, played: int, nodes: int | None = None, *,
                    root_nodes: int | None = None, exhaustive: bool = False
                    ) -> Blunder | None:
    """Whether O's move ``played`` in ``position`` (O to move) is a visible blunder (see the
    module): the blunder, with X's reply and an O move that had none, or ``None``."""
    after = position.play(played)
    found = killing_reply(after, nodes, root_nodes=root_nodes, exhaustive=exhaustive)
    if found is None or proven_loss(position, nodes) is not None:
        return None  # no reply found, or O was lost whatever it played
    reply, plies = found
    search = anytime_search(position)
    for other in dict.fromkeys([*search.ordered_moves(-1, 0), *position.legal_moves]):
        if other != played and killing_reply(position.play(other), nodes,
                                              root_nodes=root_nodes,
                                              exhaustive=exhaustive) is None:
            return Blunder(position.ply, played, reply, plies, other)
    return None


def game_blunders(start: Position, moves: list[int], nodes: int | None = None, *,
                  root_nodes: int | None = None, exhaustive: bool = False) -> list[Blunder]:
    """The visible blunders of O in the game played from ``start`` by ``moves``.

    >>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
    ...                             sum(1 << c for c in (12, 15, 60)), "qubic")
    >>> [(b.marks, b.played, b.reply) for b in game_blunders(p, [63, 2], nodes=20_000)]
    [(7, 63, 2)]
    >>> game_blunders(p, [2], nodes=20_000)
    []
    """
    found = []
    position = start
    for move in moves:
        if position.to_move == "O":
            blunder = visible_blunder(position, move, nodes, root_nodes=root_nodes,
                                      exhaustive=exhaustive)
            if blunder is not None:
                found.append(blunder)
        position = position.play(move)
        if position.is_over:
            break
    return found
