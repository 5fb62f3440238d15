"""MSL simulated matches (seed 003, Nijland 2021): a middleware that lets two teams play while each
runs its own simulator, pausers that keep their simulation times together, and a team client.

Modules: ``messages`` (the JSON-lines protocol), ``buffer`` (states in time, mirroring), ``rules``
(ball arbitration, time synchronisation), ``middleware``, ``pauser``, ``client``, ``toyteam``
(a toy simulator and its info exchanger), ``demo``.
"""
