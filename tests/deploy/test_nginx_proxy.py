"""deploy/compose/nginx.conf really proxies: a real nginx with that configuration (its upstreams
pointed at a real server on this machine, its ports made free ones, a certificate made here)
terminates TLS, upgrades WebSockets for two bots that play a whole game through it, redirects
plain HTTP and keeps /metrics from the public."""

from __future__ import annotations

import asyncio
import os
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.server.app import ServerConfig, running_server
from skirmish.server.store import MemoryStore

from .conftest import DEPLOY, need


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proxied_config(text: str, upstream: int, http: int, https: int, tls) -> str:
    text = text.replace("/etc/nginx/tls/", f"{tls}/")
    for i in (1, 2, 3):
        text = text.replace(f"server node{i}:8765", f"server 127.0.0.1:{upstream}")
    for old, new in (("listen 80;", f"listen 127.0.0.1:{http};"), ("listen 443 ssl;", f"listen 127.0.0.1:{https} ssl;"),
                     ("listen [::]:80;", ""), ("listen [::]:443 ssl;", "")):
        assert old in text, old
        text = text.replace(old, new)
    return text


def get(url: str, context: ssl.SSLContext | None = None):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kw):
            return None

    opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=context),
                                         urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


async def test_a_game_through_nginx(tmp_path, monkeypatch):
    nginx, openssl = need("nginx"), need("openssl")
    if os.geteuid() != 0:
        pytest.skip("nginx's master process is run as root here (its default user for the workers)")
    argv = [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(tmp_path / "privkey.pem"),
            "-out", str(tmp_path / "fullchain.pem")]
    done = await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "fullchain.pem"))  # the bots trust the certificate made here
    context = ssl.create_default_context(cafile=str(tmp_path / "fullchain.pem"))
    async with running_server(ServerConfig(port=0, db=":memory:"), store=MemoryStore()) as srv:
        http, https = free_port(), free_port()
        conf = tmp_path / "nginx.conf"
        conf.write_text(proxied_config((DEPLOY / "compose" / "nginx.conf").read_text(), srv.port, http, https, tmp_path))
        argv = [nginx, "-p", f"{tmp_path}/", "-c", str(conf), "-e", "stderr", "-g", f"daemon off; pid {tmp_path}/nginx.pid;"]
        proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)  # noqa: ASYNC220 - started, not waited on
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", https), timeout=1).close()
                    break
                except OSError:
                    assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else ""
                    await asyncio.sleep(0.1)
            base = f"https://localhost:{https}"
            status, headers, body = await asyncio.to_thread(get, f"{base}/healthz", context)
            assert status == 200 and body == b'{"alive":true}', (status, body)
            assert headers.get("Strict-Transport-Security") == "max-age=31536000"
            assert (await asyncio.to_thread(get, f"{base}/metrics", context))[0] == 404  # not public
            status, headers, _ = await asyncio.to_thread(get, f"http://127.0.0.1:{http}/x?y=1")
            assert status == 301 and headers["Location"] == "https://127.0.0.1/x?y=1"

            url = f"wss://localhost:{https}/"
            seated = asyncio.get_running_loop().create_future()
            a = asyncio.create_task(run_bot(url, make_bot("random", 1), mission="ridge", seat="a",
                                            on_seated=seated.set_result))
            seat = await asyncio.wait_for(seated, 20)
            outcomes = await asyncio.wait_for(asyncio.gather(a, run_bot(url, make_bot("random", 2), game_id=seat.game_id)),
                                              120)
            assert all(o is not None for o in outcomes)
            families = text_string_to_metric_families((await srv.metrics.exposition(False)).decode())
            acked = [s.value for f in families for s in f.samples if s.name == "skirmish_commands_total"
                     and s.labels == {"type": "choose", "outcome": "ok", "code": ""}]
            assert acked and acked[0] > 10, acked  # the game's commands came through nginx
        finally:
            proc.terminate()
            proc.wait(10)
