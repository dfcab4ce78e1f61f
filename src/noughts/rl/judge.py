"""The judge: how a policy fares against an opponent, and how often it throws a result away.

A *blunder* is a move from a won position to one that is not won, or from a drawn
position to a lost one, by the exact values of :mod:`noughts.rl.exact`. Only the
positions the exact solver can finish on the spot are judged (every position of 3x3,
4x4k3, 4x4 and 3x3x3; the late game of larger boards); :attr:`Judgement.judged_moves`
says how many of the policy's moves that was.

>>> result = evaluate("random", "3x3", games=20, opponent=10, seed=3)
>>> result.wins, result.judged_moves == result.moves, result.blunder_rate > 0
(0, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.players.game import play_game
from noughts.players.protocol import Player
from noughts.position import Position, other
from noughts.results import Mark
from noughts.rl.exact import exact_view
from noughts.rl.opponents import opponent_allowance, player_spec
from noughts.variants import variant

__all__ = ["Judgement", "evaluate"]

PolicySide = Literal["X", "O", "alternate"]


@dataclass(frozen=True)
class Judgement:
    """A policy's games against an opponent, judged move by move against exact values.

    ``moves`` counts the policy's moves, ``judged_moves`` those made where the exact
    solver could judge them, ``blunders`` those that threw a result away. A policy that
    raises or plays an illegal move loses that game (``forfeits``, first ``forfeit_reason``).
    """

    policy: str
    opponent: str
    variant: str
    games: int
    wins: int
    draws: int
    losses: int
    moves: int
    judged_moves: int
    blunders: int
    forfeits: int = 0
    forfeit_reason: str | None = None

    @property
    def blunder_rate(self) -> float:
        """Blunders per judged move (0.0 when no move could be judged)."""
        return self.blunders / self.judged_moves if self.judged_moves else 0.0

    @property
    def note(self) -> str:
        """What the blunder rate covers, in words.

        >>> evaluate(10, "3x3", games=1).note
        'blunders judged on 5 of 5 moves (positions the exact solver can solve)'
        """
        return (
            f"blunders judged on {self.judged_moves} of {self.moves} moves "
            "(positions the exact solver can solve)"
        )


def evaluate(
    policy: object,
    variant_name: str | Geometry = "3x3",
    games: int = 100,
    opponent: object = 10,
    *,
    policy_plays: PolicySide = "alternate",
    seed: int = 0,
) -> Judgement:
    """Play ``games`` games of ``policy`` against ``opponent`` and judge the policy's moves.

    ``policy`` and ``opponent`` are engine levels (``int``) or anything a player spec can
    be (a spec string, a player or a player class, an object whose ``move(position)``
    answers a cell, a function ``f(position) -> cell``). The games are played by the one
    game loop, :func:`noughts.players.game.play_game`.
    ``policy_plays`` ``"alternate"`` gives the policy X in even-numbered games and O in the
    others. Game ``i`` seeds both players from ``seed`` and ``i``.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise NoughtsError(f"games must be a positive integer, not {games!r}")
    if policy_plays not in ("X", "O", "alternate"):
        raise NoughtsError(f"policy_plays must be 'X', 'O' or 'alternate', not {policy_plays!r}")
    kind = variant(variant_name)
    policy_spec, opponent_spec = player_spec(policy), player_spec(opponent)
    allowance = opponent_allowance()  # engine players: nodes, so a seed replays its games
    tally = {"win": 0, "draw": 0, "loss": 0, "moves": 0, "judged": 0, "blunders": 0}
    forfeits, forfeit_reason = 0, None
    for index in range(games):
        alternate_x = policy_plays == "alternate" and index % 2 == 0
        mark: Mark = "X" if policy_plays == "X" or alternate_x else "O"
        players: dict[Mark, Player] = {
            mark: policy_spec.create(seed=seed * 1_000_003 + 2 * index, allowance=allowance),
            other(mark): opponent_spec.create(
                seed=seed * 1_000_003 + 2 * index + 1, allowance=allowance
            ),
        }
        start = Position("", kind)
        game = play_game(players, start)
        _judge_moves(start, game.moves, mark, tally)
        if game.failure is not None and game.result != mark:  # the policy failed
            forfeits += 1
            forfeit_reason = forfeit_reason or game.reason
        result = game.result
        tally["draw" if result == "draw" else "win" if result == mark else "loss"] += 1
    return Judgement(
        policy=policy_spec.name,
        opponent=opponent_spec.name,
        variant=kind.name,
        games=games,
        wins=tally["win"],
        draws=tally["draw"],
        losses=tally["loss"],
        moves=tally["moves"],
        judged_moves=tally["judged"],
        blunders=tally["blunders"],
        forfeits=forfeits,
        forfeit_reason=forfeit_reason,
    )


def _judge_moves(
    position: Position, moves: tuple[int, ...], mark: Mark, tally: dict[str, int]
) -> None:
    """Count the moves of ``mark`` in the game, the judged ones and the blunders."""
    for move in moves:
        if position.to_move == mark:
            tally["moves"] += 1
            view = exact_view(position)
            if view is not None:
                tally["judged"] += 1
                tally["blunders"] += view.is_blunder(move)
        position = position.play(move)
