"""The web client's HTTP side: ``skirmish serve`` answers a plain HTTP GET on its own port.

websockets calls ``WebRoutes.__call__`` (its ``process_request`` hook) with every request
before the opening handshake: a WebSocket upgrade goes on to the protocol (``None``), anything
else gets an HTTP response here and the connection is closed.

- ``/``: the page (``server/webui/index.html``); ``/static/NAME``: its assets. Only the files
  found in ``server/webui/`` when the server starts are served, looked up by name in a dict:
  no path ever reaches the file system, so there is no traversal (``/static/../x`` is 404).
- ``/api/...``: the JSON API (``skirmish.server.webapi``).
- ``/healthz``, ``/readyz``, ``/metrics``: the server's health and Prometheus metrics (``ops``, the
  ``App``'s: ``skirmish.server.metrics``).

Every response carries a Content-Security-Policy that allows nothing from another host
(scripts, styles, images, connections: ``'self'`` only), ``nosniff``, no referrer, no framing.
Assets are sent with an ETag and ``Cache-Control: no-cache`` (revalidated: 304 when unchanged);
the API with ``no-store``, except a finished game's replay file (it never changes).
"""

from __future__ import annotations

import email.utils
import hashlib
import json
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs, unquote

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

WEBUI = Path(__file__).resolve().parent / "webui"

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'"
OPS_PATHS = ("/healthz", "/readyz", "/metrics")
REPORT_BASE = "http://127.0.0.1:8765"  # the replay links of a tournament played in process (tournament/html.py)

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
}


class HttpError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def response(status: int, body: bytes, content_type: str, cache: str = "no-store",
             extra: dict[str, str] | None = None) -> Response:
    status = HTTPStatus(status)
    headers = Headers([
        ("Date", email.utils.formatdate(usegmt=True)),
        ("Connection", "close"),
        ("Content-Length", str(len(body))),
        ("Content-Type", content_type),
        ("Cache-Control", cache),
        ("Content-Security-Policy", CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ])
    for k, v in (extra or {}).items():
        headers[k] = v
    return Response(status.value, status.phrase, headers, body)


def json_response(data, status: int = 200, cache: str = "no-store") -> Response:
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    return response(status, body, "application/json; charset=utf-8", cache)


def error_response(status: int, message: str) -> Response:
    return json_response({"error": message, "status": status}, status)


class Asset:
    __slots__ = ("body", "type", "etag")

    def __init__(self, body: bytes, content_type: str):
        self.body = body
        self.type = content_type
        self.etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def load_assets(folder: Path = WEBUI) -> dict[str, Asset]:
    """Every file of the folder (not below it), by name: what the server may send."""
    assets = {}
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.suffix in TYPES:
                assets[path.name] = Asset(path.read_bytes(), TYPES[path.suffix])
    return assets


def is_upgrade(request: Request) -> bool:
    return "websocket" in request.headers.get("Upgrade", "").lower()


class WebRoutes:
    """``process_request`` for websockets' ``serve``: HTTP GETs here, upgrades to the protocol."""

    def __init__(self, api, ops=None):
        self.api = api  # skirmish.server.webapi.WebApi
        self.ops = ops  # async (path) -> Response for OPS_PATHS (skirmish.server.app.App._ops)
        self.assets = load_assets()

    async def __call__(self, connection, request: Request) -> Response | None:
        if is_upgrade(request):
            return None
        try:
            return await self.route(request)
        except HttpError as exc:
            return error_response(exc.status, exc.message)

    def asset(self, name: str, request: Request) -> Response:
        asset = self.assets.get(name)
        if asset is None:
            raise HttpError(404, "no such file")
        extra = {"ETag": asset.etag}
        if request.headers.get("If-None-Match", "") == asset.etag:
            r = response(304, b"", asset.type, "no-cache", extra)
            del r.headers["Content-Length"]
            r.headers["Content-Length"] = "0"
            return r
        return response(200, asset.body, asset.type, "no-cache", extra)

    def tournament_report(self, rest: str) -> Response:
        """A listed tournament's report.html, read when asked (the tournament may still run); its
        replay links made relative, to this server. It has no script: its CSP allows inline styles only."""
        name, _, file = rest.partition("/")
        folder = self.api.tournaments.get(name)
        if folder is None or file != "report.html":
            raise HttpError(404, "no such tournament report")
        try:
            text = (folder / "report.html").read_text(encoding="utf-8")
        except OSError:
            raise HttpError(404, "this tournament has no report yet") from None
        body = text.replace(f'href="{REPORT_BASE}/#/replay/', 'href="/#/replay/').encode()
        r = response(200, body, TYPES[".html"], "no-cache")
        del r.headers["Content-Security-Policy"]
        r.headers["Content-Security-Policy"] = REPORT_CSP
        return r

    async def route(self, request: Request) -> Response:
        raw_path, _, raw_query = request.path.partition("?")
        path = unquote(raw_path)
        query = {k: v[-1] for k, v in parse_qs(raw_query, keep_blank_values=True).items()}
        if path in ("/", "/index.html"):
            return self.asset("index.html", request)
        if path == "/favicon.ico":
            return self.asset("favicon.svg", request) if "favicon.svg" in self.assets else response(
                204, b"", "text/plain", "max-age=86400")
        if path.startswith("/static/"):
            name = path.removeprefix("/static/")
            if "/" in name or "\\" in name or name.startswith("."):
                raise HttpError(404, "no such file")
            return self.asset(name, request)
        if path.startswith("/tournaments/"):
            return self.tournament_report(path.removeprefix("/tournaments/"))
        if path.startswith("/api/"):
            token = request.headers.get("X-Skirmish-Token", "")
            return await self.api.handle(path.removeprefix("/api/").split("/"), query, token)
        if path in OPS_PATHS and self.ops is not None:
            return await self.ops(path)
        raise HttpError(404, "no such page")
