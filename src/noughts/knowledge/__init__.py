"""What the package ships beside its searches, and how it is read.

* :mod:`noughts.knowledge.data` -- reading a file of ``noughts/data``.
* :mod:`noughts.knowledge.canonical` -- a table of moves keyed by position up to symmetry.
* :mod:`noughts.knowledge.strategy` -- a stored winning strategy (the shipped Qubic one).
* :mod:`noughts.knowledge.obook` -- O's opening book for Qubic.
* :mod:`noughts.knowledge.learned` -- the learned evaluation of Qubic.

The engine's plan (:mod:`noughts.engine`) decides which of them a move may consult.
"""
