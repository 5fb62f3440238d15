"""The web viewer's server: one aiohttp application that serves the page and a WebSocket feed.

A world's front end (for CiberRato, :mod:`simleague.ciberrato.web`) publishes JSON texts by
*kind* (``"scene"``, ``"roster"``, ``"frame"`` ...). Every page keeps only the newest text of each
kind that it has not been sent yet, so a page never receives a backlog: a slow page simply skips
frames, and the simulation never waits for any page. Texts go out in the order their kinds were
first published (scene before roster before frame), so a page that skipped frames still gets
the scene first.

Limits (a page is a client like any other): at most ``max_pages`` pages; a page whose socket has
more than ``max_backlog`` bytes unsent, or that takes longer than ``send_timeout`` s to take one
text, is dropped (closed), not waited for; a message from a page may be at most
``MAX_COMMAND_BYTES`` and a page may send at most ``command_rate`` per second. A command that
breaks a limit or that the front end rejects is answered with ``{"type": "error", "text": ...}``
on that page only.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from dataclasses import dataclass
from importlib import resources
from typing import Callable

from aiohttp import WSMsgType, web

from .. import errors
from ..wire.limits import SlowReader, Verdict

log = logging.getLogger("simleague.viewer")

MAX_COMMAND_BYTES = 1024
STATIC = resources.files(__package__) / "static"


class CommandError(errors.Error):
    """A page's command that cannot be carried out; ``str()`` is shown on that page."""


@dataclass
class ViewerOptions:
    """Where and how the viewer serves: bind ``host``/``port`` (0: any free port), ``page`` (the
    HTML file in ``static/``), ``max_pages``, ``max_backlog`` (bytes unsent before a page is
    dropped), ``send_timeout`` (s), ``command_rate`` (commands per second per page)."""

    host: str = "127.0.0.1"
    port: int = 8080
    page: str = "ciberrato.html"
    max_pages: int = 64
    max_backlog: int = 1 << 20
    send_timeout: float = 2.0
    command_rate: float = 20.0


class _Page:
    """One connected page: its socket, the newest unsent text per kind, its sender task."""

    def __init__(self, ws: web.WebSocketResponse, peer: str, transport, command_rate: float, max_backlog: int):
        self.ws, self.peer, self.transport = ws, peer, transport
        self.reader = SlowReader(max_backlog)
        self.unsent: dict[str, str] = {}
        self.wake = asyncio.Event()
        self.sender: asyncio.Task | None = None
        self.tokens, self.refilled = command_rate, time.monotonic()

    def allow_command(self, rate: float) -> bool:
        """Token bucket: ``rate`` commands per second, bursts of up to ``rate``."""
        now = time.monotonic()
        self.tokens = min(rate, self.tokens + (now - self.refilled) * rate)
        self.refilled = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


@functools.cache
def _static_files() -> frozenset[str]:
    """The names of the page's files (the package's static folder, read once)."""
    return frozenset(p.name for p in STATIC.iterdir() if p.is_file())


class WebViewer:
    """``WebViewer(options, on_command=None)``; ``await start()`` binds (raises OSError when the
    port is taken), :meth:`publish` sends to every page, ``await close()`` ends it.

    ``on_command(obj)`` receives each command a page sends, already decoded from JSON (any JSON
    value); it may raise :class:`CommandError` to answer that page with an error. Without
    ``on_command`` (a replay), every command is answered with an error.
    """

    def __init__(self, options: ViewerOptions, on_command: Callable[[object], None] | None = None):
        self.opt, self.on_command = options, on_command
        self.pages: set[_Page] = set()
        self.latest: dict[str, str] = {}       # kind -> newest text
        self.kinds: list[str] = []             # the send order: kinds as first published
        self.dropped = 0                       # pages dropped for not reading
        self.port = options.port
        self._runner: web.AppRunner | None = None

    # -- publishing ------------------------------------------------------------------------------

    def publish(self, kind: str, text: str) -> None:
        """Make ``text`` the newest of ``kind`` for every page (and for pages that connect later)."""
        if kind not in self.latest:
            self.kinds.append(kind)
        self.latest[kind] = text
        for page in self.pages:
            page.unsent[kind] = text
            page.wake.set()

    def _drop(self, page: _Page) -> None:
        """Forget a page that stopped reading and close its connection."""
        self.dropped += 1
        self.pages.discard(page)
        log.warning("web viewer: dropped the page at %s: it stopped reading", page.peer)
        if page.transport is not None:
            page.transport.abort()

    async def _send_loop(self, page: _Page) -> None:
        transport = page.transport
        try:
            while not page.ws.closed:
                await page.wake.wait()
                page.wake.clear()
                for kind in list(self.kinds):
                    text = page.unsent.pop(kind, None)
                    if text is None:
                        continue
                    if transport is not None and page.reader.verdict(transport.get_write_buffer_size()) is not Verdict.SEND:
                        return self._drop(page)
                    await asyncio.wait_for(page.ws.send_str(text), self.opt.send_timeout)
        except (TimeoutError, asyncio.TimeoutError):
            self._drop(page)
        except (ConnectionError, RuntimeError):
            pass                                # the page went away while a text was being sent

    # -- HTTP and WebSocket ----------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=(STATIC / self.opt.page).read_bytes(), content_type="text/html")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        kinds = {".js": "text/javascript", ".css": "text/css"}
        suffix = name[name.rfind("."):] if "." in name else ""
        if name not in _static_files() or suffix not in kinds:    # the name never reaches the file system
            raise web.HTTPNotFound()
        return web.Response(body=(STATIC / name).read_bytes(), content_type=kinds[suffix])

    async def _no_icon(self, request: web.Request) -> web.StreamResponse:
        return web.Response(status=204)

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if len(self.pages) >= self.opt.max_pages:
            return web.Response(status=503, text=f"already {self.opt.max_pages} pages are watching\n")
        ws = web.WebSocketResponse(heartbeat=10.0, max_msg_size=64 * 1024)
        await ws.prepare(request)
        page = _Page(ws, request.remote or "?", request.transport, self.opt.command_rate, self.opt.max_backlog)
        page.unsent = dict(self.latest)
        page.wake.set()
        self.pages.add(page)
        page.sender = asyncio.create_task(self._send_loop(page))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._command(page, msg.data)
                elif msg.type == WSMsgType.BINARY:
                    self._answer(page, "binary messages are not understood; send JSON text")
        finally:
            self.pages.discard(page)
            page.sender.cancel()
            await ws.close()
        return ws

    def _answer(self, page: _Page, text: str) -> None:
        if "error" not in self.kinds:
            self.kinds.append("error")
        page.unsent["error"] = json.dumps({"type": "error", "text": text})
        page.wake.set()

    def _command(self, page: _Page, data: str) -> None:
        if len(data) > MAX_COMMAND_BYTES:
            return self._answer(page, f"a command may have at most {MAX_COMMAND_BYTES} bytes, this one has {len(data)}")
        if not page.allow_command(self.opt.command_rate):
            return self._answer(page, f"too many commands: at most {self.opt.command_rate:g} per second")
        try:
            obj = json.loads(data)
        except json.JSONDecodeError as exc:
            return self._answer(page, f"a command must be JSON: {exc.msg} at column {exc.colno}")
        if self.on_command is None:
            return self._answer(page, "this viewer takes no commands (a replay is played in the page)")
        try:
            self.on_command(obj)
        except CommandError as exc:
            self._answer(page, str(exc))

    # -- life cycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind and serve. Raises OSError when the address cannot be bound."""
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/favicon.ico", self._no_icon)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.opt.host, self.opt.port)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            raise
        self.port = site._server.sockets[0].getsockname()[1]
        log.info("web viewer at %s", self.url)

    @property
    def url(self) -> str:
        """The page's address, e.g. ``http://127.0.0.1:8080/``."""
        return f"http://{self.opt.host}:{self.port}/"

    async def close(self) -> None:
        """Close every page and stop serving."""
        for page in list(self.pages):
            if page.sender:
                page.sender.cancel()
            await page.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()


async def serve_messages(messages: list[tuple[str, dict]], options: ViewerOptions, ready=None) -> None:
    """Serve the page with fixed messages, (kind, message) in order (a replay: the scene, then
    the whole logged run), until cancelled; ``ready(viewer)`` is called once listening. Raises
    OSError when the port cannot be bound."""
    viewer = WebViewer(options)
    await viewer.start()
    try:
        for kind, message in messages:
            viewer.publish(kind, json.dumps(message, separators=(",", ":")))
        if ready:
            ready(viewer)
        await asyncio.Event().wait()
    finally:
        await viewer.close()
