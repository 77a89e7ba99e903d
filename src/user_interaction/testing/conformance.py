"""The provider conformance suite: prove that a provider keeps the rules every provider
keeps (the documentation's Semantics page states them).

A provider author writes a small :class:`ConformanceDriver` — how a simulated human
answers, skips, cancels or stays silent in their UI — and subclasses
:class:`ProviderConformance` with a ``driver`` fixture; pytest then collects the inherited
tests::

    import pytest
    from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance

    class EchoDriver(ConformanceDriver):
        def make_provider(self): ...
        def answer(self, question, labels): ...

    class TestEchoConformance(ProviderConformance):
        @pytest.fixture
        def driver(self):
            yield EchoDriver()

Every test builds a fresh provider with ``driver.make_provider()``, registers it on a
fresh :class:`~user_interaction.UserInteraction` and asks through the manager, as an
application would. Needs pytest (this module imports it).
"""

from __future__ import annotations

import abc
import asyncio
import inspect
import re
import threading
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Final, Sequence

import pytest

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    INVALID_ANSWER,
    PROVIDER_DISPOSED,
    PROVIDER_FAILED,
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    Disposer,
    UserInteraction,
    UserInteractionError,
)

if TYPE_CHECKING:
    from user_interaction import AbortSignal

__all__ = ["CONTROL_PAYLOADS", "ConformanceDriver", "ProviderConformance"]

#: Terminal control sequences the suite hides in model text for ``terminal`` drivers; none
#: may reach the screen verbatim (clear screen, window title, clipboard write, a C1 CSI
#: cursor report, carriage return, backspace).
CONTROL_PAYLOADS: Final = (
    "\x1b[2J",
    "\x1b]0;owned\x07",
    "\x1b]52;c;b3duZWQ=\x07",
    "\x9b6n",
    "\r",
    "\x08",
)

_CONTROLS: Final = re.compile("[\x00-\x1f\x7f-\x9f]")

#: The Markdown preview the suite gives an option (``{label}`` is the option's label): a
#: code fence, a table, a blank line, a tab, a very long line and non-ASCII text.
_PREVIEW: Final = (
    '```toml\n[shed]\npaint = "{label}"\ncoats = 2\n```\n'
    "\n"
    "| side | paint |\n|---|---|\n| north | {label} |\n"
    "\n"
    "\t- two coats, ünïcode ✓ — " + "a long line " * 60
)


def _needle(text: str) -> str:
    """The longest run of text without control characters: what a screen surely shows."""
    return max((part.strip() for part in _CONTROLS.split(text)), key=len)


class ConformanceDriver(abc.ABC):
    """How a simulated human uses your UI. Subclass it and implement at least
    :meth:`make_provider` and :meth:`answer`.

    The action methods (``answer``, ``answer_with_notes``, ``answer_custom``, ``skip``,
    ``cancel``, ``decline``, ``stay_silent``) act on a question the provider is showing.
    Each may be a plain method, which the suite runs on a worker thread (so it may block,
    e.g. on a pipe or a pseudo-terminal), or an ``async def``, which it awaits on the event
    loop the provider runs on. Leave an optional method out (``answer_with_notes``,
    ``answer_custom``, ``skip``, ``cancel``, ``decline``, ``screen_text``) when your UI has
    no such gesture: the tests that need it are skipped.
    """

    #: The provider declares ``serial = True`` (it shows one request at a time).
    serial: bool = False
    #: The UI writes to a terminal: model text must not carry control sequences to it
    #: (needs :meth:`screen_text`).
    terminal: bool = False
    #: The human's actions for an ask must be known before it starts (a scripted UI, or
    #: input prepared ahead): the suite calls them before asking instead of once the
    #: question is shown.
    answers_in_advance: bool = False
    #: Seconds any single step may take before the suite calls the provider stuck.
    timeout: float = 10.0

    @abc.abstractmethod
    def make_provider(self) -> object:
        """A fresh provider for one test (called on the test's event loop; may be async)."""

    @abc.abstractmethod
    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> Any:
        """Pick the options with these ``labels`` (one label on a single-select question)."""

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> Any:
        """Pick the options with these ``labels`` and write ``notes`` beside the choice."""
        raise NotImplementedError

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> Any:
        """Type ``text`` as the answer (also the answer to a question without options)."""
        raise NotImplementedError

    def skip(self, question: AskUserQuestionItem) -> Any:
        """Skip the question (an answer with no selection and no text)."""
        raise NotImplementedError

    def cancel(self, question: AskUserQuestionItem) -> Any:
        """Dismiss the question (Esc, close): the ask should fail with ``ASK_CANCELLED``."""
        raise NotImplementedError

    def decline(self, question: AskUserQuestionItem) -> Any:
        """Refuse to answer explicitly: the ask should fail with ``ASK_DECLINED``."""
        raise NotImplementedError

    def stay_silent(self, question: AskUserQuestionItem) -> Any:
        """Leave the question unanswered (the suite then aborts, times out or disposes).
        Most UIs need nothing here; a scripted UI records that it must not answer."""
        return None

    def screen_text(self) -> str:
        """Everything the UI has shown so far, as text (must not block)."""
        raise NotImplementedError

    async def wait_until_shown(self, question: AskUserQuestionItem) -> None:
        """Return once ``question`` is on screen. By default: poll :meth:`screen_text` for
        the question's text, or, without it, give the provider a moment."""
        if not _implements(self, "screen_text"):
            await asyncio.sleep(0.05)
            return
        needle = _needle(question.question)
        while needle not in self.screen_text():  # noqa: ASYNC110 -- a screen has no events
            await asyncio.sleep(0.01)


def _implements(driver: ConformanceDriver, name: str) -> bool:
    return getattr(type(driver), name) is not getattr(ConformanceDriver, name)


_OPTIONAL: Final = frozenset(
    {"answer_with_notes", "answer_custom", "skip", "cancel", "decline", "screen_text"}
)


def _require(driver: ConformanceDriver, name: str) -> None:
    if name in _OPTIONAL and not _implements(driver, name):
        pytest.skip(f"{type(driver).__name__} does not implement {name}()")


class _Probe:
    """Stands in front of the provider to count its calls and disposals."""

    def __init__(self, provider: object) -> None:
        self.provider = provider
        self.serial = bool(getattr(provider, "serial", False))
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0
        self.calls = 0
        self.disposals = 0

    def enter(self) -> None:
        with self.lock:
            self.calls += 1
            self.active += 1
            self.peak = max(self.peak, self.active)

    def exit(self) -> None:
        with self.lock:
            self.active -= 1

    def dispose(self) -> Any:
        with self.lock:
            self.disposals += 1
        dispose = getattr(self.provider, "dispose", None)
        return dispose() if callable(dispose) else None


class _AsyncProbe(_Probe):
    async def ask(self, request: AskUserQuestionRequest) -> Any:
        self.enter()
        try:
            return await self.provider.ask(request)  # type: ignore[attr-defined]
        finally:
            self.exit()


class _SyncProbe(_Probe):
    def ask(self, request: AskUserQuestionRequest) -> Any:
        self.enter()
        try:
            return self.provider.ask(request)  # type: ignore[attr-defined]
        finally:
            self.exit()


Step = Callable[[], Any]


class _Session:
    """One test's provider, context and helpers; every wait is bounded by the driver's
    ``timeout`` and fails with a message saying what the provider did not do."""

    def __init__(
        self, driver: ConformanceDriver, ui: UserInteraction, disposer: Disposer, probe: _Probe
    ) -> None:
        self.driver = driver
        self.ui = ui
        self.disposer = disposer
        self.probe = probe
        self.tasks: list[asyncio.Future[Any]] = []
        self.count = 0

    # -- questions -----------------------------------------------------------------------

    def _next(self) -> int:
        self.count += 1
        return self.count

    def single(self) -> AskUserQuestionItem:
        n = self._next()
        return AskUserQuestionItem(
            f"colour{n}",
            f"Which colour should shed {n} be?",
            header="Colour",
            detail="Pick one of the paints in stock.",
            options=[
                AskUserQuestionOption("red", "warm and loud"),
                AskUserQuestionOption("green"),
                AskUserQuestionOption("blue", "calm and cool"),
            ],
        )

    def multi(self) -> AskUserQuestionItem:
        n = self._next()
        return AskUserQuestionItem(
            f"steps{n}",
            f"Which CI steps should pipeline {n} run?",
            header="CI steps",
            options=[
                AskUserQuestionOption("lint"),
                AskUserQuestionOption("test", "the unit tests"),
                AskUserQuestionOption("docs"),
                AskUserQuestionOption("build"),
            ],
            multi_select=True,
        )

    def free(self) -> AskUserQuestionItem:
        n = self._next()
        return AskUserQuestionItem(f"name{n}", f"What should project {n} be called?")

    @staticmethod
    def previewed(item: AskUserQuestionItem) -> AskUserQuestionItem:
        """``item`` with a Markdown preview on every option."""
        options = [
            AskUserQuestionOption(o.label, o.description, _PREVIEW.format(label=o.label))
            for o in item.options
        ]
        return AskUserQuestionItem(
            item.id, item.question, item.header, options, item.multi_select, item.detail
        )

    # -- the human -----------------------------------------------------------------------

    async def call(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run a driver method: await an async one, run a plain one on a thread."""
        if inspect.iscoroutinefunction(function):
            coroutine = function(*args)
        else:
            coroutine = asyncio.to_thread(function, *args)
        try:
            result = await asyncio.wait_for(coroutine, self.driver.timeout)
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(result, self.driver.timeout)
        except asyncio.TimeoutError:
            name = getattr(function, "__name__", repr(function))
            raise AssertionError(
                f"driver.{name}() did not return within {self.driver.timeout:g} s"
            ) from None
        return result

    def act(self, name: str, question: AskUserQuestionItem, *args: Any) -> Step:
        """A human action on ``question``, to run now or once the question is shown."""
        _require(self.driver, name)
        method = getattr(self.driver, name)
        return lambda: self.call(method, question, *args)

    async def shown(self, question: AskUserQuestionItem, task: asyncio.Future[Any]) -> None:
        """Wait until ``question`` is shown (or the ask ended first)."""
        waiter = asyncio.ensure_future(self.call(self.driver.wait_until_shown, question))
        try:
            await asyncio.wait(
                {waiter, task}, timeout=self.driver.timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if waiter.done():
                error = waiter.exception()
                if error is None or not isinstance(error, AssertionError):
                    waiter.result()
                    return
            if not task.done():
                raise AssertionError(
                    f"question {question.id!r} ({question.question!r}) was not shown within "
                    f"{self.driver.timeout:g} s{self.screen_tail()}"
                )
        finally:
            if not waiter.done():
                waiter.cancel()
                await asyncio.gather(waiter, return_exceptions=True)

    def screen(self) -> str:
        return self.driver.screen_text() if _implements(self.driver, "screen_text") else ""

    def screen_tail(self) -> str:
        if not _implements(self.driver, "screen_text"):
            return ""
        return f"; the screen ends with:\n{self.screen()[-600:]}"

    # -- asking --------------------------------------------------------------------------

    def start(
        self,
        request: AskUserQuestionRequest,
        *,
        timeout: float | None = None,
        sync: bool = False,
    ) -> asyncio.Future[Any]:
        if sync:
            task = asyncio.ensure_future(
                asyncio.to_thread(self.ui.ask_sync, request, timeout=timeout)
            )
        else:
            task = asyncio.ensure_future(self.ui.ask(request, timeout=timeout))
        self.tasks.append(task)
        return task

    async def ask(
        self,
        questions: Sequence[AskUserQuestionItem],
        steps: Sequence[tuple[AskUserQuestionItem, Step]],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        sync: bool = False,
    ) -> asyncio.Future[Any]:
        """Start an ask and play the human's ``steps``, each once its question is shown
        (or all before asking, for drivers that answer in advance)."""
        request = AskUserQuestionRequest(questions, signal=signal)
        if self.driver.answers_in_advance:
            for _, step in steps:
                await step()
            return self.start(request, timeout=timeout, sync=sync)
        task = self.start(request, timeout=timeout, sync=sync)
        for question, step in steps:
            await self.shown(question, task)
            if task.done():
                break
            await step()
        return task

    async def outcome(self, task: asyncio.Future[Any], what: str) -> Any:
        done, _ = await asyncio.wait({task}, timeout=self.driver.timeout)
        if not done:
            raise AssertionError(
                f"{what}: the ask did not end within {self.driver.timeout:g} s{self.screen_tail()}"
            )
        if task.cancelled():
            raise AssertionError(f"{what}: the ask was cancelled")
        error = task.exception()
        if error is None:
            return task.result()
        if isinstance(error, UserInteractionError):
            return error
        raise error

    async def answer_of(self, task: asyncio.Future[Any], what: str) -> AskUserQuestionAnswer:
        result = await self.outcome(task, what)
        if isinstance(result, UserInteractionError):
            raise AssertionError(
                f"{what}: expected an answer, but the ask failed with {result.code}: {result}"
            ) from result
        assert isinstance(result, AskUserQuestionAnswer)
        return result

    async def error_of(self, task: asyncio.Future[Any], what: str, code: str) -> None:
        result = await self.outcome(task, what)
        if not isinstance(result, UserInteractionError):
            raise AssertionError(f"{what}: expected {code}, but the ask returned {result!r}")
        if result.code != code:
            raise AssertionError(
                f"{what}: expected {code}, got {result.code}: {result}"
            ) from result

    async def idle(self, what: str) -> None:
        """Wait until no provider call is running: a provider must stop when its signal
        fires (abort, timeout, disposal), not keep waiting for a human."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.driver.timeout
        while self.probe.active:
            if loop.time() > deadline:
                raise AssertionError(
                    f"{what}: the provider's ask() was still running {self.driver.timeout:g} s "
                    "later; a provider must stop waiting when request.signal fires"
                )
            await asyncio.sleep(0.01)

    async def answered(self, what: str) -> None:
        """A follow-up ask is answered normally: the UI is not stuck after ``what``."""
        question = self.single()
        task = await self.ask([question], [(question, self.act("answer", question, ["blue"]))])
        answer = await self.answer_of(task, f"an ask after {what}")
        _expect_selected(answer, question, ["blue"], f"an ask after {what}")


def _item(
    answer: AskUserQuestionAnswer, question: AskUserQuestionItem, what: str
) -> AskUserQuestionAnswerItem:
    item = answer.get(question.id)
    if item is None:
        raise AssertionError(f"{what}: the answer has no item for {question.id!r}: {answer}")
    return item


def _expect_selected(
    answer: AskUserQuestionAnswer,
    question: AskUserQuestionItem,
    labels: list[str],
    what: str,
    notes: str | None = None,
) -> None:
    item = _item(answer, question, what)
    assert item.custom is None, f"{what}: expected a selection, got custom text {item.custom!r}"
    assert sorted(item.selected) == sorted(labels), (
        f"{what}: expected {labels!r} to be selected, got {list(item.selected)!r}"
    )
    if notes is None:
        assert item.notes is None, (
            f"{what}: the human wrote no notes, but the answer carries notes {item.notes!r}"
        )
    else:
        assert item.notes == notes, (
            f"{what}: expected the notes {notes!r} beside the selection, got {item.notes!r}"
        )


def _run(driver: ConformanceDriver, scenario: Callable[[_Session], Awaitable[None]]) -> None:
    """Run ``scenario`` against a fresh provider registered on a fresh context."""

    async def main() -> None:
        provider = driver.make_provider()
        if inspect.isawaitable(provider):
            provider = await provider
        ask = getattr(provider, "ask", None)
        assert callable(ask), f"make_provider() returned {provider!r}, which has no ask()"
        probe: _Probe = (
            _AsyncProbe(provider) if inspect.iscoroutinefunction(ask) else _SyncProbe(provider)
        )
        name = getattr(provider, "name", None)
        ui = UserInteraction()
        disposer = ui.register_provider(
            probe, name=name if isinstance(name, str) and name else type(provider).__name__
        )
        session = _Session(driver, ui, disposer, probe)
        try:
            try:
                await asyncio.wait_for(scenario(session), driver.timeout * 6)
            except asyncio.TimeoutError:
                raise AssertionError(
                    f"the test did not finish within {driver.timeout * 6:g} s"
                    f"{session.screen_tail()}"
                ) from None
        finally:
            await ui.aclose()
            if session.tasks:
                await asyncio.wait(session.tasks, timeout=driver.timeout)
                for task in session.tasks:
                    if task.done() and not task.cancelled():
                        task.exception()  # retrieved: no "never retrieved" noise
        await session.idle("after the provider was disposed at the end of the test")

    asyncio.run(main())


class ProviderConformance:
    """The rules of the Semantics page that concern a provider, as tests. Subclass it
    (name the subclass ``Test...``) and define a ``driver`` fixture that returns (or
    yields) your :class:`ConformanceDriver`.

    To leave out a check that does not apply to your UI, override the test method with
    one that calls ``pytest.skip("why")``.
    """

    @pytest.fixture
    def driver(self) -> ConformanceDriver:
        raise NotImplementedError(
            f"{type(self).__name__} must define a 'driver' fixture returning a ConformanceDriver"
        )

    # -- shape of answers ----------------------------------------------------------------

    def test_serial_is_declared_as_the_driver_says(self, driver: ConformanceDriver) -> None:
        """``provider.serial`` is true exactly when the driver says the UI is serial."""

        async def scenario(session: _Session) -> None:
            assert session.probe.serial == driver.serial, (
                f"provider.serial is {session.probe.serial}, the driver says {driver.serial}"
            )

        _run(driver, scenario)

    def test_single_select_answer(self, driver: ConformanceDriver) -> None:
        """Picking one option returns exactly that label."""

        async def scenario(session: _Session) -> None:
            question = session.single()
            task = await session.ask(
                [question], [(question, session.act("answer", question, ["green"]))]
            )
            answer = await session.answer_of(task, "a single-select question")
            _expect_selected(answer, question, ["green"], "a single-select question")

        _run(driver, scenario)

    def test_multi_select_answer(self, driver: ConformanceDriver) -> None:
        """Picking several options returns those labels, each once."""

        async def scenario(session: _Session) -> None:
            question = session.multi()
            task = await session.ask(
                [question], [(question, session.act("answer", question, ["docs", "lint"]))]
            )
            answer = await session.answer_of(task, "a multi-select question")
            _expect_selected(answer, question, ["docs", "lint"], "a multi-select question")

        _run(driver, scenario)

    def test_custom_answer(self, driver: ConformanceDriver) -> None:
        """Typed text on a question with options is ``custom``, with nothing selected."""

        async def scenario(session: _Session) -> None:
            question = session.single()
            text = "Purple with yellow stripes"
            task = await session.ask(
                [question], [(question, session.act("answer_custom", question, text))]
            )
            item = _item(await session.answer_of(task, "a custom answer"), question, "custom")
            assert (item.custom, item.selected) == (text, ()), (
                f"expected custom text {text!r}, got {item}"
            )

        _run(driver, scenario)

    def test_free_text_question(self, driver: ConformanceDriver) -> None:
        """A question without options is answered with typed text."""

        async def scenario(session: _Session) -> None:
            question = session.free()
            text = "Bike Shed Deluxe"
            task = await session.ask(
                [question], [(question, session.act("answer_custom", question, text))]
            )
            item = _item(await session.answer_of(task, "a free-text question"), question, "free")
            assert (item.custom, item.selected) == (text, ()), (
                f"expected custom text {text!r}, got {item}"
            )

        _run(driver, scenario)

    def test_skipped_question(self, driver: ConformanceDriver) -> None:
        """A skipped question has no selection and no text (or is left out)."""

        async def scenario(session: _Session) -> None:
            question = session.single()
            task = await session.ask([question], [(question, session.act("skip", question))])
            answer = await session.answer_of(task, "a skipped question")
            item = answer.get(question.id)
            assert item is None or (item.selected, item.custom) == ((), None), (
                f"a skipped question must have no selection and no text, got {item}"
            )

        _run(driver, scenario)

    def test_batch_is_answered_together(self, driver: ConformanceDriver) -> None:
        """The questions of one request come back in one answer, each with its own item."""

        async def scenario(session: _Session) -> None:
            single, multi = session.single(), session.multi()
            questions = [single, multi]
            steps = [
                (single, session.act("answer", single, ["red"])),
                (multi, session.act("answer", multi, ["test", "build"])),
            ]
            free = None
            if _implements(driver, "answer_custom"):
                free = session.free()
                questions.append(free)
                steps.append((free, session.act("answer_custom", free, "Shed Co")))
            task = await session.ask(questions, steps)
            answer = await session.answer_of(task, "a request of several questions")
            _expect_selected(answer, single, ["red"], "the first question of a batch")
            _expect_selected(answer, multi, ["test", "build"], "the second question of a batch")
            if free is not None:
                assert _item(answer, free, "batch").custom == "Shed Co"

        _run(driver, scenario)

    def test_previews_do_not_get_in_the_way(self, driver: ConformanceDriver) -> None:
        """Options with Markdown previews (code, a table, long lines) are answered like any
        others, on single- and multi-select questions, whether or not the UI shows them."""

        async def scenario(session: _Session) -> None:
            single, multi = session.previewed(session.single()), session.previewed(session.multi())
            steps = [
                (single, session.act("answer", single, ["blue"])),
                (multi, session.act("answer", multi, ["lint", "build"])),
            ]
            task = await session.ask([single, multi], steps)
            answer = await session.answer_of(task, "questions whose options have previews")
            _expect_selected(answer, single, ["blue"], "a single-select question with previews")
            _expect_selected(
                answer, multi, ["lint", "build"], "a multi-select question with previews"
            )

        _run(driver, scenario)

    def test_notes_beside_a_selection(self, driver: ConformanceDriver) -> None:
        """Notes the human writes come back beside their selection, on single- and
        multi-select questions; typed text stays custom text, never notes."""
        _require(driver, "answer_with_notes")

        async def scenario(session: _Session) -> None:
            single, multi = session.single(), session.previewed(session.multi())
            questions = [single, multi]
            steps = [
                (single, session.act("answer_with_notes", single, ["green"], "a darker shade")),
                (multi, session.act("answer_with_notes", multi, ["test", "docs"], "docs on main")),
            ]
            typed = None
            text = "Teal # or any green that is in stock"
            if _implements(driver, "answer_custom"):
                typed = session.single()
                questions.append(typed)
                steps.append((typed, session.act("answer_custom", typed, text)))
            task = await session.ask(questions, steps)
            answer = await session.answer_of(task, "answers with notes")
            _expect_selected(answer, single, ["green"], "a single-select note", "a darker shade")
            _expect_selected(answer, multi, ["test", "docs"], "a multi-select note", "docs on main")
            if typed is not None:
                item = _item(answer, typed, "custom text beside notes")
                assert (item.custom, item.selected, item.notes) == (text, (), None), (
                    f"typed text must come back as custom text, without notes, got {item}"
                )

        _run(driver, scenario)

    def test_question_is_shown(self, driver: ConformanceDriver) -> None:
        """The question, its header, detail, option labels and descriptions are shown."""
        _require(driver, "screen_text")

        async def scenario(session: _Session) -> None:
            question = session.single()
            task = await session.ask(
                [question], [(question, session.act("answer", question, ["red"]))]
            )
            await session.answer_of(task, "a question with header, detail and descriptions")
            screen = session.screen()
            parts = [question.question, question.header, question.detail]
            for option in question.options:
                parts += [option.label, option.description]
            missing = [part for part in parts if part and part not in screen]
            assert not missing, f"not shown: {missing!r}{session.screen_tail()}"

        _run(driver, scenario)

    def test_ask_sync_callers_are_answered(self, driver: ConformanceDriver) -> None:
        """``ask_sync()`` from a thread (the manager's own loop) works like ``ask()``."""

        async def scenario(session: _Session) -> None:
            question = session.single()
            task = await session.ask(
                [question], [(question, session.act("answer", question, ["red"]))], sync=True
            )
            answer = await session.answer_of(task, "ask_sync()")
            _expect_selected(answer, question, ["red"], "ask_sync()")

        _run(driver, scenario)

    # -- the human says no ---------------------------------------------------------------

    def test_cancel(self, driver: ConformanceDriver) -> None:
        """Dismissing the question fails the ask with ``ASK_CANCELLED``."""
        _require(driver, "cancel")

        async def scenario(session: _Session) -> None:
            question = session.single()
            task = await session.ask([question], [(question, session.act("cancel", question))])
            await session.error_of(task, "a dismissed question", ASK_CANCELLED)
            await session.idle("a dismissed question")
            await session.answered("a dismissed question")

        _run(driver, scenario)

    def test_decline(self, driver: ConformanceDriver) -> None:
        """Refusing to answer fails the ask with ``ASK_DECLINED``."""
        _require(driver, "decline")

        async def scenario(session: _Session) -> None:
            question = session.single()
            task = await session.ask([question], [(question, session.act("decline", question))])
            await session.error_of(task, "a declined question", ASK_DECLINED)
            await session.idle("a declined question")
            await session.answered("a declined question")

        _run(driver, scenario)

    # -- ending an ask early -------------------------------------------------------------

    def test_abort_while_waiting(self, driver: ConformanceDriver) -> None:
        """Aborting the signal ends the ask with ``ASK_ABORTED``; the provider stops
        waiting and the next ask is answered normally."""

        async def scenario(session: _Session) -> None:
            question = session.single()
            controller = AbortController()
            task = await session.ask(
                [question],
                [(question, session.act("stay_silent", question))],
                signal=controller.signal,
            )
            await session.shown(question, task)
            controller.abort()
            await session.error_of(task, "an aborted ask", ASK_ABORTED)
            await session.idle("an abort")
            await session.answered("an abort")

        _run(driver, scenario)

    def test_timeout_while_waiting(self, driver: ConformanceDriver) -> None:
        """A ``timeout`` that runs out ends the ask with ``ASK_TIMEOUT``; the provider stops
        waiting and the next ask is answered normally."""

        async def scenario(session: _Session) -> None:
            question = session.single()
            task = await session.ask(
                [question], [(question, session.act("stay_silent", question))], timeout=0.5
            )
            await session.error_of(task, "an ask that timed out", ASK_TIMEOUT)
            await session.idle("a timeout")
            await session.answered("a timeout")

        _run(driver, scenario)

    def test_dispose_with_pending_asks(self, driver: ConformanceDriver) -> None:
        """Disposing the provider fails pending asks with ``PROVIDER_DISPOSED``, calls its
        ``dispose()`` once, and leaves no provider call running."""

        async def scenario(session: _Session) -> None:
            first, second = session.single(), session.single()
            with_signal = await session.ask(
                [first],
                [(first, session.act("stay_silent", first))],
                signal=AbortController().signal,
            )
            await session.shown(first, with_signal)
            steps = [] if driver.serial else [(second, session.act("stay_silent", second))]
            if driver.serial and driver.answers_in_advance:
                await session.act("stay_silent", second)()
            plain = await session.ask([second], steps)
            await asyncio.sleep(0.05)
            session.disposer()
            await session.error_of(with_signal, "an ask pending at disposal", PROVIDER_DISPOSED)
            await session.error_of(plain, "a second ask pending at disposal", PROVIDER_DISPOSED)
            await session.idle("disposal")
            assert session.probe.disposals == 1, (
                f"dispose() was called {session.probe.disposals} times"
            )
            assert session.ui.provider is None

        _run(driver, scenario)

    # -- concurrency ---------------------------------------------------------------------

    def test_serial_asks_take_turns(self, driver: ConformanceDriver) -> None:
        """A serial provider gets one ask at a time, in arrival order."""
        if not driver.serial:
            pytest.skip("the driver's UI is not serial")

        async def scenario(session: _Session) -> None:
            first, second = session.single(), session.single()
            if driver.answers_in_advance:
                await session.act("answer", first, ["red"])()
                await session.act("answer", second, ["green"])()
            one = session.start(AskUserQuestionRequest([first]))
            two = session.start(AskUserQuestionRequest([second]))
            if not driver.answers_in_advance:
                await session.shown(first, one)
                await asyncio.sleep(0.2)
                if _implements(driver, "screen_text"):
                    assert _needle(second.question) not in session.screen(), (
                        "a serial provider showed a second request while the first was "
                        f"pending{session.screen_tail()}"
                    )
                await session.act("answer", first, ["red"])()
                await session.shown(second, two)
                await session.act("answer", second, ["green"])()
            _expect_selected(await session.answer_of(one, "first"), first, ["red"], "first")
            _expect_selected(await session.answer_of(two, "second"), second, ["green"], "second")
            assert session.probe.peak == 1, "a serial provider got two asks at once"

        _run(driver, scenario)

    def test_concurrent_asks(self, driver: ConformanceDriver) -> None:
        """A provider that is not serial serves two asks at once, each with its answer."""
        if driver.serial:
            pytest.skip("the driver's UI is serial")

        async def scenario(session: _Session) -> None:
            first, second = session.single(), session.single()
            if driver.answers_in_advance:
                await session.act("answer", first, ["red"])()
                await session.act("answer", second, ["green"])()
            one = session.start(AskUserQuestionRequest([first]))
            two = session.start(AskUserQuestionRequest([second]))
            if not driver.answers_in_advance:
                await session.shown(first, one)
                await session.shown(second, two)
                await session.act("answer", second, ["green"])()
                await session.act("answer", first, ["red"])()
            _expect_selected(await session.answer_of(one, "first"), first, ["red"], "first")
            _expect_selected(await session.answer_of(two, "second"), second, ["green"], "second")

        _run(driver, scenario)

    # -- model text on a terminal --------------------------------------------------------

    def test_control_sequences_are_neutralised(self, driver: ConformanceDriver) -> None:
        """Control sequences in model text never reach a terminal verbatim; the answer
        still carries the label exactly as offered (or the request is refused)."""
        if not driver.terminal:
            pytest.skip("the driver's UI is not a terminal")
        if not _implements(driver, "screen_text"):
            raise AssertionError("a terminal driver must implement screen_text()")

        def tainted(text: str, tag: str) -> str:
            return text + "".join(f"{p}{tag}{n}" for n, p in enumerate(CONTROL_PAYLOADS))

        async def scenario(session: _Session) -> None:
            label = tainted("red", "L")
            question = AskUserQuestionItem(
                "tainted",
                tainted("Which colour should the tainted shed be?", "Q"),
                header=tainted("Colour", "H"),
                detail=tainted("Pick a paint.", "D"),
                options=[
                    AskUserQuestionOption(label, tainted("warm", "E"), tainted("```\nx", "P")),
                    AskUserQuestionOption("green"),
                ],
            )
            task = await session.ask(
                [question], [(question, session.act("answer", question, [label]))]
            )
            result = await session.outcome(task, "a request with control sequences")
            if isinstance(result, UserInteractionError):
                assert result.code not in (PROVIDER_FAILED, INVALID_ANSWER), (
                    f"control sequences made the provider fail: {result.code}: {result}"
                )
            else:
                _expect_selected(result, question, [label], "a label with control sequences")
            screen = session.screen()
            leaked = [
                f"{p}{tag}{n}"
                for tag in "QHDLEP"
                for n, p in enumerate(CONTROL_PAYLOADS)
                if f"{p}{tag}{n}" in screen
            ]
            assert not leaked, f"control sequences reached the screen verbatim: {leaked!r}"

        _run(driver, scenario)
