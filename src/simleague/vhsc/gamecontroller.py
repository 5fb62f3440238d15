"""GameController packets of the RoboCup humanoid league (specs/vhsc.md "GameController"): the
game state the referee broadcasts (``RGme``, version 12, 688 bytes, little-endian, packed) and the
robots' answers (``RGrt``, version 2, 8 bytes). Pure: bytes in, bytes out.

Layout of ``RGme`` v12: header "RGme", version (uint16), packet number, players per team, game
type, state, first half, kick-off team, secondary state (uint8 each), secondary state info
(4 bytes), drop-in team (uint8), drop-in time, seconds remaining, secondary time (uint16 each),
then two teams of: team number, colour, score, penalty shot (uint8 each), single shots (uint16),
coach sequence (uint8), coach message (253 bytes), then the coach and 11 players of: penalty,
seconds till unpenalised, warnings, yellow cards, red cards, goalkeeper (uint8 each).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

GAME_HEADER, GAME_VERSION = b"RGme", 12
RETURN_HEADER, RETURN_VERSION = b"RGrt", 2
GAME_PORT, RETURN_PORT = 3838, 3939
MAX_PLAYERS = 11

STATE_INITIAL, STATE_READY, STATE_SET, STATE_PLAYING, STATE_FINISHED = range(5)
STATES = ("initial", "ready", "set", "playing", "finished")
TEAM_BLUE, TEAM_RED = 0, 1                    # team colours
DROPPED_BALL_TEAM = 128                       # ``kick_off_team`` of a dropped ball: either team may play it
PENALTY_NONE = 0
# the humanoid league's penalty codes
HL_BALL_MANIPULATION, HL_PHYSICAL_CONTACT, HL_ILLEGAL_ATTACK, HL_ILLEGAL_DEFENSE = 30, 31, 32, 33
HL_PICKUP_OR_INCAPABLE, HL_SERVICE = 34, 35
# secondary states (set plays); ``secondary_state_info`` is (team number, phase, 0, 0), phase
# 0 awarded, 1 prepare, 2 execute
STATE2_NORMAL, STATE2_PENALTY_SHOOT, STATE2_OVERTIME, STATE2_TIMEOUT = 0, 1, 2, 3
STATE2_CORNER_KICK, STATE2_GOAL_KICK, STATE2_THROW_IN = 7, 8, 9
STATE2_DIRECT_FREEKICK, STATE2_INDIRECT_FREEKICK, STATE2_PENALTY_KICK = 4, 5, 6
SET_PLAYS = frozenset({STATE2_DIRECT_FREEKICK, STATE2_INDIRECT_FREEKICK, STATE2_PENALTY_KICK,
                       STATE2_CORNER_KICK, STATE2_GOAL_KICK, STATE2_THROW_IN})
RETURN_MAN_PENALISE, RETURN_MAN_UNPENALISE, RETURN_ALIVE = 0, 1, 2
RETURN_MESSAGES = ("manually penalised", "manually unpenalised", "alive")   # RGrt message 0-2

_HEAD = struct.Struct("<4sHBBBBBBB4sBHHH")
_TEAM = struct.Struct("<BBBBHB253s")
_ROBOT = struct.Struct("<BBBBBB")
_RETURN = struct.Struct("<4sBBBB")
PACKET_SIZE = _HEAD.size + 2 * (_TEAM.size + (1 + MAX_PLAYERS) * _ROBOT.size)


@dataclass
class RobotInfo:
    """A player's (or the coach's) status: penalty code, seconds till unpenalised, warnings,
    yellow and red cards, and whether it is the goalkeeper."""

    penalty: int = PENALTY_NONE
    secs_till_unpenalised: int = 0
    warnings: int = 0
    yellow_cards: int = 0
    red_cards: int = 0
    goalkeeper: bool = False


@dataclass
class TeamInfo:
    """A team: number, colour (0 blue, 1 red), score, penalty shot, single shots and players."""

    number: int
    colour: int
    score: int = 0
    penalty_shot: int = 0
    single_shots: int = 0
    players: list[RobotInfo] = field(default_factory=lambda: [RobotInfo() for _ in range(MAX_PLAYERS)])


@dataclass
class GameData:
    """What ``RGme`` carries. Times in seconds."""

    teams: tuple[TeamInfo, TeamInfo]
    packet_number: int = 0
    players_per_team: int = 4
    game_type: int = 0
    state: int = STATE_INITIAL
    first_half: bool = True
    kick_off_team: int = 0
    secondary_state: int = 0
    secondary_state_info: bytes = b"\0\0\0\0"
    drop_in_team: int = 0
    drop_in_time: int = 0
    secs_remaining: int = 600
    secondary_time: int = 0

    def encode(self) -> bytes:
        """The 688-byte packet. Raises struct.error for a value out of its field's range."""
        out = [_HEAD.pack(GAME_HEADER, GAME_VERSION, self.packet_number % 256, self.players_per_team,
                          self.game_type, self.state, int(self.first_half), self.kick_off_team,
                          self.secondary_state, self.secondary_state_info, self.drop_in_team,
                          self.drop_in_time, self.secs_remaining, self.secondary_time)]
        for team in self.teams:
            out.append(_TEAM.pack(team.number, team.colour, team.score, team.penalty_shot, team.single_shots,
                                  0, b""))
            for robot in [RobotInfo(), *team.players[:MAX_PLAYERS]]:          # the coach first
                out.append(_ROBOT.pack(robot.penalty, robot.secs_till_unpenalised, robot.warnings,
                                       robot.yellow_cards, robot.red_cards, int(robot.goalkeeper)))
        return b"".join(out)

    @classmethod
    def decode(cls, data: bytes) -> GameData:
        """A packet back (what a robot's software reads). Raises ValueError for anything else."""
        if len(data) != PACKET_SIZE or data[:4] != GAME_HEADER:
            raise ValueError(f"not an RGme packet ({len(data)} bytes, header {data[:4]!r})")
        head = _HEAD.unpack_from(data)
        if head[1] != GAME_VERSION:
            raise ValueError(f"RGme version {head[1]}, not {GAME_VERSION}")
        teams, offset = [], _HEAD.size
        for _ in range(2):
            number, colour, score, shot, shots, _seq, _msg = _TEAM.unpack_from(data, offset)
            offset += _TEAM.size + _ROBOT.size                                   # skip the coach
            players = []
            for _ in range(MAX_PLAYERS):
                p = _ROBOT.unpack_from(data, offset)
                players.append(RobotInfo(p[0], p[1], p[2], p[3], p[4], bool(p[5])))
                offset += _ROBOT.size
            teams.append(TeamInfo(number, colour, score, shot, shots, players))
        return cls(tuple(teams), head[2], head[3], head[4], head[5], bool(head[6]), head[7], head[8], head[9],
                   head[10], head[11], head[12], head[13])


@dataclass(frozen=True)
class ReturnData:
    """A robot's ``RGrt``: its team number, player number and message (0-2)."""

    team: int
    player: int
    message: int

    def encode(self) -> bytes:
        """The 8-byte packet. Raises struct.error for a number out of 0-255."""
        return _RETURN.pack(RETURN_HEADER, RETURN_VERSION, self.team, self.player, self.message)

    @classmethod
    def decode(cls, data: bytes) -> ReturnData:
        """Raises ValueError for a packet that is not ``RGrt`` v2 with a known message."""
        if len(data) != _RETURN.size:
            raise ValueError(f"an RGrt packet has {_RETURN.size} bytes, not {len(data)}")
        header, version, team, player, message = _RETURN.unpack(data)
        if header != RETURN_HEADER or version != RETURN_VERSION:
            raise ValueError(f"not an RGrt v{RETURN_VERSION} packet (header {header!r}, version {version})")
        if message >= len(RETURN_MESSAGES) or not 1 <= player <= MAX_PLAYERS:
            raise ValueError(f"RGrt with player {player} and message {message}")
        return cls(team, player, message)


def broadcast_address(host: str) -> str:
    """Where ``RGme`` packets go by default, as the GameController broadcasts them: the broadcast
    address of the network interface that has ``host`` (127.255.255.255 for a loopback host; for
    0.0.0.0 the first interface with a broadcast address; 255.255.255.255 when none is known)."""
    import ipaddress
    import socket

    import psutil

    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "255.255.255.255"
    if address.is_loopback:
        return "127.255.255.255"
    for addresses in psutil.net_if_addrs().values():
        for a in addresses:
            if a.family != socket.AF_INET or ipaddress.ip_address(a.address).is_loopback:
                continue
            if address.is_unspecified or a.address == host:
                if a.broadcast:
                    return a.broadcast
                if a.netmask:
                    return str(ipaddress.ip_network(f"{a.address}/{a.netmask}", strict=False).broadcast_address)
    return "255.255.255.255"
