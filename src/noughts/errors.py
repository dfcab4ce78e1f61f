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
    """A board too large for what was asked: the exact solver cannot finish it on the spot,
    or its lines are too long for the heuristic search's score range."""
