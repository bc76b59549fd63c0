"""How the suite runs in parallel (``make test``: pytest-xdist, ``--dist loadgroup``).

Every test runs on the same worker as the other tests of its file, in the file's order, as a
serial run would run them: a module's fixtures (a local Ray, the JavaScript bot's ``npm ci``, a
server shared by a module) are made once, and no two workers write the same folder. The files that
start a local Ray share one group, so that two Rays never run at once on the machine's cores.
"""

from __future__ import annotations

import pytest

RAY_FILES = {  # each starts a local Ray (num_cpus=2)
    "tests/server/tournament/test_tournament_ray.py",
    "tests/server/tournament/test_tournament_ray_resume.py",
    "tests/test_bench_ray_smoke.py",
}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups from the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group("ray" if path in RAY_FILES else path))
