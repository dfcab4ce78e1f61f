"""The compiled batched step against its NumPy reference (issue 52, point 1): the same
games for the same seeds and actions, on every kind of board and opponent."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

from noughts.errors import NoughtsError
from noughts.rl import NoughtsVectorEnv
from noughts.rl.native import available, build_table
from noughts.rl.tables import _build_reference, exact_table, line_cells
from noughts.variants import variant

STATE = ("board", "ply", "steps", "agent", "index", "over", "_episodes")


def test_the_compiled_step_is_built() -> None:
    assert available(), "build it: sh build_core (the ext-modules of pyproject.toml)"


def _pair(boards: int, *args: object, **options: object) -> tuple[NoughtsVectorEnv, ...]:
    native = NoughtsVectorEnv(boards, *args, native=True, **options)  # type: ignore[arg-type]
    reference = NoughtsVectorEnv(boards, *args, native=False, **options)  # type: ignore[arg-type]
    assert native.native is not None and reference.native is None
    return native, reference


def _same(native: NoughtsVectorEnv, reference: NoughtsVectorEnv, *answers: object) -> None:
    first, second = answers[: len(answers) // 2], answers[len(answers) // 2 :]
    assert data_equivalence(first, second, exact=True)
    for name in STATE:
        assert np.array_equal(getattr(native, name), getattr(reference, name)), name


def _actions(rng: np.random.Generator, mask: np.ndarray, illegal: float) -> np.ndarray:
    """Random legal cells, with about ``illegal`` of them replaced by a bad one."""
    actions = np.where(mask.astype(bool), rng.random(mask.shape), -1.0).argmax(axis=1)
    bad = rng.random(len(actions)) < illegal
    actions[bad] = rng.integers(-2, mask.shape[1] + 2, int(bad.sum()))
    return actions


@pytest.mark.parametrize(
    ("variant_name", "opponent", "agent", "mode", "limit"),
    [
        ("3x3", "random", "X", "NextStep", None),
        ("3x3", "rules", "alternate", "SameStep", None),
        ("3x3", "exact", "O", "NextStep", 3),
        ("3x3", None, "X", "SameStep", None),
        ("3x3-misere", "exact", "alternate", "SameStep", None),
        ("3x3-misere", None, "X", "NextStep", None),
        ("4x4k3", "random", "O", "SameStep", None),
        ("4x4k3", "exact", "alternate", "NextStep", 5),
        ("5x5k4", "rules", "alternate", "NextStep", 6),
        ("3x3x3", "random", "alternate", "SameStep", None),
        ("qubic", "rules", "O", "NextStep", None),
        ("qubic", None, "X", "SameStep", 20),
        ("qubic-misere", "random", "X", "NextStep", None),
        ("8x8k5", "random", "alternate", "SameStep", None),
    ],
)
def test_the_same_games_as_the_numpy_reference(
    variant_name: str, opponent: str | None, agent: str, mode: str, limit: int | None
) -> None:
    native, reference = _pair(
        7, variant_name, opponent, agent, exact_info=variant(variant_name).geometry.cells <= 16,
        autoreset_mode=mode, max_episode_steps=limit,
    )  # fmt: skip
    _same(native, reference, native.reset(seed=3), reference.reset(seed=3))
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(80):
        mask = native.action_masks()
        actions = _actions(rng, mask, illegal=0.03)
        answers = native.step(actions), reference.step(actions)
        _same(native, reference, *answers)
        ends += int((answers[0][2] | answers[0][3]).sum())
        assert np.array_equal(native.random_actions(), reference.random_actions())
    assert ends > 7
    masked = np.arange(7) % 2 == 0  # a partial reset, as Disabled mode asks
    options = {"reset_mask": masked}
    _same(native, reference, native.reset(options=options), reference.reset(options=options))


def test_seed_lists_copies_and_pickles_go_on_alike() -> None:
    native, reference = _pair(5, "4x4k3", "random", "alternate", exact_info=False)
    seeds = [1, 2, 3, 4, 5]
    _same(native, reference, native.reset(seed=seeds), reference.reset(seed=seeds))
    for twin_of in (copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))):
        twin = twin_of(native)
        assert twin.native is not None and twin.native.batch is not native.native.batch
        actions = twin.random_actions()
        assert np.array_equal(actions, native.random_actions())  # the same generator state
        _same(twin, native, twin.step(actions), native.step(actions))
    _same(native, reference, native.reset(seed=0), reference.reset(seed=0))


def test_native_is_refused_where_it_cannot_play() -> None:
    with pytest.raises(NoughtsError, match="compiled step"):
        NoughtsVectorEnv(2, "qubic", opponent="exact", agent="O", native=True)
    assert NoughtsVectorEnv(2, "qubic", opponent="exact", agent="O").native is None


@pytest.mark.parametrize("variant_name", ["3x3", "3x3-misere", "4x3k3", "3x4", "2x5k2"])
def test_the_compiled_table_equals_the_numpy_one(variant_name: str) -> None:
    game = variant(variant_name)
    geometry = game.geometry
    built = build_table(geometry, line_cells(geometry), game.misere)
    assert built is not None
    values, positions = built
    expected = _build_reference(geometry, game.misere)
    assert positions == expected.positions
    assert np.array_equal(values, expected.values)
    assert exact_table(game).positions == positions


def test_the_16_cell_tables_reach_every_position() -> None:
    # the NumPy walk's counts (ply by ply, every position); the values: tests/test_rl_vector.py
    assert exact_table("4x4k3").positions == 6_036_001
    assert exact_table("4x4").positions == 9_722_011
