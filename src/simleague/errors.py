"""The project's error types, on one base (Gymnasium's ``error.py`` is the model): catch
:class:`Error` for any of them. Each names in ``str()`` what failed and why, in one line a person can
act on. The rest of the project's errors move here as their modules change (issue 36)."""


class Error(Exception):
    """Base of simleague's errors."""


class ReplayError(Error):
    """Raised when a run log cannot be replayed (``simleague ciberrato replay``, ``simspark replay``,
    ``vhsc replay``); ``str()`` names the file and the problem."""


class MslProtocolError(Error, ValueError):
    """Raised by the MSL middleware's decoders (:mod:`simleague.msl.messages`) for a message that is
    not valid in its protocol; ``str()`` names the field and the problem."""
