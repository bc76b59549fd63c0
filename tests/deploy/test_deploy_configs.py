"""Every configuration file of deploy/ is checked by the real tool that reads it (conftest.need:
skipped on a laptop without it, failed under CI=true), and its SKIRMISH_* settings are the
server's own (an unknown variable would be ignored silently)."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skirmish.server.config import ENV_PREFIX, ServerConfig
from skirmish.server.web import OPS_PATHS

from .conftest import DEPLOY, ROOT, need

# settings of the multi-node server (issue 17, point 2) that compose.yaml names before the server
# has them: once `skirmish serve` reads them, they leave this set (the test below says so)
FIELDS = {ENV_PREFIX + f.name.upper() for f in dataclasses.fields(ServerConfig)}


def run(argv: list[str], cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=120, check=False)


def ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, f"{done.args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def env_file(path: Path) -> dict[str, str]:
    pairs = [line.split("=", 1) for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return {k.strip(): v.strip() for k, v in pairs}


# -- one node under systemd ------------------------------------------------------------------------


def test_systemd_units_verify(tmp_path):
    tool = need("systemd-analyze")
    skirmish = Path(sys.executable).with_name("skirmish")
    assert skirmish.exists(), "the skirmish console script of this environment (pip install -e .)"
    for unit in ("skirmish.service", "skirmish-backup.service", "skirmish-backup.timer"):
        text = (DEPLOY / "systemd" / unit).read_text()
        # where this checkout has what the units name in /opt and /etc
        text = text.replace("/opt/skirmish/venv/bin/skirmish", str(skirmish))
        text = text.replace("/etc/skirmish/skirmish.env", str(DEPLOY / "systemd" / "skirmish.env"))
        (tmp_path / unit).write_text(text)
    done = run([tool, "verify", "--man=no", "./skirmish.service", "./skirmish-backup.service",
                "./skirmish-backup.timer"], cwd=tmp_path)
    ok(done)
    assert not done.stderr.strip(), done.stderr  # no warning either (unknown keys, bad values)


def test_service_exposure_is_low(tmp_path):
    tool = need("systemd-analyze")
    text = (DEPLOY / "systemd" / "skirmish.service").read_text()
    (tmp_path / "skirmish.service").write_text(text.replace("/opt/skirmish/venv/bin/skirmish",
                                                            str(Path(sys.executable).with_name("skirmish"))))
    done = run([tool, "security", "--offline=yes", "--no-pager", "./skirmish.service"], cwd=tmp_path)
    level = re.search(r"Overall exposure level for skirmish.service: (\d+\.\d+)", done.stdout)
    assert level, done.stdout + done.stderr
    assert float(level.group(1)) <= 2.0, done.stdout  # systemd's scale: 0 (locked down) .. 10 (unprotected)


def test_service_hardening_and_shutdown():
    unit = (DEPLOY / "systemd" / "skirmish.service").read_text()
    for line in ("User=skirmish", "ProtectSystem=strict", "NoNewPrivileges=yes", "CapabilityBoundingSet=",
                 "PrivateTmp=yes", "StateDirectory=skirmish", "KillSignal=SIGTERM", "Restart=on-failure",
                 "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "SystemCallFilter=@system-service"):
        assert f"\n{line}\n" in unit, line
    # systemd waits longer than the server's own shutdown (ServerConfig.shutdown_timeout, twice)
    stop = int(re.search(r"\nTimeoutStopSec=(\d+)\n", unit).group(1))
    assert stop > 2 * ServerConfig().shutdown_timeout


def test_environment_file_is_the_servers_settings():
    values = env_file(DEPLOY / "systemd" / "skirmish.env")
    assert set(values) <= FIELDS, set(values) - FIELDS
    config = ServerConfig.from_env(values)
    assert config.host == "127.0.0.1" and config.db == "/var/lib/skirmish/games.sqlite"
    assert config.connections_per_address == 0  # behind the proxy every client has its address


def test_caddyfile_validates(tmp_path):
    caddy = need("caddy")
    shutil.copy(DEPLOY / "systemd" / "Caddyfile", tmp_path / "Caddyfile")
    ok(run([caddy, "validate", "--config", "Caddyfile", "--adapter", "caddyfile"], cwd=tmp_path,
           env={"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}))
    text = (tmp_path / "Caddyfile").read_text()
    assert "reverse_proxy 127.0.0.1:8765" in text and "health_uri /readyz" in text


def test_rsyslog_shipping_config_validates():
    rsyslogd = need("rsyslogd")
    conf = DEPLOY / "logs" / "rsyslog-skirmish.conf"
    ok(run([rsyslogd, "-N1", "-f", str(conf)]))
    assert 'if $!_SYSTEMD_UNIT == "skirmish.service"' in conf.read_text()


def test_logrotate_config_parses(tmp_path):
    logrotate = need("logrotate")
    ok(run([logrotate, "--debug", "--state", str(tmp_path / "state"), str(DEPLOY / "logs" / "logrotate-skirmish")]))


# -- several nodes: compose, nginx, the image ------------------------------------------------------


def compose_command() -> list[str]:
    docker = shutil.which("docker")
    if docker and run([docker, "compose", "version"]).returncode == 0:
        return [docker, "compose"]
    return [need("docker-compose")]


def test_compose_file_is_valid(tmp_path):
    compose = compose_command()
    folder = DEPLOY / "compose"
    done = run([*compose, "-f", str(folder / "compose.yaml"), "config"], env={"POSTGRES_PASSWORD": "s3cret"})
    text = ok(done)
    for name in ("node1", "node2", "node3", "postgres", "nats", "proxy", "prometheus"):
        assert re.search(rf"^  {name}:$", done.stdout, re.MULTILINE), name
    for node in ("node1", "node2", "node3"):
        assert f"SKIRMISH_NODE: {node}" in text
    assert "SKIRMISH_DB: postgresql://skirmish:s3cret@postgres:5432/skirmish" in text
    assert "SKIRMISH_NATS: nats://nats:4222" in text
    # without the password it refuses to run (no default secret)
    missing = run([*compose, "-f", str(folder / "compose.yaml"), "config"], env={"POSTGRES_PASSWORD": ""})
    assert missing.returncode != 0 and "POSTGRES_PASSWORD" in missing.stdout + missing.stderr


def test_compose_settings_are_the_servers():
    text = (DEPLOY / "compose" / "compose.yaml").read_text()
    names = set(re.findall(r"^\s+(SKIRMISH_[A-Z_]+):", text, re.MULTILINE))
    assert names <= FIELDS, names - FIELDS  # every variable the compose file sets is a real setting
    assert {"SKIRMISH_NATS", "SKIRMISH_NODE", "SKIRMISH_DB"} <= names


def test_nginx_config_is_valid(tmp_path):
    nginx = need("nginx")
    openssl = need("openssl")
    ok(run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=skirmish.test",
            "-keyout", str(tmp_path / "privkey.pem"), "-out", str(tmp_path / "fullchain.pem")]))
    text = (DEPLOY / "compose" / "nginx.conf").read_text()
    assert text.count("/etc/nginx/tls/") == 2 and all(f"server node{i}:8765" in text for i in (1, 2, 3))
    # the certificate made here; the compose services' names are not resolvable outside compose
    text = text.replace("/etc/nginx/tls/", f"{tmp_path}/")
    for i in (1, 2, 3):
        text = text.replace(f"server node{i}:8765", f"server 127.0.0.{i}:8765")
    (tmp_path / "nginx.conf").write_text(text)
    ok(run([nginx, "-t", "-p", f"{tmp_path}/", "-c", str(tmp_path / "nginx.conf"), "-e", "stderr",
            "-g", f"pid {tmp_path}/nginx.pid;"]))


def test_prometheus_config_and_rules(tmp_path):
    promtool = need("promtool")
    folder = DEPLOY / "prometheus"
    ok(run([promtool, "check", "config", "prometheus.yml"], cwd=folder))
    out = ok(run([promtool, "check", "rules", "alerts.yml"], cwd=folder))
    assert "6 rules found" in out
    ok(run([promtool, "test", "rules", "alerts_test.yml"], cwd=folder))  # each alert fires when it should


def test_alerts_name_metrics_the_server_exports():
    from skirmish.server.metrics import ServerMetrics

    exported = {"up"}
    for family in ServerMetrics(lambda: {"skirmish_connections": ("", 0), "skirmish_games_owned": ("", 0),
                                         "skirmish_games_live": ("", 0)}).registry.collect():
        exported |= {s.name for s in family.samples} | {family.name}
    exported |= {"skirmish_commands_total", "skirmish_store_write_seconds_bucket"}  # labelled: no sample yet
    used = set(re.findall(r"\b((?:skirmish_|up\b)[a-z_]*)", (DEPLOY / "prometheus" / "alerts.yml").read_text()))
    assert used <= exported, used - exported


def test_dockerfile_copies_the_packages():
    text = (DEPLOY / "Dockerfile").read_text()
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    copied = re.findall(r"^COPY (?!--from)(\S+)(?: (\S+))? ", text, re.MULTILINE)
    sources = [s for line in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.MULTILINE) for s in line.split()]
    assert copied and sources
    for source in sources:
        assert (ROOT / source).exists(), source
        assert f"!{source}" in ignore or f"!{source}/" in ignore, f"{source} is not let through the .dockerignore"
    pyproject = (ROOT / "pyproject.toml").read_text()
    folders = set(re.findall(r'^"skirmish\.\w+" = "(\w+)"$', pyproject, re.MULTILINE))
    assert folders and folders <= set(sources), folders - set(sources)  # every package folder is installed
    assert 'ENTRYPOINT ["skirmish"]' in text and 'CMD ["serve"]' in text and "USER skirmish" in text
    assert "/readyz" in text and "/readyz" in OPS_PATHS


@pytest.mark.parametrize("path", ["systemd/skirmish.service", "systemd/skirmish.env", "systemd/skirmish-backup.service",
                                  "systemd/skirmish-backup.timer", "systemd/Caddyfile", "logs/rsyslog-skirmish.conf",
                                  "logs/logrotate-skirmish", "compose/compose.yaml", "compose/nginx.conf",
                                  "compose/env.example", "prometheus/prometheus.yml", "prometheus/alerts.yml",
                                  "Dockerfile"])
def test_the_readme_names_every_file(path):
    assert f"deploy/{path}" in (DEPLOY / "README.md").read_text(), path


def test_a_missing_tool_skips_on_a_laptop_and_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y no-such-tool"):
        need("no-such-tool")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        need("no-such-tool")
