"""An independent referee for forced wins by continuous threats, for the tests.

Written from the rules alone, on :class:`~noughts.position.Position` and the geometry's
lines, sharing no code with the engine's threat search (``noughts.search.threats``) or
its search board, so a test can check the engine's defence against something other than
the code that makes it. Slow and simple: fine for a few positions.

A *threat* is a line holding ``k-1`` marks of one side and an empty last cell. The
attacker wins by continuous threats when every move it makes is a threat (the defender
must block it, unless the defender can win at once) and the chain ends in two threats
at once, or in a line completed.
"""

from __future__ import annotations

from noughts.position import Position


def _completions(position: Position, mark: str) -> set[int]:
    """Empty cells that would complete a line of ``mark`` now."""
    geometry = position.geometry
    mine = position.x if mark == "X" else position.o
    theirs = position.o if mark == "X" else position.x
    cells: set[int] = set()
    for line in geometry.lines:
        if line & theirs:
            continue
        missing = line & ~mine
        if missing.bit_count() == 1:
            cells.add(missing.bit_length() - 1)
    return cells


def forced_win(position: Position, max_threats: int) -> bool:
    """True if the side to move wins by at most ``max_threats`` continuous threats."""
    failed: dict[tuple[int, int], int] = {}
    return _wins(position, max_threats, failed)


def _wins(position: Position, depth: int, failed: dict[tuple[int, int], int]) -> bool:
    attacker = position.to_move
    defender = "O" if attacker == "X" else "X"
    if _completions(position, attacker):
        return True  # a line completed at once
    if depth == 0 or failed.get((position.x, position.o), -1) >= depth:
        return False
    their_wins = _completions(position, defender)
    if len(their_wins) >= 2:
        return False  # the attacker must block two cells at once
    candidates = their_wins or set(position.legal_moves)
    for cell in sorted(candidates):
        after = position.play(cell)
        if after.winner is not None:
            return True
        made = _completions(after, attacker)
        if not made:
            continue  # not a threat: the chain breaks
        if _completions(after, defender):
            continue  # the defender would win first
        if len(made) >= 2:
            return True  # a double threat: one of the two stays open
        reply = after.play(next(iter(made)))
        if _wins(reply, depth - 1, failed):
            return True
    failed[(position.x, position.o)] = depth
    return False
