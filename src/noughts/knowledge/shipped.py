"""Which of the shipped knowledge a move may consult: one value the engine's plan takes.

The package ships, for Qubic, the first player's winning strategy
(:mod:`noughts.knowledge.strategy`), the second player's opening book
(:mod:`noughts.knowledge.obook`) and a learned evaluation
(:mod:`noughts.knowledge.learned`). The engine consults them through a
:class:`Knowledge`: :data:`SHIPPED` (all of it, the default) or another value with parts
switched off, which a benchmark, a builder or a player (``level:10:no-strategy``) passes
to :func:`noughts.engine.choose_move`. Each part is read from the package the first
time a move asks for it.

>>> from noughts.position import Position
>>> x_opens = Position("X" + "." * 63, "qubic")
>>> SHIPPED.o_book_for(x_opens) is not None, SHIPPED.strategy_for(x_opens) is not None
(True, True)
>>> SEARCH_ONLY.o_book_for(x_opens), SEARCH_ONLY.learned_for(x_opens.game)
(None, None)
>>> Knowledge(strategy=False).strategy_for(Position("", "qubic")) is None
True
"""

from __future__ import annotations

from typing import NamedTuple

from noughts.knowledge.learned import LearnedEval, learned_eval
from noughts.knowledge.obook import OBook, shipped_o_book
from noughts.knowledge.strategy import Strategy, shipped_strategy
from noughts.position import Position
from noughts.variants import Variant

__all__ = ["Knowledge", "SHIPPED", "SEARCH_ONLY"]


class Knowledge(NamedTuple):
    """Which shipped parts serve a move: the first player's strategy, the second
    player's opening book, the learned evaluation (each where the variant's record
    names one)."""

    strategy: bool = True
    o_book: bool = True
    learned: bool = True

    def strategy_for(self, position: Position) -> Strategy | None:
        """The shipped strategy if it serves ``position``'s game (its record names one
        and X moved first) and this knowledge holds it."""
        if not self.strategy or position.game.strategy is None or position.first != "X":
            return None
        return shipped_strategy()

    def o_book_for(self, position: Position) -> OBook | None:
        """The shipped O book if it serves ``position`` (O to move after X opened, a
        book for its game) and this knowledge holds it."""
        if not self.o_book or position.first != "X" or position.to_move != "O":
            return None
        return shipped_o_book(position.game.name)

    def learned_for(self, game: Variant) -> LearnedEval | None:
        """The learned evaluation shipped for ``game``, if any and this knowledge holds it."""
        return learned_eval(game) if self.learned else None


SHIPPED = Knowledge()
"""Everything the package ships: how the engine plays by default."""

SEARCH_ONLY = Knowledge(strategy=False, o_book=False, learned=False)
"""None of it: the searches alone, with the hand-written evaluation."""
