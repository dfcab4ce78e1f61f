"""What a server holds in memory: a process's resident memory with its descendants'.

With its searches in worker processes, a server's memory is the sum over the serving
process and its workers; the memory bound (docs/robustness.md) is on that sum. Read
from ``/proc`` (Linux); ``None`` where there is none.

>>> import os
>>> mb = resident_mb(os.getpid())
>>> mb is None or mb > 1
True
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

__all__ = ["resident_mb"]

_PROC = Path("/proc")


def resident_mb(pid: int) -> float | None:
    """Resident memory of process ``pid`` and all its descendants, in MB."""
    if not (_PROC / str(pid) / "status").exists():
        return None
    children: defaultdict[int, list[int]] = defaultdict(list)
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        children[parent].append(int(entry.name))
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        pending.extend(children[current])
        total += _own_mb(current)
    return total


def _own_mb(pid: int) -> float:
    try:
        for line in (_PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass  # gone meanwhile
    return 0.0
