"""Typed errors of the engine.

Hierarchy::

    GameError                    every rejection of a command; ``code`` is its wire code
    ├── MalformedCommand         not a command at all, or fields of the wrong type
    ├── IllegalOption            an option the pending decision does not offer
    ├── NotYourDecision          the pending decision belongs to the other side
    ├── StaleDecision            the decision id is not the pending one
    ├── GameOver                 the game has ended
    └── AlreadyStarted           a game that has started cannot be cancelled (resign instead)
    InvalidEvent                 an event that cannot follow the state (corrupt or forged log)
    MissionError                 a mission file that does not describe a playable mission

A rejected command never changes the game: ``decide`` raises before anything is emitted.
"""

from __future__ import annotations


class GameError(Exception):
    code = "game.error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class MalformedCommand(GameError):
    code = "game.malformed_command"


class IllegalOption(GameError):
    code = "game.illegal_option"


class NotYourDecision(GameError):
    code = "game.not_your_decision"


class StaleDecision(GameError):
    code = "game.stale_decision"


class GameOver(GameError):
    code = "game.over"


class AlreadyStarted(GameError):
    code = "game.started"


class InvalidEvent(Exception):
    """An event that cannot be applied to the state it follows."""

    code = "log.invalid_event"


class MissionError(Exception):
    """A mission that cannot be loaded; names the file, the field and what is wrong."""

    code = "mission.invalid"

    def __init__(self, source: str, field: str, problem: str):
        super().__init__(f"{source}: {field}: {problem}")
        self.source, self.field, self.problem = source, field, problem


class RulesClash(Exception):
    """Two rules modules claim one name (a decision kind, an option kind, a procedure frame, an
    event), or a module is not what its catalog entry says: found when a game's rule set is built."""

    code = "rules.clash"
