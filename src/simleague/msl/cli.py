"""``simleague msl``: the middleware, pausers, the toy team, a demo match and log reports."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from ..cli_common import PORT, WebHostOpt, WebOpt, err, fail, interrupted, start_viewer
from .options import MiddlewareOptions as Defaults

app = typer.Typer(help="MSL simulated matches: middleware, pausers, team client, referee, demo.",
                  rich_markup_mode=None, no_args_is_help=True)
Side = typer.Option(..., "--side", help="cyan or magenta.")


def _side(side: str) -> str:
    from .messages import SIDES
    if side not in SIDES:
        fail(f"--side {side!r} is not one of {', '.join(SIDES)}")
    return side


def _tls_server(cert: Optional[Path], key: Optional[Path]):
    """A server SSL context from a certificate and key (PEM), None without; one-line errors."""
    import ssl

    if cert is None and key is None:
        return None
    if cert is None or key is None:
        fail("TLS needs both --tls-cert and --tls-key")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        fail(f"cannot use {cert} and {key} for TLS: {exc}")
    return context


def _tls_client(ca: Optional[Path]):
    """A client SSL context trusting the certificate(s) in ``ca`` (PEM), None without."""
    import ssl

    if ca is None:
        return None
    try:
        return ssl.create_default_context(cafile=str(ca))
    except (OSError, ssl.SSLError) as exc:
        fail(f"cannot use {ca} to check the middleware's certificate: {exc}")


def _host_port(text: str, what: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        fail(f"{what} {text!r} is not HOST:PORT")
    return host, int(port)


@app.command()
def middleware(host: str = typer.Option("127.0.0.1", help="Address to bind (both ports)."),
               team_port: int = typer.Option(Defaults.team_port, **PORT, help="TCP port for the two teams (0: any free port)."),
               pauser_port: int = typer.Option(Defaults.pauser_port, **PORT, help="TCP port for the two pausers (0: any free port)."),
               team_host: Optional[str] = typer.Option(None, help="Address for the team port (default --host)."),
               pauser_host: Optional[str] = typer.Option(None, help="Address for the pauser port (default --host)."),
               buffer: int = typer.Option(Defaults.buffer, help="States kept per team to inter- and extrapolate from."),
               eps1: float = typer.Option(Defaults.eps1, help="Pause when |t1 - t2| exceeds this (s of simulation time)."),
               eps2: float = typer.Option(Defaults.eps2, help="Resume when |t1 - t2| is at most this (s)."),
               horizon: Optional[float] = typer.Option(None, help="Extrapolate at most this far past a team's "
                                                                  "newest state (s; default eps1)."),
               seed: int = typer.Option(Defaults.seed, help="Seed of the draw that settles exact ball-claim ties."),
               hello_timeout: float = typer.Option(Defaults.hello_timeout, help="Seconds a new connection has to say hello."),
               heartbeat: float = typer.Option(Defaults.heartbeat, help="Seconds between heartbeats to each team."),
               timeout: float = typer.Option(Defaults.timeout, help="Drop a team that sends nothing for this long while not "
                                                       "paused (s)."),
               away: float = typer.Option(Defaults.away, help="Keep a team paused at most this long while its opponent "
                                                     "is away (s)."),
               match: Optional[Path] = typer.Option(None, help="Match file (TOML): team names, tokens, RefBox "
                                                               "addresses, referee."),
               token_cyan: str = typer.Option("", help="Token the cyan team and pauser must give (overrides "
                                                       "the match file)."),
               token_magenta: str = typer.Option("", help="Token the magenta team and pauser must give."),
               tls_cert: Optional[Path] = typer.Option(None, help="Speak TLS on both ports with this "
                                                                  "certificate (PEM)..."),
               tls_key: Optional[Path] = typer.Option(None, help="...and this private key (PEM)."),
               referee: Optional[str] = typer.Option(None, help="none, auto (the built-in referee) or refbox "
                                                                "(an MSL RefBox; see --refbox). Default: the "
                                                                "match file's, else none."),
               half: Optional[float] = typer.Option(None, help="Auto referee: seconds of simulation time per "
                                                               "half (default 60)."),
               refbox: Optional[str] = typer.Option(None, help="The RefBox as HOST:PORT (default 127.0.0.1:28097)."),
               record: Optional[Path] = typer.Option(None, "--log", help="Run log of the merged world (25 frames per "
                                                                "simulated second), for msl replay."),
               web: Optional[int] = WebOpt, web_host: str = WebHostOpt,
               log: Path = typer.Option(Path("msl-middleware.jsonl"), "--events",
                                        help="Event log: every connection, message, pause and command, JSON lines "
                                             "(appended; msl report reads it)."),
               verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what the middleware does on stderr.")):
    """Run the match middleware. Prints {"teamPort": P, "pauserPort": Q} on stdout once listening."""
    import signal

    from .matchfile import MatchFile, MatchFileError, load_match
    from .middleware import REFBOX_PORT, Middleware, MiddlewareOptions

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if not (eps1 > eps2 >= 0):
        fail(f"thresholds need --eps1 > --eps2 >= 0 (got {eps1} and {eps2})")
    if not 2 <= buffer <= 10_000:
        fail(f"--buffer must be 2..10000, not {buffer}")
    if horizon is not None and not 0 <= horizon <= 60:
        fail(f"--horizon must be 0..60 s, not {horizon}")
    for name, value in (("--heartbeat", heartbeat), ("--timeout", timeout), ("--away", away)):
        if not 0 < value <= 3600:
            fail(f"{name} must be more than 0 and at most 3600 s, not {value}")
    try:
        spec = load_match(match) if match is not None else MatchFile()
    except MatchFileError as exc:
        fail(str(exc))
    mode = referee or spec.referee.mode
    if mode not in ("none", "auto", "refbox"):
        fail(f"--referee {mode!r} is not one of none, auto, refbox")
    refbox_host, refbox_port = _host_port(refbox or spec.referee.refbox or f"127.0.0.1:{REFBOX_PORT}", "--refbox")
    if half is not None and not 0 < half <= 86_400:
        fail(f"--half must be more than 0 and at most 86400 s, not {half}")
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        open(log, "ab").close()
    except OSError as exc:
        fail(f"cannot write the event log {log}: {exc.strerror}")
    sides = {"cyan": spec.cyan, "magenta": spec.magenta}
    tokens = {side: entry.token for side, entry in sides.items() if entry.token}
    tokens.update({side: tok for side, tok in (("cyan", token_cyan), ("magenta", token_magenta)) if tok})
    opts = MiddlewareOptions(host, team_port, pauser_port, buffer, eps1, eps2, seed, hello_timeout, log,
                             team_host=team_host, pauser_host=pauser_host, horizon=horizon, heartbeat=heartbeat,
                             timeout=timeout, away=away, tokens=tokens,
                             names={side: e.team for side, e in sides.items() if e.team},
                             tls=_tls_server(tls_cert, tls_key), referee=mode,
                             half=half if half is not None else spec.referee.half, delay=spec.referee.delay,
                             pause=spec.referee.pause, refbox_host=refbox_host, refbox_port=refbox_port,
                             record=record)
    local = refbox_host == "localhost" or refbox_host.startswith("127.")
    for side, entry in sides.items():
        opts.addresses[side] = entry.address or opts.addresses[side]
        # the default source addresses are loopback ones: for a RefBox elsewhere, only the file's
        opts.sources[side] = entry.source or (opts.sources[side] if local else None)
    if record is not None:
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            open(record, "ab").close()
        except OSError as exc:
            fail(f"cannot write the run log {record}: {exc.strerror}")

    async def main():
        from ..viewer.server import ViewerOptions, WebViewer

        if web is not None:
            opts.web = WebViewer(ViewerOptions(web_host, web, page="soccer.html"))
            await start_viewer(opts.web, web_host, web)
        mw = Middleware(opts)
        try:
            await mw.start()
        except OSError as exc:
            fail(f"cannot listen on {host} (ports {team_port}, {pauser_port}): {exc.strerror or exc}")
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, mw.stop)
        typer.echo(json.dumps({"teamPort": mw.team_port, "pauserPort": mw.pauser_port,
                               "web": opts.web.url if opts.web is not None else None}))
        err.print(f"MSL middleware: pausers on {opts.pauser_host or host}:{mw.pauser_port}, teams on "
                  f"{opts.team_host or host}:{mw.team_port}; referee {mode}; events in {log}")
        try:
            await mw.run()
        finally:
            if opts.web is not None:
                await opts.web.close()

    asyncio.run(main())


@app.command()
def pauser(backend: str = typer.Option(..., help="process or docker."),
           side: str = Side,
           pid: Optional[int] = typer.Option(None, help="Process to pause, with its children (process backend)."),
           container: Optional[str] = typer.Option(None, help="Container to pause (docker backend)."),
           host: str = typer.Option("127.0.0.1", help="The middleware's address."),
           port: int = typer.Option(Defaults.pauser_port, **PORT, help="Middleware pauser port."),
           min_gap: float = typer.Option(0.25, help="Least seconds between a pause and the next resume (an unpause sent sooner can overtake the pause)."),
           reconnect: float = typer.Option(10.0, help="Seconds to keep trying to reach the middleware."),
           token: str = typer.Option("", help="The match's token for this side, if it has one."),
           tls_ca: Optional[Path] = typer.Option(None, help="Speak TLS, trusting this certificate (PEM)."),
           verbose: bool = typer.Option(False, "--verbose", "-v", help="Log each pause and resume on stderr.")):
    """Pause and resume one team's simulator when the middleware says so."""
    import signal

    from .pauser import BackendError, DockerBackend, Pauser, ProcessBackend

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    side = _side(side)
    try:
        if backend == "process":
            if pid is None:
                fail("the process backend needs --pid")
            target = ProcessBackend(pid)
        elif backend == "docker":
            if container is None:
                fail("the docker backend needs --container")
            target = DockerBackend(container)
        else:
            fail(f"--backend {backend!r} is not one of process, docker")
    except BackendError as exc:
        fail(str(exc))
    if min_gap < 0:
        fail("--min-gap cannot be negative")
    p = Pauser(target, side, host, port, min_gap, reconnect, token, _tls_client(tls_ca))

    def stop(*_):
        p.stopping = True
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    code = p.run()
    if code == 2:
        fail(f"the middleware refused this pauser: {p.refused}")
    raise typer.Exit(code)


@app.command()
def team(name: str = typer.Option("Toy", help="Team name."), side: str = Side,
         host: str = typer.Option("127.0.0.1", help="The middleware's address."),
         port: int = typer.Option(Defaults.team_port, **PORT, help="The middleware's team port."),
         speed: float = typer.Option(1.0, help="Simulation seconds per wall second (0.7: a slower simulator)."),
         seconds: float = typer.Option(30.0, help="Wall seconds to play after the start (the end of the "
                                                  "match ends it sooner)."),
         seed: int = typer.Option(0, help="Seed of the toy simulator's robots."),
         exchange: str = typer.Option("subscribe", help="subscribe (the opponent pushed, never waiting) or "
                                                        "request (ask and wait, alternating with the states)."),
         token: str = typer.Option("", help="The match's token for this side, if it has one."),
         tls_ca: Optional[Path] = typer.Option(None, help="Speak TLS, trusting this certificate (PEM).")):
    """Run the toy team simulator with its info exchanger (the demo's teams; an example to copy)."""
    from .client import ConnectionLost, MiddlewareError
    from .toyteam import run_team

    side = _side(side)
    if not 0.01 <= speed <= 100:
        fail("--speed must be between 0.01 and 100")
    if exchange not in ("subscribe", "request"):
        fail(f"--exchange {exchange!r} is not one of subscribe, request")
    try:
        raise typer.Exit(run_team(name, side, host, port, speed, seconds, seed, mode=exchange, token=token,
                                  tls=_tls_client(tls_ca)))
    except (ConnectionLost, MiddlewareError) as exc:
        fail(str(exc))


def _print_sync(summary: dict) -> None:
    table = Table(title="time synchronisation (middleware log)")
    for col in ("side", "pauses", "resumes", "paused median s", "paused total s", "pauser ok/failed",
                "pause / resume ms", "frozen median / min ms"):
        table.add_column(col)
    for side, s in summary["sides"].items():
        table.add_row(side, str(s["pauses"]), str(s["resumes"]), str(s["paused_s_median"]),
                      str(s["paused_s_total"]), f"{s['pauser_reports_ok']}/{s['pauser_reports_failed']}",
                      f"{s['pause_ms_median']} / {s['resume_ms_median']}",
                      f"{s['frozen_ms_median']} / {s['frozen_ms_min']}")
    out = Console()
    out.print(f"|t1 - t2| over {summary['samples']} samples: p50 {summary['dt_p50_s']} s, "
              f"p99 {summary['dt_p99_s']} s, max {summary['dt_max_s']} s; "
              f"{summary['samples_over_eps1']} samples over eps1 = {summary['eps1']} s")
    out.print(table)


@app.command()
def demo(seconds: Optional[float] = typer.Option(None, help="Wall seconds to play (default: 30 s, or with a "
                                                               "referee until it ends the match)."),
         slow: float = typer.Option(0.7, help="Speed of the second simulator relative to the first."),
         eps1: float = typer.Option(Defaults.eps1, help="Pause when |t1 - t2| exceeds this (s)."),
         eps2: float = typer.Option(Defaults.eps2, help="Resume when |t1 - t2| is at most this (s)."),
         buffer: int = typer.Option(Defaults.buffer, help="States kept per team to inter- and extrapolate from."),
         min_gap: float = typer.Option(0.25, help="Least seconds between a pause and the next resume."),
         referee: str = typer.Option("none", help="none, or auto: the built-in referee plays two halves."),
         half: float = typer.Option(10.0, help="Seconds of simulation time per half (auto referee)."),
         exchange: str = typer.Option("subscribe", help="How the teams get the opponent: subscribe or request."),
         record: Optional[Path] = typer.Option(None, "--log", help="Run log of the merged world, for msl replay."),
         web: Optional[int] = WebOpt,
         docker: Optional[str] = typer.Option(None, help="Run the teams in containers of this image (it must "
                                                          "have simleague), paused by the docker backend."),
         docker_arg: list[str] = typer.Option([], help="An extra word for docker run (repeat: -v, paths...)."),
         log: Optional[Path] = typer.Option(None, "--events", help="The middleware's event log (default: in a "
                                                                    "temporary folder)."),
         as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON.")):
    """Middleware, two pausers and two toy team simulators as processes (or containers); prints how
    well they kept time and, with a referee, the score."""
    from .demo import DemoError, run_demo

    if not 0.01 <= slow <= 100:
        fail("--slow must be between 0.01 and 100")
    if not (eps1 > eps2 >= 0):
        fail(f"thresholds need --eps1 > --eps2 >= 0 (got {eps1} and {eps2})")
    if seconds is None:
        seconds = 30.0 if referee == "none" else 3600.0
    if seconds <= 0:
        fail("--seconds must be positive")
    if referee not in ("none", "auto"):
        fail(f"--referee {referee!r} is not one of none, auto (a RefBox needs msl middleware --referee refbox)")
    if exchange not in ("subscribe", "request"):
        fail(f"--exchange {exchange!r} is not one of subscribe, request")
    if web is not None:
        err.print(f"web viewer at http://127.0.0.1:{web}/ while the match runs")
    try:
        result = run_demo(seconds, slow, eps1, eps2, buffer, min_gap, log, referee=referee, half=half, record=record,
                          web=web, exchange=exchange, docker=docker, docker_args=tuple(docker_arg))
    except DemoError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        interrupted(f"the middleware's event log is in {log}" if log else "")
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    _print_sync(result["sync"])
    for t in result["teams"]:
        lat = t["latency"]
        Console().print(f"{t['team']} ({t['side']}, speed {t['speed']}, {t['mode']}): simulation time {t['simTime']} s "
                        f"in {t['wall']} s; {lat['n']} requests, round trip p50 {lat.get('p50_ms')} ms, "
                        f"p99 {lat.get('p99_ms')} ms; reconnects {t['reconnects']}; referee commands "
                        f"{len(t['applied'])}, goals {t['score']}" + (f"; {t['end']}" if t["end"] else ""))
    Console().print(f"events: {result['log']}" + (f"; run log: {record}" if record else ""))


@app.command()
def report(log: Path = typer.Argument(..., help="A middleware event log (msl middleware --events FILE)."),
           eps1: Optional[float] = typer.Option(None, help="Threshold to count (default: the log's own).")):
    """Time-synchronisation figures from a middleware event log."""
    from .demo import summarise

    try:
        _print_sync(summarise(log, eps1))
    except OSError as exc:
        fail(f"cannot read {log}: {exc.strerror}")
    except ValueError as exc:
        fail(str(exc))


@app.command()
def replay(log: Path = typer.Argument(..., help="A run log (msl middleware --log FILE)."),
           web: int = typer.Option(8080, "--web", **PORT, help="Serve the web viewer on this TCP port (0: any free port)."),
           web_host: str = WebHostOpt):
    """Replay a recorded match in the web viewer (the merged world, with the referee's state)."""
    from .web import serve_replay
    from ..cli_common import replay_in_viewer

    replay_in_viewer(lambda options, ready: serve_replay(log, options, ready), web, web_host)
