"""The terminal game behind ``noughts play``: cell names, game sessions, the board drawing.

* :mod:`noughts.play.coordinates` -- cell names people type (``b3``, ``2b3``; ``5`` on 3x3).
* :mod:`noughts.play.session` -- one game: seats (human or AI level), moves, undo, hints.
* :mod:`noughts.play.render` -- the board drawn with Rich (plain text off a terminal).
* :mod:`noughts.play.loop` -- the prompt: a person as a player of the one game loop,
  reading moves and commands.

``coordinates`` and ``session`` use only the standard library and the engine; ``render``
and ``loop`` use Rich, so nothing here imports them eagerly.
"""
