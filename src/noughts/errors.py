"""Errors raised by noughts: every one is a :class:`ValueError` naming the problem.

>>> issubclass(IllegalMoveError, NoughtsError) and issubclass(NoughtsError, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "NoughtsError",
    "VariantError",
    "BoardError",
    "IllegalMoveError",
    "GameOverError",
    "TooLargeError",
]


class NoughtsError(ValueError):
    """Base class of every error noughts raises on bad input."""


class VariantError(NoughtsError):
    """An unknown or impossible variant name, e.g. ``"3x3k4"``."""


class BoardError(NoughtsError):
    """A board that cannot arise in a game: overlapping marks, bad counts, two winners..."""


class IllegalMoveError(NoughtsError):
    """A move off the board or on an occupied cell."""


class GameOverError(IllegalMoveError):
    """A move asked of a position whose game has already ended."""


class TooLargeError(NoughtsError):
    """The exact solver was asked for a board it cannot finish on the spot."""
