"""Tournament games as Ray tasks (``skirmish tournament --ray [ADDRESS]``): :class:`RayPool`.

The same loop as with worker processes (``run.py``) hands the games to this pool instead of a
``ProcessPoolExecutor``; the pool has the part of that executor's interface the loop uses
(``submit`` returning a ``concurrent.futures.Future``, ``shutdown``), so mirrored pairs,
forfeits, progress, resuming and Ctrl-C work as they do locally:

- each game is one Ray task running :func:`skirmish.server.tournament.worker.play_game`, the
  function a worker process runs; the task returns the :class:`~.worker.Played` (the game's
  events, hashes, header, secret and the result, and the bots' logs in the forfeit) to the
  parent, which writes it to ``OUT/games.sqlite`` with its result in one transaction (a worker
  process of the local pool stores its games itself; a Ray task may run on another machine). A game's events follow from its spec (seed, dice
  seed, bot seeds), so the stored games are the same whichever node or worker played them;
- a task is not retried by Ray (``max_retries=0``): a worker that dies with a game is reported
  as a worker process dying is, and the games recorded so far are kept;
- ``--workers W`` is the number of games in flight at once (default: the cluster's CPUs); each
  task asks for one CPU.

Where Ray runs: with no address, a local Ray is started for the tournament (``ray.init``
with ``address="local"``: a new one, ``num_cpus`` = the workers, no dashboard, quiet, its
workers not niced below this process as Ray's are by default) and stopped at the end; its
workers import what this process imports (its ``sys.path`` is passed as their ``PYTHONPATH``),
as forked worker processes would. With an address (``auto``,
``HOST:PORT`` or ``ray://HOST:10001``), the tournament joins that cluster: every node must have
skirmish and the entrants' bot modules installed. A process that has already called
``ray.init`` (a test, a benchmark) is used as it is and left running.

Ray is an optional dependency (``pip install 'skirmish[ray]'``); without it, ``--ray`` stops with
a :class:`~.config.TournamentError` saying how to install it.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

from .config import TournamentError

LOCAL = ""  # config.ray for "a local Ray" (--ray without an address)
OBJECT_STORE_BYTES = 100 * 2**20  # a game's result is a few KB to a few hundred; Ray's floor is ~75 MiB


def import_ray():
    """The ``ray`` module, or a :class:`TournamentError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise TournamentError("--ray needs Ray, an optional dependency: pip install 'skirmish[ray]' "
                              "(or pip install ray)") from None
    return ray


class WorkerDied(BrokenProcessPool):
    """The Ray worker (or its node) died while playing a game, or its task was cancelled: taken as
    a worker process dying is (``BrokenProcessPool``)."""


class RayPool:
    """Games as Ray tasks, with the part of ``ProcessPoolExecutor``'s interface ``run.py`` uses."""

    def __init__(self, address: str, workers: int | None):
        self.ray = ray = import_ray()
        self.address = address
        self.started = False  # a Ray this pool started (and stops at the end)
        self.sigterm = signal.getsignal(signal.SIGTERM)  # ray.init replaces it (and leaves it after shutdown)
        if not ray.is_initialized():
            init_ray(address, workers)
            self.started = True
        self.cpus = int(ray.cluster_resources().get("CPU", 0))
        from .worker import play_game

        self._remote = ray.remote(num_cpus=1, max_retries=0)(_play_in_task).options(name="skirmish-game")
        self._play = play_game
        self.refs: dict[Future, object] = {}

    def describe(self) -> str:
        """Where the games run, for the tournament's first line."""
        if not self.started:
            where = "the running Ray"
        elif self.address == LOCAL:
            where = "a local Ray"
        else:
            where = f"the Ray cluster at {self.address}"
        return f"{where} ({self.cpus} CPUs)"

    def submit(self, fn, spec, server):
        """Play ``spec`` as a Ray task; ``fn`` must be ``play_game`` (what the task runs)."""
        if fn is not self._play:
            raise ValueError("RayPool only plays games (worker.play_game)")
        return _RayFuture(self, self._remote.remote(spec, server))

    def cancel_all(self, force: bool) -> None:
        """Cancel every game not finished (``force``: kill the workers playing them)."""
        for fut, ref in list(self.refs.items()):
            if not fut.done():
                try:
                    self.ray.cancel(ref, force=force)
                except Exception:  # already finished, or the cluster is gone
                    pass

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        if cancel_futures or not wait:
            self.cancel_all(force=not wait)
        if wait:
            pending = [ref for fut, ref in self.refs.items() if not fut.done()]
            if pending:
                self.ray.wait(pending, num_returns=len(pending), timeout=10)
        self.refs.clear()
        if self.started:
            self.ray.shutdown()
            self.started = False
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, self.sigterm)


class _RayFuture(Future):
    """A ``concurrent.futures.Future`` fed by a Ray object reference; a worker that died becomes
    :class:`WorkerDied`, a game that failed its task's exception (as in a worker process)."""

    def __init__(self, pool: RayPool, ref):
        super().__init__()
        self.set_running_or_notify_cancel()  # handed to Ray: it runs as soon as a CPU is free
        self.pool = pool
        pool.refs[self] = ref  # (before the callback: a game may finish at once)
        ref.future().add_done_callback(self._settle)

    def _settle(self, inner: Future) -> None:
        from ray import exceptions

        self.pool.refs.pop(self, None)
        if inner.cancelled():
            exc: BaseException | None = WorkerDied("the game's Ray task was cancelled")
        else:
            exc = inner.exception()
        if exc is None:
            self.set_result(inner.result())
        elif isinstance(exc, (exceptions.WorkerCrashedError, exceptions.NodeDiedError,
                              exceptions.TaskCancelledError, exceptions.LocalRayletDiedError)):
            self.set_exception(WorkerDied(str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
        elif isinstance(exc, exceptions.RayTaskError):
            self.set_exception(exc.as_instanceof_cause())
        else:
            self.set_exception(exc)

    def cancel(self) -> bool:
        ref = self.pool.refs.get(self)
        if ref is not None and not self.done():
            try:
                self.pool.ray.cancel(ref, force=True)
            except Exception:
                pass
        return False  # already running (as a process pool's running future): its result still comes


def _play_in_task(spec, server):
    """One game in a Ray worker: what a worker process runs (its event loop is made on first use)."""
    from skirmish.server.tournament.worker import play_game

    return play_game(spec, server)


def init_ray(address: str = LOCAL, workers: int | None = None):
    """Start a local Ray (``address`` empty; ``workers`` CPUs, default one per core) or join the
    cluster at ``address``, quietly, as ``--ray`` does; the ``ray`` module. (Also the tests' and
    the benchmark's way to start the Ray their tournaments share.)"""
    ray = import_ray()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage-stats notice, nothing sent
    # Ray nices its workers by 15 below the driver; the games are this run's work, played at the
    # priority of the command (as worker processes are): a local Ray's workers are not niced
    os.environ.setdefault("RAY_worker_niceness", "0")
    if address != LOCAL:
        _reachable(address)
    quiet = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        if address == LOCAL:
            path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
            ray.init(address="local", num_cpus=workers or os.cpu_count() or 1,
                     object_store_memory=OBJECT_STORE_BYTES,
                     runtime_env={"env_vars": {"PYTHONPATH": path}}, **quiet)
        else:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        raise TournamentError(f"--ray: cannot start or reach {where}: {str(exc).splitlines()[0]}") from None
    return ray


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse at once a ``HOST:PORT`` (or ``ray://HOST:PORT``) that nothing answers on: Ray itself
    retries such an address for minutes, logging warnings. (``auto`` and other forms go to Ray.)"""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise TournamentError(f"--ray: nothing answers at {address} ({exc.strerror or exc}); start the cluster "
                              f"(ray start --head) or give its address: HOST:6379, ray://HOST:10001 or auto") from None
