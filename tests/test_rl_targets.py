"""Training targets (issue 52, point 5): every cell's exact value in ``info``, and
symmetry augmentation that keeps observations, masks, actions and values together."""

from __future__ import annotations

import numpy as np
import pytest

from noughts import Position
from noughts.errors import NoughtsError
from noughts.rl import NoughtsEnv, NoughtsVectorEnv, exact_view, observe
from noughts.rl.augment import augment, symmetries
from noughts.rl.tables import NO_MOVE, WIN


def _random_positions(name: str, count: int, seed: int) -> list[Position]:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        position = Position("", name)
        for _ in range(int(rng.integers(0, 8))):
            if position.is_over:
                break
            position = position.play(int(rng.choice(list(position.legal_moves))))
        if not position.is_over:
            positions.append(position)
    return positions


def test_move_values_say_each_moves_exact_value() -> None:
    for position in _random_positions("3x3", 40, 1):
        view = exact_view(position)
        assert view is not None
        for cell, score in enumerate(view.move_values):
            if cell not in position.legal_moves:
                assert score == NO_MOVE
                continue
            after = exact_view(position.play(cell))
            if after is None:  # the move ended the game
                result = position.play(cell).result
                assert result is not None
                assert score == (WIN - 1 if result.winner is not None else 0)
            else:  # one ply more than the reply's value, seen from the other side
                reply = after.value
                expected = {"win": reply.plies + 1 - WIN, "loss": WIN - reply.plies - 1,
                            "draw": 0}[reply.outcome.value]  # fmt: skip
                assert score == expected


def test_the_batched_and_single_move_values_agree() -> None:
    envs = NoughtsVectorEnv(4, "3x3", "random", "alternate")
    _, info = envs.reset(seed=2)
    for board in range(4):
        single = exact_view(envs.position(board))
        assert single is not None
        assert info["move_values"][board].tolist() == list(single.move_values)
    env = NoughtsEnv("3x3", agent="O", opponent="exact")
    _, info = env.reset(seed=0)
    assert info["move_values"] == exact_view(env.position).move_values  # type: ignore[union-attr]
    assert len(info["move_values"]) == 9


@pytest.mark.parametrize("name", ["3x3", "4x4k3", "3x3x3"])
def test_augmented_samples_are_the_images_positions(name: str) -> None:
    perms = symmetries(name)
    positions = _random_positions(name, 6, 3)
    seen = [observe(position, position.to_move) for position in positions]
    values = np.array([exact_view(position).move_values for position in positions])  # type: ignore[union-attr]
    actions = np.array([min(position.legal_moves) for position in positions])
    images = augment(
        name, observation=np.stack([each["observation"] for each in seen]),
        action_mask=np.stack([each["action_mask"] for each in seen]), action=actions,
        cell_values=values,
    )  # fmt: skip
    assert len(images["observation"]) == len(perms) and (perms[0] == np.arange(len(perms[0]))).all()
    for s, perm in enumerate(perms):
        for index, position in enumerate(positions):
            x = sum(1 << int(perm[cell]) for cell in range(len(perm)) if position.x >> cell & 1)
            o = sum(1 << int(perm[cell]) for cell in range(len(perm)) if position.o >> cell & 1)
            image = Position.from_bitboards(x, o, position.variant)
            expected = observe(image, image.to_move)
            assert np.array_equal(images["observation"][s, index], expected["observation"])
            assert np.array_equal(images["action_mask"][s, index], expected["action_mask"])
            assert images["action"][s, index] == perm[actions[index]]
            image_view = exact_view(image)
            assert image_view is not None
            assert images["cell_values"][s, index].tolist() == list(image_view.move_values)


def test_augment_names_bad_shapes() -> None:
    with pytest.raises(NoughtsError, match="observation batch"):
        augment("3x3", observation=np.zeros((2, 4, 4, 2)))
    with pytest.raises(NoughtsError, match="action_mask"):
        augment("3x3", action_mask=np.zeros((2, 8)))
    with pytest.raises(NoughtsError, match="actions"):
        augment("3x3", action=np.array([9]))


def _highest_legal(seen: dict[str, np.ndarray]) -> np.ndarray:
    """A frozen 'policy' on batched observations: the highest legal cell."""
    mask = seen["action_mask"].astype(bool)
    return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)


@pytest.mark.parametrize(("name", "agent"), [("3x3", "alternate"), ("4x4k3", "O"), ("qubic", "X")])
def test_a_frozen_policy_opponent_in_the_batch(name: str, agent: str) -> None:
    envs = NoughtsVectorEnv(5, name, _highest_legal, agent, exact_info=False)  # type: ignore[arg-type]
    assert envs.opponent == "policy" and envs.native is None  # a Python function: NumPy
    singles = [NoughtsEnv(name, lambda p: max(p.legal_moves), agent, exact_info=False)  # type: ignore[arg-type]
               for _ in range(5)]  # fmt: skip
    observation, _ = envs.reset(seed=4)
    seen = [single.reset(seed=4)[0] for single in singles]
    rng = np.random.default_rng(4)
    ends = 0
    over = np.zeros(5, dtype=bool)
    for _ in range(30):
        for board, single_seen in enumerate(seen):
            assert np.array_equal(observation["observation"][board], single_seen["observation"])
        mask = observation["action_mask"].astype(bool)
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        observation, reward, terminated, _, _ = envs.step(actions)
        for board, single in enumerate(singles):
            if over[board]:
                seen[board] = single.reset()[0]
                continue
            seen[board], single_reward, single_end, _, _ = single.step(int(actions[board]))
            assert (reward[board], terminated[board]) == (single_reward, single_end)
        over = terminated
        ends += int(terminated.sum())
    assert ends >= 5


def test_a_policy_that_plays_illegally_is_named() -> None:
    envs = NoughtsVectorEnv(2, "3x3", lambda seen: np.zeros(2, dtype=int), "O")
    envs.reset(seed=0)  # the policy opens on cell 0
    with pytest.raises(NoughtsError, match="illegal cell: 0"):
        envs.step(np.array([4, 4]))
    with pytest.raises(NoughtsError, match="integer array of 2 cells"):
        NoughtsVectorEnv(2, "3x3", lambda seen: [0.5, 1.5], "O").reset(seed=0)
