"""A build's checkpoint: the records an offline build makes (games, proof checks,
decisions), saved as they are made, so that a run cut short resumes and a finished
build replays from them for free.

One file holds a part for each step of a build, by name (the O book's games, its deep
step's decisions): ``{"format": 1, "parts": {name: {...}}}``. A file whose name ends in
``.gz`` is gzip-compressed with no time stamp in its header, so equal records give
equal bytes. It is written atomically, and only when its bytes change.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     checkpoint = Checkpoint(Path(folder) / "build.json.gz")
...     checkpoint.part("games")["a/0"] = {"points": 1.0}
...     checkpoint.save()
...     Checkpoint(Path(folder) / "build.json.gz").part("games")
{'a/0': {'points': 1.0}}
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

from noughts.errors import NoughtsError
from noughts.runtime.atomic import write_if_changed

__all__ = ["Checkpoint", "SAVE_EVERY"]

FORMAT = 1

SAVE_EVERY = 10.0
"""Seconds a build lets pass between saves while it makes records (a save of the O
book's records takes about a third of a second): a run cut short loses at most that
long's records."""


class Checkpoint:
    """The parts of one checkpoint file (an empty one if the file does not exist yet)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.saved_at = 0.0  # time.monotonic() at the last save
        self.parts: dict[str, dict[str, Any]] = {}
        if path.is_file():
            self.parts = self._read()

    def _read(self) -> dict[str, dict[str, Any]]:
        data = self.path.read_bytes()
        try:
            text = gzip.decompress(data) if self.compressed else data
            record = json.loads(text)
        except (OSError, EOFError, ValueError):
            raise NoughtsError(f"{self.path}: damaged checkpoint: not "
                               f"{'gzip-compressed ' if self.compressed else ''}JSON") from None
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise NoughtsError(f"{self.path}: not a checkpoint of format {FORMAT}")
        parts: dict[str, dict[str, Any]] = record["parts"]
        return parts

    @property
    def compressed(self) -> bool:
        """Whether the file is gzip-compressed (its name ends in ``.gz``)."""
        return self.path.suffix == ".gz"

    def part(self, name: str) -> dict[str, Any]:
        """The records of the part ``name``, to read and to add to (a new part is empty)."""
        return self.parts.setdefault(name, {})

    def save(self, at_most_every: float = 0.0) -> None:
        """Write every part to the file (atomically; left alone if its bytes are the
        same); with ``at_most_every``, only if that many seconds passed since the last
        save (:data:`SAVE_EVERY` while a build makes records: then save once more at
        the end)."""
        now = time.monotonic()
        if now - self.saved_at < at_most_every:
            return
        self.saved_at = now
        text = json.dumps({"format": FORMAT, "parts": self.parts}, sort_keys=True,
                          indent=0).encode()
        data = gzip.compress(text, compresslevel=9, mtime=0) if self.compressed else text
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_if_changed(self.path, data)
