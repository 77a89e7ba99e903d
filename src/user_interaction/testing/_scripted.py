"""``ScriptedProvider``: a provider that answers from rules instead of a human.

An answer is looked up for each question — by its id, else by the newest pattern rule that
matches its text, else the default — and turned into an answer item checked against the
options the question offers. A question the script cannot answer fails the whole ask with
``UNANSWERED_QUESTION`` and a message naming it; it is never answered with nothing.

The answer a rule gives (an :data:`AnswerSpec`) is one of:

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

import re
from _thread import allocate_lock
from typing import (
    Any,
    Callable,
    Final,
    Mapping,
    Pattern,
    Sequence,
    Union,
    final,
)

from user_interaction import (
    PROVIDER_DISPOSED,
    AbortController,
    AbortSignal,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    UserInteractionError,
    hookimpl,
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
    "ScriptedProvider",
    "WithNotes",
    "custom",
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
            _check_spec(answer, "with_notes()")
            answer = tuple(answer)
        elif answer is not FIRST_OPTION and not isinstance(answer, str):
            raise TypeError(
                f"with_notes() takes a label, a list of labels or FIRST_OPTION, got {answer!r}"
            )
        else:
            _check_spec(answer, "with_notes()")
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
            _check_spec(answer, f"sequence()[{index}]")

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


def _check_spec(spec: object, where: str) -> None:
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


def _quote(item: AskUserQuestionItem) -> str:
    text = item.question if len(item.question) <= 60 else item.question[:57] + "..."
    return f"question {item.id!r} ({text!r})"


def _labels(item: AskUserQuestionItem) -> str:
    return ", ".join(repr(option.label) for option in item.options)


class _Problem:
    """Why the script could not answer one question."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_Outcome = Union[AskUserQuestionAnswerItem, _Sentinel, Reject, _Problem]


class ScriptedProvider:
    """A provider that answers from a script, for tests and headless runs.

    ``answers`` maps question ids to answers (see :data:`AnswerSpec`); :meth:`answer` and
    :meth:`when` add more. For each question the answer is looked up by id, else from the
    newest :meth:`when` pattern that matches the question text, else ``default``. With no
    answer, or one that does not fit the question (a label it does not offer), the ask
    fails with ``UNANSWERED_QUESTION`` naming the question.

    ``delay`` seconds pass before each answer (an abort, timeout or ``dispose()`` ends the
    wait); ``serial`` makes the manager queue concurrent asks. Every request seen is kept
    in :attr:`requests`; every scripting failure in :attr:`failures`.
    """

    #: The name the manager reports for this provider.
    name: str
    #: Whether the manager should queue concurrent asks (one pending at a time).
    serial: bool
    #: Every request this provider received, in order (a list you may inspect or clear).
    requests: list[AskUserQuestionRequest]
    #: Every ``UNANSWERED_QUESTION`` error raised, in order (a list you may clear).
    failures: list[UserInteractionError]

    def __init__(
        self,
        answers: Mapping[str, AnswerSpec] | None = None,
        *,
        default: AnswerSpec | None = None,
        delay: float = 0.0,
        serial: bool = False,
        name: str = "scripted",
    ) -> None:
        self.name = name
        self.serial = serial
        self.delay = delay
        self.requests = []
        self.failures = []
        self._lock = allocate_lock()
        self._by_id: dict[str, AnswerSpec] = {}
        self._patterns: list[tuple[Pattern[str], AnswerSpec]] = []
        self._default: AnswerSpec | None = None
        # answers taken from each sequence (keyed by identity: sequences define no ==)
        self._taken: dict[AnswerSequence, int] = {}
        self._closing = AbortController()
        self._disposals = 0
        self.default = default
        if answers is not None:
            self.answer(answers)

    # -- the script ----------------------------------------------------------------------

    @property
    def delay(self) -> float:
        """Seconds to wait before each answer (an abort, timeout or dispose ends the wait)."""
        return self._delay

    @delay.setter
    def delay(self, seconds: float) -> None:
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, (int, float))
            or not 0 <= seconds < float("inf")
        ):
            raise ValueError(f"delay must be a non-negative number of seconds, got {seconds!r}")
        self._delay = float(seconds)

    @property
    def default(self) -> AnswerSpec | None:
        """The answer for questions no rule covers; ``None``: such questions fail."""
        return self._default

    @default.setter
    def default(self, answer: AnswerSpec | None) -> None:
        if answer is not None:
            _check_spec(answer, "default")
        self._default = answer

    def answer(
        self, answers: Mapping[str, AnswerSpec] | None = None, /, **by_id: AnswerSpec
    ) -> ScriptedProvider:
        """Script answers by question id (replacing earlier ones); returns ``self``.

        ``provider.answer(pkg="pnpm")`` or, for ids that are not identifiers,
        ``provider.answer({"pkg-manager": "pnpm"})``.
        """
        merged = dict(answers or {})
        merged.update(by_id)
        for id, spec in merged.items():
            if not isinstance(id, str):
                raise TypeError(f"question ids are str, got {id!r}")
            _check_spec(spec, f"answer for {id!r}")
        self._by_id.update(merged)
        return self

    def when(
        self,
        id: str | None = None,
        *,
        pattern: str | Pattern[str] | None = None,
        answer: AnswerSpec,
    ) -> ScriptedProvider:
        """Add a rule: questions with this ``id``, or whose text matches ``pattern``
        (``re.search``), get ``answer``. The newest matching pattern wins; an answer by
        id always wins over patterns. Returns ``self``."""
        if (id is None) == (pattern is None):
            raise TypeError("when() takes exactly one of id= or pattern=")
        if id is not None:
            return self.answer({id: answer})
        compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
        if not isinstance(compiled, re.Pattern):
            raise TypeError(f"pattern must be a str or compiled pattern, got {pattern!r}")
        _check_spec(answer, f"answer for pattern {compiled.pattern!r}")
        self._patterns.append((compiled, answer))
        return self

    def _lookup(self, item: AskUserQuestionItem) -> AnswerSpec | None:
        spec = self._by_id.get(item.id)
        if spec is not None:
            return spec
        for pattern, answer in reversed(self._patterns):
            if pattern.search(item.question):
                return answer
        return self._default

    # -- what was asked ------------------------------------------------------------------

    @property
    def questions_asked(self) -> list[AskUserQuestionItem]:
        """Every question of every request received, in order."""
        return [item for request in list(self.requests) for item in request.questions]

    @property
    def asked_ids(self) -> list[str]:
        """The ids of :attr:`questions_asked`, in order (repeats included)."""
        return [item.id for item in self.questions_asked]

    def question(self, id: str) -> AskUserQuestionItem:
        """The question last asked with this ``id`` (``AssertionError`` if never asked)."""
        for item in reversed(self.questions_asked):
            if item.id == id:
                return item
        raise AssertionError(f"question {id!r} was never asked; asked: {self._asked()}")

    def assert_asked(self, *ids: str) -> None:
        """Fail unless every one of ``ids`` was asked (without ids: unless anything was)."""
        asked = self.asked_ids
        if not ids and not asked:
            raise AssertionError("no question was asked")
        missing = [id for id in ids if id not in asked]
        if missing:
            names = ", ".join(map(repr, missing))
            raise AssertionError(f"never asked: {names}; asked: {self._asked()}")

    def assert_not_asked(self, *ids: str) -> None:
        """Fail if any of ``ids`` was asked (without ids: if anything was)."""
        asked = self.asked_ids
        found = [id for id in ids if id in asked] if ids else asked
        if found:
            names = ", ".join(map(repr, dict.fromkeys(found)))
            raise AssertionError(f"unexpectedly asked: {names}; asked: {self._asked()}")

    def _asked(self) -> str:
        asked = self.asked_ids
        return ", ".join(map(repr, asked)) if asked else "nothing"

    # -- the provider --------------------------------------------------------------------

    @property
    def disposed(self) -> bool:
        """Whether :meth:`dispose` has been called (at least once)."""
        return self._disposals > 0

    def dispose(self) -> None:
        """End the asks pending now with ``PROVIDER_DISPOSED``.

        The script and the records stay: the provider may be registered again later.
        """
        with self._lock:
            closing, self._closing = self._closing, AbortController()
            self._disposals += 1
        closing.abort(
            UserInteractionError("The scripted provider was disposed.", PROVIDER_DISPOSED)
        )

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Answer ``request`` from the script (after ``delay``)."""
        with self._lock:
            self.requests.append(request)
            closing = self._closing.signal
        signal = closing if request.signal is None else AbortSignal.any([closing, request.signal])
        if signal.aborted:
            raise signal.error()
        items: list[AskUserQuestionAnswerItem] = []
        problems: list[str] = []
        rejection: Reject | None = None
        silent = False
        for item in request.questions:
            outcome = await self._outcome(item, signal)
            if isinstance(outcome, AskUserQuestionAnswerItem):
                items.append(outcome)
            elif isinstance(outcome, _Problem):
                problems.append(outcome.text)
            elif isinstance(outcome, Reject):
                rejection = rejection or outcome
            elif outcome is SILENT:
                silent = True
        if problems:
            raise self._fail(problems)
        if self.delay or silent:
            import asyncio

            if self.delay:
                await signal.race(asyncio.sleep(self.delay))
            if silent:  # stays silent until the ask ends
                await signal.race(asyncio.get_running_loop().create_future())
        if rejection is not None:
            raise rejection.error()
        return AskUserQuestionAnswer(items)

    def _fail(self, problems: list[str]) -> UserInteractionError:
        if len(problems) == 1:
            message = problems[0][0].upper() + problems[0][1:]
        else:
            listed = "; ".join(f"({n}) {text}" for n, text in enumerate(problems, 1))
            message = f"The script could not answer {len(problems)} questions: {listed}"
        error = UserInteractionError(message, UNANSWERED_QUESTION)
        with self._lock:
            self.failures.append(error)
        return error

    def _next_of(self, spec: AnswerSequence) -> tuple[int, AnswerSpec | None]:
        """How many answers this provider took from ``spec`` before, and the next one."""
        with self._lock:
            used = self._taken.get(spec, 0)
            self._taken[spec] = used + 1
        return used, spec.answers[used] if used < len(spec.answers) else None

    async def _outcome(self, item: AskUserQuestionItem, signal: AbortSignal) -> _Outcome:
        spec = self._lookup(item)
        if spec is None:
            scripted = ", ".join(map(repr, self._by_id)) or "none"
            return _Problem(
                f"no answer is scripted for {_quote(item)}; scripted ids: {scripted} "
                "(script it by id, by a pattern on its text, or with a default)"
            )
        for _ in range(100):  # functions and sequences may hand on to other answers
            if isinstance(spec, AnswerSequence):
                used, taken = self._next_of(spec)
                if taken is None:
                    return _Problem(
                        f"the {used} answers scripted in a sequence for {_quote(item)} are "
                        f"used up (it was asked {used + 1} times)"
                    )
                spec = taken
            elif callable(spec):
                try:
                    result = spec(item)
                    if hasattr(result, "__await__"):
                        result = await signal.race(result)
                except UserInteractionError:
                    raise
                except Exception as exc:
                    return _Problem(
                        f"the answer function for {_quote(item)} raised {type(exc).__name__}: {exc}"
                    )
                try:
                    _check_spec(result, "answer")
                except (TypeError, ValueError):
                    return _Problem(
                        f"the answer function for {_quote(item)} returned {result!r}, "
                        "which is not an answer"
                    )
                spec = result
            else:
                return _build(item, spec)
        return _Problem(f"the answer functions for {_quote(item)} never settled on an answer")


def _build(item: AskUserQuestionItem, spec: AnswerSpec) -> _Outcome:
    """The answer item ``spec`` gives ``item``, or why it cannot answer it."""
    if spec is SKIP:
        return AskUserQuestionAnswerItem(item.id)
    if spec is OMIT or spec is SILENT or isinstance(spec, Reject):
        return spec
    if isinstance(spec, Custom):
        return AskUserQuestionAnswerItem(item.id, custom=spec.text)
    if isinstance(spec, WithNotes):
        if not item.options:
            return _Problem(
                f"{_quote(item)} has no options, so notes cannot go beside a selection; "
                "script its text"
            )
        built = _build(item, spec.answer)
        if isinstance(built, AskUserQuestionAnswerItem):
            return AskUserQuestionAnswerItem(item.id, built.selected, notes=spec.notes)
        return built
    if spec is FIRST_OPTION:
        if not item.options:
            return _Problem(
                f"{_quote(item)} has no options, so 'first option' cannot answer it; "
                "script its text"
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
        return _Problem(f"{_quote(item)} has no options to select from; script its text instead")
    offered = {option.label for option in item.options}
    for label in labels:
        if label not in offered:
            return _Problem(
                f"the scripted answer {label!r} for {_quote(item)} is not one of its "
                f"options ({_labels(item)}); script custom text to answer with that text"
            )
    if len(set(labels)) != len(labels):
        return _Problem(f"the scripted answer for {_quote(item)} repeats a label: {labels!r}")
    if len(labels) > 1 and not item.multi_select:
        return _Problem(
            f"{_quote(item)} takes one option, but {len(labels)} were scripted: {labels!r}"
        )
    return AskUserQuestionAnswerItem(item.id, labels)
