"""What a script answers a question with (an :data:`AnswerSpec`), and how a spec becomes
the answer item for one question or the reason it cannot answer it.

A spec is one of:

* a ``str``: the label of an offered option, or the typed text of a question without
  options;
* a list or tuple of labels (a multi-select answer; one label for a single-select one);
* ``custom(text)``, ``SKIP``, ``OMIT``, ``FIRST_OPTION``, ``SILENT``, ``reject(code)``;
* ``with_notes(labels, notes)``: the labels (or ``FIRST_OPTION``) with the human's notes
  beside them;
* ``sequence(a, b, ...)``: one answer per time the question is asked;
* a function of the question returning any of these (or an awaitable of one).
"""

from __future__ import annotations

from typing import (
    Any,
    Callable,
    Final,
    Sequence,
    Union,
    final,
)

from user_interaction import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    UserInteractionError,
)
from user_interaction.extensions import UNANSWERED_QUESTION

__all__ = [
    "FIRST_OPTION",
    "OMIT",
    "SILENT",
    "SKIP",
    "UNANSWERED_QUESTION",
    "AnswerSequence",
    "AnswerSpec",
    "Custom",
    "Reject",
    "Outcome",
    "Problem",
    "WithNotes",
    "build_outcome",
    "check_spec",
    "custom",
    "quote",
    "reject",
    "sequence",
    "with_notes",
]


@final
class _Sentinel:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        return self._name


#: Answer with the question's first option (an error on a question without options).
FIRST_OPTION: Final = _Sentinel("FIRST_OPTION")
#: Skip the question: an answer item with no selection and no custom text.
SKIP: Final = _Sentinel("SKIP")
#: Leave the question out of the answer entirely (unanswered).
OMIT: Final = _Sentinel("OMIT")
#: Never answer: the ask waits until it is aborted, times out or the provider is disposed.
SILENT: Final = _Sentinel("SILENT")

_SENTINELS: Final = (FIRST_OPTION, SKIP, OMIT, SILENT)


@final
class Custom:
    """Typed text as the answer (see :func:`custom`)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"custom() takes a str, got {type(text).__name__}")
        if not text.strip():
            raise ValueError("custom() text must not be blank (use SKIP to skip a question)")
        self.text = text

    def __repr__(self) -> str:
        return f"custom({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Custom) and other.text == self.text

    def __hash__(self) -> int:
        return hash((Custom, self.text))


@final
class Reject:
    """The human dismisses or refuses: the ask raises (see :func:`reject`)."""

    __slots__ = ("code", "message")

    def __init__(self, code: str, message: str | None = None) -> None:
        if not isinstance(code, str) or not code:
            raise TypeError(f"reject() takes an error code string, got {code!r}")
        self.code = code
        self.message = message

    def error(self) -> UserInteractionError:
        message = self.message or f"The scripted human answered with {self.code}."
        return UserInteractionError(message, self.code)

    def __repr__(self) -> str:
        extra = "" if self.message is None else f", {self.message!r}"
        return f"reject({self.code!r}{extra})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reject) and (other.code, other.message) == (
            self.code,
            self.message,
        )

    def __hash__(self) -> int:
        return hash((Reject, self.code, self.message))


@final
class WithNotes:
    """Options picked with notes beside them (see :func:`with_notes`)."""

    __slots__ = ("answer", "notes")

    def __init__(self, answer: str | Sequence[str] | _Sentinel, notes: str) -> None:
        if not isinstance(notes, str):
            raise TypeError(f"with_notes() notes must be a str, got {type(notes).__name__}")
        if not notes.strip():
            raise ValueError("with_notes() notes must not be blank (leave them out instead)")
        if isinstance(answer, (list, tuple)):
            if not answer:
                raise ValueError("with_notes() needs a selection: notes go beside one")
            check_spec(answer, "with_notes()")
            answer = tuple(answer)
        elif answer is not FIRST_OPTION and not isinstance(answer, str):
            raise TypeError(
                f"with_notes() takes a label, a list of labels or FIRST_OPTION, got {answer!r}"
            )
        else:
            check_spec(answer, "with_notes()")
        self.answer: str | tuple[str, ...] | _Sentinel = answer
        self.notes = notes

    def __repr__(self) -> str:
        return f"with_notes({self.answer!r}, {self.notes!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WithNotes) and (other.answer, other.notes) == (
            self.answer,
            self.notes,
        )

    def __hash__(self) -> int:
        return hash((WithNotes, self.answer, self.notes))


@final
class AnswerSequence:
    """One answer per time a question is asked (see :func:`sequence`).

    The sequence keeps no position: each provider counts what it took from it, so one
    sequence can script many tests (a marker on a module or a class, a rerun).
    """

    __slots__ = ("answers",)

    #: The answers, in the order they are given.
    answers: tuple[AnswerSpec, ...]

    def __init__(self, answers: Sequence[AnswerSpec]) -> None:
        self.answers = tuple(answers)
        for index, answer in enumerate(self.answers):
            check_spec(answer, f"sequence()[{index}]")

    def __len__(self) -> int:
        return len(self.answers)

    def __repr__(self) -> str:
        return f"sequence({', '.join(map(repr, self.answers))})"


AnswerSpec = Union[
    str,
    Sequence[str],
    Custom,
    Reject,
    WithNotes,
    AnswerSequence,
    _Sentinel,
    Callable[[AskUserQuestionItem], Any],
]
"""What a rule answers a question with (see the module docs)."""


def custom(text: str) -> Custom:
    """Answer with typed text instead of an option (``custom("Ada")``)."""
    return Custom(text)


def reject(code: str, message: str | None = None) -> Reject:
    """Make the ask raise ``UserInteractionError(message, code)``, e.g.
    ``reject(ASK_CANCELLED)`` for a human who dismisses the question."""
    return Reject(code, message)


def with_notes(answer: str | Sequence[str] | _Sentinel, notes: str) -> WithNotes:
    """Pick ``answer`` (a label, a list of labels, or ``FIRST_OPTION``) and add ``notes``
    beside the selection: ``with_notes("npm", "pin the version")``."""
    return WithNotes(answer, notes)


def sequence(*answers: AnswerSpec) -> AnswerSequence:
    """Answer the first time a question is asked with the first answer, and so on.

    Asking once more than there are answers is an ``UNANSWERED_QUESTION`` error.
    """
    return AnswerSequence(answers)


def check_spec(spec: object, where: str) -> None:
    """``TypeError`` / ``ValueError`` for what can never be an answer."""
    if isinstance(spec, str):
        if not spec.strip():
            raise ValueError(f"{where}: a blank answer; use SKIP to skip a question")
        return
    if isinstance(spec, (list, tuple)):
        for label in spec:
            if not isinstance(label, str):
                raise TypeError(
                    f"{where}: a list of labels may hold only str, got {type(label).__name__}"
                )
        return
    if isinstance(spec, (Custom, Reject, WithNotes, AnswerSequence, _Sentinel)) or callable(spec):
        return
    raise TypeError(
        f"{where}: {spec!r} is not an answer; use a label, a list of labels, custom(text), "
        "with_notes(labels, notes), SKIP, OMIT, FIRST_OPTION, SILENT, reject(code), "
        "sequence(...) or a function"
    )


def quote(item: AskUserQuestionItem) -> str:
    text = item.question if len(item.question) <= 60 else item.question[:57] + "..."
    return f"question {item.id!r} ({text!r})"


def _labels(item: AskUserQuestionItem) -> str:
    return ", ".join(repr(option.label) for option in item.options)


class Problem:
    """Why the script could not answer one question."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


Outcome = Union[AskUserQuestionAnswerItem, _Sentinel, Reject, Problem]


def build_outcome(item: AskUserQuestionItem, spec: AnswerSpec) -> Outcome:
    """The answer item ``spec`` gives ``item``, or why it cannot answer it."""
    if spec is SKIP:
        return AskUserQuestionAnswerItem(item.id)
    if spec is OMIT or spec is SILENT or isinstance(spec, Reject):
        return spec
    if isinstance(spec, Custom):
        return AskUserQuestionAnswerItem(item.id, custom=spec.text)
    if isinstance(spec, WithNotes):
        if not item.options:
            return Problem(
                f"{quote(item)} has no options, so notes cannot go beside a selection; "
                "script its text"
            )
        built = build_outcome(item, spec.answer)
        if isinstance(built, AskUserQuestionAnswerItem):
            return AskUserQuestionAnswerItem(item.id, built.selected, notes=spec.notes)
        return built
    if spec is FIRST_OPTION:
        if not item.options:
            return Problem(
                f"{quote(item)} has no options, so 'first option' cannot answer it; script its text"
            )
        return AskUserQuestionAnswerItem(item.id, [item.options[0].label])
    if isinstance(spec, str):
        if not item.options:
            return AskUserQuestionAnswerItem(item.id, custom=spec)
        labels: Sequence[str] = (spec,)
    else:
        assert isinstance(spec, (list, tuple))
        labels = spec
    if not labels:
        return AskUserQuestionAnswerItem(item.id)
    if not item.options:
        return Problem(f"{quote(item)} has no options to select from; script its text instead")
    offered = {option.label for option in item.options}
    for label in labels:
        if label not in offered:
            return Problem(
                f"the scripted answer {label!r} for {quote(item)} is not one of its "
                f"options ({_labels(item)}); script custom text to answer with that text"
            )
    if len(set(labels)) != len(labels):
        return Problem(f"the scripted answer for {quote(item)} repeats a label: {labels!r}")
    if len(labels) > 1 and not item.multi_select:
        return Problem(
            f"{quote(item)} takes one option, but {len(labels)} were scripted: {labels!r}"
        )
    return AskUserQuestionAnswerItem(item.id, labels)
