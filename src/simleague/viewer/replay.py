"""The ``replay`` message of the soccer page (``static/soccer.js``) from a run log's records, shared
by every soccer world's replay (SimSpark, the humanoid API, MSL)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ReplayError


def soccer_frames(log: str | Path, records: list[dict], what: str) -> dict:
    """``{"type": "replay", "frames": [...]}`` from the cycle records of ``log``: each record with a
    ``ball`` list and a ``robots`` list becomes a ``frame`` message. Raises :class:`ReplayError`
    naming the line of a record that is not ``what`` (e.g. "a soccer frame"), or when there is none."""
    frames = []
    for n, record in enumerate(records, 2):                    # line 1 is the header
        if not isinstance(record.get("ball"), list) or not isinstance(record.get("robots"), list):
            raise ReplayError(f"{log}:{n}: not {what}")
        frames.append({**{k: v for k, v in record.items() if k != "kind"}, "type": "frame"})
    if not frames:
        raise ReplayError(f"{log}: no frames recorded")
    return {"type": "replay", "frames": frames}
