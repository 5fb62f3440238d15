"""A page of the web viewer, for tests that check what a live game shows without a browser."""

import asyncio
import json
import subprocess
import time
from pathlib import Path

import aiohttp

#: Where browser tests leave their screenshots (the README's pictures).
BUILD = Path(__file__).resolve().parent.parent / "build"


def rgb(hex_colour: str) -> list[float]:
    """``"#rrggbb"`` -> [r, g, b] in 0..1, as a canvas read back with matplotlib gives them."""
    return [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]


async def watch(url: str, seconds: float, until=None) -> list[dict]:
    """The messages a page connected to the viewer's WebSocket ``url`` gets within ``seconds``
    (connecting again until the viewer is up), until ``until(messages)`` is true or the viewer
    closes the page."""
    got, deadline = [], time.monotonic() + seconds
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.ws_connect(url) as ws:
                    while time.monotonic() < deadline:
                        try:
                            message = await ws.receive(timeout=1.0)
                        except asyncio.TimeoutError:
                            continue
                        if message.type != aiohttp.WSMsgType.TEXT:
                            return got
                        got.append(json.loads(message.data))
                        if until is not None and until(got):
                            return got
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
    return got


def watch_process(command: list[str], port: int, seconds: float, timeout: float,
                  until=None) -> tuple[list[dict], subprocess.CompletedProcess]:
    """Start ``command`` (a ``simleague ... --web PORT`` run), watch its viewer on 127.0.0.1:``port``
    as :func:`watch` does, then wait at most ``timeout`` s for it to end (killed if it does not):
    (the messages seen, the finished process with its stdout and stderr as text)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = asyncio.run(watch(f"ws://127.0.0.1:{port}/ws", seconds, until))
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return seen, subprocess.CompletedProcess(command, proc.returncode, out, err)
