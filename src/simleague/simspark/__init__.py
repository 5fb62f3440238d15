"""SimSpark's agent (3100) and monitor (3200) gateways onto the soccer world (seed 002):
:mod:`~simleague.simspark.game` (agents, referee and world, pure), :mod:`~simleague.simspark.server`
(the TCP ports), :mod:`~simleague.simspark.client` and :mod:`~simleague.simspark.agent` (a Python
agent library and the sample agent), :mod:`~simleague.simspark.match` (two sample teams)."""
