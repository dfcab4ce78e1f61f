"""Argument types for the command line's limits: seconds, node budgets, counts, variants,
levels; and the one grammar of a command's variant (``VARIANT`` or ``--variant``).

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
    "level",
    "add_variant_arguments",
    "settle_variant",
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


def level(text: str) -> int:
    """A level: its number (0-10) or a preset name, as everywhere a level is taken
    (:func:`noughts.levels.parse_level`).

    >>> level("easy"), level("7")
    (2, 7)
    >>> level("12")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '12' is not a level from 0 to 10 nor one of easy, medium, \
hard, impossible
    """
    from noughts.levels import parse_level

    try:
        return parse_level(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_GIVEN = "variant_given"
"""Where a command's positional ``VARIANT`` lands before :func:`settle_variant`."""


def add_variant_arguments(
    parser: argparse.ArgumentParser, *, default: str, help_text: str
) -> None:
    """The variant of a command that takes no board: ``--variant V`` (``-v V``), as every
    command takes it, or a positional ``VARIANT`` (the same; the older form); ``default``
    when neither is given. :func:`settle_variant` leaves the one chosen in ``variant``."""
    parser.add_argument(_GIVEN, metavar="VARIANT", nargs="?", type=variant_name,
                        help="the same as --variant (the older form)")
    parser.add_argument("--variant", "-v", metavar="V", type=variant_name,
                        help=f"{help_text} (default {default})")
    parser.set_defaults(variant_default=default)


def settle_variant(args: argparse.Namespace) -> None:
    """Put the variant a command was given (either way) or its default in
    ``args.variant``; refuse two different ones (a ``UsageError``).

    >>> ns = argparse.Namespace(variant_given="4x4", variant=None, variant_default="3x3")
    >>> settle_variant(ns); ns.variant
    '4x4'
    >>> ns = argparse.Namespace(variant_given=None, variant=None, variant_default="qubic")
    >>> settle_variant(ns); ns.variant
    'qubic'
    """
    given = getattr(args, _GIVEN, None)
    if given is not None and args.variant is not None and given != args.variant:
        from noughts.cli import fail

        raise fail(f"two variants given, {given} and --variant {args.variant}: give one")
    args.variant = args.variant or given or args.variant_default
    if hasattr(args, _GIVEN):
        delattr(args, _GIVEN)
