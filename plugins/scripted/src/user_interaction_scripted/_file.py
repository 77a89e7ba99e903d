"""The answers file: JSON in, a configured ``ScriptedProvider`` out.

::

    {
      "answers":  {"pkg": {"selected": "npm", "notes": "pin the version"},
                   "tools": ["ruff", "mypy"], "name": {"custom": "Ada"}},
      "patterns": {"(?i)deploy|delete": {"error": "ASK_DECLINED"}},
      "default":  {"first_option": true},
      "delay":    0.5
    }

Every key is optional. An answer is a label (or the text of a question without options),
a list of labels, or one of ``{"custom": text}``, ``{"selected": labels, "notes": text?}``,
``{"skip": true}``, ``{"omit": true}``, ``{"first_option": true, "notes": text?}``,
``{"silent": true}``, ``{"error": CODE, "message": text?}``. ``notes`` go beside the
selection, as the human's remark on it.
Problems are reported as ``INVALID_ANSWERS_FILE`` with the file and the JSON path.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Final, Mapping

from user_interaction import ERROR_CODES, UserInteractionError
from user_interaction.testing import (
    FIRST_OPTION,
    OMIT,
    SILENT,
    SKIP,
    AnswerSpec,
    ScriptedProvider,
    custom,
    reject,
    with_notes,
)

__all__ = ["INVALID_ANSWERS_FILE", "build_provider", "parse_answers", "read_answers"]

#: The code of the error for a missing, unreadable or malformed answers file.
INVALID_ANSWERS_FILE: Final = "INVALID_ANSWERS_FILE"

_KEYS: Final = ("answers", "patterns", "default", "delay")
_FLAGS: Final[Mapping[str, AnswerSpec]] = {
    "skip": SKIP,
    "omit": OMIT,
    "first_option": FIRST_OPTION,
    "silent": SILENT,
}
_FORMS: Final = "custom, selected, skip, omit, first_option, silent or error"
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Invalid(Exception):
    """A problem at a JSON path (turned into ``INVALID_ANSWERS_FILE`` by the caller)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENTIFIER.fullmatch(key) else f"{path}[{json.dumps(key)}]"


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"duplicate key {json.dumps(key)}")
        data[key] = value
    return data


def _labels(value: object, path: str) -> str | list[str]:
    if isinstance(value, str):
        if not value.strip():
            raise _Invalid(path, 'a blank answer; use {"skip": true} to skip a question')
        return value
    if isinstance(value, list):
        for index, label in enumerate(value):
            if not isinstance(label, str):
                raise _Invalid(f"{path}[{index}]", f"expected a label string, got {_kind(label)}")
        return list(value)
    raise _Invalid(path, f"expected a label or an array of labels, got {_kind(value)}")


def _noted(value: dict[str, Any], path: str) -> AnswerSpec:
    """``{"selected": labels, "notes": text?}`` or ``{"first_option": true, "notes": text}``."""
    notes = value.get("notes")
    if "notes" in value and (not isinstance(notes, str) or not notes.strip()):
        raise _Invalid(f"{path}.notes", "expected non-blank text")
    rest = set(value) - {"notes"}
    if rest == {"selected"}:
        labels = _labels(value["selected"], f"{path}.selected")
        if notes is None:
            return labels
        if not labels:
            raise _Invalid(f"{path}.selected", "notes need at least one label beside them")
        return with_notes(labels, notes)
    if rest == {"first_option"} and value["first_option"] is True and notes is not None:
        return with_notes(FIRST_OPTION, notes)
    keys = ", ".join(sorted(value))
    if notes is None:
        raise _Invalid(path, f'expected {{"selected": labels}}, optionally with notes, got {keys}')
    raise _Invalid(
        path,
        'notes go beside a selection: expected {"selected": labels, "notes": text} or '
        f'{{"first_option": true, "notes": text}}, got the keys {keys}',
    )


def _answer(value: object, path: str) -> AnswerSpec:
    if isinstance(value, (str, list)):
        return _labels(value, path)
    if not isinstance(value, dict):
        raise _Invalid(
            path, f"expected a string, an array of labels or an object, got {_kind(value)}"
        )
    keys = set(value)
    if "notes" in keys or "selected" in keys:
        return _noted(value, path)
    if "error" in keys and keys <= {"error", "message"}:
        code, message = value["error"], value.get("message")
        if not isinstance(code, str) or code not in ERROR_CODES:
            raise _Invalid(
                f"{path}.error",
                f"expected an error code such as ASK_CANCELLED, got {json.dumps(code)} "
                f"(known codes: {', '.join(sorted(ERROR_CODES))})",
            )
        if message is not None and not isinstance(message, str):
            raise _Invalid(f"{path}.message", f"expected a string, got {_kind(message)}")
        return reject(code, message)
    if len(keys) != 1:
        raise _Invalid(path, f"expected an object with one key ({_FORMS}), got {sorted(keys)}")
    (key,) = keys
    if key == "custom":
        text = value[key]
        if not isinstance(text, str) or not text.strip():
            raise _Invalid(f"{path}.custom", "expected non-blank text")
        return custom(text)
    if key in _FLAGS:
        if value[key] is not True:
            raise _Invalid(f"{path}.{key}", f"expected true, got {json.dumps(value[key])}")
        return _FLAGS[key]
    raise _Invalid(path, f"unknown key {json.dumps(key)} (expected {_FORMS})")


def _object(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid(path, f"expected an object, got {_kind(value)}")
    return value


def build_provider(data: object) -> ScriptedProvider:
    """A ``ScriptedProvider`` from the parsed JSON (``_Invalid`` names a bad path)."""
    top = _object(data, "")
    for key in top:
        if key not in _KEYS:
            raise _Invalid(key, f"unknown key (expected {', '.join(_KEYS)})")
    answers = {
        id: _answer(value, _child("answers", id))
        for id, value in _object(top.get("answers", {}), "answers").items()
    }
    default = top.get("default")
    delay = top.get("delay", 0)
    if (
        isinstance(delay, bool)
        or not isinstance(delay, (int, float))
        or not (math.isfinite(delay) and delay >= 0)
    ):
        raise _Invalid("delay", f"expected a non-negative number of seconds, got {delay!r}")
    provider = ScriptedProvider(
        answers, default=None if default is None else _answer(default, "default"), delay=delay
    )
    rules = []
    for pattern, value in _object(top.get("patterns", {}), "patterns").items():
        where = _child("patterns", pattern)
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise _Invalid(where, f"not a regular expression: {exc}") from None
        rules.append((compiled, _answer(value, where)))
    for compiled, answer in reversed(rules):  # the newest rule wins: first in the file
        provider.when(pattern=compiled, answer=answer)
    return provider


def parse_answers(text: str, *, source: str = "answers") -> ScriptedProvider:
    """A ``ScriptedProvider`` from the text of an answers file (``INVALID_ANSWERS_FILE``)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique)
    except ValueError as exc:
        where = ""
        if isinstance(exc, json.JSONDecodeError):
            where = f" (line {exc.lineno}, column {exc.colno})"
            exc = ValueError(exc.msg)
        raise UserInteractionError(
            f"{source}: not valid JSON: {exc}{where}", INVALID_ANSWERS_FILE
        ) from None
    try:
        return build_provider(data)
    except _Invalid as exc:
        raise UserInteractionError(f"{source}: {exc}", INVALID_ANSWERS_FILE) from None


def read_answers(path: Path) -> str:
    """The text of the answers file (``INVALID_ANSWERS_FILE`` if it cannot be read)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInteractionError(
            f"{path}: cannot read the answers file: {exc}", INVALID_ANSWERS_FILE, cause=exc
        ) from exc
