"""``ScriptedProvider``: a provider that answers from rules instead of a human.

An answer is looked up for each question — by its id, else by the newest pattern rule that
matches its text, else the default — and turned into an answer item checked against the
options the question offers (:mod:`._specs` says what a rule may answer). A question the
script cannot answer fails the whole ask with ``UNANSWERED_QUESTION`` and a message naming
it; it is never answered with nothing.
"""

from __future__ import annotations

import re
from _thread import allocate_lock
from typing import Mapping, Pattern

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

from ._specs import (
    SILENT,
    AnswerSequence,
    AnswerSpec,
    Outcome,
    Problem,
    Reject,
    build_outcome,
    check_spec,
    quote,
)

__all__ = ["ScriptedProvider"]


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
            check_spec(answer, "default")
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
            check_spec(spec, f"answer for {id!r}")
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
        check_spec(answer, f"answer for pattern {compiled.pattern!r}")
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
            elif isinstance(outcome, Problem):
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

    async def _outcome(self, item: AskUserQuestionItem, signal: AbortSignal) -> Outcome:
        spec = self._lookup(item)
        if spec is None:
            scripted = ", ".join(map(repr, self._by_id)) or "none"
            return Problem(
                f"no answer is scripted for {quote(item)}; scripted ids: {scripted} "
                "(script it by id, by a pattern on its text, or with a default)"
            )
        for _ in range(100):  # functions and sequences may hand on to other answers
            if isinstance(spec, AnswerSequence):
                used, taken = self._next_of(spec)
                if taken is None:
                    return Problem(
                        f"the {used} answers scripted in a sequence for {quote(item)} are "
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
                    return Problem(
                        f"the answer function for {quote(item)} raised {type(exc).__name__}: {exc}"
                    )
                try:
                    check_spec(result, "answer")
                except (TypeError, ValueError):
                    return Problem(
                        f"the answer function for {quote(item)} returned {result!r}, "
                        "which is not an answer"
                    )
                spec = result
            else:
                return build_outcome(item, spec)
        return Problem(f"the answer functions for {quote(item)} never settled on an answer")
