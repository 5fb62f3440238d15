"""Running an asyncio server (``start()``, ``run()``, ``stop()``, ``close()``: the SimSpark and
humanoid API servers) in a thread of its own while a test talks to it over real sockets."""

import asyncio
import contextlib
import threading


@contextlib.contextmanager
def in_thread(server):
    """Yield ``server`` while it runs in a thread; stop it after. A crash of the server, or a
    server that does not stop, fails the test."""
    loop = asyncio.new_event_loop()
    started, failure = threading.Event(), []

    def main():
        async def go():
            await server.start()
            started.set()
            try:
                await server.run()
            finally:
                await server.close()
        try:
            loop.run_until_complete(go())
        except BaseException as e:          # a crash of the server fails the test below
            failure.append(e)
            started.set()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    assert started.wait(10)
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(server.stop)
        thread.join(10)
        assert not thread.is_alive()
        assert not failure, failure
