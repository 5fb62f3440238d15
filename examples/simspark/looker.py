"""A minimal SimSpark agent: join a team, stand at a place on the field, and turn its head
towards the ball whenever it sees it; print what it perceives now and then.

    simleague simspark serve &                        # or rcssserver3d, the original
    python examples/simspark/looker.py [--host 127.0.0.1] [--port 3100] [--team Lookers] [--seconds 10]

It speaks the agent protocol (TCP 3100, S-expressions) through ``simleague.simspark.client``, so it
runs against the original server too. The head's yaw joint is ``he1`` (degrees in perceptors,
rad/s in the effector); the ball's horizontal angle in ``See`` is in degrees, positive to the left.
"""

import argparse

from simleague.simspark.client import AgentClient

GAIN = 0.05             # rad/s of head speed per degree of the ball off the head's axis


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=3100)
    ap.add_argument("--team", default="Lookers")
    ap.add_argument("--seconds", type=float, default=10.0, help="Simulation seconds to play.")
    args = ap.parse_args()
    seen_ball = 0
    with AgentClient(args.host, args.port) as agent:
        agent.scene(robot_type=0)
        agent.receive()
        agent.init(unum=0, team=args.team)
        first = agent.receive()
        while first.unum is None:                      # the server says which number and side we got
            first = agent.receive()
        agent.beam(-2.0 - first.unum, 0.0, 0.0)        # our own half, facing the opponent's goal
        began = first.time
        now = first
        while now.time - began < args.seconds:
            now = agent.receive()
            speed = 0.0
            if now.seen is not None and now.seen.ball is not None:
                seen_ball += 1
                distance, angle, _ = now.seen.ball
                speed = max(-2.0, min(2.0, GAIN * angle))
            agent.act({"he1": speed}, syn=True)
            if round(now.time * 50) % 250 == 0:        # every 5 s
                head = now.joints.get("hj1", 0.0)
                print(f"t {now.time:.2f} s  {now.play_mode}  head {head:.1f} deg  ball seen {seen_ball} times")
    print(f"player {first.unum} ({first.side}): saw the ball {seen_ball} times in {args.seconds:g} s")
    return 0 if seen_ball else 1


if __name__ == "__main__":
    raise SystemExit(main())
