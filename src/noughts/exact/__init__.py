"""Exact play: the 3x3 table, negamax with alpha-beta, opening books and the solver.

* :mod:`noughts.exact.table3x3` -- every 3x3 position with its exact score.
* :mod:`noughts.exact.negamax` -- the exact search core over ``(me, opp)`` bitboards.
* :mod:`noughts.exact.book` -- exact opening books shipped as package data.
* :mod:`noughts.exact.solver` -- values, every move's value and the best move.
"""
