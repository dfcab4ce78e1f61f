"""The teaching family: searches and counts written to be read, not to be fast.

* :mod:`noughts.teaching.tutorial` -- plain minimax and alpha-beta as the tutorials count them.
* :mod:`noughts.teaching.trace` -- a search's walk as data (Learn mode): every node with
  its window, value and cut-off, for minimax, alpha-beta and its refinements.
* :mod:`noughts.teaching.tree` -- the complete decision tree of a small variant.
* :mod:`noughts.teaching.counts` -- positions and games counted exactly.
"""
