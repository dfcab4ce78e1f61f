"""Anytime play for boards too large to solve on the spot (Qubic, big m x n boards).

* :mod:`noughts.anytime.board` -- the incremental search board (line counts, threats, hashes).
* :mod:`noughts.anytime.evaluate` -- line-count evaluations (the seed's styles and ours).
* :mod:`noughts.anytime.pvs` -- the principal-variation search.
* :mod:`noughts.anytime.threats` -- threat-space search for forced wins.
* :mod:`noughts.anytime.openings` -- the first move on an empty board.
* :mod:`noughts.anytime.search` -- the driver: rules, threats, deepening, defence, in a budget.
"""
