"""Pausers (thesis 5.2): pause and resume one team's simulation software when the middleware says so.

A pauser connects to the middleware's pauser port, says which side it serves
(:class:`~simleague.msl.messages.PauserHello`), then carries out each
:class:`~simleague.msl.messages.Command` and answers with a :class:`~simleague.msl.messages.Report`
of what it did, how long it took and the state it then observed.

Backends: :class:`ProcessBackend` (a process and all its children, suspended with SIGSTOP through
psutil) and :class:`DockerBackend` (``docker pause``/``unpause`` through the docker SDK). Thesis 6.2
found that an unpause sent less than 250 ms after a pause can arrive before the pause took effect,
so a pauser keeps ``min_gap`` seconds between a pause and the next resume, and the docker backend
reads the container's state and waits for it to be paused before unpausing (thesis 7).
"""

from __future__ import annotations

import logging
import socket
import time

import psutil

from .. import errors
from .messages import MAX_LINE, Command, Error, MessageSplitter, PauserHello, ProtocolError, Report
from .messages import decode_to_pauser, encode

log = logging.getLogger("simleague.msl.pauser")


class BackendError(errors.Error, RuntimeError):
    """The thing to pause cannot be reached (no such process, no docker engine, no container)."""


class ProcessBackend:
    """Suspend and resume process ``pid`` and every process below it (psutil; SIGSTOP/SIGCONT).

    Raises :class:`BackendError` if there is no such process.
    """

    name = "process"

    def __init__(self, pid: int):
        try:
            self.proc = psutil.Process(pid)
        except (psutil.NoSuchProcess, ValueError):
            raise BackendError(f"no process with pid {pid}") from None
        self.target = str(pid)

    def _tree(self) -> list[psutil.Process]:
        try:
            return [self.proc] + self.proc.children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def pause(self, settle: float = 0.2) -> None:
        """SIGSTOP the tree, then wait up to ``settle`` s until the kernel shows all of it stopped."""
        for p in self._tree():
            try:
                p.suspend()
            except psutil.NoSuchProcess:
                pass
        deadline = time.monotonic() + settle
        while self.state() not in ("paused", "gone") and time.monotonic() < deadline:
            time.sleep(0.0005)

    def resume(self) -> None:
        """SIGCONT the process and every process below it."""
        for p in self._tree():
            try:
                p.resume()
            except psutil.NoSuchProcess:
                pass

    def state(self) -> str:
        """'paused' (every process of the tree stopped), 'running' (none stopped), 'partly paused',
        or 'gone' (the process ended)."""
        if not self.proc.is_running():
            return "gone"
        stopped = []
        for p in self._tree():
            try:
                stopped.append(p.status() == psutil.STATUS_STOPPED)
            except psutil.NoSuchProcess:
                pass  # a child that just ended
        return "paused" if all(stopped) else "running" if not any(stopped) else "partly paused"


class DockerBackend:
    """Pause and unpause container ``name`` through the docker SDK (the engine's cgroup freezer).

    ``settle`` is how long (s) :meth:`resume` waits for a pause still in progress to show as
    'paused' before it unpauses. Raises :class:`BackendError` if the engine or the container cannot
    be reached.
    """

    name = "docker"

    def __init__(self, container: str, settle: float = 2.0, client=None):
        import docker
        import docker.errors

        self._errors = docker.errors
        try:
            self.client = client or docker.from_env()
            self.container = self.client.containers.get(container)
        except docker.errors.NotFound:
            raise BackendError(f"no docker container named {container!r}") from None
        except docker.errors.DockerException as exc:
            raise BackendError(f"cannot reach the docker engine: {exc}") from None
        self.target = container
        self.settle = settle

    def state(self) -> str:
        """The container's status as the engine reports it ('paused', 'running', 'exited', ...)."""
        try:
            self.container.reload()
        except self._errors.NotFound:
            return "gone"
        return self.container.status

    def pause(self) -> None:
        """``docker pause`` the container if it runs."""
        if self.state() == "running":
            self.container.pause()

    def resume(self) -> None:
        """``docker unpause`` it, first waiting up to ``settle`` s for a pause still on its way."""
        deadline = time.monotonic() + self.settle
        state = self.state()
        while state != "paused" and state == "running" and time.monotonic() < deadline:
            time.sleep(0.01)  # a pause may still be on its way; unpausing now would fail
            state = self.state()
        if state == "paused":
            self.container.unpause()


class Pauser:
    """Serve one side's simulator for the middleware at ``host:port``.

    ``min_gap`` (s) is kept between a pause and the following resume; ``reconnect`` (s) is how long
    to keep trying to reach the middleware (at start and after a loss) before :meth:`run` returns;
    ``token`` is the match's token for the side, ``tls`` an SSL context to speak TLS.
    When the middleware goes away the pauser resumes its target first, so a simulator is never left
    frozen.
    """

    def __init__(self, backend, side: str, host: str = "127.0.0.1", port: int = 28101,
                 min_gap: float = 0.25, reconnect: float = 10.0, token: str = "", tls=None):
        self.backend, self.side, self.token, self.tls = backend, side, token, tls
        self.host, self.port = host, port
        self.min_gap, self.reconnect = min_gap, reconnect
        self._paused_at: float | None = None
        self.stopping = False
        self.refused: str | None = None

    def _connect(self) -> socket.socket | None:
        deadline = time.monotonic() + self.reconnect
        while not self.stopping and not self._target_gone():
            try:
                sock = socket.create_connection((self.host, self.port), timeout=2.0)
                if self.tls is not None:
                    sock = self.tls.wrap_socket(sock, server_hostname=self.host)
            except OSError:
                if time.monotonic() > deadline:
                    return None
                time.sleep(0.1)
                continue
            sock.settimeout(None)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(encode(PauserHello(self.side, self.backend.name, self.backend.target, self.token)))
            return sock
        return None

    def carry_out(self, command: Command) -> Report:
        """Do what ``command`` says and report it (never raises for a failing backend)."""
        start = time.monotonic()
        try:
            if command.action == "pause":
                self.backend.pause()
                self._paused_at = time.monotonic()
            else:
                if self._paused_at is not None:
                    wait = self.min_gap - (time.monotonic() - self._paused_at)
                    if wait > 0:
                        time.sleep(wait)
                self.backend.resume()
                self._paused_at = None
            ok, detail = True, ""
        except Exception as exc:  # a backend failure is reported to the middleware, not fatal
            ok, detail = False, f"{type(exc).__name__}: {exc}"[:500]
        state = self.backend.state()
        ms = (time.monotonic() - start) * 1000.0
        want = "paused" if command.action == "pause" else "running"
        return Report(command.seq, command.action, ok and state == want, state[:64], round(ms, 3), detail)

    def _target_gone(self) -> bool:
        try:
            return self.backend.state() in ("gone", "exited", "dead")
        except Exception:
            return False

    def run(self) -> int:
        """Serve until the middleware is gone for longer than ``reconnect`` (exit code 1), or has
        gone and the simulator too (the match is over: 0); 2 if the middleware refused us."""
        while not self.stopping:
            sock = self._connect()
            if sock is None:
                if self.stopping or self._target_gone():
                    return 0
                log.error("no middleware at %s:%d", self.host, self.port)
                return 1
            try:
                self._serve(sock)
                if self.refused:
                    return 2
            finally:
                sock.close()
                if self._paused_at is not None or self.backend.state() == "paused":
                    log.warning("middleware gone: resuming %s", self.backend.target)
                    try:
                        self.backend.resume()
                    except Exception as exc:
                        log.error("could not resume %s: %s", self.backend.target, exc)
                    self._paused_at = None
            if self._target_gone():
                return 0                                 # nothing left to pause: the match is over
        return 0

    def _serve(self, sock: socket.socket) -> None:
        splitter = MessageSplitter(MAX_LINE)
        while not self.stopping:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            for line in splitter.feed(data):
                try:
                    message = decode_to_pauser(line) if line is not None else None
                except ProtocolError as exc:
                    log.error("bad line from the middleware: %s", exc)
                    continue
                if isinstance(message, Command):
                    report = self.carry_out(message)
                    log.info("%s seq %d: %s, state %s, %.1f ms", message.action, message.seq,
                             "ok" if report.ok else "FAILED", report.state, report.ms)
                    sock.sendall(encode(report))
                elif isinstance(message, Error):
                    log.error("middleware: %s", message.message)
                    if message.inReplyTo == "hello":
                        self.refused = message.message
                        return
