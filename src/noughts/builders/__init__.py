"""Offline builders and checkers of the shipped knowledge (run by ``noughts build-book``,
``noughts verify-book`` and the scripts, never while a move is answered).

* :mod:`noughts.builders.proof_tree` -- the proof-number tree a strategy is grown in.
* :mod:`noughts.builders.strategy_build` -- growing a strategy offline, in jobs.
* :mod:`noughts.builders.strategy_check` -- checking a strategy with code of its own.
* :mod:`noughts.builders.o_book` -- building O's Qubic opening book by games.
* :mod:`noughts.builders.o_book_deepen` -- checking and extending it by deep proofs.
* :mod:`noughts.builders.o_book_sweep` -- sweeping it for visible blunders, one X move
  ahead, and deciding O's third and fourth moves off its lines.
* :mod:`noughts.builders.o_book_ahead` -- looking at its moves two X moves ahead (built,
  not in the shipped command).
* :mod:`noughts.builders.o_book_cleared` -- O's moves decided by the look one X move
  ahead, as both record them.
* :mod:`noughts.builders.checkpoint` -- a build's records, kept so that it resumes and
  replays.
"""
