"""The conformance suite, run against ScriptedProvider (live and serial), and run against
deliberately broken providers to show that it catches what it claims to check."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Sequence

import pytest

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
)
from user_interaction.testing import SKIP, ScriptedProvider, custom, reject, with_notes
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance

pytest_plugins = ["pytester"]


def render(question: AskUserQuestionItem) -> str:
    lines = [f"[{question.header}] {question.question}" if question.header else question.question]
    if question.detail:
        lines.append(question.detail)
    for number, option in enumerate(question.options, 1):
        lines.append(f"  {number}. {option.label}")
        if option.description:
            lines.append(f"     {option.description}")
    return "\n".join(lines) + "\n"


class ScriptedHuman(ConformanceDriver):
    """Drives a ScriptedProvider whose default answer waits for this simulated human: the
    question is 'shown' when the provider asks for its answer, and each action settles it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._replies: dict[str, concurrent.futures.Future[Any]] = {}
        self._screen: list[str] = []

    def make_provider(self) -> ScriptedProvider:
        return ScriptedProvider(default=self._shown, serial=self.serial)

    def _reply(self, question: AskUserQuestionItem) -> concurrent.futures.Future[Any]:
        with self._lock:
            return self._replies.setdefault(question.id, concurrent.futures.Future())

    async def _shown(self, question: AskUserQuestionItem) -> Any:
        with self._lock:
            self._screen.append(render(question))
        return await asyncio.wrap_future(self._reply(question))

    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        self._reply(question).set_result(list(labels))

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> None:
        self._reply(question).set_result(with_notes(labels, notes))

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        self._reply(question).set_result(custom(text))

    def skip(self, question: AskUserQuestionItem) -> None:
        self._reply(question).set_result(SKIP)

    async def cancel(self, question: AskUserQuestionItem) -> None:  # async actions work too
        self._reply(question).set_result(reject(ASK_CANCELLED))

    def decline(self, question: AskUserQuestionItem) -> None:
        self._reply(question).set_result(reject(ASK_DECLINED))

    def screen_text(self) -> str:
        with self._lock:
            return "".join(self._screen)


class SerialScriptedHuman(ScriptedHuman):
    serial = True


class AdvanceScriptedDriver(ConformanceDriver):
    """Scripts a ScriptedProvider before each ask (the answers-in-advance mode)."""

    answers_in_advance = True

    def make_provider(self) -> ScriptedProvider:
        self.provider = ScriptedProvider(serial=self.serial)
        return self.provider

    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        self.provider.answer({question.id: list(labels)})

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> None:
        self.provider.answer({question.id: with_notes(labels, notes)})

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        self.provider.answer({question.id: custom(text)})

    def skip(self, question: AskUserQuestionItem) -> None:
        self.provider.answer({question.id: SKIP})

    def cancel(self, question: AskUserQuestionItem) -> None:
        self.provider.answer({question.id: reject(ASK_CANCELLED)})

    def stay_silent(self, question: AskUserQuestionItem) -> None:
        from user_interaction.testing import SILENT

        self.provider.answer({question.id: SILENT})


class SerialAdvanceScriptedDriver(AdvanceScriptedDriver):
    serial = True


class TestScriptedProviderConformance(ProviderConformance):
    @pytest.fixture(params=[ScriptedHuman, SerialScriptedHuman])
    def driver(self, request: pytest.FixtureRequest) -> ConformanceDriver:
        driver: ConformanceDriver = request.param()
        return driver


class TestScriptedProviderConformanceInAdvance(ProviderConformance):
    @pytest.fixture(params=[AdvanceScriptedDriver, SerialAdvanceScriptedDriver])
    def driver(self, request: pytest.FixtureRequest) -> ConformanceDriver:
        driver: ConformanceDriver = request.param()
        return driver


def test_the_base_class_is_not_collected_and_needs_a_driver(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from user_interaction.testing.conformance import ProviderConformance

        class TestNoDriver(ProviderConformance):
            pass
        """
    )
    result = pytester.runpytest("-q", "-p", "no:hypothesispytest", "-k", "single_select")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*TestNoDriver must define a 'driver' fixture*"])


# -- the suite catches broken providers ------------------------------------------------------

BROKEN = """
import asyncio, threading
import pytest
from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance


class Broken:
    serial = False

    def __init__(self):
        self.replies = {}

    async def ask(self, request):
        items = []
        for question in request.questions:
            items.append(await self.reply(question))
        return AskUserQuestionAnswer(items)

    async def reply(self, question):
        future = self.replies.setdefault(question.id, asyncio.get_running_loop().create_future())
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:  # ignores its signal, and the cancellation of its task
            return await asyncio.shield(future)


class Driver(ConformanceDriver):
    timeout = 1.0

    def make_provider(self):
        self.provider = Broken()
        return self.provider

    async def answer(self, question, labels):
        future = self.provider.replies.setdefault(
            question.id, asyncio.get_running_loop().create_future()
        )
        future.set_result(self.item(question, labels))

    def item(self, question, labels):
        return AskUserQuestionAnswerItem(question.id, labels)


class TestBroken(ProviderConformance):
    @pytest.fixture
    def driver(self):
        return Driver()
"""


def run_broken(pytester: pytest.Pytester, patch: str, test: str) -> pytest.RunResult:
    pytester.makepyfile(test_broken=BROKEN + patch)
    return pytester.runpytest(
        "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-k", test
    )


def test_catches_a_provider_that_ignores_its_signal(pytester: pytest.Pytester) -> None:
    result = run_broken(pytester, "", "test_abort_while_waiting")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*a provider must stop waiting when request.signal fires*"])


def test_catches_a_wrong_serial_declaration(pytester: pytest.Pytester) -> None:
    result = run_broken(pytester, "\nDriver.serial = True\n", "test_serial_is_declared")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*provider.serial is False, the driver says True*"])


def test_catches_wrong_labels(pytester: pytest.Pytester) -> None:
    patch = """
def item(self, question, labels):
    return AskUserQuestionAnswerItem(question.id, [question.options[0].label])
Driver.item = item
"""
    result = run_broken(pytester, patch, "test_single_select_answer")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*expected *green* to be selected, got *red*"])


def test_catches_invalid_answers(pytester: pytest.Pytester) -> None:
    patch = """
def item(self, question, labels):
    return AskUserQuestionAnswerItem(question.id, ["not offered"])
Driver.item = item
"""
    result = run_broken(pytester, patch, "test_multi_select_answer")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*expected an answer, but the ask failed with INVALID_ANSWER*"])


def test_skips_what_the_driver_cannot_do(pytester: pytest.Pytester) -> None:
    result = run_broken(pytester, "", "cancel or decline or custom or skipped or control")
    result.assert_outcomes(skipped=5)
    result.stdout.fnmatch_lines(["*Driver does not implement cancel()*"])


def test_catches_control_sequences_on_a_terminal(pytester: pytest.Pytester) -> None:
    patch = """
class Terminal(Broken):
    def __init__(self):
        super().__init__()
        self.screen = []

    async def reply(self, question):
        self.screen.append(question.question + "\\n")
        return await super().reply(question)


def make_provider(self):
    self.provider = Terminal()
    return self.provider


Driver.terminal = True
Driver.make_provider = make_provider
Driver.screen_text = lambda self: "".join(self.provider.screen)
"""
    result = run_broken(pytester, patch, "test_control_sequences")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*control sequences reached the screen verbatim*"])


NOTES = """
async def answer_with_notes(self, question, labels, notes):
    future = self.provider.replies.setdefault(
        question.id, asyncio.get_running_loop().create_future()
    )
    future.set_result(self.noted(question, labels, notes))
Driver.answer_with_notes = answer_with_notes
Driver.noted = lambda self, question, labels, notes: AskUserQuestionAnswerItem(
    question.id, labels, notes=notes
)
"""


def test_catches_notes_the_human_never_wrote(pytester: pytest.Pytester) -> None:
    patch = """
def item(self, question, labels):
    return AskUserQuestionAnswerItem(question.id, labels, notes="made up")
Driver.item = item
"""
    result = run_broken(pytester, patch, "test_multi_select_answer")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*the human wrote no notes, but the answer carries notes 'made up'*"]
    )


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (
            "labels",
            "*a single-select note: expected the notes 'a darker shade' beside the selection, "
            "got None",
        ),
        (
            "custom=notes",
            "*a single-select note: expected a selection, got custom text 'a darker shade'*",
        ),
        (
            "(), notes=notes",
            "*answers with notes: expected an answer, but the ask failed with INVALID_ANSWER: "
            "answers?0?.notes: notes go beside a selection, but nothing is selected*",
        ),
    ],
    ids=["lost", "made-custom", "without-selection"],
)
def test_catches_wrong_notes(pytester: pytest.Pytester, item: str, message: str) -> None:
    result = run_broken(pytester, NOTES.replace("labels, notes=notes", item), "test_notes")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([message])


def test_catches_typed_text_split_into_notes(pytester: pytest.Pytester) -> None:
    patch = """
async def answer_custom(self, question, text):  # like a parser that splits at "#"
    notes = text.split("#", 1)[1].strip()
    await answer_with_notes(self, question, [question.options[0].label], notes)
Driver.answer_custom = answer_custom
"""
    result = run_broken(pytester, NOTES + patch, "test_notes")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*typed text must come back as custom text, without notes, got *notes='or any green*"]
    )


def test_notes_pass_with_a_provider_that_keeps_them(pytester: pytest.Pytester) -> None:
    result = run_broken(pytester, NOTES, "test_notes")
    result.assert_outcomes(passed=1)


def test_skips_notes_when_the_driver_cannot_write_them(pytester: pytest.Pytester) -> None:
    result = run_broken(pytester, "", "test_notes")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*Driver does not implement answer_with_notes()*"])


def test_catches_a_provider_that_chokes_on_previews(pytester: pytest.Pytester) -> None:
    patch = """
class Choking(Broken):
    async def reply(self, question):
        for option in question.options:
            if option.preview is not None and len(option.preview) > 500:
                raise ValueError("preview too long for this UI")
        return await super().reply(question)


def make_provider(self):
    self.provider = Choking()
    return self.provider


Driver.make_provider = make_provider
"""
    result = run_broken(pytester, patch, "test_previews or test_single_select_answer")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*questions whose options have previews: expected an answer, but the ask failed "
            "with PROVIDER_FAILED*preview too long for this UI*"
        ]
    )


def test_catches_previews_leaking_control_sequences(pytester: pytest.Pytester) -> None:
    patch = """
class Terminal(Broken):
    def __init__(self):
        super().__init__()
        self.screen = []

    async def reply(self, question):
        self.screen.append(question.question.encode("ascii", "backslashreplace").decode())
        for option in question.options:
            self.screen.append(repr(option.label) + repr(option.description))
            self.screen.append(option.preview or "")  # only previews go out raw
        return await super().reply(question)


def make_provider(self):
    self.provider = Terminal()
    return self.provider


Driver.terminal = True
Driver.make_provider = make_provider
Driver.screen_text = lambda self: "".join(self.provider.screen)
"""
    result = run_broken(pytester, patch, "test_control_sequences")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*control sequences reached the screen verbatim: *P0*"])


def test_a_silent_provider_fails_with_a_message_not_a_hang(pytester: pytest.Pytester) -> None:
    patch = """
async def answer(self, question, labels):
    pass  # the human's answer never arrives
Driver.answer = answer
"""
    result = run_broken(pytester, patch, "test_single_select_answer")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*a single-select question: the ask did not end within 1 s*"])


def test_scripted_human_answers_a_plain_request() -> None:
    """The test driver itself: a sanity check outside the suite."""
    human = ScriptedHuman()
    provider = human.make_provider()
    question = AskUserQuestionItem("q", "Q?")

    async def main() -> AskUserQuestionAnswer:
        task = asyncio.ensure_future(provider.ask(AskUserQuestionRequest([question])))
        await human.wait_until_shown(question)
        human.answer_custom(question, "text")
        return await task

    answer = asyncio.run(main())
    assert answer.answers == (AskUserQuestionAnswerItem("q", custom="text"),)
    assert "Q?" in human.screen_text()


def test_a_question_never_shown_is_reported_with_the_screen(pytester: pytest.Pytester) -> None:
    patch = """
Driver.screen_text = lambda self: "Something else entirely"
"""
    result = run_broken(pytester, patch, "test_single_select_answer")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*question 'colour1' ('Which colour should shed 1 be?') was not shown within 1 s*",
            "*Something else entirely*",
        ]
    )
