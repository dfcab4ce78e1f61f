"""The batched environment's step in C (see noughts.rl.native)."""

from typing import Any

MAX_CELLS: int
TABLE_MAX_CELLS: int

def batch(
    board: Any, ply: Any, steps: Any, agent: Any, index: Any, over: Any, episodes: Any,
    lines: bytes, k: int, opponent: int, side: int, max_steps: int, illegal_reward: float,
    line_reward: float, table: Any, /,
) -> object: ...
def start(batch: object, rows: Any, rng: object, moves: Any, moved: Any, /) -> None: ...
def step(
    batch: object, actions: Any, rng: object, next_step: bool, reward: Any, terminated: Any,
    truncated: Any, moves: Any, moved: Any, illegal: Any, illegal_at: Any, result: Any,
    resulted: Any, planes: Any, mask: Any, /,
) -> int: ...
def observe(batch: object, planes: Any, mask: Any, /) -> None: ...
def exact_info(
    batch: object, exact: Any, outcome: Any, plies: Any, optimal: Any, keeping: Any,
    values: Any, /,
) -> int: ...
def random_actions(batch: object, rng: object, out: Any, /) -> None: ...
def build_table(
    values: Any, cells: int, k: int, lines: bytes, misere: bool, symmetries: bytes, /
) -> int: ...
