"""``noughts prove``, ``noughts verify-book`` and ``noughts build-book``: proofs of wins.

    noughts prove BOARD [--variant V] [--time S] [--nodes N] [--json]
    noughts verify-book qubic [--file PATH] [--sample N] [--json]
    noughts build-book qubic [--file PATH] [--checkpoint PATH] [--time S]
                             [--job-seconds S] [--workers N] [--cluster WHERE] [--status]

``prove`` runs the proof-number search on one position and says whether the side to
move wins, loses or draws by force, or that the budget ran out first (``unknown``).
``verify-book`` checks the shipped Qubic strategy (or ``--file``) with code of its own;
``--sample N`` checks N proven entries one step deep instead of walking the whole
strategy. ``build-book`` grows a strategy file offline, resumably (see
:mod:`noughts.builders.strategy_build`); with ``--status`` it builds nothing and prints
where the build stands: the root's numbers and each of the defender's replies to the
first move, with its numbers and the search time spent under it.
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
import time
from concurrent.futures import Executor
from pathlib import Path

from noughts.cli import limits

__all__ = ["add_arguments", "run"]

DEFAULT_CHECKPOINT = Path("checkpoints") / "qubic-strategy-tree.ckpt"
"""Where ``build-book`` keeps the proof tree of the shipped strategy (in the source
tree, out of the package: users need the strategy, not the builder's state)."""


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    """Arguments of ``prove``, ``verify-book`` or ``build-book``."""
    if name == "prove":
        parser.add_argument("board", metavar="BOARD", nargs="?", default="",
                            help="the board (default: the empty board)")
        parser.add_argument("--variant", "-v", metavar="V", type=limits.variant_name,
                            help="qubic, 4x4, 5x4k4...")
        parser.add_argument("--first", choices=("X", "O"), default="X",
                            help="who started (default X)")
        parser.add_argument("--time", dest="time_limit", type=limits.seconds, metavar="S",
                            default=10.0, help="seconds to search (default 10)")
        parser.add_argument("--nodes", type=limits.nodes, metavar="N", help="node budget")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        return
    limits.add_variant_arguments(parser, default="qubic", help_text="qubic (the only one for now)")
    parser.add_argument("--file", type=Path, metavar="PATH",
                        help="a strategy file (default: the one shipped with noughts)")
    if name == "verify-book":
        parser.add_argument("--sample", type=limits.positive_count, metavar="N",
                            help="check N proven entries one step deep, not the whole walk")
        parser.add_argument("--seed", type=int, default=0, help="seed of the sample")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        return
    parser.add_argument("--time", dest="time_limit", type=limits.seconds, default=3600.0,
                        metavar="S", help="wall time to build, in seconds (default 3600)")
    parser.add_argument("--job-seconds", type=limits.seconds, default=10.0,
                        help="search time of one job (default 10)")
    parser.add_argument("--workers", type=limits.positive_count, default=1,
                        help="jobs at once (default 1)")
    parser.add_argument("--checkpoint", type=Path, metavar="PATH",
                        help="the proof tree's checkpoint (default: beside --file, or "
                        f"{DEFAULT_CHECKPOINT} for the shipped strategy)")
    parser.add_argument("--cluster", default="none", metavar="WHERE",
                        help="where jobs run: none (local processes, the default), ray (a "
                        "local Ray), auto or ray://HOST:PORT (an existing Ray cluster; "
                        "needs noughts[cluster])")
    parser.add_argument("--status", action="store_true",
                        help="build nothing: print where the build stands (the frontier)")
    parser.add_argument("--opening", type=limits.count, default=0, metavar="CELL",
                        help="X's first move in a new proof tree: a cell number (default 0, "
                        "a corner; 1, on four lines only, asks whether X still wins from "
                        "there). A checkpoint's tree keeps its own")


def run(name: str, args: argparse.Namespace) -> int:
    """Run ``prove``, ``verify-book`` or ``build-book``."""
    if name == "prove":
        return _prove(args)
    if name == "verify-book":
        return _verify(args)
    return _build(args)


def _prove(args: argparse.Namespace) -> int:
    from noughts.cli.engine_commands import infer_variant
    from noughts.notation import square_name
    from noughts.position import Position
    from noughts.search.proof import prove

    variant = args.variant or (infer_variant(args.board) if args.board else "3x3")
    position = Position(args.board, variant, first=args.first)
    result = prove(position, time_limit=args.time_limit, nodes=args.nodes)
    square = None if result.move is None else square_name(position.geometry, result.move)
    record = {
        "variant": position.variant, "board": position.board, "to_move": position.to_move,
        "status": result.status, "proven": result.proven, "move": result.move,
        "square": square,
        "proof_size": result.proof_size, "plies": result.plies, "nodes": result.nodes,
        "elapsed_ms": round(result.elapsed * 1000, 3),
        "proof_number": result.proof_number, "disproof_number": result.disproof_number,
    }
    if args.json:
        print(json.dumps(record))
        return 0
    mover = position.to_move
    if result.status == "unknown":
        text = (f"unknown: no proof within the budget (proof number {result.proof_number:,}, "
                f"disproof number {result.disproof_number:,})")
    elif result.status == "draw":
        text = "draw: neither side can force a win"
    else:
        text = (f"{mover} {'wins' if result.status == 'win' else 'loses'} by force "
                f"(proof of {result.proof_size:,} positions, at most {result.plies} plies)")
    print(text)
    if result.move is not None:
        print(f"{mover} plays {square} (cell {result.move})")
    print(f"{result.nodes:,} nodes · {result.elapsed * 1000:.0f} ms")
    return 0


def _strategy_path(args: argparse.Namespace) -> Path | None:
    from noughts.cli import fail
    from noughts.variants import variant

    if variant(args.variant).strategy is None:
        raise fail(f"no strategy book for {args.variant!r}: only qubic has one")
    path: Path | None = args.file
    return path


def _verify(args: argparse.Namespace) -> int:
    from noughts.builders.strategy_check import check_entries, verify_strategy
    from noughts.cli import fail
    from noughts.knowledge.strategy import Strategy, shipped_strategy

    path = _strategy_path(args)
    if path is not None and not path.is_file():
        raise fail(f"no strategy file at {path}")
    strategy = Strategy.load(path) if path is not None else shipped_strategy()
    if strategy is None:
        raise fail("this installation ships no Qubic strategy")
    start = time.perf_counter()
    if args.sample:
        report = check_entries(strategy, args.sample, seed=args.seed)
    else:
        report = verify_strategy(strategy)
    elapsed = time.perf_counter() - start
    record = {"entries": len(strategy), "seconds": round(elapsed, 3), **report.as_json()}
    if args.sample:
        record["complete"] = False
    if args.json:
        print(json.dumps(record))
    else:
        kind = f"a sample of {args.sample} entries" if args.sample else "the whole strategy"
        print(f"checked {kind}: {report.checked:,} positions with stored moves, "
              f"{report.threat_leaves:,} leaves won by threats, {elapsed:.1f} s")
        if not args.sample:
            print(f"frontier: {report.open_entries:,} open entries, "
                  f"{report.unsolved:,} positions not yet solved")
            for ply, (met, won) in sorted(report.by_plies.items()):
                print(f"  after {ply:>2} plies: {won:,} of {met:,} positions won "
                      f"({100 * won / met:.0f}%)")
            print("the strategy proves the first player's win" if record["complete"]
                  else "the strategy is partial: it does not prove the win from the first move")
        for failure in report.failures[:10]:
            print(f"FAILED {failure}")
    return 0 if report.ok else 1


def _build(args: argparse.Namespace) -> int:
    from noughts.builders.strategy_build import checkpoint_path
    from noughts.cli import fail
    from noughts.knowledge.strategy import STRATEGY_FILE
    from noughts.runtime.atomic import BLOCK_BYTES, check_writable
    from noughts.runtime.cluster import LOCAL, executor_for, parse_cluster

    given = _strategy_path(args)
    path = given or Path("src/noughts/data") / STRATEGY_FILE
    if not path.parent.is_dir():
        raise fail(f"no directory {path.parent} for the strategy file")
    if args.checkpoint is None:
        args.checkpoint = checkpoint_path(path) if given else DEFAULT_CHECKPOINT
    if not args.checkpoint.parent.is_dir():
        raise fail(f"no directory {args.checkpoint.parent} for the checkpoint")
    if args.status:
        return _status(path, args.checkpoint)
    for target in (path, args.checkpoint):  # now, not after the build's whole time
        # what its first save needs: a copy of the file as large as it is now (a fresh
        # build's files are a few hundred bytes: one block); a disk that fills later
        # fails that save with one line, the earlier files whole
        check_writable(target, at_least=BLOCK_BYTES)
    cluster = parse_cluster(args.cluster)
    executor = None if cluster == LOCAL else executor_for(cluster, workers=args.workers)
    # a termination (a session ending, a scheduler's stop) is an interruption: the build
    # saves where it stands, as on Ctrl-C, and the next run resumes from there
    main = threading.current_thread() is threading.main_thread()  # where signals go
    previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
    try:
        return _build_with(args, path, executor)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        if executor is not None:
            executor.shutdown(cancel_futures=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _status(path: Path, checkpoint: Path) -> int:
    """Print where the build of ``path`` (its tree in ``checkpoint``) stands."""
    from noughts.builders.proof_tree import ProofTree
    from noughts.cli import fail
    from noughts.errors import NoughtsError
    from noughts.knowledge.strategy import Strategy
    from noughts.notation import square_name

    if not checkpoint.is_file():
        raise fail(f"no proof tree checkpoint at {checkpoint}: no build has run yet")
    try:
        tree = ProofTree.load(checkpoint)
        strategy = Strategy.load(path) if path.is_file() else None
    except NoughtsError as error:
        raise fail(str(error)) from None
    pn, dn = tree.root_numbers()
    counts = tree.counts()
    replies = tree.replies()
    stored = 0 if strategy is None else len(strategy)
    proven = 0 if strategy is None else strategy.proven_count
    print(f"root: proof number {pn:,}, disproof number {dn:,} "
          f"({'proven' if not pn else 'not proven'})")
    print(f"tree: {counts['nodes']:,} nodes ({counts['inner']:,} expanded), "
          f"{counts['proven']:,} proven, {counts['disproven']:,} disproven")
    print(f"strategy: {stored:,} entries, {proven:,} proven")
    if replies:
        done = sum(reply.proven for reply in replies)
        print(f"the defender's replies to the first move: {done} of {len(replies)} proven")
        for reply in replies:
            state = "proven" if reply.proven else f"proof number {reply.proof_number:,}"
            print(f"  {square_name(tree.geometry, reply.move):>4} (cell {reply.move:2}): "
                  f"{state}, {reply.nodes:,} tree nodes, {reply.seconds / 3600:.2f} h of jobs")
    return 0


def _build_with(args: argparse.Namespace, path: Path, executor: Executor | None) -> int:
    import sys

    from rich.progress import Progress, TextColumn, TimeElapsedColumn

    from noughts.builders.strategy_build import BuildReport, build_strategy
    from noughts.variants import variant

    def line(report: BuildReport) -> str:
        pn, dn = report.root
        return (f"{report.jobs:,} jobs · root proof number {pn:,}, disproof number {dn:,} · "
                f"tree {report.tree['nodes']:,} nodes, {report.tree['proven']:,} proven · "
                f"{report.proven:,} proven entries")

    live = sys.stdout.isatty()
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(),
                  disable=not live) as bar:
        task = bar.add_task("starting", total=None)

        def progress(report: BuildReport) -> None:
            if live:
                bar.update(task, description=line(report))
            else:  # a log, one line a job
                print(f"{report.seconds:8.0f} s  {line(report)}", flush=True)

        final = build_strategy(path, variant(args.variant).name,
                               seconds=args.time_limit, job_seconds=args.job_seconds,
                               executor=executor, workers=args.workers, progress=progress,
                               checkpoint=args.checkpoint, opening=args.opening)
    print(json.dumps(final.as_json()))
    return 0
