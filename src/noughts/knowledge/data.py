"""Data shipped in the package (``noughts/data``): reading one of its files.

>>> shipped_bytes("no-such-file") is None
True
>>> shipped_bytes("qubic-strategy.bin")[:4]
b'NQS1'
"""

from __future__ import annotations

from importlib import resources

__all__ = ["shipped_bytes"]


def shipped_bytes(name: str) -> bytes | None:
    """The bytes of the package data file ``name``, or ``None`` if the package has none."""
    try:
        return resources.files("noughts.data").joinpath(name).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return None
