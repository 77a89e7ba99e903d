"""The answers file: the one engine behind the ``scripted`` provider and ``PreAnswered``.

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
``{"silent": true}``, ``{"error": CODE, "message": text?}``. A question's answer is looked
up by its id, else the first pattern in the file that matches its text (``re.search``),
else the default. Problems with the file are ``INVALID_ANSWERS_FILE``, naming the file and
the JSON path.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from _thread import allocate_lock
from pathlib import Path
from typing import Any, Callable, Final, Mapping, Pattern, Union, final

import attrs

from ._errors import ERROR_CODES, UserInteractionError
from ._json import loads
from ._model import AskUserQuestionAnswerItem, AskUserQuestionItem, AskUserQuestionRequest
from .toolkit import describe_value

__all__ = [
    "INVALID_ANSWERS_FILE",
    "OMIT",
    "SILENT",
    "UNANSWERED_QUESTION",
    "Answered",
    "AnswersFile",
    "Ruling",
]

#: The code of the error for a missing, unreadable or malformed answers file.
INVALID_ANSWERS_FILE: Final = "INVALID_ANSWERS_FILE"
#: The code of the error for a question a script cannot answer (none scripted, a label
#: that was not offered, ...).
UNANSWERED_QUESTION: Final = "UNANSWERED_QUESTION"


@final
class _Mark:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: The file leaves the question out of the answer (``{"omit": true}``).
OMIT: Final = _Mark("OMIT")
#: The file never answers: the ask waits until it ends otherwise (``{"silent": true}``).
SILENT: Final = _Mark("SILENT")
_SKIP: Final = _Mark("SKIP")
_FIRST: Final = _Mark("FIRST_OPTION")

#: What :meth:`AnswersFile.ruling` gives a question: its answer item, :data:`OMIT`,
#: :data:`SILENT`, an error to raise (an ``{"error": ...}`` rule, or
#: ``UNANSWERED_QUESTION`` for a rule that does not fit the question), or ``None`` when no
#: rule covers it.
Ruling = Union[AskUserQuestionAnswerItem, _Mark, UserInteractionError, None]


@final
class _Rule:
    """One answer of the file: labels (a str: text too), custom text, a mark, or an error."""

    __slots__ = ("error", "labels", "mark", "notes", "text")

    def __init__(
        self,
        *,
        labels: tuple[str, ...] | None = None,
        text: str | None = None,
        mark: _Mark | None = None,
        notes: str | None = None,
        error: tuple[str, str | None] | None = None,
    ) -> None:
        self.labels = labels  # with text set too: a single label, or the typed text
        self.text = text  # custom text (labels None), or a single label's text
        self.mark = mark
        self.notes = notes
        self.error = error


_KEYS: Final = ("answers", "patterns", "default", "delay")
_FLAGS: Final[Mapping[str, _Mark]] = {
    "skip": _SKIP,
    "omit": OMIT,
    "first_option": _FIRST,
    "silent": SILENT,
}
_FORMS: Final = "custom, selected, skip, omit, first_option, silent or error"
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Invalid(Exception):
    """A problem at a JSON path (turned into ``INVALID_ANSWERS_FILE``)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)


class AnswersFile:
    """A parsed answers file: for each question, the answer its rules give.

    Build one with :meth:`read` or :meth:`parse`; ask it with :meth:`ruling`.
    """

    __slots__ = ("_by_id", "_default", "_patterns", "delay", "source")

    #: Leave the question out of the answer.
    OMIT: Final = OMIT
    #: Never answer (the ask waits until it is aborted, times out or is disposed).
    SILENT: Final = SILENT

    def __init__(
        self,
        by_id: dict[str, _Rule],
        patterns: list[tuple[Pattern[str], _Rule]],
        default: _Rule | None,
        delay: float,
        source: str,
    ) -> None:
        self._by_id = by_id
        self._patterns = patterns
        self._default = default
        #: Seconds to wait before answering (the scripted provider's ``delay``).
        self.delay = delay
        #: Where the file came from, as named in messages.
        self.source = source

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> AnswersFile:
        """Read and parse the file at ``path`` (``INVALID_ANSWERS_FILE``)."""
        return cls.parse(read_text(Path(path)), source=str(path))

    @classmethod
    def parse(cls, text: str, *, source: str = "answers") -> AnswersFile:
        """Parse the text of an answers file (``INVALID_ANSWERS_FILE`` naming ``source``)."""
        try:
            data = loads(text, object_pairs_hook=_unique)
        except ValueError as exc:
            where = ""
            if isinstance(exc, json.JSONDecodeError):
                where = f" (line {exc.lineno}, column {exc.colno})"
                exc = ValueError(exc.msg)
            raise UserInteractionError(
                f"{source}: not valid JSON: {exc}{where}", INVALID_ANSWERS_FILE
            ) from None
        try:
            return cls._build(data, source)
        except _Invalid as exc:
            raise UserInteractionError(f"{source}: {exc}", INVALID_ANSWERS_FILE) from None

    @classmethod
    def _build(cls, data: object, source: str) -> AnswersFile:
        top = _object(data, "")
        for key in top:
            if key not in _KEYS:
                raise _Invalid(key, f"unknown key (expected {', '.join(_KEYS)})")
        by_id = {
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
        patterns = []
        for pattern, value in _object(top.get("patterns", {}), "patterns").items():
            where = _child("patterns", pattern)
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise _Invalid(where, f"not a regular expression: {exc}") from None
            patterns.append((compiled, _answer(value, where)))
        return cls(
            by_id,
            patterns,
            None if default is None else _answer(default, "default"),
            float(delay),
            source,
        )

    @property
    def ids(self) -> tuple[str, ...]:
        """The question ids the file answers by id."""
        return tuple(self._by_id)

    def ruling(self, item: AskUserQuestionItem) -> Ruling:
        """What the file answers ``item`` with (see :data:`Ruling`)."""
        rule = self._by_id.get(item.id)
        if rule is None:
            for pattern, answer in self._patterns:
                if pattern.search(item.question):
                    rule = answer
                    break
            else:
                rule = self._default
        if rule is None:
            return None
        return _ruling(item, rule)

    def answer(self, request: AskUserQuestionRequest) -> Answered:
        """Answer every question of ``request``, failing closed: ``UNANSWERED_QUESTION``
        (naming the file and each question) unless the file answers them all."""
        items: list[AskUserQuestionAnswerItem] = []
        problems: list[str] = []
        error: UserInteractionError | None = None
        silent = False
        for item in request.questions:
            ruling = self.ruling(item)
            if isinstance(ruling, AskUserQuestionAnswerItem):
                items.append(ruling)
            elif ruling is None:
                scripted = ", ".join(map(repr, self._by_id)) or "none"
                problems.append(
                    f"no answer is scripted for {quote(item)}; scripted ids: {scripted} "
                    "(script it by id, by a pattern on its text, or with a default)"
                )
            elif isinstance(ruling, UserInteractionError):
                if ruling.code == UNANSWERED_QUESTION:
                    problems.append(ruling.message)
                elif error is None:
                    error = ruling
            elif ruling is SILENT:
                silent = True
        if problems:
            if len(problems) == 1:
                message = problems[0][0].upper() + problems[0][1:]
            else:
                listed = "; ".join(f"({n}) {text}" for n, text in enumerate(problems, 1))
                message = f"The script could not answer {len(problems)} questions: {listed}"
            raise UserInteractionError(f"{self.source}: {message}", UNANSWERED_QUESTION)
        return Answered(tuple(items), error, silent)

    @classmethod
    def follow(cls, path: str | os.PathLike[str]) -> Callable[[], AnswersFile]:
        """Read the file at ``path`` now, and return a function that gives the file as it
        is at each call (read again every time, parsed again only when its text changed)."""
        source = Path(path)
        lock = allocate_lock()
        text = read_text(source)
        last = [text, cls.parse(text, source=str(source))]

        def current() -> AnswersFile:
            text = read_text(source)
            with lock:
                if text == last[0]:
                    return last[1]  # type: ignore[return-value]
            parsed = cls.parse(text, source=str(source))
            with lock:
                last[:] = [text, parsed]
            return parsed

        return current

    def __repr__(self) -> str:
        return f"<AnswersFile {self.source!r}>"


@attrs.frozen
class Answered:
    """:meth:`AnswersFile.answer`'s result: the items, in the request's order (omitted
    questions left out); the first ``{"error": ...}`` rule hit, to raise; whether a
    question is ``silent``."""

    items: tuple[AskUserQuestionAnswerItem, ...]
    error: UserInteractionError | None
    silent: bool


def read_text(path: Path) -> str:
    """The text of an answers file (``INVALID_ANSWERS_FILE`` if it cannot be read).

    Only a regular file is read: a FIFO, a device such as ``/dev/zero`` or a directory is
    rejected before any read (it could block, or never end). The file is opened without
    blocking, so even opening a FIFO that nobody writes to returns at once.
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError:
            os.close(fd)
            raise
        if not regular:
            os.close(fd)
            raise UserInteractionError(
                f"{path}: cannot read the answers file: not a regular file",
                INVALID_ANSWERS_FILE,
            )
        with open(fd, encoding="utf-8") as file:
            return file.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInteractionError(
            f"{path}: cannot read the answers file: {exc}", INVALID_ANSWERS_FILE, cause=exc
        ) from exc


_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)


# -- answering one question ---------------------------------------------------------------


def quote(item: AskUserQuestionItem) -> str:
    """``question 'id' ('text')``, the way messages name a question."""
    text = item.question if len(item.question) <= 60 else item.question[:57] + "..."
    return f"question {item.id!r} ({text!r})"


def _unanswered(problem: str) -> UserInteractionError:
    return UserInteractionError(problem, UNANSWERED_QUESTION)


def _ruling(item: AskUserQuestionItem, rule: _Rule) -> Ruling:
    if rule.error is not None:
        code, message = rule.error
        return UserInteractionError(message or f"The scripted human answered with {code}.", code)
    mark = rule.mark
    if mark is OMIT or mark is SILENT:
        return mark
    if mark is _SKIP:
        return AskUserQuestionAnswerItem(item.id)
    if rule.labels is None and mark is None:
        assert rule.text is not None
        return AskUserQuestionAnswerItem(item.id, custom=rule.text)
    if rule.notes is not None and not item.options:
        return _unanswered(
            f"{quote(item)} has no options, so notes cannot go beside a selection; script its text"
        )
    if mark is _FIRST:
        if not item.options:
            return _unanswered(
                f"{quote(item)} has no options, so 'first option' cannot answer it; script its text"
            )
        return AskUserQuestionAnswerItem(item.id, [item.options[0].label], notes=rule.notes)
    labels = rule.labels
    assert labels is not None
    if rule.text is not None and not item.options:  # one label: the text of the answer
        return AskUserQuestionAnswerItem(item.id, custom=rule.text)
    if not labels:
        return AskUserQuestionAnswerItem(item.id)
    if not item.options:
        return _unanswered(f"{quote(item)} has no options to select from; script its text instead")
    offered = {option.label for option in item.options}
    for label in labels:
        if label not in offered:
            listed = ", ".join(repr(option.label) for option in item.options)
            return _unanswered(
                f"the scripted answer {label!r} for {quote(item)} is not one of its "
                f"options ({listed}); script custom text to answer with that text"
            )
    if len(set(labels)) != len(labels):
        return _unanswered(
            f"the scripted answer for {quote(item)} repeats a label: {list(labels)!r}"
        )
    if len(labels) > 1 and not item.multi_select:
        return _unanswered(
            f"{quote(item)} takes one option, but {len(labels)} were scripted: {list(labels)!r}"
        )
    return AskUserQuestionAnswerItem(item.id, labels, notes=rule.notes)


# -- parsing ------------------------------------------------------------------------------


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENTIFIER.fullmatch(key) else f"{path}[{json.dumps(key)}]"


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"duplicate key {json.dumps(key)}")
        data[key] = value
    return data


def _object(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid(path, f"expected an object, got {describe_value(value)}")
    return value


def _labels(value: object, path: str) -> _Rule:
    if isinstance(value, str):
        if not value.strip():
            raise _Invalid(path, 'a blank answer; use {"skip": true} to skip a question')
        return _Rule(labels=(value,), text=value)
    if isinstance(value, list):
        for index, label in enumerate(value):
            if not isinstance(label, str):
                raise _Invalid(
                    f"{path}[{index}]", f"expected a label string, got {describe_value(label)}"
                )
        return _Rule(labels=tuple(value))
    raise _Invalid(path, f"expected a label or an array of labels, got {describe_value(value)}")


def _noted(value: dict[str, Any], path: str) -> _Rule:
    """``{"selected": labels, "notes": text?}`` or ``{"first_option": true, "notes": text}``."""
    notes = value.get("notes")
    if "notes" in value and (not isinstance(notes, str) or not notes.strip()):
        raise _Invalid(f"{path}.notes", "expected non-blank text")
    rest = set(value) - {"notes"}
    if rest == {"selected"}:
        rule = _labels(value["selected"], f"{path}.selected")
        if notes is None:
            return rule
        if not rule.labels:
            raise _Invalid(f"{path}.selected", "notes need at least one label beside them")
        return _Rule(labels=rule.labels, notes=notes)
    if rest == {"first_option"} and value["first_option"] is True and notes is not None:
        return _Rule(mark=_FIRST, notes=notes)
    keys = ", ".join(sorted(value))
    if notes is None:
        raise _Invalid(path, f'expected {{"selected": labels}}, optionally with notes, got {keys}')
    raise _Invalid(
        path,
        'notes go beside a selection: expected {"selected": labels, "notes": text} or '
        f'{{"first_option": true, "notes": text}}, got the keys {keys}',
    )


def _answer(value: object, path: str) -> _Rule:
    if isinstance(value, (str, list)):
        return _labels(value, path)
    if not isinstance(value, dict):
        raise _Invalid(
            path, f"expected a string, an array of labels or an object, got {describe_value(value)}"
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
            raise _Invalid(f"{path}.message", f"expected a string, got {describe_value(message)}")
        return _Rule(error=(code, message))
    if len(keys) != 1:
        raise _Invalid(path, f"expected an object with one key ({_FORMS}), got {sorted(keys)}")
    (key,) = keys
    if key == "custom":
        text = value[key]
        if not isinstance(text, str) or not text.strip():
            raise _Invalid(f"{path}.custom", "expected non-blank text")
        return _Rule(text=text)
    if key in _FLAGS:
        if value[key] is not True:
            raise _Invalid(f"{path}.{key}", f"expected true, got {json.dumps(value[key])}")
        return _Rule(mark=_FLAGS[key])
    raise _Invalid(path, f"unknown key {json.dumps(key)} (expected {_FORMS})")
