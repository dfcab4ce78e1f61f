"""Our exact values against OpenSpiel, an independent referee, plus the known results.

OpenSpiel's ``minimax.alpha_beta_search(game, state=s)`` returns ``(value, action)`` with
the value for the player to move (it maximises for ``state.current_player()``): +1 a
win, 0 a draw, -1 a loss. Its ``mnk`` game takes ``m`` COLUMNS and ``n`` ROWS and numbers
its actions ``row * m + col``, like our cells. Its alpha-beta has no transposition table,
so near-empty 4x4 boards are out of its reach: the random positions here carry enough
marks to keep the whole file cheap.
"""

from __future__ import annotations

import random

import pytest

from noughts.exact.solver import Solver, best_move, solve
from noughts.position import Position
from noughts.results import Outcome, Value
from noughts.variants import variant

pyspiel = pytest.importorskip("pyspiel")
minimax = pytest.importorskip("open_spiel.python.algorithms.minimax")
get_all_states = pytest.importorskip("open_spiel.python.algorithms.get_all_states")

_SIGN = {Outcome.WIN: 1.0, Outcome.DRAW: 0.0, Outcome.LOSS: -1.0}


def _no_heuristic(state: object) -> float:
    """A leaf value for depth-limited searches: a -1/+1 result is then a proof."""
    del state
    return 0.0


def _our_position(state: object, name: str) -> Position:
    """Our position for an OpenSpiel state of tic_tac_toe or mnk (actions = cells)."""
    position = Position("", name)
    for action in state.history():  # type: ignore[attr-defined]
        position = position.play(action)
    return position


def test_every_3x3_position_matches_openspiel() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    states = get_all_states.get_all_states(
        game, depth_limit=-1, include_terminals=True, include_chance_states=False, to_string=str
    )
    assert len(states) == 5478
    checked = 0
    for state in states.values():
        position = _our_position(state, "3x3")
        assert str(state).replace("\n", "/").upper() == position.board
        if state.is_terminal():
            assert position.is_over
            returns = state.returns()
            expected = None if returns[0] == 0 else ("X" if returns[0] > 0 else "O")
            assert position.winner == expected
            continue
        value, _ = minimax.alpha_beta_search(game, state=state)
        assert _SIGN[solve(position).outcome] == value, position
        checked += 1
    assert checked == 5478 - 958


def _random_history(name: str, marks: int, rng: random.Random) -> list[int]:
    """Moves of a random unfinished game of ``marks`` moves (no move ends the game)."""
    while True:
        position = Position("", name)
        history: list[int] = []
        for _ in range(marks):
            quiet = [m for m in position.legal_moves if not position.play(m).is_over]
            if not quiet:
                break
            move = rng.choice(quiet)
            history.append(move)
            position = position.play(move)
        if len(history) == marks:
            return history


@pytest.mark.parametrize(
    ("name", "mnk", "low", "high", "count"),
    [("4x4k3", (4, 4, 3), 7, 11, 200), ("4x4", (4, 4, 4), 9, 13, 120)],
)
def test_random_positions_match_openspiel_mnk(
    name: str, mnk: tuple[int, int, int], low: int, high: int, count: int
) -> None:
    columns, rows, k = mnk
    game = pyspiel.load_game("mnk", {"m": columns, "n": rows, "k": k})
    rng = random.Random(name)
    outcomes = set()
    for _ in range(count):
        history = _random_history(name, rng.randint(low, high), rng)
        state = game.new_initial_state()
        position = Position("", name)
        for action in history:
            state.apply_action(action)
            position = position.play(action)
        assert not state.is_terminal()
        assert sorted(state.legal_actions()) == list(position.legal_moves)
        value, _ = minimax.alpha_beta_search(game, state=state)
        ours = solve(position)
        assert _SIGN[ours.outcome] == value, position
        outcomes.add(ours.outcome)
    assert len(outcomes) >= 2  # a varied sample


def test_mnk_numbers_cells_like_us() -> None:
    """m is the number of columns: on 4 rows x 3 columns, action 4 is row 1, column 1."""
    game = pyspiel.load_game("mnk", {"m": 3, "n": 4, "k": 3})
    state = game.new_initial_state()
    state.apply_action(4)
    assert str(state).split("\n")[1] == ".x."
    assert Position("", "4x3k3").play(4).board == ".../.X./.../..."


# -- known results ------------------------------------------------------------------------
def _from_scratch(name: str) -> tuple[Value, int]:
    """The empty board's value by a fresh search (no table, no book) and its node count."""
    fresh = Solver(variant(name), use_book=False)
    score = fresh.score(0, 0)
    from noughts.exact.solver import to_value

    return to_value(score, 0, variant(name).cells), fresh.nodes


def test_3x3_is_a_draw() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    assert minimax.alpha_beta_search(game)[0] == 0.0
    assert _from_scratch("3x3")[0] == Value(Outcome.DRAW, 9)
    assert solve(Position()) == Value(Outcome.DRAW, 9)


def test_4x3k3_is_a_first_player_win() -> None:
    game = pyspiel.load_game("mnk", {"m": 3, "n": 4, "k": 3})
    assert minimax.alpha_beta_search(game)[0] == 1.0
    value, _ = _from_scratch("4x3k3")
    assert value.outcome is Outcome.WIN
    # OpenSpiel confirms the plies: a forced win within them, none within two fewer.
    within = minimax.alpha_beta_search(
        game, maximum_depth=value.plies, value_function=_no_heuristic
    )[0]
    sooner = minimax.alpha_beta_search(
        game, maximum_depth=value.plies - 2, value_function=_no_heuristic
    )[0]
    assert (within, sooner) == (1.0, 0.0)
    assert solve(Position("", "3x4k3")).outcome is Outcome.WIN  # its transpose


def test_4x4k3_is_a_first_player_win_in_5() -> None:
    value, _ = _from_scratch("4x4k3")
    assert value == Value(Outcome.WIN, 5)
    assert solve(Position("", "4x4k3")) == value
    game = pyspiel.load_game("mnk", {"m": 4, "n": 4, "k": 3})
    assert minimax.alpha_beta_search(game, maximum_depth=5, value_function=_no_heuristic)[0] == 1.0
    assert minimax.alpha_beta_search(game, maximum_depth=3, value_function=_no_heuristic)[0] == 0.0
    # ... and our first move is one that wins that fast.
    choice = best_move(Position("", "4x4k3"))
    assert choice.move in (5, 6, 9, 10) and choice.value == value


def test_4x4_is_a_draw() -> None:
    value, nodes = _from_scratch("4x4")
    assert value == Value(Outcome.DRAW, 16)
    assert nodes > 0
    assert solve(Position("", "4x4")) == value


def test_5x4k4_is_a_draw() -> None:
    value, _ = _from_scratch("5x4k4")
    assert value == Value(Outcome.DRAW, 20)
    assert solve(Position("", "4x5k4")) == value


def test_3x3x3_is_a_first_player_win() -> None:
    value, _ = _from_scratch("3x3x3")
    assert value == Value(Outcome.WIN, 7)
    assert solve(Position("", "3x3x3")) == value
    # OpenSpiel's gomoku on a 3x3x3 cube, connect 3, agrees that the centre wins:
    # once X holds it, every O reply loses within 6 more plies... (too slow for here), so
    # check a cheaper consequence: after X centre, O corner, X has a forced win in 5.
    game = pyspiel.load_game("gomoku", {"size": 3, "connect": 3, "dims": 3})
    state = game.new_initial_state()
    position = Position("", "3x3x3")
    for action in (13, 0):
        state.apply_action(action)
        position = position.play(action)
    ours = solve(position)
    assert ours.outcome is Outcome.WIN
    proof = minimax.alpha_beta_search(
        game, state=state, maximum_depth=ours.plies, value_function=_no_heuristic
    )[0]
    assert proof == 1.0
