"""Data shipped in the package (``noughts/data``) for the anytime engine: reading a
file, and switching one kind of it off for a block.

The strategy, the O book and the learned evaluation each have a :class:`Switch`, so
that a benchmark or a builder can play without them (``without_strategy()`` and the
like), in its own thread or task only.

>>> shipped_bytes("no-such-file") is None
True
>>> book = Switch("example_enabled")
>>> with book.off():
...     book.on
False
>>> book.on
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import resources

__all__ = ["Switch", "shipped_bytes"]


def shipped_bytes(name: str) -> bytes | None:
    """The bytes of the package data file ``name``, or ``None`` if the package has none."""
    try:
        return resources.files("noughts.data").joinpath(name).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return None


class Switch:
    """On unless a block turned it off with :meth:`off`, in that thread or task only (a
    context variable, so concurrent searches do not see each other's switch)."""

    __slots__ = ("_enabled",)

    def __init__(self, name: str) -> None:
        self._enabled: ContextVar[bool] = ContextVar(name, default=True)

    @property
    def on(self) -> bool:
        """True unless an enclosing :meth:`off` block holds."""
        return self._enabled.get()

    @contextmanager
    def off(self) -> Iterator[None]:
        """Within the block, the switch is off."""
        token = self._enabled.set(False)
        try:
            yield
        finally:
            self._enabled.reset(token)
