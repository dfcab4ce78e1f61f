"""The proof search used in defence: O drops a reply after which X's forced win is found
within the move's budget, and, lost against perfect play, picks the reply hardest to
refute."""

from __future__ import annotations

import os
from typing import ClassVar

import pytest

import noughts.engine.plan as plan_module
import noughts.knowledge.shipped as shipped_module
import noughts.search.anytime as search_module
from noughts.budget import Limit
from noughts.engine import choose_move
from noughts.knowledge.shipped import Knowledge
from noughts.knowledge.strategy import Strategy, proven_replies, shipped_strategy, strategy_move
from noughts.position import Position
from noughts.results import Outcome
from noughts.search.defence import (
    ALONGSIDE_VARIABLE,
    CHECK_NODES,
    ChecksAlongside,
    ProofDefence,
    killing_reply,
)
from noughts.search.proof import find_win

# A game O lost to a four-ply searcher as X (the 4x4x4 seed's bot): X opened on cell 48.
GAME = [48, 37, 0, 21, 3, 5, 53, 17, 12]


HAND_WRITTEN = Knowledge(learned=False)
"""The games here were found with O's hand-written weights: with the learned tempo on
top, O's search at 100,000 nodes ends on the losing reply 25 after ``GAME`` with or
without the defence (it finds the escaping 36 at 300,000)."""


def _after(moves: list[int]) -> Position:
    position = Position("", "qubic")
    for move in moves:
        position = position.play(move)
    return position


def _x_wins_after(position: Position, move: int) -> bool:
    return find_win(position.play(move), limit=Limit(node_limit=CHECK_NODES)) is not None


def test_the_defence_avoids_the_reply_after_which_x_has_a_proven_win(
        monkeypatch: pytest.MonkeyPatch) -> None:
    position = _after(GAME)  # O's fifth move; some replies still escape a quick proof
    assert not proven_replies(position, shipped_strategy())  # the strategy is no help here
    monkeypatch.setattr(plan_module, "_DEFENCE_SHARE", 0.0)
    naive = choose_move(position, nodes=100_000, knowledge=HAND_WRITTEN)
    assert _x_wins_after(position, naive.move)  # the search's own best lets X win
    monkeypatch.undo()
    defended = choose_move(position, nodes=100_000, knowledge=HAND_WRITTEN)
    assert defended.move != naive.move and not defended.proven
    assert not _x_wins_after(position, defended.move)
    assert defended.nodes <= 100_000  # the checks share the move's budget


def test_a_check_proves_a_win_or_says_none_was_found_within_its_budget() -> None:
    position = _after(GAME)
    defence = ProofDefence(position, Limit(node_limit=2_000_000))
    assert not defence.check(25) and defence.refuted[25] > 1 and defence.effort[25] > 0
    assert defence.check(36) and 36 in defence.unrefuted
    assert defence.nodes > 0
    starved = ProofDefence(position, Limit(node_limit=10))
    assert starved.check(25) and not starved.refuted and not starved.unrefuted


def test_lost_against_perfect_play_o_picks_the_reply_hardest_to_refute(
        monkeypatch: pytest.MonkeyPatch) -> None:
    position = _after(GAME[:7])  # O's fourth move: most replies lose to a short proof
    book = Strategy("4x4x4")
    for move in position.legal_moves:  # a made-up strategy: every reply proven lost
        after = position.play(move)
        book.add(after, next(iter(after.legal_moves)), proven=True, plies=40)
    monkeypatch.setattr(shipped_module, "shipped_strategy", lambda: book)
    lost = proven_replies(position, book)
    assert len(lost) == len(position.legal_moves)
    defence = ProofDefence(position, Limit(node_limit=100_000_000))
    quick = [move for move in sorted(position.legal_moves) if not defence.check(move)]
    hard = [move for move in sorted(position.legal_moves) if move not in quick]
    assert quick and hard  # most replies are refuted by a small proof search, a few not
    # listed best first with the quickly refuted ones ahead, the choice skips them
    assert ProofDefence(position, Limit(node_limit=100_000_000)).choose(
        quick + hard) == hard[0]
    # checks that deepen may refute the rest too: then the hardest to refute is played
    chooser = ProofDefence(position, Limit(node_limit=100_000_000), deepen=True)
    chosen = chooser.choose(quick + hard)
    left = [move for move in hard if move not in chooser.refuted]
    assert chosen in hard and chosen == (left[0] if left else max(
        hard, key=lambda m: (chooser.effort[m], chooser.refuted[m])))
    # when all are refuted, the one whose refutation took the largest proof is played
    refuted = ProofDefence(position, Limit(node_limit=100_000_000))
    assert refuted.choose(quick[:5]) == max(
        quick[:5], key=lambda m: (refuted.effort[m], refuted.refuted[m]))
    assert len({refuted.effort[m] for m in quick[:5]}) > 1
    # the engine's answer: a reply not refuted quickly, reported as the strategy's loss
    choice = choose_move(position, nodes=300_000, knowledge=HAND_WRITTEN)
    assert choice.move in hard
    assert (choice.proven, choice.outcome, choice.plies) == (True, "loss", lost[choice.move])


# Opening 5 of the seed's bot (its Java code opens on cells 0-15) against the engine
# through the service: O's 31 here let X's quiet 63 reach a position where every O move
# is proven lost; a first check of CHECK_NODES positions finds nothing after 31.
OPENING_5 = [5, 51, 21, 15, 26, 37, 25, 27, 39]


def test_the_checks_deepen_until_the_limit_and_refute_a_quiet_win() -> None:
    position = _after(OPENING_5)
    first = ProofDefence(position, Limit(node_limit=100_000_000))
    assert first.check(31) and first.cleared[31] == CHECK_NODES  # nothing found at first
    deep = ProofDefence(position, Limit(node_limit=40_000_000), deepen=True)  # 5M positions
    chosen = deep.choose([31, 42, 17])
    assert 31 in deep.refuted and chosen != 31
    assert find_win(position.play(31).play(63), limit=Limit(node_limit=2_000_000)) is None
    assert deep.nodes <= 40_000_000


# A family game through the service (X the seed's bot at look-ahead 3, random ties): O to
# move, lost to every reply by the deepening search's own proof. Its slowest loss, 35,
# falls to X's 44 in a few hundred proof positions; after 18 none is found.
SEARCH_LOST = Position.from_bitboards(sum(1 << c for c in (22, 33, 36, 48, 51, 60)),
                                      sum(1 << c for c in (12, 37, 38, 41, 52)), "qubic")


def test_a_loss_the_search_proves_is_played_where_it_is_hardest_to_refute() -> None:
    assert killing_reply(SEARCH_LOST.play(35), 20_000, root_nodes=20_000) is not None
    chosen = choose_move(SEARCH_LOST, nodes=16_000_000)
    assert chosen.value is not None and chosen.value.outcome is Outcome.LOSS
    assert chosen.move != 35 and "hardest to refute" in chosen.note
    assert killing_reply(SEARCH_LOST.play(chosen.move), 20_000, root_nodes=20_000) is None


def test_only_the_second_player_defends_by_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []

    class Recording(ProofDefence):
        def check(self, move: int, spent: int = 0, nodes: int | None = None) -> bool:
            checked.append(self.position.to_move)
            return super().check(move, spent, nodes)

    monkeypatch.setattr(search_module, "ProofDefence", Recording)
    off_strategy = Position("", "qubic").play(1).play(0)  # X opened on an edge: no book
    assert strategy_move(off_strategy, shipped_strategy()) is None
    choose_move(off_strategy, nodes=50_000, knowledge=HAND_WRITTEN)
    assert checked == []
    choose_move(_after(GAME), nodes=100_000, knowledge=HAND_WRITTEN)
    assert checked and set(checked) == {"O"}


class _Recording(ChecksAlongside):
    made: ClassVar[list[_Recording]] = []

    def __init__(self, position: Position, limit: Limit) -> None:
        super().__init__(position, limit)
        self.orders: list[list[int]] = []
        _Recording.made.append(self)

    def follow(self, order: list[int]) -> None:
        self.orders.append(order)
        super().follow(order)


def test_under_a_time_limit_the_checks_run_alongside_the_deepening(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "ChecksAlongside", _Recording)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})  # two cores
    monkeypatch.setenv(ALONGSIDE_VARIABLE, "1")
    _Recording.made.clear()
    position = _after(GAME)
    choice = choose_move(position, time_limit=1.0, knowledge=HAND_WRITTEN)
    [checks] = _Recording.made
    assert checks.orders and not checks._thread.is_alive()  # followed, then finished
    assert checks.defence.searched  # the checks ran (on the deepening's orders)
    searched = checks.defence.position  # (the engine searches the board's canonical image)
    assert all(set(order) <= set(searched.legal_moves) for order in checks.orders)
    assert not _x_wins_after(position, choice.move)  # (the quick refutations avoided)
    assert checks.defence.limit.deadline is not None  # its own limit back for the choice
    # a node limit keeps one answer on every path: the checks come after the deepening
    choose_move(position, nodes=100_000, knowledge=HAND_WRITTEN)
    assert len(_Recording.made) == 1
    # and without the environment's word they stay there under a time limit too
    monkeypatch.delenv(ALONGSIDE_VARIABLE)
    choose_move(position, time_limit=0.3, knowledge=HAND_WRITTEN)
    assert len(_Recording.made) == 1


def test_checks_alongside_restart_only_when_the_first_move_changes() -> None:
    position = _after(OPENING_5)
    checks = ChecksAlongside(position, Limit.within(0.4))
    checks.follow([31, 42, 17])
    checks.follow([31, 17, 42])  # the same first move: the checks go on
    assert checks._version == 1
    checks.follow([42, 31, 17])
    assert checks._version == 2
    checks.finish()
    checks.follow([17])  # after finish nothing starts again
    assert checks._version == 2 and not checks._thread.is_alive()
    assert checks.defence.searched and set(checks.defence.searched) <= {31, 42, 17}
