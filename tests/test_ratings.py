"""Score, interval and Elo arithmetic against worked examples."""

from __future__ import annotations

import math

import pytest

from noughts.arena.ratings import (
    elo_from_score,
    elo_table,
    match_stats,
    score_from_elo,
    score_interval,
)
from noughts.errors import NoughtsError


def test_worked_example_with_draws() -> None:
    # 60 wins, 20 draws, 20 losses: score 0.7; per-game variance
    # (60*0.3^2 + 20*0.2^2 + 20*0.7^2)/100 = 0.16, sd/sqrt(100) = 0.04, half-width 1.96*0.04.
    stats = match_stats(60, 20, 20)
    assert stats.score == pytest.approx(0.7)
    low, high = stats.score_ci95
    assert low == pytest.approx(0.7 - 1.959964 * 0.04, abs=1e-6)
    assert high == pytest.approx(0.7 + 1.959964 * 0.04, abs=1e-6)
    # Elo: 400*log10(0.7/0.3) = 147.19; ends map through the same formula.
    assert stats.elo == pytest.approx(147.19, abs=0.01)
    assert stats.elo_ci95[0] == pytest.approx(400 * math.log10(low / (1 - low)))
    assert stats.elo_ci95[1] == pytest.approx(400 * math.log10(high / (1 - high)))


def test_draws_narrow_the_interval() -> None:
    decisive = score_interval(50, 0, 50)
    drawish = score_interval(10, 80, 10)
    assert decisive[1] - decisive[0] == pytest.approx(2 * 1.959964 * 0.05, abs=1e-6)
    assert drawish[1] - drawish[0] < (decisive[1] - decisive[0]) / 2


def test_all_wins_uses_wilson() -> None:
    low, high = score_interval(100, 0, 0)
    z2 = 1.959964**2
    assert low == pytest.approx(100 / (100 + z2), abs=1e-6)  # Wilson lower bound at p=1
    assert high == 1.0
    stats = match_stats(100, 0, 0)
    assert stats.elo is None and stats.elo_ci95[1] is None
    assert stats.elo_ci95[0] == pytest.approx(400 * math.log10(low / (1 - low)))


def test_elo_and_expected_score_are_inverse() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert score_from_elo(190.85) == pytest.approx(0.75, abs=1e-4)
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.0) is None
    with pytest.raises(NoughtsError):
        elo_from_score(1.5)


def test_elo_table_recovers_pairwise_differences() -> None:
    # A chain: b beats a 75%, c beats b 75% -> b at +190.8, c at +381.7 (a = 0).
    results = {(1, 0): (75, 0, 25), (2, 1): (60, 30, 10)}
    rows = {r.name: r for r in elo_table(["a", "b", "c"], results, prior_draws=0)}
    assert rows["a"].elo == pytest.approx(0.0, abs=1e-6)
    assert rows["b"].elo == pytest.approx(190.85, abs=0.05)
    assert rows["c"].elo == pytest.approx(190.85 * 2, abs=0.1)
    assert rows["b"].games == 200 and rows["c"].score == pytest.approx(0.75)
    assert 0 < rows["b"].ci95 < rows["c"].ci95


def test_elo_table_stays_finite_with_a_perfect_score() -> None:
    rows = elo_table(["weak", "strong"], {(1, 0): (50, 0, 0)})
    assert rows[0].name == "strong" and math.isfinite(rows[0].elo) and rows[0].elo > 300


def test_bad_counts_are_errors() -> None:
    with pytest.raises(NoughtsError, match="wins cannot be negative"):
        match_stats(-1, 0, 0)
    with pytest.raises(NoughtsError, match="at least one game"):
        score_interval(0, 0, 0)
