"""The soccer world: field, goals, ball, robots and the referee's rules (seed 002, and 000/001 for
the humanoid API). So far only the rules (:mod:`simleague.soccer.rules`) exist; the MuJoCo world
that feeds them is still to be built."""
