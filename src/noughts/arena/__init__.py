"""The arena: bot-vs-bot matches and round-robins, and their statistics.

* :mod:`noughts.arena.match` -- games, matches, round-robins and their summaries.
* :mod:`noughts.arena.ratings` -- scores, intervals and Elo.
* :mod:`noughts.arena.family` -- the Qubic family of X players O is measured against.
"""
