"""Build a first player's winning strategy offline, in independent jobs, resumably.

The proof of a win from the empty board is grown as a :class:`ProofTree` (proof-number
search over the first moves) whose leaves are searched by *jobs*: a bounded proof
search (:mod:`noughts.search.proof`) of one position, a function of plain values that
any :class:`concurrent.futures.Executor` can run (by default local worker processes, a
:class:`~noughts.runtime.executor.ProcessExecutor` whose jobs each go to a chosen worker, so
that each keeps its table between jobs; a cluster's executor can take the same jobs).
The tree picks the most-proving leaf and the proof and disproof numbers it may be
searched up to (as depth-first proof-number search would: until it looks worse
than its best sibling), so the jobs together behave as one search. A job

* proves its position: every position of its proof where the first player makes a
  quiet move (not the start of a threat chain) is stored in the strategy as proven;
* disproves it: the first player cannot win there, and the tree looks elsewhere;
* reaches its thresholds: the leaf gets its new numbers, and the tree turns elsewhere;
* or runs out of time: a big subtree, so the leaf is expanded with the numbers the job
  reached for each of its moves (proven moves' proofs stored at once), and its moves
  become leaves of their own.

A free worker takes the most-proving leaf among those whose subtree its own table
holds (it searched their parent) if there is one. The strategy and the tree's
checkpoint are saved every minute and when the build ends (its time up, interrupted or
failed), and a new run resumes from both. The strategy also holds the tree's current
choice at each of the first player's open nodes, as *open* entries, so the frontier
can be walked and reported.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as folder:
...     report = build_strategy(Path(folder) / "s.bin", "4x4k3", seconds=60,
...                             job_seconds=5, opening=None)
>>> report.complete, report.root
(True, (0, 1099511627776))
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from pathlib import Path

from noughts.budget import Limit
from noughts.builders.proof_tree import Key, ProofTree
from noughts.errors import NoughtsError
from noughts.knowledge.strategy import Strategy
from noughts.position import Position
from noughts.runtime.executor import ProcessExecutor
from noughts.search.core import ProofTable, proof_search
from noughts.search.proof import INFINITY

__all__ = ["JobResult", "BuildReport", "build_strategy", "run_job", "checkpoint_path"]

TABLE_LIMIT = 10_000_000
"""A worker drops its proof table past this many entries (about 450 bytes each)."""

_tables: dict[str, ProofTable] = {}
"""Each worker process keeps one proof table per variant between jobs: neighbouring
subtrees share many positions."""

Entry = tuple[int, int, int, int]
"""``(x, o, move, plies)``: a first player's position of a proof and its quiet move."""


@dataclass(frozen=True)
class JobResult:
    """What one job settled for its position."""

    x: int
    o: int
    status: str  # "proven", "disproven" or "open"
    move: int | None
    proof: tuple[Entry, ...]
    """The quiet positions of its proof, or of its proven moves' proofs when open."""
    nodes: int
    seconds: float
    plies: int = 0
    """The most plies the proof lets the game last (0 unless proven)."""
    moves: tuple[tuple[int, int, int], ...] = ()
    """``(move, proof number, disproof number)`` of each searched move (when open)."""
    chain: int = 0
    """At the defender's turn: the plies of the chain its other replies lose to."""
    proven_plies: tuple[tuple[int, int], ...] = ()
    """``(move, plies)`` of the proven moves (when open)."""
    numbers: tuple[int, int] = (1, 1)
    """The position's proof and disproof numbers when the job ended."""
    timed_out: bool = False
    """The job used its whole time (the position is then expanded in the tree with
    ``moves``); else it stopped at its thresholds, where the tree turns elsewhere."""


def run_job(variant_name: str, x: int, o: int, seconds: float,
            most_pn: int = INFINITY, most_dn: int = INFINITY) -> JobResult:
    """Search one position for ``seconds`` with the first player as attacker, until its
    proof number reaches ``most_pn`` or its disproof number ``most_dn`` (a function of
    plain values, for any executor)."""
    start = time.perf_counter()
    position = Position.from_bitboards(x, o, variant_name)
    table = _tables.get(variant_name)
    if table is not None and len(table) > TABLE_LIMIT:
        table.clear()
    search = proof_search(position, 0 if position.first == "X" else 1, table=table)
    _tables[variant_name] = search.table
    limit = Limit.within(seconds)
    pn, dn = search.run(limit, thresholds=(most_pn, most_dn))
    elapsed = time.perf_counter() - start
    if not pn:
        proof = tuple((px, po, move, plies)
                      for px, po, move, chain, plies in search.proof() if not chain)
        return JobResult(x, o, "proven", search.best_move(), proof, search.nodes, elapsed,
                         search.plies())
    if not dn:
        return JobResult(x, o, "disproven", search.best_move(), (), search.nodes, elapsed)
    if not limit.expired():
        return JobResult(x, o, "open", search.best_move(), (), search.nodes, elapsed,
                         numbers=(pn, dn))
    moves = tuple(search.children())
    seen: set[int] = set()
    entries: list[Entry] = []
    proven: list[tuple[int, int]] = []
    for move, child_pn, _ in moves:
        if child_pn:
            continue
        search.play(move)
        try:
            proven.append((move, search.plies()))
            entries.extend((px, po, m, plies)
                           for px, po, m, chain, plies in search.proof(seen) if not chain)
        finally:
            search.undo(move)
    return JobResult(x, o, "open", search.best_move(), tuple(entries), search.nodes,
                     time.perf_counter() - start, moves=moves,
                     chain=search.defence_chain(), proven_plies=tuple(proven),
                     numbers=(pn, dn), timed_out=True)


@dataclass
class BuildReport:
    """Where a build stands: the root's numbers, the tree, the strategy, the jobs."""

    root: tuple[int, int]
    tree: dict[str, int]
    stored: int
    proven: int
    jobs: int = 0
    seconds: float = 0.0
    effort: dict[str, float] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """The root is proven: the strategy proves the first player's win."""
        return self.root[0] == 0

    def as_json(self) -> dict[str, object]:
        """Plain JSON values."""
        return {"complete": self.complete, "root_proof_number": self.root[0],
                "root_disproof_number": self.root[1], "tree": self.tree,
                "stored": self.stored, "proven": self.proven, "jobs": self.jobs,
                "seconds": round(self.seconds, 1)}


def checkpoint_path(path: Path) -> Path:
    """Where the proof tree of the strategy file ``path`` is kept: beside it."""
    return path.with_name(path.stem + "-tree.ckpt")


def _report(tree: ProofTree, strategy: Strategy, jobs: int, seconds: float) -> BuildReport:
    return BuildReport(tree.root_numbers(), tree.counts(), len(strategy),
                       strategy.proven_count, jobs, seconds)


def _store(strategy: Strategy, tree: ProofTree, proof: tuple[Entry, ...]) -> None:
    """Add a job's proof to the strategy (a proven entry is never replaced: its
    subtree was proven with its move)."""
    geometry = strategy.geometry
    for x, o, move, plies in proof:
        position = Position.from_bitboards(x, o, geometry)
        known = strategy.lookup(position)
        if known is None or not known.proven:
            strategy.add(position, move, proven=True, plies=plies)


def _save(strategy: Strategy, tree: ProofTree, path: Path, checkpoint: Path) -> None:
    """Refresh the open entries from the tree's choices, then write both files."""
    for key in [key for key, entry in strategy.entries.items() if not entry.proven]:
        del strategy.entries[key]
    for position, move, proven, plies in tree.choices():
        known = strategy.lookup(position)
        if known is None or (proven and not known.proven):
            strategy.add(position, move, proven=proven, plies=plies)
    strategy.save(path)
    tree.save(checkpoint)


def build_strategy(
    path: Path,
    variant_name: str = "4x4x4",
    *,
    seconds: float = 60.0,
    job_seconds: float = 20.0,
    executor: Executor | None = None,
    workers: int = 1,
    opening: int | None = 0,
    progress: Callable[[BuildReport], None] | None = None,
    checkpoint: Path | None = None,
) -> BuildReport:
    """Grow the strategy in ``path`` (created if missing) and its proof tree (in
    ``checkpoint``, by default :func:`checkpoint_path`) for ``seconds`` of wall time,
    each job searching at most ``job_seconds``, ``workers`` jobs at a time; save both
    every :data:`SAVE_EVERY` seconds and at the end. A new tree starts with
    ``opening`` as the first move (a corner by default: the strongest
    cells lie on seven lines) or lets the search choose (``None``). ``executor`` runs
    the jobs (default: one local process per worker). ``progress`` hears a
    :class:`BuildReport` after every job."""
    strategy = Strategy.load(path) if path.exists() else Strategy(variant_name)
    checkpoint = checkpoint if checkpoint is not None else checkpoint_path(path)
    cells = strategy.geometry.cells
    if opening is not None and not 0 <= opening < cells:
        raise NoughtsError(f"the opening must be a cell from 0 to {cells - 1}, not {opening}")
    tree = (ProofTree.load(checkpoint) if checkpoint.exists()
            else ProofTree(variant_name, opening=opening))
    if checkpoint.exists() and opening is not None and tree.opening != opening:
        raise NoughtsError(f"the proof tree in {checkpoint} opens on cell {tree.opening}, "
                           f"not {opening}: give its own opening, or another checkpoint")
    own: ProcessExecutor | None = None
    if executor is None:  # one worker per job at a time, each job to its chosen worker
        executor = own = ProcessExecutor(workers, name="noughts-proof")
    started = time.monotonic()
    deadline = started + seconds
    home: dict[Key, int] = {}  # the worker whose table holds a leaf's subtree
    pending: dict[Future[JobResult], tuple[Key, int]] = {}
    failures: dict[Key, int] = {}
    jobs = 0
    saved = time.monotonic()
    try:
        while True:
            busy = {key for key, _ in pending.values()}
            free = [w for w in range(workers) if w not in {w for _, w in pending.values()}]
            while free and time.monotonic() < deadline:
                worker = free[0]
                chosen = _next_leaf(tree, busy, home, worker if own is not None else None)
                if chosen is None:
                    break
                leaf, most_pn, most_dn = chosen
                job = (variant_name, leaf[0], leaf[1], job_seconds, most_pn, most_dn)
                future = (own.run(run_job, job, slot=worker) if own is not None
                          else executor.submit(run_job, *job))
                pending[future] = (leaf, worker)
                busy.add(leaf)
                free.pop(0)
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                key, worker = pending.pop(future)
                try:
                    result = future.result()
                except Exception:  # the worker was lost (a killed process, a cluster node)
                    failures[key] = failures.get(key, 0) + 1
                    if failures[key] > JOB_RETRIES:
                        raise
                    continue  # the leaf is free again (its worker replaced): taken next
                jobs += 1
                node = tree.nodes[key]
                node.effort += result.seconds
                _store(strategy, tree, result.proof)
                home.setdefault(key, worker)
                if result.status != "open":
                    tree.settle(key, result.status == "proven", result.plies)
                elif result.timed_out:  # a big subtree: its moves join the tree
                    tree.expand(key, list(result.moves), chain=result.chain,
                                plies=dict(result.proven_plies))
                    for child in tree.children(key):
                        home.setdefault(child, worker)
                else:
                    tree.estimate(key, *result.numbers)
                if time.monotonic() >= saved + SAVE_EVERY:
                    _save(strategy, tree, path, checkpoint)
                    saved = time.monotonic()
                if progress is not None:
                    progress(_report(tree, strategy, jobs, time.monotonic() - started))
    finally:  # saved however the build ends: its time up, interrupted, or a failure;
        # a build that finished no job changed nothing, and writes nothing (a file that
        # holds the same bytes is never rewritten either)
        if jobs or not path.exists() or not checkpoint.exists():
            _save(strategy, tree, path, checkpoint)
        if own is not None:
            own.shutdown(cancel_futures=True)
    return _report(tree, strategy, jobs, time.monotonic() - started)


SAVE_EVERY = 60.0
"""Seconds between saves of the strategy and the checkpoint (and at the end)."""

JOB_RETRIES = 2
"""How many times a job whose worker failed (a lost cluster worker, a killed process)
is run again before the build stops with that failure."""


def _next_leaf(tree: ProofTree, busy: set[Key], home: dict[Key, int],
               worker: int | None) -> tuple[Key, int, int] | None:
    """The most-proving free leaf and its thresholds, one whose subtree ``worker``'s
    table holds first."""
    if worker is not None:
        others = {key for key, w in home.items() if w != worker}
        leaf = tree.select(busy | others)
        if leaf is not None:
            return leaf
    return tree.select(busy)
