"""The client's exceptions (all ``ClientError``): ``ClientError`` (the server's ``error`` reply:
``code`` is one of ``skirmish.protocol.errors.CODES``), ``ConnectFailed`` (no server there, or it refused the
handshake), ``ConnectionLost`` (the connection dropped while a call waited)."""

from __future__ import annotations

__all__ = ["ClientError", "ConnectFailed", "ConnectionLost"]


class ClientError(Exception):
    """The server answered a call with ``error``; ``code`` is one of ``skirmish.protocol.errors.CODES``.

    Local failures use ``client.*`` codes (subclasses below)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectFailed(ClientError):
    """Nothing listens at the address, or it is not a skirmish server (handshake refused)."""

    def __init__(self, message: str):
        super().__init__("client.connect_failed", message)

    def __str__(self) -> str:
        return self.message


class ConnectionLost(ClientError):
    """The connection dropped while a call waited. ``command_id`` is set for a ``choose``, and
    ``request_id`` for a ``create_game`` or ``join``: retry with it after ``reconnect()`` and the
    server will not act twice (a retried seat request gets the seat its first try took)."""

    def __init__(self, message: str = "the connection to the server was lost", command_id: str = "",
                 request_id: str = ""):
        super().__init__("client.connection_lost", message)
        self.command_id = command_id
        self.request_id = request_id

    def __str__(self) -> str:
        return self.message
