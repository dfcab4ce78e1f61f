"""Counts of positions and games, checked against a brute-force walk of the game tree."""

from __future__ import annotations

import json

import pytest

from noughts.cli import main
from noughts.errors import NoughtsError, TooLargeError
from noughts.geometry import Geometry
from noughts.teaching.counts import (
    COUNT_KEYS,
    CountTables,
    count_variant,
    full_tree_boards,
    walk_up_to_symmetry,
)
from noughts.variants import variant

THREE_BY_THREE = {
    "positions": 5478,
    "positions_up_to_symmetry": 765,
    "terminal_positions": 958,
    "games": 255168,
    "games_up_to_symmetry": 26830,
    "full_tree_boards": 1972819,
}


def brute_force(geometry: Geometry) -> dict[str, int]:
    """Walk every position ply by ply, X first, stopping at a line or a full board."""
    full = geometry.full
    positions: dict[tuple[int, int], int] = {(0, 0): 1}  # position -> paths reaching it
    level = dict(positions)
    terminal: set[tuple[int, int]] = set()
    games = 0
    canonical_level = {geometry.canonical(0, 0)[:2]: 1}
    canonical_seen = set(canonical_level)
    games_up_to_symmetry = 0
    while level:
        following: dict[tuple[int, int], int] = {}
        for (x, o), paths in level.items():
            if geometry.has_line(x) or geometry.has_line(o) or (x | o) == full:
                terminal.add((x, o))
                games += paths
                continue
            x_to_move = x.bit_count() == o.bit_count()
            for cell in range(geometry.cells):
                if (x | o) >> cell & 1:
                    continue
                child = (x | 1 << cell, o) if x_to_move else (x, o | 1 << cell)
                following[child] = following.get(child, 0) + paths
        positions.update(following)
        level = following
        next_canonical: dict[tuple[int, int], int] = {}
        for (x, o), paths in canonical_level.items():
            if geometry.has_line(x) or geometry.has_line(o) or (x | o) == full:
                games_up_to_symmetry += paths
                continue
            x_to_move = x.bit_count() == o.bit_count()
            children = set()
            for cell in range(geometry.cells):
                if not (x | o) >> cell & 1:
                    child = (x | 1 << cell, o) if x_to_move else (x, o | 1 << cell)
                    children.add(geometry.canonical(*child)[:2])
            for child in children:
                next_canonical[child] = next_canonical.get(child, 0) + paths
        canonical_level = next_canonical
        canonical_seen.update(canonical_level)
    return {
        "positions": len(positions),
        "positions_up_to_symmetry": len(canonical_seen),
        "terminal_positions": len(terminal),
        "games": games,
        "games_up_to_symmetry": games_up_to_symmetry,
    }


def full_tree_brute_force(cells: int) -> int:
    """Boards of the full tree: every move sequence, either player starting, no stop."""

    def sequences(free: int) -> int:
        return 1 + free * sequences(free - 1) if free else 1

    return 2 * sequences(cells) - 1


def test_three_by_three_counts() -> None:
    assert count_variant("3x3") == THREE_BY_THREE


@pytest.mark.parametrize("name", ["2x2", "3x2", "3x3", "3x3k2", "4x2k2", "2x3k3", "4x2k3"])
def test_counts_match_brute_force(name: str) -> None:
    geometry = variant(name)
    expected = brute_force(geometry)
    assert count_variant(geometry, only=list(expected)) == expected


def test_counts_of_a_cube_match_brute_force() -> None:
    # 2x2x2 with 2 in a row: every pair of cells is a line, so all 8! permutations are
    # symmetries; only the counts that need no symmetry are asked for.
    geometry = variant("2x2x2")
    expected = brute_force(geometry)
    keys = ["positions", "terminal_positions", "games"]
    assert count_variant(geometry, only=keys) == {key: expected[key] for key in keys}
    with pytest.raises(TooLargeError, match="need the whole group"):
        count_variant(geometry, only=["positions_up_to_symmetry"])


def test_full_tree_boards_formula_matches_brute_force() -> None:
    for cells in range(1, 10):
        assert full_tree_boards(cells) == full_tree_brute_force(cells)
    assert full_tree_boards(9) == 1_972_819


def test_burnside_matches_the_walk_up_to_symmetry() -> None:
    for name in ("3x3", "4x3k3", "3x3k2"):
        geometry = variant(name)
        games, positions = walk_up_to_symmetry(geometry)
        assert positions == CountTables(geometry).positions_up_to_symmetry()
        assert games == count_variant(geometry, only=["games_up_to_symmetry"])[
            "games_up_to_symmetry"
        ]


def test_only_selects_and_orders_keys() -> None:
    counts = count_variant("3x3", only=["games", "positions"])
    assert list(counts) == ["positions", "games"]
    assert counts == {"positions": 5478, "games": 255168}
    assert set(count_variant("2x2")) == set(COUNT_KEYS)


def test_bad_requests_name_the_problem() -> None:
    with pytest.raises(NoughtsError, match="unknown count 'moves'"):
        count_variant("3x3", only=["moves"])
    with pytest.raises(TooLargeError, match="4x4x4 has 64 cells"):
        count_variant("4x4x4", only=["positions"])
    with pytest.raises(TooLargeError, match="at most 16 cells"):
        count_variant("5x4", only=["games_up_to_symmetry"])
    assert count_variant("4x4x4", only=["full_tree_boards"])["full_tree_boards"] > 10**89


def test_stats_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "3x3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"variant": "3x3", **THREE_BY_THREE}


def test_stats_table_and_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "tictactoe", "--only", "positions,games"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("3x3:")
    assert "5,478" in out and "255,168" in out and "symmetry" not in out


def test_stats_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "3x3", "--only", "bogus"]) == 2
    assert main(["stats", "9x9x9"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("noughts: error: unknown count 'bogus'")
    assert err[1].startswith("noughts: error: unknown variant '9x9x9'")
