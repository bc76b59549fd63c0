"""Namespaced error codes: every error sent on the wire has one (DESIGN.md section 6).

Hierarchy::

    ProtocolError             a message the server cannot take; ``code`` says why
        (codes "protocol.*": malformed, unknown_type, invalid_field, too_large, version,
         rate_limited)

Engine rejections keep their own codes (``skirmish.engine.errors``: "game.*"). The lobby and seats use
"lobby.*" and "auth.*"; the server itself "server.*". ``CODES`` lists them all, with what each
means; ``docs/protocol.md`` documents them.
"""

from __future__ import annotations

CODES: dict[str, str] = {
    "protocol.malformed": "the frame is not a message in the negotiated codec (garbage, truncated)",
    "protocol.unknown_type": "the message's type is not one this server knows",
    "protocol.invalid_field": "a field is missing or of the wrong type",
    "protocol.too_large": "the frame is larger than the server takes; it was dropped (a frame past the WebSocket "
                          "limit closes the connection with 1009)",
    "protocol.version": "the client speaks a protocol version this server does not; the connection is closed",
    "protocol.hello_first": "the first message on a connection must be hello",
    "protocol.rate_limited": "too many messages in too short a time; this one was dropped",
    "protocol.hello_again": "hello was already said on this connection; the first one stands",
    "protocol.hello_timeout": "no hello within the server's hello timeout; the connection is closed (1008)",
    "server.idle_timeout": "the connection followed no unfinished game and said nothing for the server's idle "
                           "timeout; it is closed (1008)",
    "server.too_many_connections": "too many connections from this address at once; this one is closed (1013)",
    "lobby.rate_limited": "this address creates games faster than the server allows; no game was created",
    "lobby.no_such_mission": "no mission with that id",
    "lobby.no_such_game": "no game with that id",
    "lobby.seat_taken": "that seat already has a player",
    "lobby.game_full": "both seats are taken",
    "lobby.seat_reserved": "the seat (or the only free one) is reserved for another player (create_game's "
                           "reserve_for): only a connection whose hello names that player may take it",
    "lobby.seq_out_of_range": "last_seq / after_seq is past the game's last event",
    "auth.bad_token": "the seat token is not the token of a seat of that game",
    "auth.not_seated": "this connection holds no seat in that game",
    "game.malformed_command": "the command is not well formed",
    "game.illegal_option": "the option is not one the pending decision offers",
    "game.not_your_decision": "the pending decision is the other side's",
    "game.stale_decision": "the decision id is not the pending decision's",
    "game.over": "the game has ended",
    "game.not_started": "the game waits for its second player",
    "game.started": "the game has started: it can no longer be cancelled (resign instead)",
    "game.command_id_reused": "the command id was already used for another command of this seat",
    "game.error": "the game refused the command",
    "server.shutting_down": "the server is shutting down; reconnect and resume later",
    "server.internal": "the server failed; the game is unchanged",
    "server.unavailable": "the game is moving between server nodes (its node stopped answering); nothing was done: "
                          "send the same request again shortly",
    "replay.too_large": "the replay file sent with replay_frames is larger than the server replays",
    "replay.bad_file": "the replay file sent with replay_frames is not one, or does not verify (the message "
                       "names the first bad event)",
}


class ProtocolError(Exception):
    def __init__(self, code: str, message: str):
        assert code in CODES, code
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
