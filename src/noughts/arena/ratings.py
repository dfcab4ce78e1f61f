"""Match statistics: score, its 95% interval, Elo differences and a round-robin Elo table.

The score of a match is ``(wins + draws / 2) / games``. Its 95% interval is the normal
interval ``score ± 1.96·sd/√games`` where ``sd`` is the standard deviation of the
per-game results (1, ½, 0), so draws narrow it as they should; when every game ended
the same way that spread is zero and the Wilson interval for a proportion is used
instead. The Elo difference of a score ``s`` is ``400·log10(s / (1 - s))``; its
interval maps the ends of the score interval (Elo is monotone in the score). A score
of 0 or 1 has an infinite Elo difference, reported as ``None``.

>>> s = match_stats(60, 20, 20)
>>> round(s.score, 2), [round(x, 4) for x in s.score_ci95]
(0.7, [0.6216, 0.7784])
>>> round(s.elo, 1), [round(x, 1) for x in s.elo_ci95]
(147.2, [86.2, 218.3])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from noughts.errors import NoughtsError

__all__ = [
    "Z95",
    "MatchStats",
    "match_stats",
    "score_interval",
    "elo_from_score",
    "score_from_elo",
    "EloRow",
    "elo_table",
]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


@dataclass(frozen=True)
class MatchStats:
    """A match from one player's view: counts, score and Elo difference with intervals."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    score_ci95: tuple[float, float]
    elo: float | None
    elo_ci95: tuple[float | None, float | None]

    def as_json(self) -> dict[str, object]:
        """The arena's JSON keys: games, wins, draws, losses, score, score_ci95, elo, elo_ci95.

        >>> match_stats(3, 1, 0).as_json()["score_ci95"][1]
        1.0
        """
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "score_ci95": list(self.score_ci95),
            "elo": self.elo,
            "elo_ci95": list(self.elo_ci95),
        }


def score_interval(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """The 95% interval of the score (see the module docstring).

    >>> score_interval(50, 0, 50)
    (0.4020018007729973, 0.5979981992270027)
    >>> [round(x, 4) for x in score_interval(100, 0, 0)]   # Wilson: all wins
    [0.963, 1.0]
    """
    games = wins + draws + losses
    if games <= 0:
        raise NoughtsError("a score interval needs at least one game")
    score = (wins + draws / 2) / games
    variance = (
        wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2
    ) / games
    if variance > 0:
        half = Z95 * math.sqrt(variance / games)
        return max(0.0, score - half), min(1.0, score + half)
    z2 = Z95 * Z95
    centre = (score + z2 / (2 * games)) / (1 + z2 / games)
    half = Z95 * math.sqrt(score * (1 - score) / games + z2 / (4 * games * games))
    half /= 1 + z2 / games
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_from_score(score: float) -> float | None:
    """The Elo difference that predicts ``score``; ``None`` (infinite) at 0 and 1.

    >>> round(elo_from_score(0.75), 1), elo_from_score(0.5), elo_from_score(1.0)
    (190.8, 0.0, None)
    """
    if not 0 <= score <= 1:
        raise NoughtsError(f"a score lies between 0 and 1, not {score!r}")
    if score in (0.0, 1.0):
        return None
    return 400 * math.log10(score / (1 - score))


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger.

    >>> round(score_from_elo(400), 4)
    0.9091
    """
    return 1 / (1 + 10 ** (-elo / 400))


def match_stats(wins: int, draws: int, losses: int) -> MatchStats:
    """Score, interval and Elo difference of ``wins``/``draws``/``losses``."""
    for name, count in (("wins", wins), ("draws", draws), ("losses", losses)):
        if count < 0:
            raise NoughtsError(f"{name} cannot be negative, got {count}")
    games = wins + draws + losses
    score = (wins + draws / 2) / games if games else 0.5
    low, high = score_interval(wins, draws, losses) if games else (0.0, 1.0)
    return MatchStats(
        games=games,
        wins=wins,
        draws=draws,
        losses=losses,
        score=score,
        score_ci95=(low, high),
        elo=elo_from_score(score) if games else None,
        elo_ci95=(elo_from_score(low), elo_from_score(high)),
    )


@dataclass(frozen=True)
class EloRow:
    """One player's line in a round-robin table: Elo relative to the anchor, ± 95%."""

    name: str
    elo: float
    ci95: float
    games: int
    score: float


def elo_table(
    names: Sequence[str],
    results: dict[tuple[int, int], tuple[int, int, int]],
    *,
    anchor: int = 0,
    prior_draws: float = 1.0,
) -> list[EloRow]:
    """Maximum-likelihood Elo ratings from pairwise results, the ``anchor`` player at 0.

    ``results[(i, j)]`` holds (wins, draws, losses) of player ``i`` against ``j``. A draw
    counts as half a win (the Bradley-Terry model). ``prior_draws`` virtual draws per
    pair keep ratings finite when a player wins every game. The ± is 1.96 standard
    errors from the curvature of the likelihood. Rows come back strongest first.

    >>> rows = elo_table(["a", "b"], {(1, 0): (75, 0, 25)}, prior_draws=0)
    >>> [(r.name, round(r.elo, 1)) for r in rows]
    [('b', 190.8), ('a', 0.0)]
    """
    count = len(names)
    if not 0 <= anchor < count:
        raise NoughtsError(f"anchor {anchor} is not one of the {count} players")
    points = [[0.0] * count for _ in range(count)]  # points[i][j]: i's score against j
    played = [[0.0] * count for _ in range(count)]
    for (i, j), (wins, draws, losses) in results.items():
        games = wins + draws + losses
        points[i][j] += wins + draws / 2
        points[j][i] += losses + draws / 2
        played[i][j] += games
        played[j][i] += games
    for i in range(count):
        for j in range(count):
            if i != j and played[i][j] > 0 and prior_draws:
                points[i][j] += prior_draws / 2
                played[i][j] += prior_draws
    strength = [1.0] * count
    for _ in range(10000):  # the minorise-maximise iteration for Bradley-Terry
        changed = 0.0
        for i in range(count):
            total = sum(points[i])
            denominator = sum(
                played[i][j] / (strength[i] + strength[j]) for j in range(count) if j != i
            )
            if total <= 0 or denominator <= 0:
                continue
            new = total / denominator
            changed = max(changed, abs(math.log(new / strength[i])))
            strength[i] = new
        if changed < 1e-10:
            break
    ratings = [400 * math.log10(s / strength[anchor]) for s in strength]
    errors = _standard_errors(strength, played, anchor)
    rows = []
    for i, name in enumerate(names):
        games = int(sum(played[i]) - (prior_draws * sum(1 for p in played[i] if p)))
        own = sum(points[i]) - prior_draws / 2 * sum(1 for p in played[i] if p)
        rows.append(
            EloRow(name, ratings[i], Z95 * errors[i], games, own / games if games else 0.5)
        )
    rows.sort(key=lambda row: -row.elo)
    return rows


def _standard_errors(strength: list[float], played: list[list[float]], anchor: int) -> list[float]:
    """Standard errors of Elo ratings (anchor fixed) from the inverse Fisher information."""
    count = len(strength)
    scale = 400 / math.log(10)
    free = [i for i in range(count) if i != anchor]
    info = [[0.0] * len(free) for _ in free]
    for a, i in enumerate(free):
        for j in range(count):
            if j == i:
                continue
            p = strength[i] / (strength[i] + strength[j])
            weight = played[i][j] * p * (1 - p)
            info[a][a] += weight
            if j != anchor:
                info[a][free.index(j)] -= weight
    inverse = _invert(info)
    errors = [0.0] * count
    for a, i in enumerate(free):
        errors[i] = scale * math.sqrt(inverse[a][a]) if inverse and inverse[a][a] > 0 else math.inf
    return errors


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse; an empty list if the matrix is singular."""
    size = len(matrix)
    work = [row[:] + [1.0 if i == j else 0.0 for j in range(size)] for i, row in enumerate(matrix)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(work[r][column]))
        if abs(work[pivot][column]) < 1e-12:
            return []
        work[column], work[pivot] = work[pivot], work[column]
        factor = work[column][column]
        work[column] = [value / factor for value in work[column]]
        for row in range(size):
            if row != column and work[row][column]:
                ratio = work[row][column]
                work[row] = [v - ratio * w for v, w in zip(work[row], work[column], strict=True)]
    return [row[size:] for row in work]
