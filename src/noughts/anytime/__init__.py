"""Anytime play for boards too large to solve on the spot (Qubic, big m x n boards).

* :mod:`noughts.anytime.board` -- the incremental search board (line counts, threats, hashes).
* :mod:`noughts.anytime.evaluate` -- line-count evaluations (the seed's styles and ours).
* :mod:`noughts.anytime.pvs` -- the principal-variation search.
* :mod:`noughts.anytime.threats` -- threat-space search for forced wins.
* :mod:`noughts.anytime.proof` -- proof-number search: forced wins, losses and draws.
* :mod:`noughts.anytime.strategy` -- a stored winning strategy (the shipped Qubic one).
* :mod:`noughts.anytime.strategy_build` -- growing a strategy offline, in jobs.
* :mod:`noughts.anytime.strategy_check` -- checking a strategy with code of its own.
* :mod:`noughts.anytime.openings` -- the first move on an empty board.
* :mod:`noughts.anytime.search` -- the driver: rules, threats, proofs, deepening, defence,
  in a budget.
"""
