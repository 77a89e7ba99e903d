"""The data model: immutable attrs classes and their camelCase JSON wire form.

Constructors convert what a Python user naturally writes (lists to tuples, ``None`` to an
empty sequence, a plain string to an option) and reject an element of the wrong kind with
a ``TypeError`` naming the field; the rules of a well-formed request or answer are checked
by :mod:`._validation` when a request is asked. ``from_dict`` parses
wire data strictly and reports the first problem with its path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import attrs

from ._describe import describe_value
from ._errors import INVALID_REQUEST, UserInteractionError

if TYPE_CHECKING:
    from ._abort import AbortSignal

__all__ = [
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
]


def _sequence(value: object, field: str, kind: type, convert: Any = None) -> tuple[Any, ...]:
    """``value`` as a tuple of ``kind``: lists are converted, ``None`` means empty, and an
    element of another kind is a ``TypeError`` naming the field (``convert``, if given,
    turns a plain ``str`` element into a ``kind``)."""
    if value is None:
        return ()
    cls = type(value)  # lists and tuples skip the (slower) ABC checks
    if (
        cls is not tuple
        and cls is not list
        and (isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable))
    ):
        raise TypeError(f"{field}: expected a sequence of {kind.__name__}, got {cls.__name__}")
    items = tuple(cast("Iterable[Any]", value))  # a tuple is not copied
    for item in items:
        if type(item) is not kind and not isinstance(item, kind):
            break
    else:
        return items
    converted = []
    for index, item in enumerate(items):
        if isinstance(item, kind):
            converted.append(item)
        elif convert is not None and isinstance(item, str):
            converted.append(convert(item))
        else:
            expected = kind.__name__ + (" or str" if convert is not None else "")
            raise TypeError(f"{field}[{index}]: expected {expected}, got {type(item).__name__}")
    return tuple(converted)


def _options(
    value: Iterable[AskUserQuestionOption | str] | None,
) -> tuple[AskUserQuestionOption, ...]:
    return _sequence(value, "options", AskUserQuestionOption, AskUserQuestionOption)


def _items(value: Iterable[AskUserQuestionItem]) -> tuple[AskUserQuestionItem, ...]:
    if value is None:
        raise TypeError("questions: expected a sequence of AskUserQuestionItem, got NoneType")
    return _sequence(value, "questions", AskUserQuestionItem)


def _answer_items(
    value: Iterable[AskUserQuestionAnswerItem],
) -> tuple[AskUserQuestionAnswerItem, ...]:
    return _sequence(value, "answers", AskUserQuestionAnswerItem)


def _strings(value: Iterable[str] | None) -> tuple[str, ...]:
    return _sequence(value, "selected", str)


def _flag(value: bool | None) -> bool:
    """``multi_select``: a bool (``None`` means false)."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise TypeError(f"multi_select: expected bool, got {type(value).__name__}")
    return value


@attrs.frozen
class AskUserQuestionOption:
    """One choice: ``label`` is shown and is also the value returned in ``selected``.

    ``preview`` is Markdown (a code snippet, a mockup, a config example) that UIs with room
    for it show while the option is focused; others show it as plain text or not at all.
    """

    label: str
    description: str | None = None
    preview: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"label": self.label}
        if self.description is not None:
            data["description"] = self.description
        if self.preview is not None:
            data["preview"] = self.preview
        return data

    @classmethod
    def from_dict(cls, data: object, *, path: str = "") -> AskUserQuestionOption:
        fields = _Fields(data, path, ("label", "description", "preview"))
        return cls(
            fields.string("label"),
            fields.optional_string("description"),
            fields.optional_string("preview"),
        )


@attrs.frozen
class AskUserQuestionItem:
    """One question. ``detail`` is supporting text, ``header`` a short heading."""

    id: str
    question: str
    header: str | None = None
    options: tuple[AskUserQuestionOption, ...] = attrs.field(default=(), converter=_options)
    multi_select: bool = attrs.field(default=False, converter=_flag)
    detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "question": self.question}
        if self.header is not None:
            data["header"] = self.header
        if self.options:
            data["options"] = [option.to_dict() for option in self.options]
        if self.multi_select:
            data["multiSelect"] = True
        if self.detail is not None:
            data["detail"] = self.detail
        return data

    @classmethod
    def from_dict(cls, data: object, *, path: str = "") -> AskUserQuestionItem:
        fields = _Fields(
            data, path, ("id", "question", "header", "options", "multiSelect", "detail")
        )
        return cls(
            id=fields.string("id"),
            question=fields.string("question"),
            header=fields.optional_string("header"),
            options=fields.array("options", AskUserQuestionOption.from_dict, required=False),
            multi_select=fields.boolean("multiSelect"),
            detail=fields.optional_string("detail"),
        )


@attrs.frozen
class AskUserQuestionRequest:
    """What a caller asks: one or more questions, plus what never travels on the wire.

    ``agent`` identifies the asking agent or session for providers that route by it;
    ``signal`` aborts the ask. Neither takes part in equality or the wire form.

    ``key`` is the caller's own name for this ask (``"deploy:build-42"``), the same when the
    caller restarts: a provider that keeps asks (the inbox) treats a request with a key it
    holds as the same ask, so a restarted caller collects its answer. ``remember`` names
    what an approval approves (``"tool:deploy"``), so that an "Always" choice can be
    remembered. Both travel on the wire; providers that keep nothing ignore them.
    """

    questions: tuple[AskUserQuestionItem, ...] = attrs.field(converter=_items)
    agent: object | None = attrs.field(default=None, eq=False)
    signal: AbortSignal | None = attrs.field(default=None, eq=False)
    key: str | None = attrs.field(default=None, kw_only=True)
    remember: str | None = attrs.field(default=None, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"questions": [question.to_dict() for question in self.questions]}
        if self.key is not None:
            data["key"] = self.key
        if self.remember is not None:
            data["remember"] = self.remember
        return data

    @classmethod
    def from_dict(
        cls,
        data: object,
        *,
        agent: object | None = None,
        signal: AbortSignal | None = None,
    ) -> AskUserQuestionRequest:
        """Parse the wire form; ``INVALID_REQUEST`` names the first bad path."""
        fields = _Fields(data, "", ("questions", "key", "remember"))
        return cls(
            fields.array("questions", AskUserQuestionItem.from_dict),
            agent,
            signal,
            key=fields.optional_string("key"),
            remember=fields.optional_string("remember"),
        )


def with_signal(request: AskUserQuestionRequest, signal: AbortSignal) -> AskUserQuestionRequest:
    """``request`` with another ``signal``: the request a provider receives."""
    return AskUserQuestionRequest(  # what attrs.evolve does, at half its cost per ask
        request.questions, request.agent, signal, key=request.key, remember=request.remember
    )


@attrs.frozen
class AskUserQuestionAnswerItem:
    """The answer to one question: chosen labels, or custom text (never both).

    Neither set means the human skipped the question. ``notes`` is free text the human
    added alongside a selection ("npm, but pin the version"); it never replaces it.
    """

    id: str
    selected: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    custom: str | None = None
    notes: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "selected": list(self.selected)}
        if self.notes is not None:
            data["notes"] = self.notes
        if self.custom is not None:
            data["custom"] = self.custom
        return data

    @classmethod
    def from_dict(cls, data: object, *, path: str = "") -> AskUserQuestionAnswerItem:
        fields = _Fields(data, path, ("id", "selected", "custom", "notes"))
        return cls(
            fields.string("id"),
            fields.array("selected", _parse_string, required=False),
            fields.optional_string("custom"),
            fields.optional_string("notes"),
        )


@attrs.frozen
class AskUserQuestionAnswer:
    """The answers to a request, by question id; unanswered questions may be absent."""

    answers: tuple[AskUserQuestionAnswerItem, ...] = attrs.field(converter=_answer_items)

    def to_dict(self) -> dict[str, Any]:
        return {"answers": [answer.to_dict() for answer in self.answers]}

    @classmethod
    def from_dict(cls, data: object) -> AskUserQuestionAnswer:
        """Parse the wire form; ``INVALID_REQUEST`` names the first bad path."""
        fields = _Fields(data, "", ("answers",))
        return cls(fields.array("answers", AskUserQuestionAnswerItem.from_dict))

    def get(self, id: str) -> AskUserQuestionAnswerItem | None:
        """The answer to question ``id``, or ``None`` if it was left out."""
        for answer in self.answers:
            if answer.id == id:
                return answer
        return None


def _parse_string(value: object, *, path: str) -> str:
    if not isinstance(value, str):
        raise _invalid(path, f"expected a string, got {describe_value(value)}")
    return value


def _invalid(path: str, problem: str) -> UserInteractionError:
    return UserInteractionError(f"{path}: {problem}" if path else problem, INVALID_REQUEST)


class _Fields:
    """Reads one wire object, rejecting unknown keys and wrong types with a path."""

    __slots__ = ("data", "path")

    def __init__(self, data: object, path: str, known: tuple[str, ...]) -> None:
        if not isinstance(data, Mapping):
            raise _invalid(path, f"expected an object, got {describe_value(data)}")
        for key in data:
            if key not in known:
                where = f"{path}.{key}" if path else str(key)
                raise _invalid(where, f"unknown field (expected one of {', '.join(known)})")
        self.data = data
        self.path = path

    def _where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def string(self, key: str) -> str:
        if key not in self.data:
            raise _invalid(self._where(key), "required")
        return _parse_string(self.data[key], path=self._where(key))

    def optional_string(self, key: str) -> str | None:
        value = self.data.get(key)
        return None if value is None else _parse_string(value, path=self._where(key))

    def boolean(self, key: str) -> bool:
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            raise _invalid(self._where(key), f"expected a boolean, got {describe_value(value)}")
        return value

    def array(self, key: str, parse: Any, *, required: bool = True) -> list[Any]:
        if key not in self.data or self.data[key] is None:
            if required:
                raise _invalid(self._where(key), "required")
            return []
        value = self.data[key]
        if not isinstance(value, (list, tuple)):
            raise _invalid(self._where(key), f"expected an array, got {describe_value(value)}")
        where = self._where(key)
        return [parse(item, path=f"{where}[{index}]") for index, item in enumerate(value)]
