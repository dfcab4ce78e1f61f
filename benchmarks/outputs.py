"""Where the benchmarks write their results, and how.

A run writes its results to ``benchmarks/out/`` (ignored by git), or to the folder that
``--out-dir`` names; the file names are each script's own. ``benchmarks/results/``
holds the runs the documentation quotes, and a run writes there only when asked to
(``--out-dir benchmarks/results``). Results are written atomically, as indented JSON.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

OUT = Path(__file__).parent / "out"
"""The folder a run writes to unless ``--out-dir`` names another."""


def add_out_dir(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` the ``--out-dir`` option (a :class:`Path`, default :data:`OUT`)."""
    parser.add_argument(
        "--out-dir", type=Path, default=OUT,
        help="folder the results go to (default benchmarks/out/, ignored by git; the runs "
             "the documentation quotes are in benchmarks/results/)")


def read_json(path: Path) -> dict[str, object]:
    """The results saved in ``path`` by an earlier run, or nothing if there are none."""
    if not path.is_file():
        return {}
    data: dict[str, object] = json.loads(path.read_text())
    return data


def write_json(path: Path, data: object) -> None:
    """Write ``data`` to ``path`` as indented JSON, atomically (its folder made if need be)."""
    # imported here: the solver benchmark's measured processes import this module too
    from noughts.runtime.atomic import write_if_changed

    path.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(path, (json.dumps(data, indent=2) + "\n").encode())
