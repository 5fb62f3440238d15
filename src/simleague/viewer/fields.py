"""The soccer fields of every league as the web viewer draws them (``static/soccer.js``): size,
goals and markings, in metres, and the ``scene`` message that carries one to a page.

- SimSpark: the field of the server's rules (30 x 20 m by default), penalty areas of
  ``soccer/field.py`` (the original's scene), the centre circle of the free-kick distance;
- humanoid league, kid size 9 x 6 m and adult size 14 x 9 m: the rules' field with the goal areas,
  penalty areas, penalty mark and centre circle of the league's law 1
  (:data:`simleague.vhsc.setup.MARKINGS`);
- MSL: 18 x 12 m, penalty area 6.5 x 2.25 m, goal area 3.5 x 0.75 m, centre circle of 2 m radius,
  penalty mark 3 m from the goal line, goal 2 m wide and 0.6 m deep (the MSL rules).

Field frame: origin at the centre spot, x along the field towards the right-hand goal, y across.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class FieldDrawing:
    """What the viewer draws of a field (m): ``length`` x ``width``, the goals' mouth and depth,
    the penalty areas (depth from the goal line, width), the centre circle's radius, and, where the
    league has them, goal areas and a penalty mark (0: none)."""

    length: float
    width: float
    goal_width: float
    goal_depth: float
    penalty_length: float
    penalty_width: float
    circle: float
    goal_area_length: float = 0.0
    goal_area_width: float = 0.0
    penalty_mark: float = 0.0

    def message(self) -> dict:
        """The ``field`` of a scene message (keys as above; no goal area when the league has none)."""
        out = asdict(self)
        if not self.goal_area_length:
            for key in ("goal_area_length", "goal_area_width", "penalty_mark"):
                del out[key]
        return out


MSL = FieldDrawing(18.0, 12.0, 2.0, 0.6, 2.25, 6.5, 2.0, 0.75, 3.5, 3.0)


def simspark(rules) -> FieldDrawing:
    """The field of a SimSpark server's :class:`~simleague.soccer.rules.SoccerRules`."""
    from ..soccer.field import PENALTY_LENGTH, PENALTY_WIDTH

    return FieldDrawing(rules.field_length, rules.field_width, rules.goal_width, rules.goal_depth,
                        PENALTY_LENGTH, PENALTY_WIDTH + rules.goal_width, rules.free_kick_distance)


def humanoid(rules, markings) -> FieldDrawing:
    """A humanoid league's field: the rules' size and goals with the league's ``markings``
    (:class:`~simleague.vhsc.setup.Markings`)."""
    return FieldDrawing(rules.field_length, rules.field_width, rules.goal_width, rules.goal_depth,
                        markings.penalty_area[0], markings.penalty_area[1], markings.circle,
                        markings.goal_area[0], markings.goal_area[1], markings.penalty_mark)


def scene(title: str, mode: str, field: FieldDrawing, colours: dict | None = None) -> dict:
    """The ``scene`` message: the page's title, ``mode`` "live" or "replay", the field, and the
    teams' colours by side (``{"left": "#rrggbb", "right": ...}``) when not the viewer's own."""
    message = {"type": "scene", "mode": mode, "title": title, "field": field.message()}
    if colours:
        message["colours"] = dict(colours)
    return message
