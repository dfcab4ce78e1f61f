"""Data shipped in the package (``noughts/data``): where a file of it lives, and its bytes.

The files are read straight from the installed package's directory (plain ``open``):
``importlib.resources`` would cost a cold command about 7 ms of imports (pathlib,
zipfile, tempfile and more) to read the same bytes.

>>> shipped_bytes("no-such-file") is None
True
>>> shipped_bytes("qubic-strategy.bin")[:4]
b'NQS1'
>>> shipped_path("table-3x3.bin").endswith("table-3x3.bin")
True
"""

from __future__ import annotations

import os

__all__ = ["shipped_bytes", "shipped_path"]

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def shipped_path(name: str) -> str:
    """The path of the package data file ``name`` (whether or not it exists)."""
    return os.path.join(_DATA, name)


def shipped_bytes(name: str) -> bytes | None:
    """The bytes of the package data file ``name``, or ``None`` if the package has none."""
    try:
        with open(shipped_path(name), "rb") as file:
            return file.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
