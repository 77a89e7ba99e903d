"""ScriptedProvider: rules, answer shapes, loud failures, timing, records."""

from __future__ import annotations

import asyncio
import pickle
import re
import threading
import time
from typing import Any

import pytest
from core_support import until

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    tool,
)
from user_interaction.testing import (
    FIRST_OPTION,
    OMIT,
    SILENT,
    SKIP,
    UNANSWERED_QUESTION,
    ScriptedProvider,
    UserInteractionFixture,
    custom,
    reject,
    sequence,
    with_notes,
)

PKG = AskUserQuestionItem(
    "pkg",
    "Which package manager?",
    options=[AskUserQuestionOption("pnpm"), AskUserQuestionOption("npm")],
)
TOOLS = AskUserQuestionItem(
    "tools",
    "Which tools?",
    options=[AskUserQuestionOption(label) for label in ("ruff", "mypy", "pytest")],
    multi_select=True,
)
NAME = AskUserQuestionItem("name", "What is your name?")
DEPLOY = AskUserQuestionItem(
    "go", "Deploy to production now?", options=[AskUserQuestionOption("Yes")]
)


def request(*items: AskUserQuestionItem, **kwargs: Any) -> AskUserQuestionRequest:
    return AskUserQuestionRequest(list(items), **kwargs)


def ask(provider: ScriptedProvider, *items: AskUserQuestionItem, **kwargs: Any) -> Any:
    with UserInteraction() as ui:
        ui.register_provider(provider)
        return ui.ask_sync(request(*items), **kwargs)


def error_of(provider: ScriptedProvider, *items: AskUserQuestionItem, **kwargs: Any) -> Any:
    with pytest.raises(UserInteractionError) as info:
        ask(provider, *items, **kwargs)
    return info.value


def items(answer: AskUserQuestionAnswer) -> dict[str, AskUserQuestionAnswerItem]:
    return {item.id: item for item in answer.answers}


# -- answer shapes ---------------------------------------------------------------------------


def test_answers_by_id_in_every_shape() -> None:
    provider = ScriptedProvider({"pkg": "pnpm", "tools": ["ruff", "mypy"], "name": "Ada"})
    answer = ask(provider, PKG, TOOLS, NAME)
    assert answer.answers == (
        AskUserQuestionAnswerItem("pkg", ["pnpm"]),
        AskUserQuestionAnswerItem("tools", ["ruff", "mypy"]),
        AskUserQuestionAnswerItem("name", custom="Ada"),  # a str on a free-text question
    )


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (custom("yarn"), AskUserQuestionAnswerItem("pkg", custom="yarn")),
        (SKIP, AskUserQuestionAnswerItem("pkg")),
        ([], AskUserQuestionAnswerItem("pkg")),
        (FIRST_OPTION, AskUserQuestionAnswerItem("pkg", ["pnpm"])),
        (("npm",), AskUserQuestionAnswerItem("pkg", ["npm"])),
        (lambda question: question.options[-1].label, AskUserQuestionAnswerItem("pkg", ["npm"])),
    ],
)
def test_answer_specs(spec: Any, expected: AskUserQuestionAnswerItem) -> None:
    assert ask(ScriptedProvider({"pkg": spec}), PKG).answers == (expected,)


@pytest.mark.parametrize(
    ("question", "spec", "expected"),
    [
        (
            PKG,
            with_notes("npm", "pin it"),
            AskUserQuestionAnswerItem("pkg", ["npm"], notes="pin it"),
        ),
        (
            PKG,
            with_notes(FIRST_OPTION, "the usual"),
            AskUserQuestionAnswerItem("pkg", ["pnpm"], notes="the usual"),
        ),
        (
            TOOLS,
            with_notes(["pytest", "ruff"], "strict"),
            AskUserQuestionAnswerItem("tools", ["pytest", "ruff"], notes="strict"),
        ),
        (
            TOOLS,
            sequence(with_notes(("mypy",), "later")),
            AskUserQuestionAnswerItem("tools", ["mypy"], notes="later"),
        ),
        (
            TOOLS,
            lambda question: with_notes(question.options[1].label, "picked by a function"),
            AskUserQuestionAnswerItem("tools", ["mypy"], notes="picked by a function"),
        ),
    ],
)
def test_notes_beside_a_selection(
    question: AskUserQuestionItem, spec: Any, expected: AskUserQuestionAnswerItem
) -> None:
    answer = ask(ScriptedProvider({question.id: spec}), question)
    assert answer.answers == (expected,)
    assert tool.render_answer(answer).endswith(f',"notes":"{expected.notes}"}}]}}')


def test_previews_reach_the_script() -> None:
    question = AskUserQuestionItem(
        "layout",
        "Which layout?",
        options=[
            AskUserQuestionOption("grid", preview="+--+--+\n|  |  |"),
            AskUserQuestionOption("list", preview="- a\n- b"),
        ],
    )
    provider = ScriptedProvider(default=lambda q: q.options[-1].label)
    assert ask(provider, question).get("layout").selected == ("list",)
    assert provider.question("layout").options[0].preview == "+--+--+\n|  |  |"


def test_omit_leaves_the_question_out() -> None:
    answer = ask(ScriptedProvider({"pkg": OMIT, "name": "Ada"}), PKG, NAME)
    assert answer.get("pkg") is None
    assert answer.get("name") == AskUserQuestionAnswerItem("name", custom="Ada")


@pytest.mark.parametrize("code", [ASK_CANCELLED, ASK_DECLINED])
def test_reject_raises_the_code(code: str) -> None:
    error = error_of(ScriptedProvider({"pkg": reject(code)}), PKG)
    assert error.code == code


def test_reject_with_a_message() -> None:
    error = error_of(ScriptedProvider(default=reject(ASK_DECLINED, "Not today.")), PKG)
    assert (error.code, error.message) == (ASK_DECLINED, "Not today.")


def test_async_answer_function() -> None:
    async def later(question: AskUserQuestionItem) -> Any:
        await asyncio.sleep(0.01)
        return custom(question.question.upper())

    answer = ask(ScriptedProvider({"name": later}), NAME)
    assert answer.get("name") == AskUserQuestionAnswerItem("name", custom="WHAT IS YOUR NAME?")


def test_answer_function_may_raise_a_code() -> None:
    def cancel(question: AskUserQuestionItem) -> Any:
        raise UserInteractionError("Esc pressed", ASK_CANCELLED)

    assert error_of(ScriptedProvider(default=cancel), PKG).code == ASK_CANCELLED


def test_sequence_answers_in_turn_then_fails() -> None:
    provider = ScriptedProvider({"pkg": sequence("npm", "pnpm")})
    assert ask(provider, PKG).get("pkg").selected == ("npm",)
    assert ask(provider, PKG).get("pkg").selected == ("pnpm",)
    error = error_of(provider, PKG)
    assert error.code == UNANSWERED_QUESTION
    assert "2 answers scripted in a sequence for question 'pkg'" in error.message
    assert "asked 3 times" in error.message


def test_each_provider_counts_its_own_answers_of_a_shared_sequence() -> None:
    """A sequence is a value: a module constant (or a marker) scripts every provider anew."""
    script = {"pkg": sequence("npm", "pnpm")}
    first, second = ScriptedProvider(script), ScriptedProvider(script)
    assert ask(first, PKG).get("pkg").selected == ("npm",)
    assert ask(second, PKG).get("pkg").selected == ("npm",)
    assert ask(first, PKG).get("pkg").selected == ("pnpm",)
    assert error_of(first, PKG).code == UNANSWERED_QUESTION
    assert ask(second, PKG).get("pkg").selected == ("pnpm",)
    assert script["pkg"].answers == ("npm", "pnpm")  # untouched by the asks


def test_one_sequence_under_two_ids_is_taken_in_turn_by_both() -> None:
    shared = sequence("npm", "pnpm")
    other = AskUserQuestionItem("other", "And the other one?", options=PKG.options)
    answer = ask(ScriptedProvider({"pkg": shared, "other": shared}), PKG, other)
    assert [item.selected for item in answer.answers] == [("npm",), ("pnpm",)]


# -- rules -----------------------------------------------------------------------------------


def test_lookup_order_id_then_newest_pattern_then_default() -> None:
    provider = ScriptedProvider({"pkg": "npm"}, default=SKIP)
    provider.when(pattern=r"(?i)package|deploy", answer=FIRST_OPTION)
    provider.when(pattern=r"Deploy", answer=reject(ASK_DECLINED))
    answer = ask(provider, PKG, NAME)
    assert items(answer) == {
        "pkg": AskUserQuestionAnswerItem("pkg", ["npm"]),  # the id wins over the pattern
        "name": AskUserQuestionAnswerItem("name"),  # the default
    }
    assert error_of(provider, DEPLOY).code == ASK_DECLINED  # the newest pattern wins


def test_when_by_id_and_answer_replace_earlier_answers() -> None:
    provider = ScriptedProvider({"pkg": "pnpm"})
    assert provider.when("pkg", answer="npm") is provider
    assert ask(provider, PKG).get("pkg").selected == ("npm",)
    provider.answer(pkg="pnpm").answer({"name": "Ada"})
    assert items(ask(provider, PKG, NAME))["pkg"].selected == ("pnpm",)


def test_compiled_patterns() -> None:
    provider = ScriptedProvider().when(pattern=re.compile("name", re.I), answer="Ada")
    assert ask(provider, NAME).get("name").custom == "Ada"


def test_default_can_be_changed_and_removed() -> None:
    provider = ScriptedProvider(default=FIRST_OPTION)
    assert ask(provider, PKG).get("pkg").selected == ("pnpm",)
    provider.default = None
    assert error_of(provider, PKG).code == UNANSWERED_QUESTION


# -- loud failures ---------------------------------------------------------------------------


def test_unanswered_question_names_it() -> None:
    provider = ScriptedProvider({"name": "Ada"})
    error = error_of(provider, PKG)
    assert error.code == UNANSWERED_QUESTION
    assert error.message.startswith(
        "No answer is scripted for question 'pkg' ('Which package manager?'); scripted ids: 'name'"
    )
    assert provider.failures == [error]


@pytest.mark.parametrize(
    ("scripted", "question", "problem"),
    [
        ("yarn", PKG, "the scripted answer 'yarn' for question 'pkg'"),
        (["pnpm", "npm"], PKG, "question 'pkg' ('Which package manager?') takes one option"),
        (["ruff", "ruff"], TOOLS, "repeats a label"),
        (["x"], NAME, "has no options to select from"),
        (FIRST_OPTION, NAME, "has no options, so 'first option' cannot answer it"),
        (with_notes("Ada", "n"), NAME, "has no options, so notes cannot go beside a selection"),
        (with_notes("yarn", "n"), PKG, "the scripted answer 'yarn' for question 'pkg'"),
        (with_notes(["pnpm", "npm"], "n"), PKG, "takes one option"),
        (lambda q: 42, PKG, "returned 42, which is not an answer"),
        (lambda q: 1 / 0, PKG, "raised ZeroDivisionError: division by zero"),
    ],
)
def test_answers_that_do_not_fit_fail_loudly(scripted: Any, question: Any, problem: str) -> None:
    error = error_of(ScriptedProvider({question.id: scripted}), question)
    assert error.code == UNANSWERED_QUESTION
    assert problem.lower() in error.message.lower()


def test_a_label_that_was_not_offered_lists_the_options() -> None:
    message = error_of(ScriptedProvider({"pkg": "yarn"}), PKG).message
    assert "is not one of its options ('pnpm', 'npm')" in message


def test_every_problem_of_a_request_is_reported_at_once() -> None:
    error = error_of(ScriptedProvider({"pkg": "yarn"}), PKG, NAME)
    assert error.message.startswith("The script could not answer 2 questions: (1) ")
    assert "'pkg'" in error.message
    assert "(2) no answer is scripted for question 'name'" in error.message


def test_a_tool_call_reports_the_failure_to_the_model_and_it_is_recorded() -> None:
    provider = ScriptedProvider()
    with UserInteraction() as ui:
        ui.register_provider(provider)
        raw = {"questions": [{"id": "pkg", "question": "Which?"}]}
        result = asyncio.run(tool.call(ui, raw))
    assert result.is_error
    assert result.error is not None and result.error["code"] == UNANSWERED_QUESTION
    assert [error.code for error in provider.failures] == [UNANSWERED_QUESTION]


@pytest.mark.parametrize(
    ("make", "exception", "message"),
    [
        (lambda: ScriptedProvider({"pkg": 3}), TypeError, "answer for 'pkg': 3 is not an answer"),
        (lambda: ScriptedProvider({"pkg": " "}), ValueError, "a blank answer; use SKIP"),
        (lambda: ScriptedProvider({"pkg": ["a", 1]}), TypeError, "may hold only str"),
        (lambda: ScriptedProvider({1: "a"}), TypeError, "question ids are str"),
        (lambda: ScriptedProvider(default=object()), TypeError, "default: "),
        (lambda: ScriptedProvider(delay=-1), ValueError, "delay must be"),
        (lambda: setattr(ScriptedProvider(), "delay", True), ValueError, "got True"),
        (lambda: ScriptedProvider(delay=float("nan")), ValueError, "got nan"),
        (lambda: ScriptedProvider().when(answer="x"), TypeError, "exactly one of id= or"),
        (lambda: ScriptedProvider().when("a", pattern="b", answer="x"), TypeError, "exactly"),
        (lambda: ScriptedProvider().when(pattern="(", answer="x"), re.error, "missing )"),
        (lambda: custom(""), ValueError, "must not be blank"),
        (lambda: custom(3), TypeError, "custom() takes a str"),
        (lambda: reject(""), TypeError, "error code"),
        (lambda: sequence("a", 3), TypeError, "sequence()[1]"),
        (lambda: with_notes("a", " "), ValueError, "notes must not be blank"),
        (lambda: with_notes("a", None), TypeError, "notes must be a str, got NoneType"),  # type: ignore[arg-type]
        (lambda: with_notes([], "n"), ValueError, "needs a selection"),
        (lambda: with_notes(SKIP, "n"), TypeError, "takes a label, a list of labels or"),
        (lambda: with_notes(custom("x"), "n"), TypeError, "got custom('x')"),  # type: ignore[arg-type]
        (lambda: with_notes(" ", "n"), ValueError, "a blank answer"),
        (lambda: with_notes(["a", 2], "n"), TypeError, "may hold only str"),  # type: ignore[list-item]
    ],
)
def test_script_mistakes_fail_when_written(make: Any, exception: Any, message: str) -> None:
    with pytest.raises(exception, match=re.escape(message)):
        make()


# -- timing ----------------------------------------------------------------------------------


def test_delay_comes_before_the_answer() -> None:
    started = time.monotonic()
    assert ask(ScriptedProvider(default=FIRST_OPTION, delay=0.2), PKG).get("pkg") is not None
    assert time.monotonic() - started >= 0.2


@pytest.mark.parametrize("spec", [SILENT, FIRST_OPTION])
def test_abort_ends_a_wait_at_once(spec: Any) -> None:
    provider = ScriptedProvider(default=spec, delay=30)
    controller = AbortController()

    async def main() -> None:
        task = asyncio.ensure_future(provider.ask(request(PKG, signal=controller.signal)))
        await until(lambda: provider.requests, "the provider has the ask")
        controller.abort()
        with pytest.raises(UserInteractionError) as info:
            await asyncio.wait_for(task, 60)  # the provider itself stops, not only the manager
        assert info.value.code == ASK_ABORTED

    asyncio.run(main())


def test_an_aborted_signal_is_refused_at_once() -> None:
    async def main() -> None:
        signal = AbortController().signal
        controller = AbortController()
        controller.abort("stop")
        with pytest.raises(UserInteractionError) as info:
            await ScriptedProvider(default=SKIP).ask(request(PKG, signal=controller.signal))
        assert info.value.code == ASK_ABORTED
        assert not signal.aborted

    asyncio.run(main())


def test_silent_until_the_timeout() -> None:
    provider = ScriptedProvider({"pkg": SILENT})
    assert error_of(provider, PKG, timeout=0.1).code == ASK_TIMEOUT


def test_dispose_ends_pending_asks_and_the_provider_can_serve_again() -> None:
    provider = ScriptedProvider({"pkg": sequence(SILENT, "npm")})
    assert not provider.disposed

    async def main() -> None:
        task = asyncio.ensure_future(provider.ask(request(PKG)))
        await until(lambda: provider.requests, "the provider has the ask")
        provider.dispose()
        with pytest.raises(UserInteractionError) as info:
            await asyncio.wait_for(task, 60)
        assert info.value.code == PROVIDER_DISPOSED

    asyncio.run(main())
    assert provider.disposed
    assert ask(provider, PKG).get("pkg").selected == ("npm",)


def test_serial_provider_is_queued_by_the_manager() -> None:
    provider = ScriptedProvider(default=FIRST_OPTION, delay=0.05, serial=True)
    active = peak = 0
    lock = threading.Lock()
    original = provider.ask

    async def counting(request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        try:
            return await original(request)
        finally:
            with lock:
                active -= 1

    provider.ask = counting  # type: ignore[method-assign]

    async def main() -> None:
        async with UserInteraction() as ui:
            ui.register_provider(provider)
            await asyncio.gather(*(ui.ask(request(PKG)) for _ in range(3)))

    asyncio.run(main())
    assert peak == 1


# -- records ---------------------------------------------------------------------------------


def test_records_what_was_asked() -> None:
    provider = ScriptedProvider({"pkg": "npm"})
    ask(provider, PKG)
    with pytest.raises(UserInteractionError):
        ask(provider, NAME, TOOLS)  # failed asks are recorded too
    assert [r.questions for r in provider.requests] == [(PKG,), (NAME, TOOLS)]
    assert provider.requests[0] == request(PKG)
    assert provider.questions_asked == [PKG, NAME, TOOLS]
    assert provider.asked_ids == ["pkg", "name", "tools"]
    assert provider.question("tools") is TOOLS
    provider.assert_asked("pkg", "tools")
    provider.assert_asked()
    provider.assert_not_asked("go")


def test_assertion_messages() -> None:
    provider = ScriptedProvider({"pkg": "npm"})
    with pytest.raises(AssertionError, match="no question was asked"):
        provider.assert_asked()
    provider.assert_not_asked()
    with pytest.raises(AssertionError, match="question 'pkg' was never asked; asked: nothing"):
        provider.question("pkg")
    ask(provider, PKG)
    with pytest.raises(AssertionError, match="never asked: 'go', 'x'; asked: 'pkg'"):
        provider.assert_asked("pkg", "go", "x")
    with pytest.raises(AssertionError, match="unexpectedly asked: 'pkg'; asked: 'pkg'"):
        provider.assert_not_asked("pkg", "go")
    with pytest.raises(AssertionError, match="unexpectedly asked: 'pkg'"):
        provider.assert_not_asked()


def test_concurrent_asks_from_threads() -> None:
    provider = ScriptedProvider(default=FIRST_OPTION)
    with UserInteraction() as ui:
        ui.register_provider(provider)
        threads = [threading.Thread(target=ui.ask_sync, args=(request(PKG),)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert provider.asked_ids == ["pkg"] * 8


def test_reprs_and_pickled_sentinels() -> None:
    assert repr(custom("x")) == "custom('x')"
    assert repr(reject(ASK_CANCELLED)) == "reject('ASK_CANCELLED')"
    assert repr(sequence("a", SKIP)) == "sequence('a', SKIP)"
    assert repr(with_notes(["a"], "n")) == "with_notes(('a',), 'n')"
    assert with_notes(["a"], "n") == with_notes(("a",), "n") != with_notes("a", "n")
    assert len({with_notes("a", "n"), with_notes("a", "n")}) == 1
    assert pickle.loads(pickle.dumps(SKIP)) is SKIP
    assert custom("x") == custom("x") and reject("A") == reject("A")
    assert len({custom("x"), custom("x"), reject("A")}) == 2
    assert len(sequence("a", "b")) == 2


def test_fixture_object_without_pytest() -> None:
    with UserInteractionFixture() as kit:
        kit.answer(pkg="npm", default=SKIP).when(pattern="name", answer="Ada")
        answer = kit.ui.ask_sync(request(PKG, NAME, TOOLS))
        assert items(answer) == {
            "pkg": AskUserQuestionAnswerItem("pkg", ["npm"]),
            "name": AskUserQuestionAnswerItem("name", custom="Ada"),
            "tools": AskUserQuestionAnswerItem("tools"),
        }
        assert kit.asked_ids == ["pkg", "name", "tools"]
        assert kit.question("name") is NAME
        assert kit.requests == [request(PKG, NAME, TOOLS)]
        assert kit.questions_asked == [PKG, NAME, TOOLS]
        kit.assert_asked("pkg")
        kit.assert_not_asked("go")
        assert repr(kit) == "<UserInteractionFixture asked=['pkg', 'name', 'tools']>"
    assert kit.provider.disposed
    assert kit.ui.provider is None
