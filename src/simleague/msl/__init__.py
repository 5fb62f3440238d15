"""MSL simulated matches (seed 003, Nijland 2021): a middleware that lets two teams play while each
runs its own simulator, pausers that keep their simulation times together, a referee both teams
obey (built in, or an MSL RefBox through a bridge), and a team client.

Modules: ``messages`` (the protocol), ``buffer`` (states in time, mirroring), ``rules`` (ball
arbitration, time synchronisation), ``exchange`` (the pure core of a match), ``referee`` (RefBox
commands, game state, the auto referee), ``middleware`` with ``links``, ``options``, ``eventlog``,
``matchfile``, ``refbox`` (the RefBox bridge) and ``web`` (the merged world for viewer and run log),
``pauser``, ``client``, ``toyteam`` (a toy simulator and its info exchanger), ``demo``.
"""
