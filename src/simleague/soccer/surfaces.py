"""The contact surfaces of the original's scene and how two of them make a contact, as rcssserver3d
0.7.3 sets up ODE (reference/simspark-rsg/nao/contactjointhandler.rsg, soccer.rsg; ball.rsg and
goal.rsg of the same release; spark's ContactJointHandler).

Every collider carries a surface: an error reduction parameter (ERP, the fraction of a contact's
penetration corrected per step), a constraint force mixing (CFM, m/s per N of normal force), a
force-dependent slip (m/s of sliding per N of tangential force) and a bounce (restitution, above an
approach speed in m/s). A setting the surface does not switch on is None. For a contact, the
original mixes the two surfaces per setting: the mean when both set it, the one that does, else
the world's default (ERP 0.2, CFM 1e-5; no bounce). Friction is unbounded in the original (mu =
infinity): surfaces stick, and slide only by their slip.

Surfaces of the scene:

==========  =====  =====  =====  ===============
surface     ERP    CFM    slip   bounce (speed)
==========  =====  =====  =====  ===============
ground      0.2    -      0.005  -
robot part  0.6    1e-4   0.005  -
ball        0.5    0.05   0.6    0.8 (0.8 m/s)
other       -      -      -      0.8 (2.0 m/s)
==========  =====  =====  =====  ===============

("other": goal posts, bar and walls, which get the handler's defaults. The ground's slip is the
handler's default 0.005: soccer.rsg's ``(setContactSlip 0.1 0.1)`` passes two values to a
one-value command and is not applied.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WORLD_ERP = 0.2                 # ODE's default
WORLD_CFM = 1e-5                # spark.rb physicsGlobalCFM
SURFACE_LAYER = 0.001           # m of penetration left uncorrected (spark.rb setContactSurfaceLayer)


@dataclass(frozen=True)
class Surface:
    """One collider's contact settings (module docstring); None: not set by this surface."""

    erp: float | None = None
    cfm: float | None = None
    slip: float | None = None
    bounce: tuple[float, float] | None = None       # restitution, lowest approach speed (m/s)


GROUND = Surface(erp=0.2, slip=0.005)
ROBOT = Surface(erp=0.6, cfm=1e-4, slip=0.005)
BALL = Surface(erp=0.5, cfm=0.05, slip=0.6, bounce=(0.8, 0.8))
OTHER = Surface(bounce=(0.8, 2.0))
#: the surface kinds, in the order of :func:`contact_table`'s rows
KINDS = (GROUND, ROBOT, BALL, OTHER)
KIND_GROUND, KIND_ROBOT, KIND_BALL, KIND_OTHER = range(len(KINDS))


def _mix(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return a if b is None else b
    return (a + b) / 2


def mixed(a: Surface, b: Surface) -> Surface:
    """The settings of a contact between surfaces ``a`` and ``b``, before the world defaults: each
    the mean where both set it, else the one that does (spark's ContactJointHandlerImp)."""
    if a.bounce is None or b.bounce is None:
        bounce = a.bounce if b.bounce is None else b.bounce
    else:
        bounce = ((a.bounce[0] + b.bounce[0]) / 2, (a.bounce[1] + b.bounce[1]) / 2)
    return Surface(_mix(a.erp, b.erp), _mix(a.cfm, b.cfm), _mix(a.slip, b.slip), bounce)


def contact_table() -> np.ndarray:
    """Every pair of surface kinds' contact settings with the world defaults applied, shape
    (kinds, kinds, 5): ERP, CFM (m/s per N), slip (m/s per N), restitution (0: none) and the
    lowest approach speed for it (m/s; infinite: never)."""
    table = np.zeros((len(KINDS), len(KINDS), 5))
    for i, a in enumerate(KINDS):
        for j, b in enumerate(KINDS):
            s = mixed(a, b)
            restitution, speed = s.bounce if s.bounce is not None else (0.0, np.inf)
            table[i, j] = (WORLD_ERP if s.erp is None else s.erp, WORLD_CFM if s.cfm is None else s.cfm,
                           WORLD_CFM if s.slip is None else s.slip, restitution, speed)
    return table
