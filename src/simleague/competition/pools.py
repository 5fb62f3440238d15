"""Where trials run: a local pool of worker processes (one per core by default) or tasks on a Ray
cluster. Both take a world's trial function by its import path and plain descriptions, and hand
back each trial's result, or the exception it raised, as trials finish."""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import multiprocessing
import os
import socket
from typing import Protocol

REACH_TIMEOUT = 5.0            # s to open a TCP connection to a Ray head's address


def call(function: str, description: dict) -> dict:
    """Run ``module:function`` on ``description`` (in a worker process or a Ray task)."""
    module, name = function.split(":")
    return getattr(importlib.import_module(module), name)(description)


class Pool(Protocol):
    """``submit(key, description, function=None)`` (None: the pool's trial function); ``next()`` → (key, result or exception) of a finished trial,
    blocking; ``pending`` trials submitted and not yet handed back; ``close()``."""

    pending: int

    def submit(self, key: str, description: dict, function: str | None = None) -> None: ...

    def next(self) -> tuple[str, dict | BaseException]: ...

    def close(self) -> None: ...


class LocalPool:
    """``workers`` processes on this machine (0: one per core), started with ``spawn`` (a fresh
    interpreter: no state shared with the caller's threads)."""

    def __init__(self, function: str, workers: int = 0):
        self.function = function
        self.workers = workers or os.cpu_count() or 1
        self._executor = cf.ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        self._futures: dict[cf.Future, str] = {}

    @property
    def pending(self) -> int:
        return len(self._futures)

    def submit(self, key: str, description: dict, function: str | None = None) -> None:
        self._futures[self._executor.submit(call, function or self.function, description)] = key

    def next(self) -> tuple[str, dict | BaseException]:
        done = next(cf.as_completed(self._futures))
        key = self._futures.pop(done)
        error = done.exception()
        return key, error if error is not None else done.result()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


class RayPool:
    """Tasks on the Ray cluster at ``address`` (``ray start --head`` prints it), each asking for
    ``cpus`` CPUs (the server and the robots' programs it starts). Raises RuntimeError when Ray is
    not installed or the cluster cannot be reached."""

    def __init__(self, function: str, address: str, cpus: float = 1.0):
        try:
            import ray
        except ImportError:
            raise RuntimeError("Ray is not installed: pip install 'ray[default]'") from None
        self.ray = ray
        host, _, port = address.rpartition(":")
        if host and port.isdigit():              # ray.init waits minutes for an address nobody serves
            try:
                socket.create_connection((host, int(port)), timeout=REACH_TIMEOUT).close()
            except OSError as e:
                raise RuntimeError(f"cannot reach the Ray cluster at {address}: {e.strerror or e}") from None
        try:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False, ignore_reinit_error=True)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise RuntimeError(f"cannot reach the Ray cluster at {address}: {e}") from None
        self.function = function
        self._task = ray.remote(num_cpus=cpus, max_retries=0)(call)
        self._refs: dict = {}

    @property
    def pending(self) -> int:
        return len(self._refs)

    def submit(self, key: str, description: dict, function: str | None = None) -> None:
        self._refs[self._task.remote(function or self.function, description)] = key

    def next(self) -> tuple[str, dict | BaseException]:
        [ready], _ = self.ray.wait(list(self._refs), num_returns=1)
        key = self._refs.pop(ready)
        try:
            return key, self.ray.get(ready)
        except self.ray.exceptions.RayTaskError as e:
            return key, e.cause if isinstance(e.cause, BaseException) else RuntimeError(str(e))
        except self.ray.exceptions.RayError as e:
            return key, RuntimeError(f"the Ray task failed: {e}")

    def close(self) -> None:
        for ref in self._refs:
            self.ray.cancel(ref, force=True)
        self._refs.clear()
        self.ray.shutdown()
