"""A page of the web viewer, for tests that check what a live game shows without a browser."""

import asyncio
import json
import time

import aiohttp


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
