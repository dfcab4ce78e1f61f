"""What noughts runs on, apart from the games: worker processes with a watchdog
(:mod:`~noughts.runtime.executor`), where independent jobs run, locally or on Ray
(:mod:`~noughts.runtime.cluster`), files written whole or not at all
(:mod:`~noughts.runtime.atomic`), and a bounded least-recently-used map
(:mod:`~noughts.runtime.lru`).

Nothing here knows a game: the engine, the builders, the arena and the service use it.
"""
