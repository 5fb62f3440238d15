"""Bytes <-> messages shared by several protocols: no sockets, no worlds (ARCHITECTURE.md).
:mod:`~simleague.wire.framing` cuts a TCP stream into 4-byte length-prefixed frames and
:mod:`~simleague.wire.sexp` reads and writes S-expressions, both with limits on what a client
controls; :mod:`~simleague.wire.limits` keeps a client's bad input from flooding the log."""
