"""A hosted bot never outlives the server that started it (``skirmish.bots.parent``): a parent
process is SIGKILLed and its child, started as the server starts its bots, is gone at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

# the parent: starts CHILD (through ``guarded`` or not), prints the child's pid, then sleeps
PARENT = """
import os, subprocess, sys, time
from skirmish.bots.parent import guarded
child = [sys.executable, "-c", sys.argv[2]]
argv = guarded(child, os.getpid()) if sys.argv[1] == "guarded" else child
print(subprocess.Popen(argv).pid, flush=True)
time.sleep(60)
"""
SLEEPER = "import time; time.sleep(60)"
WATCHER = "import os, time; from skirmish.bots.parent import exit_with_parent; exit_with_parent(os.getppid()); time.sleep(60)"


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def orphan_after_parent_killed(how: str, child: str) -> tuple[bool, float]:
    """Whether the child still runs 3 s after its parent's SIGKILL (and how long it took to go)."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT, how, child], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        time.sleep(1.5)  # (the watching child is past its imports)
        assert alive(pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        killed = time.monotonic()
        while alive(pid) and time.monotonic() - killed < 3:
            time.sleep(0.01)
        return alive(pid), time.monotonic() - killed
    finally:
        parent.kill()
        parent.stdout.close()
        if "pid" in locals() and alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_guarded_child_dies_with_its_parent():
    assert orphan_after_parent_killed("guarded", SLEEPER)[0] is False
    # (the control: the same child started plainly outlives its parent)
    assert orphan_after_parent_killed("plain", SLEEPER)[0] is True


def test_a_bot_watching_its_parent_exits_when_the_parent_dies():
    left, took = orphan_after_parent_killed("plain", WATCHER)
    assert left is False
    assert took < 1.0, took


def test_a_bot_whose_parent_is_gone_already_exits_at_once():
    done = subprocess.run([sys.executable, "-c", "from skirmish.bots.parent import exit_with_parent\n"
                           "exit_with_parent(1)\nprint('still here')"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "still here" not in done.stdout
