"""The league's game file (issue 29, part 3): read as the league's referee writes it, one-line
errors with the JSON path, sides, kick-off and team numbers in the game (RGme over real UDP,
robots on the file's ports), a knockout game's overtime."""

import json
import socket
import subprocess
import sys

import numpy as np
import pytest

from simleague.vhsc.config import ConfigError
from simleague.vhsc.game import load_game
from simleague.vhsc.gamecontroller import STATE2_NORMAL, STATE_INITIAL, STATE_READY, GameData, broadcast_address
from simleague.vhsc.options import GameOptions
from simleague.vhsc.referee import STATE2_OVERTIME, STATE2_PENALTY_SHOOT, FieldView, HumanoidReferee, PlaceBall
from simleague.vhsc.setup import KID_FIELD, build

from vhsc_helpers import free_base, free_udp, team


def game_file(tmp_path, **changes):
    """A game file as the league's referee folder has them (with its referee-only fields)."""
    red, blue = team(tmp_path, "Reds", 2), team(tmp_path, "Blues", 2)
    base_red, base_blue = free_base(), free_base()
    data = {"type": "NORMAL", "kickoff": "red", "class": "KID", "host": "127.0.0.1",
            "maximum_real_time_factor": 0, "side_left": "blue", "press_a_key_to_terminate": True,
            "use_bouncing_server": True,
            "red": {"id": "8", "config": red.name, "hosts": ["127.0.0.1", "192.168.123.21"],
                    "ports": [base_red + 1, base_red + 2]},
            "blue": {"id": 25, "config": blue.name, "hosts": ["127.0.0.1"], "ports": [base_blue + 1, base_blue + 2]}}
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    return path


def test_a_league_game_file_is_read_with_its_teams(tmp_path):
    game = load_game(game_file(tmp_path))
    assert (game.config.red.id, game.config.blue.id) == (8, 25)             # "8" as the league's referee reads it
    assert game.teams["red"].name == "Reds" and game.config.league == "KID"
    assert game.config.red.hosts == ("127.0.0.1", "192.168.123.21")
    assert game.toss(np.random.default_rng(0)) == ("blue", "red")
    tossed = {load_game(game_file(tmp_path, side_left=None, kickoff="random")).toss(np.random.default_rng(s))
              for s in range(20)}
    assert {left for left, _ in tossed} == {"red", "blue"} and {k for _, k in tossed} == {"red", "blue"}


@pytest.mark.parametrize("changes, expected", [
    ({"bogus": 1}, r"game\.json: bogus: Extra inputs are not permitted"),
    ({"type": "FRIENDLY"}, r"game\.json: type: Input should be 'NORMAL', 'KNOCKOUT' or 'PENALTY'"),
    ({"kickoff": "green"}, r"game\.json: kickoff: Input should be 'red', 'blue' or 'random'"),
    ({"blue": {"id": 8, "config": "Blues.json"}}, r"game\.json: blue\.id: 8 is the red team's id too"),
    ({"blue": {"id": 300, "config": "Blues.json"}}, r"game\.json: blue\.id: Input should be less than or equal"),
    ({"blue": {"id": 3, "config": "Blues.json", "ports": [70000]}}, r"game\.json: blue\.ports: .*1-65535"),
    ({"blue": {"id": 3, "config": "Blues.json", "ports": [10021]}}, r"game\.json: blue\.ports: 1 ports for 2"),
    ({"blue": {"id": 3, "config": "missing.json"}}, r"missing\.json: cannot read it"),
    ({"maximum_real_time_factor": -1}, r"game\.json: maximum_real_time_factor: Input should be greater"),
])
def test_a_broken_game_file_is_one_line_naming_the_json_path(tmp_path, changes, expected):
    with pytest.raises(ConfigError, match=expected) as caught:
        load_game(game_file(tmp_path, **changes))
    assert "\n" not in str(caught.value)


def test_the_team_on_the_left_is_placed_as_configured_the_other_mirrored(tmp_path):
    game = load_game(game_file(tmp_path))
    match = build(game.teams["red"], game.teams["blue"], left="blue")
    for (colour, _), session in match.sessions.items():
        x = match.world.pose(session.rid)[0][0]
        assert (x < 0) == (colour == "blue")


def test_a_match_from_a_game_file_uses_its_ids_ports_and_gamecontroller_address(tmp_path):
    path = game_file(tmp_path)
    listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listen.bind(("0.0.0.0", 0))                                           # as robots listen for RGme
    listen.settimeout(30)
    config = json.loads(path.read_text())
    done = subprocess.Popen([sys.executable, "-m", "simleague", "vhsc", "match", "--game", str(path), "--seconds", "3",
                             "--gc-port", str(listen.getsockname()[1]), "--gc-return-port", str(free_udp())],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        packet = GameData.decode(listen.recv(1024))
        out, errors = done.communicate(timeout=120)
    finally:
        done.kill()
        listen.close()
    assert done.returncode == 0, errors
    assert {packet.teams[0].number, packet.teams[1].number} == {8, 25} and packet.kick_off_team == 8
    assert packet.state == STATE_READY
    assert "blue plays on the left, red kicks off" in errors
    assert out.startswith("Reds (red) 0 : 0 Blues (blue)") and "Reds 2/2 connected, Blues 2/2" in out
    assert config["red"]["ports"][0] > 0


def test_the_gamecontroller_broadcasts_on_the_hosts_interface():
    assert broadcast_address("127.0.0.1") == "127.255.255.255"
    assert broadcast_address("not an address") == "255.255.255.255"
    listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)    # as a robot listens for RGme
    listen.bind(("0.0.0.0", 0))
    listen.settimeout(5)
    send = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    send.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    try:
        for host in ("127.0.0.1", "0.0.0.0"):                       # loopback, and the machine's network
            address = broadcast_address(host)
            send.sendto(host.encode(), (address, listen.getsockname()[1]))
            assert listen.recv(64) == host.encode(), address
    finally:
        listen.close()
        send.close()


def test_a_knockout_game_drawn_after_two_halves_plays_two_overtime_halves_then_a_shootout():
    players = [("red", 1), ("blue", 1)]
    view = FieldView((0.0, 0.0, KID_FIELD.ball_radius), poses={p: (-1.0 if p[0] == "red" else 1.0, 0.0, 0.0)
                                                               for p in players}, upright=dict.fromkeys(players, 1.0))
    ref = HumanoidReferee(KID_FIELD, players, options=GameOptions(
        team_numbers={"red": 8, "blue": 25}, left="blue", kick_off="blue", ready_time=1, set_time=1, half_time=10,
        overtime=True, overtime_time=5, break_time=1))
    assert any(isinstance(a, PlaceBall) for a in ref.start(view)) and ref.kick_off == "blue"
    halves = []
    while not ref.shootout:
        if ref.state == STATE_READY and (not halves or halves[-1][0] != ref.half):
            halves.append((ref.half, ref.left, ref.kick_off))
            packet = ref.game_data(0)
            assert packet.secondary_state == (STATE2_OVERTIME if ref.half > 2 else STATE2_NORMAL)
        ref.step(0.5, view)
    assert halves == [(1, "blue", "blue"), (2, "red", "red"), (3, "blue", "blue"), (4, "red", "red")]
    assert ref.state == STATE_INITIAL and ref.game_data(0).secondary_state == STATE2_PENALTY_SHOOT
    won = HumanoidReferee(KID_FIELD, players, options=GameOptions(ready_time=1, set_time=1, half_time=10, overtime=True,
                                                                  break_time=1))
    won.start(view)
    while won.half == 1:
        won.step(0.5, view)
    won.score["red"] = 1
    while not won.game_over:
        won.step(0.5, view)
    assert won.game_over and won.half == 2                               # decided: no overtime
