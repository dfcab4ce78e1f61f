"""Argument types for the command line's limits: seconds, node budgets, counts, variants.

Each turns bad text into an :class:`argparse.ArgumentTypeError`, so the command fails
with one line and exit status 2 before anything runs: NaN and infinite times (whose
deadline never comes), negative or absurd budgets, and empty variant names are refused.

>>> seconds("0.5"), nodes("20000"), count("0"), variant_name(" qubic ")
(0.5, 20000, 0, 'qubic')
>>> seconds("nan")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: time limit must be a positive number of seconds, not nan
>>> seconds("1e9")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: time limit of 1e+09 seconds is more than the limit of 86400 (a day)
>>> variant_name("")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: the variant name is empty: give one such as 3x3, 4x4k3 or qubic
"""

from __future__ import annotations

import argparse

from noughts.budget import MAX_NODES, MAX_SECONDS

__all__ = [
    "seconds",
    "nodes",
    "count",
    "positive_count",
    "variant_name",
    "MAX_SECONDS",
    "MAX_NODES",
]

def seconds(text: str) -> float:
    """A finite, positive number of seconds, at most
    :data:`~noughts.budget.MAX_SECONDS`."""
    from noughts.budget import check_seconds
    from noughts.errors import NoughtsError

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    try:
        return check_seconds(value)
    except NoughtsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def nodes(text: str) -> int:
    """A positive node budget, at most :data:`~noughts.budget.MAX_NODES`.

    >>> nodes("-5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: node budget must be a positive integer, not -5
    """
    from noughts.budget import check_nodes
    from noughts.errors import NoughtsError

    try:
        return check_nodes(_integer(text))
    except NoughtsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def count(text: str) -> int:
    """A whole number, zero or more."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be zero or more, not {value}")
    return value


def positive_count(text: str) -> int:
    """A whole number, one or more."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def variant_name(text: str) -> str:
    """A variant name that is not empty (whether it names a board is checked later)."""
    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError(
            "the variant name is empty: give one such as 3x3, 4x4k3 or qubic"
        )
    return name
