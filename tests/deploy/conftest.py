"""The deploy/ configuration checks run the real tools (nginx, caddy, promtool, docker compose,
systemd-analyze, rsyslogd). Missing on a laptop: the test skips, saying how to install the tool;
under ``CI=true`` it fails instead (``.ci/run`` installs them from Debian's packages)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"

# tool -> the Debian package that has it (.ci/run installs the same list)
PACKAGES = {"nginx": "nginx", "caddy": "caddy", "promtool": "prometheus", "docker-compose": "docker-compose",
            "systemd-analyze": "systemd", "rsyslogd": "rsyslog", "logrotate": "logrotate", "openssl": "openssl"}


def need(tool: str) -> str:
    """The tool's path; skip (fail under CI=true) when it is not installed."""
    path = shutil.which(tool) or next((p for p in (f"/usr/sbin/{tool}", f"/usr/bin/{tool}") if Path(p).exists()),
                                      None)
    if path:
        return path
    package = PACKAGES.get(tool, tool)
    why = f"{tool} is not installed"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{why} (CI=true: the deploy/ checks must run; .ci/run installs Debian's {package})")
    pytest.skip(f"{why}: `apt-get install -y {package}` to check deploy/ with it (under CI=true this fails)")
