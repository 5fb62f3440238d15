"""What every competition's command line shares: one-line errors with exit code 2, port ranges,
the web viewer options, serving until interrupted and soccer replays."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import typer
from rich.console import Console

from . import errors
from .clock import MODES

err = Console(stderr=True)
PORT = {"min": 0, "max": 65535}     # every port option: out of range is a usage error (exit 2), not bind()'s traceback


def fail(message: str) -> None:
    """Bad input a person can fix: one line, exit code 2."""
    err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def interrupted(kept: str = "") -> None:
    """Ctrl-C or SIGTERM: say so and what was kept, exit code 130."""
    err.print("interrupted" + (f"; {kept}" if kept else ""), highlight=False, soft_wrap=True)
    raise typer.Exit(130)


def terminate_as_interrupt() -> None:
    """SIGTERM (``kill``, ``docker stop``, systemd) is handled as Ctrl-C: run logs are closed
    and valid, the exit code is 130."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupt)


def check_mode(mode: str) -> None:
    if mode not in MODES:
        fail(f"--mode {mode!r} is not one of {', '.join(MODES)}")


async def start_viewer(viewer, web_host: str, web: int) -> None:
    """Start a web viewer and say where it is; a port that cannot be bound is a one-line error."""
    try:
        await viewer.start()
    except OSError as exc:
        fail(f"cannot serve the web viewer on {web_host}:{web}: {exc.strerror or exc}")
    err.print(f"web viewer at {viewer.url}")


class _Stopped(errors.Error):
    """Raised when Ctrl-C or SIGTERM reached a serving event loop (the command then says it was
    interrupted)."""


async def _serve(server, banner, viewer, web_host: str, web) -> None:
    """Start ``server`` (a SimSpark or humanoid API server), print ``banner()`` (it may name the
    ports the server got), start ``viewer`` if any, run until stopped, then close both. Ctrl-C and
    SIGTERM are taken by the event loop between two callbacks (a KeyboardInterrupt raised by the
    signal itself could land inside a connection's handler and print its traceback) and end the
    run as :class:`_Stopped`."""
    loop, main = asyncio.get_running_loop(), asyncio.current_task()
    signals = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, main.cancel)
        signals.append(sig)
    try:
        await _serve_until_cancelled(server, banner, viewer, web_host, web)
    except asyncio.CancelledError:
        raise _Stopped from None
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)


async def _serve_until_cancelled(server, banner, viewer, web_host: str, web) -> None:
    await server.start()
    err.print(banner())
    if viewer is not None:
        await start_viewer(viewer, web_host, web)
    try:
        await server.run()
    finally:
        await server.close()
        if viewer is not None:
            await viewer.close()


def serve_until_stopped(server, banner, viewer, web_host: str, web, where: str, close=None) -> None:
    """:func:`_serve` until the game ends or Ctrl-C; a port that cannot be bound is a one-line
    error naming ``where``; ``close()`` (the run log's) is called whatever happens."""
    stopped = False
    try:
        asyncio.run(_serve(server, banner, viewer, web_host, web))
    except OSError as exc:
        fail(f"cannot serve on {where}: {exc.strerror or exc}")
    except (KeyboardInterrupt, _Stopped):
        stopped = True
    finally:
        if close is not None:
            close()
    if stopped:
        interrupted("the server stopped" + ("; its log is complete" if close is not None else ""))


WebOpt = typer.Option(None, "--web", **PORT, help="Serve the web viewer on this TCP port (0: any free port).")
WebHostOpt = typer.Option("127.0.0.1", "--web-host", help="Address the web viewer binds.")


def soccer_replay(log: Path, web: int, web_host: str, fmt: str) -> None:
    """Serve a soccer run log of format ``fmt`` (SimSpark's or the humanoid API's) in the web
    viewer until interrupted; a bad log or a port that cannot be bound is a one-line error."""
    from .simspark.web import serve_replay

    replay_in_viewer(lambda options, ready: serve_replay(log, options, ready, fmt), web, web_host)


def replay_in_viewer(serve, web: int, web_host: str, page: str = "soccer.html") -> None:
    """Run ``serve(options, ready)`` (a coroutine serving a replay) until interrupted; a bad log
    (:class:`~simleague.errors.ReplayError`) or a port that cannot be bound is a one-line error."""
    from .errors import ReplayError
    from .viewer.server import ViewerOptions

    def ready(viewer):
        err.print(f"web viewer at {viewer.url}")

    try:
        asyncio.run(serve(ViewerOptions(web_host, web, page=page), ready))
    except ReplayError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot serve the web viewer on {web_host}:{web}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        interrupted()


# ------------------------------------------------------------------ competitions and tournaments
OutOpt = typer.Option(None, "--out", "-o", help="Folder for the results, logs and report (default: the "
                                                "file's name without .toml).")
WorkersOpt = typer.Option(0, min=0, help="Trials or matches at a time on this machine (0: one per core).")
RayOpt = typer.Option(None, "--ray", help="Run them as tasks on the Ray cluster at this address "
                                          "(e.g. 10.0.0.1:6379) instead.")
RayCpusOpt = typer.Option(1.0, "--ray-cpus", min=0.01, help="CPUs each asks of Ray.")
RestartOpt = typer.Option(False, "--restart", help="Forget the results kept in the folder.")


def load_competition_file(file: Path, world: str):
    """The competition file ``file`` of ``world``, or a one-line error."""
    from .competition.config import CompetitionError, load_competition
    try:
        comp = load_competition(file)
    except CompetitionError as exc:
        fail(str(exc))
    if comp.competition.world != world:
        fail(f"{file}: competition.world is {comp.competition.world!r}; run it with "
             f"simleague {comp.competition.world} {'competition' if comp.competition.world == 'ciberrato' else 'tournament'}")
    return comp


def run_competition_command(comp, file: Path, out: Path | None, restart: bool, function: str, workers: int,
                            ray: str | None, ray_cpus: float, total: int, what: str, run) -> tuple:
    """The part every competition command shares: the results folder (emptied by ``restart``),
    the pool (local or Ray), a progress bar on a terminal (a line per finished job otherwise),
    Ctrl-C. ``run(folder, pool, on_event)`` runs it; returns (its outcome, the folder)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from .competition.config import CompetitionError
    from .competition.pools import LocalPool, RayPool
    from .competition.store import StoreError

    folder = out or file.with_suffix("")
    if restart and (folder / "results.sqlite").exists():
        (folder / "results.sqlite").unlink()
    try:
        pool = RayPool(function, ray, ray_cpus) if ray else LocalPool(function, workers)
    except RuntimeError as exc:
        fail(str(exc))
    where = f"the Ray cluster at {ray}" if ray else f"{pool.workers} local workers"
    err.print(f"{comp.competition.name}: {len(comp.team)} teams, up to {total} {what} on {where}; results in {folder}")
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=err,
                        disable=not err.is_terminal)
    bar = progress.add_task(what, total=total)

    def on_event(kind: str, key: str, text: str) -> None:
        if kind in ("done", "kept", "failed"):
            progress.advance(bar)
        if kind in ("retry", "failed") or not err.is_terminal and kind == "done":
            err.print(f"{key}: {kind} ({text})", highlight=False)

    try:
        with progress:
            return run(folder, pool, on_event), folder
    except (CompetitionError, StoreError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        interrupted(f"the finished {what} are kept in {folder / 'results.sqlite'}; run again to resume")
    finally:
        pool.close()
