"""Build a first player's winning strategy offline, in independent jobs, resumably.

The builder grows a :class:`~noughts.anytime.strategy.Strategy` from the empty board.
A *survey* walks the strategy as it stands: from each stored position it plays the
stored move and tries every reply of the opponent (one per symmetry class); a reply
that the threat search wins at once is a leaf, one that leads to a stored position is
followed, and the rest are *jobs*. A job is a proof search (:mod:`noughts.anytime.proof`)
on one position with a time budget, run by any :class:`concurrent.futures.Executor`
(local processes by default, so a cluster's executor can take the same jobs):

* proven: every position of its proof where the first player makes a quiet move (not
  the start of a threat chain) is stored as proven;
* not proven in time: the search's best move is stored as *open* and the next survey
  makes a job of each reply, so the work splits into smaller subtrees;
* disproven: the move that led there was a mistake; it is reported in the frontier.

An unfinished job deep in the game (:data:`SPLIT_LIMIT`) is not split but set aside.

Jobs run deepest first, a few at a time between surveys, so subtrees are finished
(and proven) one after another rather than every subtree split at once. The strategy
file is the checkpoint: it is saved after every finished job, and a new run starts with
a survey of what is there. An entry turns proven when every reply below it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

from noughts.anytime.board import SearchBoard
from noughts.anytime.evaluate import line_weights
from noughts.anytime.proof import CHAIN_NODES, ProofSearch
from noughts.anytime.strategy import Strategy
from noughts.anytime.threats import ThreatSearch
from noughts.budget import Budget
from noughts.position import Position

__all__ = ["JobResult", "Survey", "build_strategy", "run_job", "survey"]

TABLE_LIMIT = 4_000_000
"""A worker drops its proof table past this many entries."""

_tables: dict[str, dict[int, list[int]]] = {}
"""Each worker process keeps one proof table per variant between jobs: neighbouring
subtrees share many positions."""


@dataclass(frozen=True)
class JobResult:
    """What one job settled for its position (first player to move)."""

    x: int
    o: int
    status: str  # "proven", "open" or "disproven"
    move: int | None
    proof: tuple[tuple[int, int, int, int], ...]
    """``(x, o, move, plies)`` of the proof's positions where the move is quiet."""
    nodes: int
    seconds: float
    plies: int = 0
    """The most plies the proof lets the game last (0 unless proven)."""


def run_job(variant_name: str, x: int, o: int, seconds: float) -> JobResult:
    """Search one position for ``seconds`` (a function of plain values, for any
    executor)."""
    start = time.perf_counter()
    position = Position.from_bitboards(x, o, variant_name)
    player = 0 if position.to_move == "X" else 1
    board = SearchBoard(position, line_weights(position.geometry.k), player, track_gains=False)
    table = _tables.setdefault(variant_name, {})
    if len(table) > TABLE_LIMIT:
        table.clear()
    search = ProofSearch(board, player, table=table)
    pn, dn = search.run(Budget.within(seconds))
    elapsed = time.perf_counter() - start
    if not pn:
        proof = tuple((px, po, move, plies)
                      for px, po, move, chain, plies in search.proof() if not chain)
        return JobResult(x, o, "proven", search.best_move(), proof, search.nodes, elapsed,
                         search.plies())
    status = "disproven" if not dn else "open"
    return JobResult(x, o, status, search.best_move(), (), search.nodes, elapsed)


@dataclass
class Survey:
    """The strategy as it stands: jobs to run and the frontier in numbers."""

    jobs: list[Position] = field(default_factory=list)
    stored: int = 0
    proven: int = 0
    leaves: int = 0
    by_depth: dict[int, list[int]] = field(default_factory=dict)
    """plies -> [replies met, replies proven] (the first player's positions)."""

    def as_json(self) -> dict[str, object]:
        """Plain JSON values."""
        return {
            "jobs": len(self.jobs), "stored": self.stored, "proven": self.proven,
            "threat_leaves": self.leaves,
            "by_plies": {str(d): {"positions": n, "proven": p}
                         for d, (n, p) in sorted(self.by_depth.items())},
        }


Chains = dict[tuple[int, int], int]
"""Canonical key -> plies of the position's threat chain, 0 where there is none."""


def survey(strategy: Strategy, root: Position | None = None, chains: Chains | None = None
           ) -> Survey:
    """Walk ``strategy``; turn open entries whose replies are all proven into proven
    entries; list the positions still to prove. ``chains`` caches the threat search's
    verdicts between surveys."""
    start = root if root is not None else Position("", strategy.geometry)
    result = Survey()
    memo: dict[tuple[int, int], int] = {}
    _survey(strategy, start, result, memo, {} if chains is None else chains)
    return result


def _survey(strategy: Strategy, position: Position, result: Survey,
            memo: dict[tuple[int, int], int], chains: Chains) -> int:
    """The most plies the strategy lets the game last from ``position`` if it is
    proven, else 0."""
    key, symmetry = strategy.key(position)
    if key in memo:
        return memo[key]
    depth = result.by_depth.setdefault(position.ply, [0, 0])
    depth[0] += 1
    found = strategy.found_at(key, symmetry)
    plies = 0
    if found is not None and found.proven:
        result.stored += 1
        result.proven += 1
        plies = found.plies
    elif chain := _cached_chain(position, key, chains):
        result.leaves += 1
        plies = chain
    elif found is None:
        result.jobs.append(position)
    else:
        result.stored += 1
        plies = _open_entry(strategy, position, found.move, result, memo, chains)
        if plies:
            entry = strategy.entries[key]
            strategy.entries[key] = replace(entry, proven=True, plies=plies)
            result.proven += 1
    if plies:
        depth[1] += 1
    memo[key] = plies
    return plies


def _open_entry(strategy: Strategy, position: Position, move: int, result: Survey,
                memo: dict[tuple[int, int], int], chains: Chains) -> int:
    """Survey the replies to an open entry's move: the plies bound if all are proven."""
    after = position.play(move)
    if after.winner is not None:
        return 1
    longest = 0
    replies: set[tuple[int, int]] = set()
    for reply in after.legal_moves:
        child = after.play(reply)
        if child.is_over:
            longest = -1  # the opponent completes a line or the board fills
            continue
        child_key, _ = strategy.key(child)
        if child_key in replies:
            continue
        replies.add(child_key)
        plies = _survey(strategy, child, result, memo, chains)
        if not plies:
            longest = -1
        elif longest >= 0:
            longest = max(longest, plies)
    return 0 if longest < 0 else longest + 2


def _cached_chain(position: Position, key: tuple[int, int], chains: Chains) -> int:
    known = chains.get(key)
    if known is None:
        known = chains[key] = _threat_chain(position) or 0
    return known


def _threat_chain(position: Position) -> int | None:
    """The plies of a continuous-threat win for the side to move, if the threat search
    finds one."""
    player = 0 if position.to_move == "X" else 1
    board = SearchBoard(position, line_weights(position.geometry.k), player, track_gains=False)
    if board.threats[player]:
        return 1
    line = ThreatSearch(board, node_limit=CHAIN_NODES).refute()
    return None if line is None else len(line)


SPLIT_LIMIT = 24
"""An unfinished job this many plies into the game is not split into its replies: so
deep, a position the search cannot settle in its time is more likely the sign of an
earlier weak move than a big subtree, and splitting it would spend the build there. It
stays a job, set aside for this run (a later run, or a longer job, tries it again)."""


def merge(strategy: Strategy, result: JobResult) -> None:
    """Store what a job found (see :data:`SPLIT_LIMIT` for what is not stored)."""
    geometry = strategy.geometry
    position = Position.from_bitboards(result.x, result.o, geometry)
    effort = int(result.seconds * 1000)
    key, _ = strategy.key(position)
    previous = strategy.entries.get(key)
    if previous is not None:
        effort += previous.effort_ms
    if result.status == "proven":
        for x, o, move, plies in result.proof:
            strategy.add(Position.from_bitboards(x, o, geometry), move, proven=True, plies=plies)
        entry = strategy.entries.get(key)
        if entry is None and result.move is not None:  # a threat chain from the start
            strategy.add(position, result.move, proven=True, plies=result.plies)
            entry = strategy.entries[key]
        if entry is not None:
            strategy.entries[key] = replace(entry, effort_ms=effort)
    elif result.status == "open" and result.move is not None and position.ply < SPLIT_LIMIT:
        strategy.add(position, result.move, proven=False, effort_ms=effort)


def prune_open(strategy: Strategy, plies: int) -> int:
    """Drop the open entries ``plies`` or more into the game (their subtrees go with
    them, as nothing leads there any more); return how many. Proven entries stay."""
    deep = [key for key, entry in strategy.entries.items()
            if not entry.proven and (key[0] | key[1]).bit_count() >= plies]
    for key in deep:
        del strategy.entries[key]
    return len(deep)


def build_strategy(
    path: Path,
    variant_name: str = "4x4x4",
    *,
    seconds: float = 60.0,
    job_seconds: float = 20.0,
    executor: Executor | None = None,
    workers: int = 1,
    opening: int | None = 0,
    progress: Callable[[str, Survey, int], None] | None = None,
) -> Survey:
    """Grow the strategy in ``path`` (created if missing) for ``seconds`` of wall time,
    each job searching ``job_seconds``; save after every finished job. A new strategy
    starts with ``opening`` as the first move (a corner by default: the strongest
    cells lie on seven lines), or lets the search choose (``None``). ``progress``
    hears ``(event, survey, jobs done)``."""
    strategy = Strategy.load(path) if path.exists() else Strategy(variant_name)
    prune_open(strategy, SPLIT_LIMIT)
    if not strategy.entries and opening is not None:
        strategy.add(Position("", strategy.geometry), opening, proven=False)
    own = executor is None
    pool = ProcessPoolExecutor(max_workers=workers) if executor is None else executor
    deadline = time.monotonic() + seconds
    done = 0
    set_aside: set[tuple[int, int]] = set()  # disproven, or too deep to split
    chains: Chains = {}
    try:
        while True:
            state = survey(strategy, chains=chains)
            strategy.save(path)
            if progress is not None:
                progress("survey", state, done)
            todo = [p for p in state.jobs if (p.x, p.o) not in set_aside]
            if not todo or time.monotonic() >= deadline:
                return state
            # the deepest first: subtrees get finished (and proven) one by one
            todo.sort(key=lambda p: -p.ply)
            batch = todo[: max(2 * workers, 4)]
            for result in _run(pool, variant_name, batch, job_seconds, deadline, workers):
                merge(strategy, result)
                if result.status == "disproven" or (
                        result.status == "open" and Position.from_bitboards(
                            result.x, result.o, strategy.geometry).ply >= SPLIT_LIMIT):
                    set_aside.add((result.x, result.o))
                strategy.save(path)
                done += 1
                if progress is not None:
                    progress("job", state, done)
    finally:
        if own:
            pool.shutdown(cancel_futures=True)


JOB_RETRIES = 2
"""How many times a job whose worker failed (a lost cluster worker, a killed process)
is run again before the build stops with that failure."""


def _run(pool: Executor, variant_name: str, jobs: list[Position], job_seconds: float,
         deadline: float, workers: int) -> Iterator[JobResult]:
    """Run ``jobs`` in order, ``workers`` at a time, starting none past ``deadline``; a
    job whose worker failed is run again (up to :data:`JOB_RETRIES` times)."""
    pending: dict[Future[JobResult], tuple[Position, int]] = {}
    queue = [(position, 0) for position in reversed(jobs)]
    while queue or pending:
        while queue and len(pending) < workers and time.monotonic() < deadline:
            position, tries = queue.pop()
            future = pool.submit(run_job, variant_name, position.x, position.o, job_seconds)
            pending[future] = (position, tries)
        if not pending:
            return
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            position, tries = pending.pop(future)
            try:
                result = future.result()
            except Exception:
                if tries >= JOB_RETRIES:
                    raise
                queue.append((position, tries + 1))
                continue
            yield result
