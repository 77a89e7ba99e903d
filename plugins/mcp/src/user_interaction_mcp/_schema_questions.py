"""An elicitation's ``requested_schema`` read as questions, and answers read back as values.

Each top-level property becomes one :class:`Field`: it builds the question shown to the
human and converts the answer item into the typed value the server asked for. The schema
comes from an untrusted server: anything outside MCP's flat primitive subset (nested
objects, unknown types, malformed enums, more fields or options than a person can answer)
raises :class:`Unsupported` with a reason, never something else.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Any, Final, Union

from user_interaction import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
)

__all__ = ["MOST_FIELDS", "MOST_OPTIONS", "SKIPPED", "Field", "Misfit", "Unsupported", "fields"]

#: More properties than this in one form is declined (no person fills that in).
MOST_FIELDS: Final = 100
#: More options than this in one enum is declined.
MOST_OPTIONS: Final = 1000

Value = Union[str, int, float, bool, "list[str]"]


class Unsupported(Exception):
    """The schema cannot be shown as questions: the elicitation is declined."""


class Misfit(Exception):
    """The human's answer does not fit the property; the message says why, to them."""


class _Skipped:
    __slots__ = ()

    def __repr__(self) -> str:
        return "SKIPPED"


#: What :meth:`Field.convert` returns for a question the human skipped.
SKIPPED: Final = _Skipped()

_YES: Final = "Yes"
_NO: Final = "No"
_TRUE_WORDS: Final = frozenset({"yes", "y", "true", "1", "on"})
_FALSE_WORDS: Final = frozenset({"no", "n", "false", "0", "off"})
_EMAIL: Final = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
_URI: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME: Final = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})"
)
_FORMAT_HINTS: Final = {
    "email": "An email address.",
    "uri": "An address (URI) like https://example.org/.",
    "date": "A date like 2026-12-31.",
    "date-time": "A date and time like 2026-12-31T09:30:00Z.",
}


class Field:
    """One property of the form: its question, and how to read an answer to it."""

    __slots__ = ("default", "description", "name", "required", "title")

    def __init__(self, name: str, schema: dict[str, Any], required: bool) -> None:
        self.name = name
        self.required = required
        title = schema.get("title")
        self.title = title if isinstance(title, str) and title.strip() else name
        description = schema.get("description")
        self.description = description if isinstance(description, str) else None
        self.default: object = schema.get("default")

    def hint(self) -> str | None:
        """What the answer must look like, shown before the human answers."""
        return None

    def show_default(self) -> str | None:
        return None

    def question(self, detail: list[str], header: str | None) -> AskUserQuestionItem:
        """The question, with ``detail`` lines (a reason, the message) before the rest."""
        lines = list(detail)
        if self.description and self.description.strip():
            lines.append(self.description)
        notes = [note for note in (self.hint(), self.show_default()) if note]
        if self.required:
            notes.insert(0, "Required.")
        if notes:
            lines.append(" ".join(notes))
        return AskUserQuestionItem(
            self.name,
            self.title,
            header=header,
            options=self.options(),
            multi_select=self.multi_select,
            detail="\n\n".join(lines) if lines else None,
        )

    multi_select = False

    def options(self) -> tuple[AskUserQuestionOption, ...]:
        return ()

    def convert(self, item: AskUserQuestionAnswerItem | None) -> Value | _Skipped:
        """The typed value of the answer ``item``, :data:`SKIPPED`, or :class:`Misfit`."""
        if item is None or (not item.selected and item.custom is None):
            return SKIPPED
        if item.custom is not None:
            return self.from_text(item.custom)
        return self.from_labels(item.selected)

    def from_text(self, text: str) -> Value:
        raise NotImplementedError

    def from_labels(self, labels: tuple[str, ...]) -> Value:
        raise Misfit("Choose from the options.")


class _Choice(Field):
    """A string enum (``enum``, titled ``oneOf``, or legacy ``enumNames``): one pick."""

    __slots__ = ("_by_label", "_labels", "_values")

    def __init__(
        self, name: str, schema: dict[str, Any], required: bool, pairs: list[tuple[str, str]]
    ) -> None:
        super().__init__(name, schema, required)
        self._labels, self._values = _labelled(name, pairs)
        self._by_label = dict(zip(self._labels, self._values))

    def options(self) -> tuple[AskUserQuestionOption, ...]:
        return tuple(AskUserQuestionOption(label) for label in self._labels)

    def show_default(self) -> str | None:
        if isinstance(self.default, str) and self.default in self._values:
            return f"Default: {self._labels[self._values.index(self.default)]}."
        return None

    def _value(self, text: str) -> str:
        value = self._by_label.get(text)
        if value is not None:
            return value
        if text in self._values:
            return text
        folded = text.strip().casefold()
        for label, value in self._by_label.items():
            if folded in (label.casefold(), value.casefold()):
                return value
        raise Misfit(f"{_quote(text)} is not one of the options.")

    def from_text(self, text: str) -> Value:
        return self._value(text)

    def from_labels(self, labels: tuple[str, ...]) -> Value:
        if len(labels) != 1:
            raise Misfit("Choose one option.")
        return self._value(labels[0])


class _MultiChoice(_Choice):
    """An array of string enum items (``items.enum`` or titled ``items.anyOf``)."""

    __slots__ = ("_least", "_most")

    multi_select = True

    def __init__(
        self, name: str, schema: dict[str, Any], required: bool, pairs: list[tuple[str, str]]
    ) -> None:
        super().__init__(name, schema, required, pairs)
        self._least = _count(schema, "minItems", name)
        self._most = _count(schema, "maxItems", name)

    def hint(self) -> str | None:
        return _range_hint(self._least, self._most, "option", "options", "Choose")

    def show_default(self) -> str | None:
        if isinstance(self.default, list) and self.default:
            shown = [
                self._labels[self._values.index(value)]
                for value in self.default
                if value in self._values
            ]
            return f"Default: {', '.join(shown)}." if shown else None
        return None

    def convert(self, item: AskUserQuestionAnswerItem | None) -> Value | _Skipped:
        if item is not None and not item.selected and item.custom is None and self.required:
            return self._checked([])  # a required multi-select may well be "none of them"
        return super().convert(item)

    def from_text(self, text: str) -> Value:
        parts = [part for part in (piece.strip() for piece in text.split(",")) if part]
        return self._checked([self._value(part) for part in parts])

    def from_labels(self, labels: tuple[str, ...]) -> Value:
        return self._checked([self._value(label) for label in labels])

    def _checked(self, values: list[str]) -> list[str]:
        unique = list(dict.fromkeys(values))
        if self._least is not None and len(unique) < self._least:
            raise Misfit(f"Choose at least {_plural(self._least, 'option', 'options')}.")
        if self._most is not None and len(unique) > self._most:
            raise Misfit(f"Choose at most {_plural(self._most, 'option', 'options')}.")
        return unique


class _YesNo(Field):
    """A boolean: "Yes" / "No", the default (if any) first."""

    __slots__ = ()

    def options(self) -> tuple[AskUserQuestionOption, ...]:
        first, second = (_NO, _YES) if self.default is False else (_YES, _NO)
        return (AskUserQuestionOption(first), AskUserQuestionOption(second))

    def show_default(self) -> str | None:
        if isinstance(self.default, bool):
            return f"Default: {_YES if self.default else _NO}."
        return None

    def from_labels(self, labels: tuple[str, ...]) -> Value:
        if len(labels) != 1:
            raise Misfit("Choose Yes or No.")
        return self.from_text(labels[0])

    def from_text(self, text: str) -> Value:
        word = text.strip().casefold()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        raise Misfit(f"{_quote(text)} is neither Yes nor No.")


class _Text(Field):
    """A string, with an optional format (email, uri, date, date-time) and length limits."""

    __slots__ = ("_format", "_least", "_most")

    def __init__(self, name: str, schema: dict[str, Any], required: bool) -> None:
        super().__init__(name, schema, required)
        kind = schema.get("format")
        self._format = kind if kind in _FORMAT_HINTS else None  # others only annotate
        self._least = _count(schema, "minLength", name)
        self._most = _count(schema, "maxLength", name)

    def hint(self) -> str | None:
        parts = [
            _FORMAT_HINTS.get(self._format or ""),
            _range_hint(self._least, self._most, "character", "characters", "Use"),
        ]
        return " ".join(part for part in parts if part) or None

    def show_default(self) -> str | None:
        if isinstance(self.default, str) and self.default:
            return f"Default: {self.default}."
        return None

    def from_text(self, text: str) -> Value:
        if self._format is not None:
            text = text.strip()
            _check_format(self._format, text)
        if self._least is not None and len(text) < self._least:
            raise Misfit(f"Use at least {_plural(self._least, 'character', 'characters')}.")
        if self._most is not None and len(text) > self._most:
            raise Misfit(f"Use at most {_plural(self._most, 'character', 'characters')}.")
        return text

    def from_labels(self, labels: tuple[str, ...]) -> Value:
        raise Misfit("Type your answer.")


class _Number(Field):
    """An ``integer`` or ``number``, with optional (exclusive) minimum and maximum."""

    __slots__ = ("_high", "_high_open", "_integer", "_low", "_low_open")

    def __init__(self, name: str, schema: dict[str, Any], required: bool, integer: bool) -> None:
        super().__init__(name, schema, required)
        self._integer = integer
        self._low, self._low_open = _bound(schema, "minimum", "exclusiveMinimum", name)
        self._high, self._high_open = _bound(schema, "maximum", "exclusiveMaximum", name)

    def hint(self) -> str | None:
        kind = "A whole number" if self._integer else "A number"
        low = high = None
        if self._low is not None:
            low = f"{'above' if self._low_open else 'from'} {_num(self._low)}"
        if self._high is not None:
            word = "below" if self._high_open else "to" if low else "up to"
            high = f"{word} {_num(self._high)}"
        return " ".join(part for part in (kind, low, high) if part) + "."

    def show_default(self) -> str | None:
        default = self.default
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            return f"Default: {_num(default)}."
        return None

    def from_text(self, text: str) -> Value:
        value = _parse_number(text)
        if value is None or (self._integer and not float(value).is_integer()):
            kind = "a whole number" if self._integer else "a number"
            raise Misfit(f"{_quote(text)} is not {kind}.")
        if self._integer:
            value = int(value)
        low, high = self._low, self._high
        if low is not None and (value <= low if self._low_open else value < low):
            raise Misfit(f"{_num(value)} is too small: {self.hint()}")
        if high is not None and (value >= high if self._high_open else value > high):
            raise Misfit(f"{_num(value)} is too large: {self.hint()}")
        return value

    def from_labels(self, labels: tuple[str, ...]) -> Value:
        raise Misfit("Type a number.")


def fields(schema: object) -> list[Field]:
    """The fields of ``requested_schema``, in its order; :class:`Unsupported` if any cannot
    be asked."""
    if not isinstance(schema, dict):
        raise Unsupported("requestedSchema is not an object")
    if schema.get("type", "object") != "object":
        raise Unsupported("requestedSchema is not of type 'object'")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise Unsupported("requestedSchema.properties is not an object")
    if len(properties) > MOST_FIELDS:
        raise Unsupported(f"{len(properties)} properties (at most {MOST_FIELDS} are shown)")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise Unsupported("requestedSchema.required is not a list of names")
    wanted = set(required)
    return [_field(name, spec, name in wanted) for name, spec in properties.items()]


def _field(name: object, spec: object, required: bool) -> Field:
    if not isinstance(name, str) or not name.strip():
        raise Unsupported(f"property {_quote(str(name))}: a blank name")
    if not isinstance(spec, dict):
        raise Unsupported(f"property {_quote(name)}: not a schema object")
    kind = spec.get("type")
    if kind is None and ("enum" in spec or "oneOf" in spec):
        kind = "string"
    if kind == "string":
        pairs = _enum_pairs(name, spec)
        if pairs is not None:
            return _Choice(name, spec, required, pairs)
        return _Text(name, spec, required)
    if kind == "boolean":
        return _YesNo(name, spec, required)
    if kind in ("integer", "number"):
        return _Number(name, spec, required, kind == "integer")
    if kind == "array":
        items = spec.get("items")
        if isinstance(items, dict) and items.get("type", "string") == "string":
            pairs = _enum_pairs(name, items)
            if pairs is not None:
                return _MultiChoice(name, spec, required, pairs)
        raise Unsupported(f"property {_quote(name)}: an array that is not of enum strings")
    raise Unsupported(f"property {_quote(name)}: type {kind!r:.40} is not supported")


def _enum_pairs(name: str, spec: dict[str, Any]) -> list[tuple[str, str]] | None:
    """``(value, title)`` of each option of an enum schema, or ``None`` if not an enum."""
    if "enum" in spec:
        values = spec["enum"]
        names = spec.get("enumNames")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise Unsupported(f"property {_quote(name)}: enum is not a list of strings")
        if not isinstance(names, list) or len(names) != len(values):
            names = values
        pairs = [(v, t if isinstance(t, str) else v) for v, t in zip(values, names)]
    elif "oneOf" in spec or "anyOf" in spec:
        choices = spec.get("oneOf", spec.get("anyOf"))
        if not isinstance(choices, list):
            raise Unsupported(f"property {_quote(name)}: oneOf/anyOf is not a list")
        pairs = []
        for choice in choices:
            value = choice.get("const") if isinstance(choice, dict) else None
            if not isinstance(value, str):
                raise Unsupported(f"property {_quote(name)}: an option without a string const")
            title = choice.get("title")
            pairs.append((value, title if isinstance(title, str) else value))
    else:
        return None
    if not pairs:
        raise Unsupported(f"property {_quote(name)}: an enum without options")
    if len(pairs) > MOST_OPTIONS:
        raise Unsupported(
            f"property {_quote(name)}: {len(pairs)} options (at most {MOST_OPTIONS} are shown)"
        )
    return pairs


def _labelled(name: str, pairs: list[tuple[str, str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Unique, non-blank labels for ``(value, title)`` pairs: the title, else the value; a
    title two options share is told apart by the value."""
    values = tuple(value for value, _ in pairs)
    if len(set(values)) != len(values):
        raise Unsupported(f"property {_quote(name)}: an enum with a repeated value")
    titles = [title if title.strip() else value for value, title in pairs]
    shared = {title for title in titles if titles.count(title) > 1}
    labels = tuple(
        f"{title} ({value})" if title in shared else title for title, value in zip(titles, values)
    )
    if len(set(labels)) != len(labels) or not all(label.strip() for label in labels):
        raise Unsupported(f"property {_quote(name)}: options that cannot be told apart")
    return labels, values


def _count(schema: dict[str, Any], key: str, name: str) -> int | None:
    value = schema.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Unsupported(f"property {_quote(name)}: {key} is not a non-negative integer")
    return value


def _bound(
    schema: dict[str, Any], key: str, exclusive_key: str, name: str
) -> tuple[int | float | None, bool]:
    for candidate, exclusive in ((exclusive_key, True), (key, False)):
        value = schema.get(candidate)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Unsupported(f"property {_quote(name)}: {candidate} is not a number")
        if not math.isfinite(value):
            raise Unsupported(f"property {_quote(name)}: {candidate} is not finite")
        return value, exclusive
    return None, False


def _parse_number(text: str) -> int | float | None:
    """``text`` as an int (when it is written as one) or a finite float, else ``None``;
    ASCII digits only (``int`` and ``float`` would read ``\u0663`` as 3)."""
    raw = text.strip().replace("_", "")
    if not raw.isascii():
        return None
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _check_format(kind: str, text: str) -> None:
    if kind == "email":
        ok = _EMAIL.fullmatch(text) is not None
    elif kind == "uri":
        ok = _URI.fullmatch(text) is not None
    elif kind == "date":
        ok = _DATE.fullmatch(text) is not None and _parses(date.fromisoformat, text)
    else:
        match = _DATE_TIME.fullmatch(text)
        ok = match is not None and _parses(
            datetime.fromisoformat,
            f"{match[1]}T{match[2]}{'+00:00' if match[3] in 'Zz' else match[3]}",
        )
    if not ok:
        raise Misfit(f"{_quote(text)} does not fit: {_FORMAT_HINTS[kind]}")


def _parses(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _range_hint(least: int | None, most: int | None, one: str, many: str, verb: str) -> str | None:
    if least is not None and most is not None:
        if least == most:
            return f"{verb} exactly {_plural(least, one, many)}."
        return f"{verb} {least} to {_plural(most, one, many)}."
    if least is not None and least > 0:
        return f"{verb} at least {_plural(least, one, many)}."
    if most is not None:
        return f"{verb} at most {_plural(most, one, many)}."
    return None


def _plural(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _num(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _quote(text: str) -> str:
    """``text`` quoted for a message, shortened: it came from a server or a human."""
    return repr(text if len(text) <= 40 else text[:39] + "…")
