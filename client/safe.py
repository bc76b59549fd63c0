"""Escaping what others wrote before it reaches a terminal.

Player and client names, mission strings (a mission file is someone else's text), card names,
reasons and the server's error messages all come from someone else. Printed raw, an ANSI escape
in them could recolour, clear or move the cursor in the reader's terminal, and a newline could
forge a line that looks like the server's narration ("side a resigns"). Every command that
prints such text (``replay``, ``play``, ``spectate``, ``games``) passes it through ``safe``.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def safe(text: object) -> str:
    """``text`` (``str()`` of anything) with every control and other non-printable character
    (C0/C1 controls, ESC, DEL, newlines, tabs, bidirectional overrides, zero-width and private-use
    characters: all that ``str.isprintable`` refuses but the space) and the backslash written as
    Python writes them in a ``repr`` (``\\x1b``, ``\\n``, ``\\u202e``, ``\\\\``). Printable text,
    accented letters and other scripts included, is left as it is, so an escaped string is
    unambiguous and never more than one line."""
    s = str(text)
    if s.isprintable() and "\\" not in s:
        return s  # the common case, fast
    return "".join(ch if (ch.isprintable() or ch == " ") and ch != "\\" else _escape(ch) for ch in s)
