"""SimSpark's agent (3100) and monitor (3200) gateways onto the soccer world (seed 002). So far the
monitor's game-state header (:mod:`simleague.simspark.monitor`); the gateways are still to come."""
