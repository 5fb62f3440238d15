"""The humanoid virtual soccer API gateway onto the soccer world (seeds 000/001): so far the team
configuration files (:mod:`~simleague.vhsc.config`) and the protobuf messages
(:mod:`~simleague.vhsc.messages`); the per-robot ports, devices and GameController are to come."""
