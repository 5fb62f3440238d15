"""The ``simleague`` command: one sub-command group per competition, each defined beside its world
(``ciberrato/cli.py``, ``msl/cli.py``, ``simspark/cli.py``, ``vhsc/cli.py``).

Exit codes, the same for every command: 0 done, 1 a failure while running, 2 bad input (a broken
lab file, a busy port: one line, never a traceback), 130 interrupted (Ctrl-C or SIGTERM, which is
handled as Ctrl-C: logs are closed and valid).
"""

from __future__ import annotations

import typer

from .cli_common import terminate_as_interrupt
from .ciberrato.cli import app as ciberrato
from .msl.cli import app as msl
from .simspark.cli import app as simspark
from .vhsc.cli import app as vhsc

app = typer.Typer(help="Simulators and match infrastructure for networked robot competitions.",
                  rich_markup_mode=None, no_args_is_help=True, add_completion=False)
app.add_typer(ciberrato, name="ciberrato")


@app.callback()
def _main() -> None:
    """Simulators and match infrastructure for networked robot competitions."""
    terminate_as_interrupt()

app.add_typer(msl, name="msl")
app.add_typer(simspark, name="simspark")
app.add_typer(vhsc, name="vhsc")


if __name__ == "__main__":
    app()
