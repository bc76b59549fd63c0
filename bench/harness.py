"""The benchmarks' process harness: the processes a benchmark starts (``Child``: its stdout lines, its
CPU and memory read from /proc), a server started and its URL read, the machine's load, and the
percentiles the figures print, and the garbage collections of a process that measures
(``CollectionTimes``, ``LoadCollector``). Used by ``bench_server.py``, ``bench_cluster.py`` and
``loadgen.py``."""

from __future__ import annotations

import asyncio
import gc
import math
import os
import queue
import resource
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from skirmish.server.collector import Collector

ROOT = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")


def _stat_cpu_s(path: str, missing: float = float("nan")) -> float:
    """utime + stime of a /proc stat file, in seconds (``missing`` if it cannot be read)."""
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return missing


class CollectionTimes:
    """This process's garbage collections, each timed from ``gc.callbacks`` from now on: (wall time
    at its end, ``perf_counter`` at its end, generation, seconds). The server under ``--gc-stats``
    and the load generator keep one each: a pause in either delays the acks measured."""

    def __init__(self) -> None:
        self.log: list[tuple[float, float, int, float]] = []
        self._started = 0.0
        gc.callbacks.append(self._time)

    def _time(self, phase: str, info: dict) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._started = now
        else:
            self.log.append((time.time(), now, info["generation"], now - self._started))

    def pauses_ms(self, m0: float, m1: float) -> list[float]:
        """The pauses (ms) of the collections that ended inside [m0, m1) (``perf_counter`` times)."""
        return sorted(round(d * 1000, 3) for _, t, _, d in self.log if m0 <= t < m1)


class LoadCollector:
    """The load generator's garbage collector, kept out of the windows it measures: the young passes
    ``skirmish serve`` runs (skirmish.server.collector; with CPython's own collector this process's
    pauses reached 132 ms with 1,000 games, docs/decisions.md "The collector by the clock"), a full
    pass only when :meth:`full` is called, as a phase goes, before its warm-up (one by growth fell
    inside a 1,000-game window: 193 ms), and every collection timed (:meth:`pauses_ms`): a pause
    here delays the acks read after it as much as one in the server."""

    def __init__(self) -> None:
        self.times = CollectionTimes()
        self._collector = Collector(growth=math.inf)

    async def run(self, work) -> None:
        """Await ``work`` with this collector running (on the running loop)."""
        self._collector.start(asyncio.get_running_loop())
        try:
            await work
        finally:
            self._collector.stop()

    def full(self) -> None:
        self._collector.full()

    def pauses_ms(self, m0: float, m1: float) -> list[float]:
        return self.times.pauses_ms(m0, m1)


def nofile_for(wanted: int) -> tuple[int, int]:
    """Raise this process's RLIMIT_NOFILE soft limit towards ``wanted`` (capped by the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list (nan when empty)."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


def machine_busy_s() -> float:
    """CPU seconds spent by the whole machine so far (every core; /proc/stat, idle and iowait excluded)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / CLK_TCK


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def scrape(url: str, timeout: float = 30.0) -> str:
    """A server's ``/metrics`` (Prometheus' text format), from its WebSocket URL (the same port)."""
    port = url.rstrip("/").rsplit(":", 1)[1]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout) as r:
        return r.read().decode()


def metric_total(text: str, name: str, label: str = "") -> float | None:
    """The sum of the samples of ``name`` in a scrape's ``text`` whose labels hold ``label`` (e.g.
    ``'outcome="ok"'``; "" for every sample); None if it has none."""
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
              if line.partition("{")[0].partition(" ")[0] == name and label in line]
    return sum(values) if values else None


class Child:
    """A process we started: its stdout lines go to a queue (read by a thread), stderr to a file."""

    def __init__(self, name: str, cmd: list[str], log: Path, *, stdin: bool = False, nofile: int = 0,
                 env: dict | None = None):
        self.name = name
        self.cmd = cmd
        self._log = open(log, "ab")
        preexec = (lambda: nofile_for(nofile)) if nofile else None
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=self._log, text=True,
                                     stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, preexec_fn=preexec,
                                     env={**os.environ, **(env or {})})
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, prefix: str, timeout: float) -> str:
        """The rest of the next stdout line starting with ``prefix`` (other lines are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"{self.name}: no '{prefix}' line within {timeout:.0f} s") from None
            if line is None:
                raise RuntimeError(f"{self.name} exited ({self.proc.wait()}) before saying '{prefix}'; "
                                   f"see {self._log.name}")
            if line.startswith(prefix):
                return line[len(prefix):].strip()

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def pids(self) -> list[int]:
        """This process and its descendants now (the server's store writer process, say)."""
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            try:
                for task in Path(f"/proc/{pid}/task").iterdir():
                    todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
        return found

    def cpu_s(self, task: int | None = None) -> float:
        """CPU seconds used so far: the whole process (every thread) with its child processes, or
        one of its threads."""
        if task is not None:
            return _stat_cpu_s(f"/proc/{self.proc.pid}/task/{task}/stat")
        return sum(_stat_cpu_s(f"/proc/{pid}/stat", 0.0 if pid != self.proc.pid else float("nan"))
                   for pid in self.pids())

    def main_thread_cpu_s(self) -> float:
        """CPU seconds of the main thread (the server's event loop; its task id is the pid)."""
        return self.cpu_s(self.proc.pid)

    def status_kb(self, key: str) -> int:
        """``key`` of /proc/PID/status (VmRSS, VmHWM), summed over the process and its children."""
        total = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith(key + ":"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total

    def memory_kb(self) -> dict[str, int]:
        """This process and its children: RSS and peak RSS (VmHWM) each, and their sums (RSS counts
        pages the processes share, the interpreter's, once in each) and PSS (those split between
        the processes sharing them; /proc/PID/smaps_rollup), in KiB."""
        out = {"rss": 0, "hwm": 0, "pss": 0, "main_rss": 0, "children_rss": 0}
        for pid in self.pids():
            try:
                status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
                rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
            except (OSError, ValueError):
                continue
            rss, hwm = int(status["VmRSS"].split()[0]), int(status["VmHWM"].split()[0])
            out["rss"] += rss
            out["hwm"] += hwm
            out["pss"] += sum(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
            out["main_rss" if pid == self.proc.pid else "children_rss"] += rss
        return out

    def limits(self) -> str:
        try:
            for line in Path(f"/proc/{self.proc.pid}/limits").read_text().splitlines():
                if line.startswith("Max open files"):
                    soft, hard = line.split()[3:5]
                    return f"{soft}/{hard}"
        except OSError:
            pass
        return "?"

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM (a graceful shutdown), then SIGKILL if it does not exit in time."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.wait(timeout)
        self._log.close()
        return code


def start_server(name: str, cmd: list[str], log: Path, nofile: int, env: dict | None = None) -> tuple[Child, str]:
    child = Child(name, cmd, log, nofile=nofile, env=env)
    url = child.expect("listening on", 120)
    return child, url
