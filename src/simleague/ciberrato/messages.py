"""CiberRato wire messages: XML datagrams <-> typed requests, and the simulator's replies.

Parsing happens once, here, at the edge: every incoming datagram becomes one of
:class:`Register`, :class:`RegisterBeacon`, :class:`ViewerHello`, :class:`Action` (from ``world``),
or a :class:`ViewerCommand`; anything else raises :class:`MessageError`. Formatting is plain string
formatting in the original's exact layout (golden README "Units and formatting"): tab-indented
lines, ``%g`` numbers, a trailing newline; the server adds the NUL byte.

Wire facts: ``../shared/specs/ciberrato.md`` ("Wire"); 2008 rules section 8.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from lxml import etree

from .. import errors
from .scenario import Grid, Lab, Parameters
from .types import Action, Observation, RobotStatus

#: Largest datagram accepted; the original reads 1023 bytes, its clients send far less.
MAX_DATAGRAM = 8192
MAX_NAME = 64
MAX_IR_CHILDREN = 8


class MessageError(errors.Error):
    """A datagram that is not a CiberRato message we accept; ``str()`` says why, in one line."""


@dataclass(frozen=True)
class Register:
    """``<Robot Name Id>``: a robot asks for grid position ``id`` (0 = first free)."""

    name: str
    id: int
    ir_angles: dict[int, float]


@dataclass(frozen=True)
class RegisterBeacon:
    """``<RobotBeacon Name Id Height>``: a robot carrying a beacon (refused: not supported)."""

    name: str
    id: int
    height: float


@dataclass(frozen=True)
class ViewerHello:
    """``<View/>``: a viewer registers."""


@dataclass(frozen=True)
class ViewerCommand:
    """A viewer's command: ``kind`` is LabReq, GridReq, Start, Stop, Reset, Restart or Remove
    (``robot_id`` set for Remove)."""

    kind: str
    robot_id: int = 0


_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                          remove_comments=True, remove_pis=True)
_ON = {"On": True, "Off": False}
_VIEWER_KINDS = {"LabReq", "GridReq", "Start", "Stop", "Reset", "Restart"}


def _parse_root(data: bytes) -> etree._Element:
    if len(data) > MAX_DATAGRAM:
        raise MessageError(f"datagram of {len(data)} bytes is larger than {MAX_DATAGRAM}")
    data = data.split(b"\0", 1)[0].strip()   # one NUL at the end, or none (croblink)
    if not data:
        raise MessageError("empty datagram")
    try:
        root = etree.fromstring(data, _PARSER)
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise MessageError(f"not well-formed XML: {exc}") from None
    if root is None or not isinstance(root.tag, str):
        raise MessageError("no XML element in the datagram")
    return root


def _number(el, key: str, default: float | None = None) -> float:
    raw = el.get(key)
    if raw is None:
        if default is None:
            raise MessageError(f"<{el.tag}> needs a {key} attribute")
        return default
    try:
        value = float(raw.strip().replace(",", "."))
    except ValueError:
        raise MessageError(f"<{el.tag}> {key}={raw!r} is not a number") from None
    if not math.isfinite(value):
        raise MessageError(f"<{el.tag}> {key}={raw!r} is not a finite number")
    return value


def _int(el, key: str, default: int) -> int:
    value = _number(el, key, float(default))
    if not value.is_integer() or not 0 <= value <= 1_000_000:
        raise MessageError(f"<{el.tag}> {key}={el.get(key)!r} is not a whole number from 0")
    return int(value)


def _led(el, key: str) -> bool | None:
    raw = el.get(key)
    if raw is None:
        return None
    if raw not in _ON:
        raise MessageError(f"<Actions> {key}={raw!r} must be On or Off")
    return _ON[raw]


def parse_request(data: bytes):
    """A datagram sent to the simulator's registration port -> Register, RegisterBeacon or
    ViewerHello. Raises :class:`MessageError`."""
    root = _parse_root(data)
    if root.tag == "View":
        return ViewerHello()
    if root.tag in ("Robot", "RobotBeacon"):
        name = root.get("Name", "")
        if not name or root.get("Id") is None:
            raise MessageError(f"<{root.tag}> needs a Name and an Id (the original's clients send both)")
        if len(name) > MAX_NAME:
            raise MessageError(f"robot name of {len(name)} characters is longer than {MAX_NAME}")
        rid = _int(root, "Id", 0)
        if root.tag == "RobotBeacon":
            return RegisterBeacon(name, rid, _number(root, "Height", 0.0))
        angles = {}
        children = [c for c in root if isinstance(c.tag, str)]
        if len(children) > MAX_IR_CHILDREN:
            raise MessageError(f"<Robot> has {len(children)} children, at most {MAX_IR_CHILDREN}")
        for child in children:
            if child.tag == "IRSensor":
                sid = _int(child, "Id", 0)
                if sid > 3:
                    raise MessageError(f"<IRSensor> Id={sid} must be 0 to 3")
                angles[sid] = _number(child, "Angle")
        return Register(name, rid, angles)
    raise MessageError(f"<{root.tag}> is not a registration (<Robot>, <RobotBeacon> or <View/>)")


def parse_action(data: bytes) -> Action:
    """A datagram from a robot -> :class:`Action`. Raises :class:`MessageError`."""
    root = _parse_root(data)
    if root.tag != "Actions":
        raise MessageError(f"<{root.tag}> is not <Actions>")
    left = _number(root, "LeftMotor") if root.get("LeftMotor") is not None else None
    right = _number(root, "RightMotor") if root.get("RightMotor") is not None else None
    requests: list[str] = []
    say = None
    for child in root:
        if child.tag == "SensorRequests":
            requests.extend(k for k, v in child.attrib.items() if v == "Yes")
        elif child.tag == "Say":
            say = child.text or ""
    return Action(left, right, _led(root, "VisitingLed"), _led(root, "ReturningLed"), _led(root, "EndLed"),
                  tuple(requests[:64]), say)


def parse_viewer(data: bytes) -> ViewerCommand:
    """A datagram from a registered viewer -> :class:`ViewerCommand`. Raises :class:`MessageError`."""
    root = _parse_root(data)
    if root.tag in _VIEWER_KINDS:
        return ViewerCommand(root.tag)
    if root.tag == "Robot" and root.get("Removed") == "Yes":
        return ViewerCommand("Remove", _int(root, "Id", 0))
    raise MessageError(f"<{root.tag}> is not a viewer command")


def parse_measures(data: bytes) -> Observation:
    """A ``<Measures>`` datagram (client side) -> :class:`Observation`. Raises :class:`MessageError`."""
    root = _parse_root(data)
    if root.tag != "Measures":
        raise MessageError(f"<{root.tag}> is not <Measures>")
    sensors = root.find("Sensors")
    leds = root.find("Leds")
    buttons = root.find("Buttons")
    if sensors is None or leds is None or buttons is None:
        raise MessageError("<Measures> needs <Sensors>, <Leds> and <Buttons>")
    collision = sensors.get("Collision")
    ir, beacons, gps, line, score, heard = {}, {}, None, None, None, []
    for el in sensors:
        if el.tag == "IRSensor":
            ir[_int(el, "Id", 0)] = _number(el, "Value")
        elif el.tag == "BeaconSensor":
            raw = el.get("Value")
            beacons[_int(el, "Id", 0)] = None if raw == "NotVisible" else _number(el, "Value")
        elif el.tag == "GPS":
            gps = (_number(el, "X"), _number(el, "Y"))
        elif el.tag == "LineSensor":
            line = el.get("Value")
        elif el.tag == "Message":
            heard.append((_int(el, "From", 0), el.text or ""))
        elif el.tag == "Score":
            score = dict(score=int(_number(el, "Score", 0)), arrival_time=int(_number(el, "ArrivalTime", 0)),
                         returning_time=int(_number(el, "ReturningTime", 0)),
                         collisions=int(_number(el, "Collisions", 0)),
                         collision=el.get("Collision") == "True", visited_mask=el.get("VisitedMask", ""))
    return Observation(
        time=_int(root, "Time", 0),
        collision=None if collision is None else collision == "Yes",
        compass=None if sensors.get("Compass") is None else int(_number(sensors, "Compass")),
        ground=None if sensors.get("Ground") is None else int(_number(sensors, "Ground")),
        ir=ir, beacons=beacons, gps=gps, line=line, score=score, messages=heard,
        leds=(leds.get("EndLed") == "On", leds.get("ReturningLed") == "On", leds.get("VisitingLed") == "On"),
        buttons=(buttons.get("Start") == "On", buttons.get("Stop") == "On"))


def parse_reply(data: bytes) -> dict[str, str] | None:
    """A ``<Reply>`` (client side) -> the Parameters attributes, or None when Refused.
    Raises :class:`MessageError`."""
    root = _parse_root(data)
    if root.tag != "Reply":
        raise MessageError(f"<{root.tag}> is not <Reply>")
    if root.get("Status") != "Ok":
        return None
    params = root.find("Parameters")
    return dict(params.attrib) if params is not None else {}


# -- formatting ---------------------------------------------------------------------------------

def g(value: float) -> str:
    """C's ``%g``: 6 significant digits, shortest form (the original's number format)."""
    return "%g" % value


def _onoff(b: bool) -> str:
    return "On" if b else "Off"


def format_measures(obs: Observation) -> str:
    """The ``<Measures>`` text for one robot (golden README "Measures formatting, exact")."""
    head = []
    if obs.collision is not None:
        head.append(f'Collision="{"Yes" if obs.collision else "No"}"')
    if obs.compass is not None:
        head.append(f'Compass="{obs.compass}"')
    if obs.ground is not None:
        head.append(f'Ground="{obs.ground}"')
    lines = [f'<Measures Time="{obs.time}">', f'\t<Sensors {" ".join(head)}>' if head else "\t<Sensors>"]
    lines += [f'\t\t<IRSensor Id="{sid}" Value="{g(v)}"/>' for sid, v in obs.ir.items()]
    lines += [f'\t\t<BeaconSensor Id="{bid}" Value="{"NotVisible" if v is None else g(v)}"/>'
              for bid, v in obs.beacons.items()]
    if obs.gps is not None:
        lines.append(f'\t\t<GPS X="{g(obs.gps[0])}" Y="{g(obs.gps[1])}" />')
    if obs.line is not None:
        lines.append(f'\t\t<LineSensor Value="{obs.line}" />')
    lines += [f'\t\t<Message From="{sid}"><![CDATA[{text}]]></Message>' for sid, text in obs.messages]
    if obs.score is not None:
        s = obs.score
        lines.append(f'\t\t<Score Score="{s["score"]}" ArrivalTime="{s["arrival_time"]}" '
                     f'ReturningTime="{s["returning_time"]}" Collisions="{s["collisions"]}" '
                     f'Collision="{"True" if s["collision"] else "False"}" VisitedMask="{s["visited_mask"]}" />')
    end, ret, vis = obs.leds
    start, stop = obs.buttons
    lines += ["\t</Sensors>",
              f'\t<Leds EndLed="{_onoff(end)}" ReturningLed="{_onoff(ret)}" VisitingLed="{_onoff(vis)}"/>',
              f'\t<Buttons Start="{_onoff(start)}" Stop="{_onoff(stop)}"/>',
              "</Measures>", ""]
    return "\n".join(lines)


def format_status(st: RobotStatus, time: int) -> str:
    """The viewer's per-cycle ``<Robot>`` element; Score printed as C's ``%u`` (quirk 2)."""
    r = st.record
    return (f'<Robot Name={quoteattr(st.name)} Id="{st.id}" Time="{time}" Score="{r.score % 2**32}" '
            f'ArrivalTime="{r.arrival_time}" ReturningTime="{r.returning_time}" Collisions="{r.collisions}" '
            f'Collision="{"True" if st.collision else "False"}" VisitedMask="{r.visited_mask}" '
            f'State="{st.state}">\n\t<Position X="{g(st.x)}" Y="{g(st.y)}" Dir="{g(st.dir_deg)}"/>\n</Robot>\n')


def format_parameters(params: Parameters, n_beacons: int) -> str:
    """The ``<Parameters .../>`` element in the original's layout (simulator/cbparameters.cpp
    ``toXml``): in the registration reply and at the head of an XML trial log."""
    p = params
    return (
        f'<Parameters SimTime="{p.sim_time}" CycleTime="{p.cycle_time}"\n'
        f'\t\tCompassNoise="{g(p.compass_noise)}" BeaconNoise="{g(p.beacon_noise)}" ObstacleNoise="{g(p.obstacle_noise)}"\n'
        f'\t\tMotorsNoise="{g(p.motors_noise)}" KeyTime="{p.key_time}"\n'
        f'\t\tGPS="{_onoff(p.gps)}" GPSLinNoise="{g(p.gps_lin_noise)}" GPSDirNoise="{g(p.gps_dir_noise)}" \n'
        f'\t\tBeaconSensor="{_onoff(p.beacon_sensor)}" \n'
        f'\t\tCompassSensor="{_onoff(p.compass_sensor)}" \n'
        f'\t\tScoreSensor="{_onoff(p.score_sensor)}" ShowActions="{"True" if p.show_actions else "False"}" NBeacons="{n_beacons}" \n'
        f'\t\tNRequestsPerCycle="{p.n_requests_per_cycle}" \n'
        f'\t\tObstacleRequestable="{_onoff(p.obstacle_requestable)}" BeaconRequestable="{_onoff(p.beacon_requestable)}" \n'
        f'\t\tGroundRequestable="{_onoff(p.ground_requestable)}" CompassRequestable="{_onoff(p.compass_requestable)}"\n'
        f'\t\tCollisionRequestable="{_onoff(p.collision_requestable)}"\n'
        f'\t\tObstacleLatency="{p.obstacle_latency}" BeaconLatency="{p.beacon_latency}" \n'
        f'\t\tGroundLatency="{p.ground_latency}" CompassLatency="{p.compass_latency}"\n'
        f'\t\tCollisionLatency="{p.collision_latency}"\n'
        f'\t\tBeaconAperture="{p.beacon_aperture:f}"\n'
        f'\t\tReturnTimePenalty="{p.return_time_penalty}" ArrivalTimePenalty="{p.arrival_time_penalty}" \n'
        f'\t\tCollisionWallPenalty="{p.collision_wall_penalty}" CollisionRobotPenalty="{p.collision_robot_penalty}" \n'
        f'\t\tTargetReward="{p.target_reward}" HomeReward="{p.home_reward}"\n'
        '/>\n'
    )


def format_reply(params: Parameters, n_beacons: int) -> str:
    """``<Reply Status="Ok">`` with the effective parameters, in the original's layout (< 1024 bytes)."""
    return '<Reply Status="Ok">\n\t' + format_parameters(params, n_beacons) + '</Reply>\n'


REFUSED = '<Reply Status="Refused"></Reply>\n'


def format_lab(lab: Lab) -> str:
    """The answer to ``<LabReq/>``: beacons, targets, then walls (patterns expanded), no border."""
    out = [f'<Lab Name={quoteattr(lab.name)} Height="{g(lab.height)}" Width="{g(lab.width)}">\n']
    out += [f'\t<Beacon X="{g(b.x)}" Y="{g(b.y)}" Height="{g(b.height)}"/>\n' for b in lab.beacons]
    out += [f'\t<Target X="{g(t.x)}" Y="{g(t.y)}" Radius="{g(t.radius)}"/>\n' for t in lab.targets]
    for w in lab.walls:
        out.append(f'\t<Wall Height="{g(w.height)}">\n')
        out += [f'\t\t<Corner X="{g(x)}" Y="{g(y)}"/>\n' for x, y in w.corners]
        out.append("\t</Wall>\n")
    out.append("</Lab>\n")
    return "".join(out)


def format_grid(grid: Grid) -> str:
    """The answer to ``<GridReq/>``."""
    rows = "".join(f'\t<Position X="{g(p.x)}" Y="{g(p.y)}" Dir="{g(p.dir)}"/>\n' for p in grid.positions)
    return f"<Grid>\n{rows}</Grid>\n"


def format_register(r: Register) -> str:
    """A :class:`Register` as the ``<Robot Name Id>`` datagram a client sends (used by our client);
    the name is escaped, so any text round-trips through :func:`parse_request`."""
    children = "".join(f'<IRSensor Id="{i}" Angle="{g(a)}"/>' for i, a in r.ir_angles.items())
    return f'<Robot Name={quoteattr(r.name)} Id="{r.id}">{children}</Robot>'


def format_action(a: Action) -> str:
    """An :class:`Action` as the ``<Actions>`` datagram a client sends (used by our client)."""
    attrs = []
    if a.left is not None:
        attrs.append(f'LeftMotor="{g(a.left)}"')
    if a.right is not None:
        attrs.append(f'RightMotor="{g(a.right)}"')
    for key, value in (("VisitingLed", a.visiting_led), ("ReturningLed", a.returning_led), ("EndLed", a.end_led)):
        if value is not None:
            attrs.append(f'{key}="{_onoff(value)}"')
    body = ""
    if a.requests:
        body += "<SensorRequests " + " ".join(f'{r}="Yes"' for r in a.requests) + "/>"
    if a.say is not None:
        body += f"<Say><![CDATA[{a.say.replace(']]>', ']] >')}]]></Say>"
    head = "<Actions" + ("" if not attrs else " " + " ".join(attrs))
    return f"{head}>{body}</Actions>" if body else f"{head}/>"


__all__ = ["MessageError", "Register", "RegisterBeacon", "ViewerHello", "ViewerCommand", "parse_request",
           "parse_action", "parse_viewer", "format_measures", "format_status", "format_reply", "format_lab",
           "format_grid", "format_register", "format_action", "REFUSED", "MAX_DATAGRAM"]
