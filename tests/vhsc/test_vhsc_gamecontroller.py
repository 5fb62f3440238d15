"""GameController packets (issue 6, part 4): RGme v12 is 688 bytes with its fields where the
humanoid league's GameController puts them; RGrt v2 is checked."""

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simleague.vhsc.gamecontroller import (
    PACKET_SIZE,
    STATE_PLAYING,
    GameData,
    ReturnData,
    RobotInfo,
    TeamInfo,
)


def game() -> GameData:
    red, blue = TeamInfo(7, 1, score=2), TeamInfo(9, 0, score=1)
    red.players[2] = RobotInfo(penalty=34, secs_till_unpenalised=25, warnings=1, yellow_cards=1, red_cards=0)
    blue.players[0] = RobotInfo(goalkeeper=True)
    return GameData((red, blue), packet_number=300, state=STATE_PLAYING, first_half=False, kick_off_team=9,
                    secs_remaining=421, secondary_time=10)


def test_rgme_has_688_bytes_with_its_fields_in_place():
    data = game().encode()
    assert PACKET_SIZE == len(data) == 688
    assert data[:4] == b"RGme" and struct.unpack_from("<H", data, 4) == (12,)
    assert data[6] == 300 % 256 and data[7] == 4 and data[9] == STATE_PLAYING and data[10] == 0 and data[11] == 9
    assert struct.unpack_from("<HHH", data, 18) == (0, 421, 10)            # drop-in time, remaining, secondary
    team = 24
    assert data[team:team + 3] == bytes([7, 1, 2])                          # number, colour, score
    third_player = team + 260 + 6 + 2 * 6                                   # after the coach and two players
    assert data[third_player:third_player + 6] == bytes([34, 25, 1, 1, 0, 0])
    blue_goalie = team + 332 + 260 + 6
    assert data[blue_goalie + 5] == 1
    back = GameData.decode(data)
    assert back.teams[0].players[2].secs_till_unpenalised == 25 and back.teams[1].players[0].goalkeeper
    assert back.secs_remaining == 421 and not back.first_half


def test_rgrt_return_packets_are_checked():
    packet = ReturnData(7, 3, 2).encode()
    assert packet == b"RGrt\x02\x07\x03\x02"
    assert ReturnData.decode(packet) == ReturnData(7, 3, 2)
    for bad, why in ((b"RGrt\x01\x07\x03\x02", "not an RGrt v2"), (b"RGrt\x02\x07\x00\x02", "player 0"),
                     (b"RGrt\x02\x07\x03\x09", "message 9"), (b"RGrt", "8 bytes, not 4")):
        with pytest.raises(ValueError, match=why):
            ReturnData.decode(bad)


@given(st.binary(max_size=700))
def test_any_bytes_decode_or_raise_value_error(data):
    for decode in (GameData.decode, ReturnData.decode):
        try:
            decode(data)
        except ValueError:
            pass
