"""CiberRato trial logs: ours (JSON lines, :mod:`simleague.recorder`, format :data:`LOG_FORMAT`)
and the original simulator's XML log, the one its logplayer replays (ciberRatoTools:
simulator/cbsimulator.cpp ``openLog``/``Log``, simulator/cbrobot.cpp ``cbRobot::Log``;
logplayer/cbloghandler.cpp reads it).

Layout::

    <Log>
    <Parameters .../>            the trial's parameters (as in the registration reply)
    <Lab ...>...</Lab>           the lab and the grid (as sent to viewers)
    <Grid>...</Grid>
    <LogInfo Time="t">           one per cycle while the trial runs, t = 0 .. the last cycle
        <Robot Name="n" Id="i" State="Running">
            <Pos X="x" Y="y" Dir="degrees"/>
            <Scores Score="s" ArrivalTime="t" ReturningTime="t" Collisions="k" Collision="True|False"
                    VisitedMask="0101"/>
            <Action LeftMotor="p" RightMotor="p" EndLed="On" ... />
        </Robot>
    </LogInfo>
    </Log>

As the original: ``LogInfo Time="t"`` holds the poses and scores at cycle t and the orders the
robots sent for the next cycle (the ones that move them from t to t + 1), with only the devices
each robot set; the last ``LogInfo`` has no actions. Numbers are written as C++ streams write
doubles (six significant digits). The original's ``Date`` attribute (the wall clock) is left out,
as the original does on Windows, so that two identical runs write identical logs.

:class:`XmlLog` writes such a log from our cycle snapshots (``World.snapshot``); :func:`read_xml_log`
reads one (ours or the original's) into the records our JSON log holds, so that ``plot`` and
``replay`` take both formats (:func:`read_trial_log`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from xml.sax.saxutils import quoteattr

from lxml import etree

from ..recorder import LogError, open_log, read_log
from . import messages as M
from .scenario import Grid, Lab, Parameters

LOG_FORMAT = "simleague-ciberrato"   # the format name in our JSON logs' header
#: ``ArrivalTime`` of a robot that has not yet visited every target (the original starts it at 0)
NOT_ARRIVED = 0
MAX_XML_LOG_BYTES = 2_000_000_000     # a log larger than this is refused rather than read into memory


class XmlLog:
    """Writes the original's XML log: ``XmlLog(path, params, lab, grid)``, then :meth:`cycle` with
    each cycle's snapshot (``World.snapshot()`` plus, per robot, the ``action`` applied in that
    cycle as a dict of :class:`~simleague.ciberrato.types.Action` fields) and :meth:`close`.

    Raises OSError when the file cannot be written. ``.gz`` names are gzip-compressed.
    """

    def __init__(self, path: str | Path, params: Parameters, lab: Lab, grid: Grid):
        self.path = Path(path)
        self._file = open_log(self.path, "w")
        self._pending: dict | None = None
        header = M.format_parameters(params, len(lab.beacons))
        self._file.write("<Log>\n" + header + M.format_lab(lab) + M.format_grid(grid))

    def cycle(self, snapshot: dict) -> None:
        """Take one cycle's snapshot: the one before it is written with this cycle's actions."""
        if self._pending is not None and snapshot["time"] > self._pending["time"]:
            actions = {r["id"]: r.get("action") for r in snapshot["robots"]}
            self._write(self._pending, actions)
        if snapshot["state"] in ("Running", "Finished"):
            self._pending = snapshot

    def close(self) -> None:
        """Write the last cycle (no actions, as the original's last ``LogInfo``) and ``</Log>``."""
        if self._file.closed:
            return
        if self._pending is not None:
            self._write(self._pending, {})
            self._pending = None
        self._file.write("</Log>\n")
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _write(self, snapshot: dict, actions: dict) -> None:
        out = [f'<LogInfo Time="{snapshot["time"]}">\n']
        for r in snapshot["robots"]:
            visiting = r.get("visiting_time")
            out.append(f'\t<Robot Name={quoteattr(r["name"])} Id="{r["id"]}" State="{r["state"]}">\n'
                       f'\t\t<Pos X="{M.g(r["x"])}" Y="{M.g(r["y"])}" Dir="{M.g(r["dir"])}"/>\n'
                       f'\t\t<Scores Score="{r["score"]}" '
                       f'ArrivalTime="{visiting if visiting is not None else NOT_ARRIVED}" '
                       f'ReturningTime="{r.get("returning_time", 0)}" Collisions="{r["collisions"]}" '
                       f'Collision="{"True" if r.get("collision") else "False"}" '
                       f'VisitedMask="{r.get("visited", "")}"/>\n')
            action = actions.get(r["id"])
            if action:
                out.append(_action_element(action))
            out.append("\t</Robot>\n")
        out.append("</LogInfo>\n")
        self._file.write("".join(out))


def _action_element(action: dict) -> str:
    """``<Action .../>`` with the devices the robot set, in the original's order."""
    parts = []
    if action.get("left") is not None:
        parts.append(f' LeftMotor="{M.g(action["left"])}"')
    if action.get("right") is not None:
        parts.append(f' RightMotor="{M.g(action["right"])}"')
    for key, name in (("end_led", "EndLed"), ("returning_led", "ReturningLed"), ("visiting_led", "VisitingLed")):
        if action.get(key) is not None:
            parts.append(f' {name}="{"On" if action[key] else "Off"}"')
    return f'\t\t<Action{"".join(parts)} />\n' if parts else ""


def _attr(el, key: str, convert, default, where: str):
    raw = el.get(key)
    if raw is None:
        return default
    try:
        return convert(raw)
    except ValueError:
        raise LogError(f"{where}: line {el.sourceline}: <{el.tag}> {key}={raw!r} is not a number") from None


def read_xml_log(path: str | Path) -> tuple[dict, list[dict]]:
    """Read an XML trial log (the original simulator's, or ours): (header, cycle records).

    The header has ``lab_xml``, ``grid_xml`` and ``params`` (field names of
    :class:`~simleague.ciberrato.scenario.Parameters`, from the log's ``<Parameters>``); each record
    ``time``, ``state`` and ``robots`` with the keys of ``World.snapshot`` that the log holds
    (``id``, ``name``, ``state``, ``x``, ``y``, ``dir`` in degrees, ``score``, ``visiting_time``,
    ``returning_time``, ``collisions``, ``collision``, ``visited``, and ``leds`` as the orders so far
    set them). A log cut
    off before ``</Log>`` (a simulator killed mid-trial) gives what it holds. Raises
    :class:`~simleague.recorder.LogError` naming the file, the line and the problem.
    """
    from .scenario import _PARAM_ATTRS, ScenarioError, load_parameters

    path = Path(path)
    where = str(path)
    try:
        if path.stat().st_size > MAX_XML_LOG_BYTES:
            raise LogError(f"{where}: larger than {MAX_XML_LOG_BYTES} bytes; not read")
        with open_log(path, "r", binary=True) as f:
            data = f.read()
    except OSError as exc:
        raise LogError(f"{where}: {exc.strerror or exc}") from None
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise LogError(f"{where}: not an XML log: {exc}") from None
    if root is None or root.tag != "Log":
        raise LogError(f"{where}: not a trial log (expected a <Log> element)")
    header: dict = {}
    for child in root:
        if child.tag == "Lab":
            header["lab_xml"] = etree.tostring(child, encoding="unicode")
        elif child.tag == "Grid":
            header["grid_xml"] = etree.tostring(child, encoding="unicode")
        elif child.tag == "Parameters":
            known = {k: v for k, v in child.attrib.items() if k in _PARAM_ATTRS}
            element = etree.Element("Parameters", known)
            try:
                params = load_parameters(etree.tostring(element))
            except ScenarioError as exc:
                raise LogError(f"{where}: line {child.sourceline}: {exc.problem}") from None
            header["params"] = dataclasses.asdict(params)
    for key in ("lab_xml", "grid_xml"):
        if key not in header:
            raise LogError(f"{where}: the log has no <{key[:-4].capitalize()}>")
    cycles = []
    state = "Running"
    leds: dict[int, list[bool]] = {}         # LED orders persist: the state at each cycle
    for info in root.iter("LogInfo"):
        robots = []
        for el in info.iter("Robot"):
            pos, scores, action = el.find("Pos"), el.find("Scores"), el.find("Action")
            if pos is None or scores is None:
                raise LogError(f"{where}: line {el.sourceline}: <Robot> without <Pos> or <Scores>")
            arrival = _attr(scores, "ArrivalTime", int, NOT_ARRIVED, where)
            robot = {"id": _attr(el, "Id", int, 0, where), "name": el.get("Name", ""),
                     "state": el.get("State", ""),
                     "x": _attr(pos, "X", float, 0.0, where), "y": _attr(pos, "Y", float, 0.0, where),
                     "dir": _attr(pos, "Dir", float, 0.0, where),
                     "score": _attr(scores, "Score", int, 0, where),
                     "visiting_time": arrival or None,
                     "returning_time": _attr(scores, "ReturningTime", int, 0, where),
                     "collisions": _attr(scores, "Collisions", int, 0, where),
                     "collision": scores.get("Collision") == "True", "visited": scores.get("VisitedMask", "")}
            now = leds.setdefault(robot["id"], [False, False, False])
            robot["leds"] = list(now)
            if action is not None:          # the orders for the next cycle
                for k, name in enumerate(("EndLed", "ReturningLed", "VisitingLed")):
                    if action.get(name) is not None:
                        now[k] = action.get(name) == "On"
            robots.append(robot)
        cycles.append({"time": _attr(info, "Time", int, len(cycles), where), "state": state, "robots": robots})
    if cycles:
        cycles[-1]["state"] = "Finished"
    return header, cycles


def is_xml_log(path: str | Path) -> bool:
    """True when the file (or its gzip content) starts with ``<``: an XML log, not JSON lines."""
    try:
        with open_log(path, "r", binary=True) as f:
            return f.read(64).lstrip().startswith(b"<")
    except (OSError, EOFError):
        return False


def read_trial_log(path: str | Path, notes: list[str] | None = None) -> tuple[dict, list[dict]]:
    """A trial log in either format: the original's XML (:func:`read_xml_log`) or our JSON lines
    (:func:`simleague.recorder.read_log`). Returns (header, cycle records); raises
    :class:`~simleague.recorder.LogError`."""
    if is_xml_log(path):
        return read_xml_log(path)
    header, cycles, _ = read_log(path, LOG_FORMAT, notes)
    return header, cycles
