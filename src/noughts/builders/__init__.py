"""Offline builders and checkers of the shipped knowledge (run by ``noughts build-book``,
``noughts verify-book`` and the scripts, never while a move is answered).

* :mod:`noughts.builders.proof_tree` -- the proof-number tree a strategy is grown in.
* :mod:`noughts.builders.strategy_build` -- growing a strategy offline, in jobs.
* :mod:`noughts.builders.strategy_check` -- checking a strategy with code of its own.
"""
