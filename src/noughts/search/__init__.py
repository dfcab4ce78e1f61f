"""The searches that play the boards too large to solve on the spot (Qubic, big m x n).

* :mod:`noughts.search.board` -- the incremental search board (line counts, threats, hashes).
* :mod:`noughts.search.evaluate` -- line-count evaluations (the seed's styles and ours).
* :mod:`noughts.search.pvs` -- the principal-variation search (misère too).
* :mod:`noughts.search.core` -- which core runs them: compiled, or the Python reference.
* :mod:`noughts.search.threat_search` -- threat-space search (the Python reference).
* :mod:`noughts.search.threats` -- a position's forced win by continuous threats.
* :mod:`noughts.search.proof_search` -- proof-number search (the Python reference).
* :mod:`noughts.search.proof` -- proofs: forced wins, losses and draws.
* :mod:`noughts.search.defence` -- proof checks of the second player's candidate moves.
* :mod:`noughts.search.openings` -- the first move on an empty board.
* :mod:`noughts.search.ties` -- a game seed's pick among equally good root moves.
* :mod:`noughts.search.anytime` -- deepening with its guard and defence, in a limit.

They know positions and the core vocabulary, nothing above them; the shipped knowledge
(:mod:`noughts.knowledge`) and each search's share of a move's time reach them as
arguments from the engine's plan (:mod:`noughts.engine.plan`).
"""
