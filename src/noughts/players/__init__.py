"""Players: the protocol every player follows and the reference bots.

* :mod:`noughts.players.protocol` -- the player protocol, player specs and their parser
  (the engine's levels 0-10, :mod:`noughts.levels`, play as ``level:N``).
* :mod:`noughts.players.reference` -- bots written from the seed projects' descriptions.
* :mod:`noughts.players.threats` -- a general player: forced wins by successive threats,
  else line weights.
* :mod:`noughts.players.mcts` -- a general player: Monte Carlo tree search over random
  games.
"""
