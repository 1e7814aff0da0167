"""Client input, one way for HTTP bodies and socket frames: parsing JSON within limits,
and showing client values in error reasons without echoing them verbatim.

What a client sends is refused (:class:`BadInput`, answered ``malformed``) when it is not
JSON, nests deeper than :data:`MAX_DEPTH`, holds a NUL character or a lone surrogate in any
string or key (PostgreSQL text and jsonb cannot store them), a non-finite number (``NaN``,
``Infinity``, ``1e999``), or an integer literal over Python's 4,300 digits.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (a message with a command is 3-4 deep)."""

MAX_REASON = 200
"""Longest error reason sent to a client, in characters."""

SHOWN = 40
"""Characters of a client's string shown in a reason."""


class BadInput(ValueError):
    """Input refused before anything looked at it; ``reason`` is safe to send."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _no_constant(name: str) -> Any:
    raise BadInput(f"{name} is not a JSON number")


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise BadInput("numbers must be finite")
    return x


def loads(text: str | bytes) -> Any:
    """Parse client JSON (see the module docstring); raises :class:`BadInput`."""
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_float)
    except BadInput:
        raise
    except RecursionError:
        raise BadInput(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # includes UnicodeDecodeError and the int digits limit
        raise BadInput("not JSON (UTF-8 text)") from None
    if isinstance(text, str):
        deep, escaped = text.count("[") + text.count("{"), "\\u" in text
    else:
        deep, escaped = text.count(b"[") + text.count(b"{"), b"\\u" in text
    # NUL and lone surrogates can only come as \u escapes (raw control characters are not
    # JSON; a raw surrogate is not UTF-8): strings are checked only when there are escapes.
    if deep > MAX_DEPTH or escaped:
        check(value)
    return value


def check(value: Any) -> None:
    """Raise :class:`BadInput` when ``value`` (parsed JSON) breaks the module's rules."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, str):
            _check_text(v)
        elif isinstance(v, dict):
            if depth >= MAX_DEPTH:
                raise BadInput(f"JSON nested deeper than {MAX_DEPTH} levels")
            for k, x in v.items():
                _check_text(k)
                stack.append((x, depth + 1))
        elif isinstance(v, list):
            if depth >= MAX_DEPTH:
                raise BadInput(f"JSON nested deeper than {MAX_DEPTH} levels")
            stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, float) and not math.isfinite(v):  # (values not from loads)
            raise BadInput("numbers must be finite")


def _check_text(s: str) -> None:
    if "\x00" in s:
        raise BadInput("strings must not contain NUL characters")
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("strings must be valid Unicode (a lone surrogate was sent)") from None


def text_ok(s: str) -> bool:
    """Whether ``s`` can be stored and shown: no NUL, no other control character, no lone
    surrogate (for names and codes that arrive through the Python API or a URL)."""
    if any(ord(c) < 32 or ord(c) == 127 for c in s):
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(value: Any, limit: int = SHOWN) -> str:
    """A client's value for an error reason: strings quoted, escaped (``ascii``) and cut to
    ``limit`` characters; small numbers as they are; anything else by its JSON type."""
    if isinstance(value, str):
        cut = value[:limit]
        return ascii(cut) + ("..." if len(value) > limit else "")
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**15 else "a very large integer"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "a non-finite number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "a value"


def reason(text: Any) -> str:
    """An error reason as sent: control characters and lone surrogates escaped, at most
    :data:`MAX_REASON` characters (the last safety net for reasons written elsewhere, e.g.
    by the rules core, that quote a client's value)."""
    s = str(text)
    if not s.isprintable() or not text_ok(s):
        s = "".join(
            c if c.isprintable() and text_ok(c) else ascii(c)[1:-1] for c in s[: 2 * MAX_REASON]
        )
    if len(s) > MAX_REASON:
        s = s[: MAX_REASON - 3] + "..."
    return s
