"""Extensions: wrappers around every ask, observers after it, in pluggy's order."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any, Callable

import pluggy
import pytest
from core_support import until, wait_until

from user_interaction import (
    ASK_ABORTED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    EMPTY_QUESTIONS,
    EXTENSION_FAILED,
    INVALID_ANSWER,
    INVALID_REQUEST,
    NO_PROVIDER,
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    hookimpl,
)
from user_interaction.testing import ScriptedProvider

PKG = AskUserQuestionItem(
    "pkg",
    "Which package manager?",
    options=[AskUserQuestionOption("npm"), AskUserQuestionOption("pnpm")],
)
NAME = AskUserQuestionItem("name", "Your name?")
REQUEST = AskUserQuestionRequest([PKG, NAME])
Wrap = Callable[[Any], Any]


class Wrapper:
    """A pass-through wrapper that notes its name in ``log`` on the way in."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log
        self.built = 0

    @hookimpl
    def ask_wrapper(self, ui: UserInteraction) -> Wrap:
        self.built += 1

        def wrap(next_ask: Any) -> Any:
            async def ask(request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
                self.log.append(self.name)
                return await next_ask(request)  # type: ignore[no-any-return]

            return ask

        return wrap


class Observer:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    @hookimpl
    def ask_finished(
        self,
        request: AskUserQuestionRequest,
        answer: AskUserQuestionAnswer | None,
        error: UserInteractionError | None,
        provider: str | None,
        seconds: float,
    ) -> None:
        self.calls.append(
            {
                "request": request,
                "answer": answer,
                "error": error,
                "provider": provider,
                "seconds": seconds,
            }
        )


def wrapper(body: Callable[[Any, AskUserQuestionRequest], Any]) -> object:
    """An extension whose wrapper's ask is ``body(next_ask, request)``."""

    class Extension:
        @hookimpl
        def ask_wrapper(self, ui: UserInteraction) -> Wrap:
            def wrap(next_ask: Any) -> Any:
                async def ask(request: AskUserQuestionRequest) -> Any:
                    return await body(next_ask, request)

                return ask

            return wrap

    return Extension()


@pytest.fixture
def provider(ui: UserInteraction) -> ScriptedProvider:
    scripted = ScriptedProvider({"pkg": "pnpm", "name": "Ada"})
    ui.register_provider(scripted)
    return scripted


def failure(ui: UserInteraction, request: AskUserQuestionRequest = REQUEST, **kw: Any) -> Any:
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(request, **kw)
    return info.value


# -- the plain path ---------------------------------------------------------------------


def test_without_extensions_asks_take_the_plain_path(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    assert ui._stale  # until the installed extensions are known to be none
    ui.ask_sync(REQUEST)
    assert (ui._stale, ui._chain) == (False, None)
    disposer = ui.add_extension(Observer())
    assert ui._stale
    ui.ask_sync(REQUEST)
    assert ui._chain is not None
    disposer()
    ui.ask_sync(REQUEST)
    assert (ui._stale, ui._chain) == (False, None)


def test_the_plugin_manager(ui: UserInteraction, provider: ScriptedProvider) -> None:
    pm = ui.pluginmanager
    assert isinstance(pm, pluggy.PluginManager)
    assert pm.project_name == "user_interaction"
    observer = Observer()
    pm.register(observer, name="direct")  # registering through pluggy works as well
    ui.ask_sync(REQUEST)
    assert len(observer.calls) == 1
    pm.unregister(observer)
    ui.ask_sync(REQUEST)
    assert len(observer.calls) == 1
    assert UserInteraction().pluginmanager is not pm  # one per context


# -- order ------------------------------------------------------------------------------


class First(Wrapper):
    @hookimpl(tryfirst=True)
    def ask_wrapper(self, ui: UserInteraction) -> Wrap:
        return super().ask_wrapper(ui)


class Last(Wrapper):
    @hookimpl(trylast=True)
    def ask_wrapper(self, ui: UserInteraction) -> Wrap:
        return super().ask_wrapper(ui)


def test_wrappers_run_in_hook_order_for_ask_and_ask_sync(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    log: list[str] = []
    ui.add_extension(Last("last", log))
    ui.add_extension(Wrapper("a", log))
    ui.add_extension(First("first", log))
    ui.add_extension(Wrapper("b", log))  # registered later: called earlier (pluggy's LIFO)
    ui.ask_sync(REQUEST)
    assert log == ["first", "b", "a", "last"]
    log.clear()
    asyncio.run(ui.ask(REQUEST))
    assert log == ["first", "b", "a", "last"]


def test_the_chain_is_built_when_extensions_change_not_per_ask(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    log: list[str] = []
    first = Wrapper("first", log)
    ui.add_extension(first)
    for _ in range(3):
        ui.ask_sync(REQUEST)
    assert first.built == 1
    second = ui.add_extension(Wrapper("second", log))
    ui.ask_sync(REQUEST)
    assert first.built == 2
    second()
    second()  # idempotent
    log.clear()
    ui.ask_sync(REQUEST)
    assert (first.built, log) == (3, ["first"])


def test_a_wrapper_may_stay_out_with_none(ui: UserInteraction, provider: ScriptedProvider) -> None:
    class Absent:
        @hookimpl
        def ask_wrapper(self, ui: UserInteraction) -> None:
            return None

    ui.add_extension(Absent())
    assert ui.ask_sync(REQUEST).get("pkg").selected == ("pnpm",)


# -- what a wrapper may do --------------------------------------------------------------


def test_a_wrapper_answers_alone_without_a_provider(ui: UserInteraction) -> None:
    async def alone(next_ask: Any, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        return AskUserQuestionAnswer([AskUserQuestionAnswerItem(q.id) for q in request.questions])

    observer = Observer()
    ui.add_extension(wrapper(alone))
    ui.add_extension(observer)
    assert [item.id for item in ui.ask_sync(REQUEST).answers] == ["pkg", "name"]
    (call,) = observer.calls
    assert call["provider"] is None
    assert call["error"] is None


def test_without_a_provider_next_ask_is_no_provider(ui: UserInteraction) -> None:
    ui.add_extension(Wrapper("w", []))
    assert failure(ui).code == NO_PROVIDER


def test_a_wrapper_rewrites_the_request(ui: UserInteraction, provider: ScriptedProvider) -> None:
    async def only_pkg(next_ask: Any, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        inner = await next_ask(AskUserQuestionRequest([request.questions[0]], request.agent))
        return AskUserQuestionAnswer(
            [*inner.answers, AskUserQuestionAnswerItem("name", custom="Bo")]
        )

    observer = Observer()
    ui.add_extension(wrapper(only_pkg))
    ui.add_extension(observer)
    answer = ui.ask_sync(REQUEST)
    assert provider.asked_ids == ["pkg"]
    assert answer.get("name").custom == "Bo"
    assert provider.requests[0].signal is not None  # the provider still gets its own signal
    assert observer.calls[0]["provider"] == "scripted"
    assert observer.calls[0]["request"] is REQUEST


@pytest.mark.parametrize(
    ("rewrite", "code"),
    [
        (lambda r: AskUserQuestionRequest([]), EMPTY_QUESTIONS),
        (lambda r: AskUserQuestionRequest([PKG, PKG]), INVALID_REQUEST),
        (lambda r: {"questions": []}, INVALID_REQUEST),
    ],
)
def test_the_rewritten_request_is_validated(
    ui: UserInteraction, provider: ScriptedProvider, rewrite: Any, code: str
) -> None:
    async def bad(next_ask: Any, request: AskUserQuestionRequest) -> Any:
        return await next_ask(rewrite(request))

    ui.add_extension(wrapper(bad))
    assert failure(ui).code == code
    assert provider.requests == []


def test_a_wrapper_changes_the_answer(ui: UserInteraction, provider: ScriptedProvider) -> None:
    async def louder(next_ask: Any, request: AskUserQuestionRequest) -> Any:
        await next_ask(request)
        return {"answers": [{"id": "pkg", "selected": ["npm"]}, {"id": "name", "custom": "ADA"}]}

    ui.add_extension(wrapper(louder))
    answer = ui.ask_sync(REQUEST)  # a wire dict is parsed, then checked
    assert (answer.get("pkg").selected, answer.get("name").custom) == (("npm",), "ADA")


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"answers": [{"id": "other", "custom": "x"}]}, "'other' was not asked"),
        ({"answers": [{"id": "pkg", "selected": ["yarn"]}]}, "yarn"),
        ("not an answer", "expected AskUserQuestionAnswer"),
    ],
)
def test_the_final_answer_is_validated_against_the_callers_request(
    ui: UserInteraction, provider: ScriptedProvider, answer: object, problem: str
) -> None:
    async def wrong(next_ask: Any, request: AskUserQuestionRequest) -> Any:
        await next_ask(request)
        return answer

    ui.add_extension(wrapper(wrong))
    error = failure(ui)
    assert error.code == INVALID_ANSWER
    assert problem in error.message


def test_a_wrapper_that_drops_a_question_is_invalid_answer(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    async def drop(next_ask: Any, request: AskUserQuestionRequest) -> Any:
        return await next_ask(AskUserQuestionRequest([request.questions[0]]))

    ui.add_extension(wrapper(drop))
    error = failure(ui)
    assert error.code == INVALID_ANSWER
    assert "dropped questions 'name'" in error.message


def test_a_question_the_human_left_unanswered_is_not_dropped(ui: UserInteraction) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "npm", "name": ScriptedOmit()}))
    ui.add_extension(Wrapper("w", []))
    assert [item.id for item in ui.ask_sync(REQUEST).answers] == ["pkg"]


def ScriptedOmit() -> Any:
    from user_interaction.testing import OMIT

    return OMIT


def test_a_wrapper_raising_a_user_interaction_error_ends_the_ask_with_it(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    async def policy(next_ask: Any, request: AskUserQuestionRequest) -> Any:
        raise UserInteractionError("Not at night.", ASK_DECLINED)

    observer = Observer()
    ui.add_extension(wrapper(policy), name="night-policy")
    ui.add_extension(observer)
    error = failure(ui)
    assert (error.code, error.message) == (ASK_DECLINED, "Not at night.")
    assert provider.requests == []
    assert observer.calls[0]["error"] is error


def test_anything_else_a_wrapper_raises_is_extension_failed(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    async def buggy(next_ask: Any, request: AskUserQuestionRequest) -> Any:
        raise KeyError("oops")

    ui.add_extension(wrapper(buggy), name="buggy")
    error = failure(ui)
    assert error.code == EXTENSION_FAILED
    assert "'buggy'" in error.message
    assert isinstance(error.__cause__, KeyError)


def test_a_raising_or_wrong_ask_wrapper_hook_is_extension_failed(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    class Raising:
        @hookimpl
        def ask_wrapper(self, ui: UserInteraction) -> Any:
            raise RuntimeError("cannot build")

    class NotCallable:
        @hookimpl
        def ask_wrapper(self, ui: UserInteraction) -> Any:
            return 42

    disposer = ui.add_extension(Raising(), name="raising")
    error = failure(ui)
    assert (error.code, isinstance(error.__cause__, RuntimeError)) == (EXTENSION_FAILED, True)
    assert "'raising'" in error.message
    disposer()
    with ui.add_extension(NotCallable(), name="not-callable"):
        assert "'not-callable': ask_wrapper() returned int" in failure(ui).message
    ui.ask_sync(REQUEST)  # both gone: asks work again


@pytest.mark.parametrize(
    ("extension", "problem"),
    [
        (object(), "implements no hook"),
        (type("Typo", (), {"ask_finshed": hookimpl(lambda self, request: None)})(), "ask_finshed"),
        (type("Bad", (), {"ask_finished": hookimpl(lambda self, answr: None)})(), "answr"),
    ],
)
def test_add_extension_rejects_what_is_not_an_extension(
    ui: UserInteraction, extension: object, problem: str
) -> None:
    with pytest.raises(TypeError, match=problem):
        ui.add_extension(extension)
    assert ui.pluginmanager.get_plugins() == set()


# -- observers --------------------------------------------------------------------------


def test_observers_see_every_ask_past_request_validation(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    observer = Observer()
    ui.add_extension(observer)
    answer = ui.ask_sync(REQUEST)
    with pytest.raises(UserInteractionError):
        ui.ask_sync(AskUserQuestionRequest([]))  # never got past validation
    provider.answer(name=ScriptedOmit())
    provider.answer(pkg="yarn")
    error = failure(ui)  # UNANSWERED_QUESTION from the provider
    (first, second) = observer.calls
    assert (first["answer"], first["error"], first["provider"]) == (answer, None, "scripted")
    assert first["seconds"] >= 0
    assert (second["answer"], second["error"]) == (None, error)


def test_observers_only_keep_the_plain_path_timeouts(ui: UserInteraction) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "npm", "name": "x"}, delay=10))
    observer = Observer()
    ui.add_extension(observer)
    assert failure(ui, timeout=0.05).code == ASK_TIMEOUT
    assert observer.calls[0]["error"].code == ASK_TIMEOUT


def test_an_observer_that_raises_is_logged_and_changes_nothing(
    ui: UserInteraction, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken:
        @hookimpl
        def ask_finished(self, request: AskUserQuestionRequest) -> None:
            raise RuntimeError("observer bug")

    after = Observer()
    ui.add_extension(after)
    ui.add_extension(Broken(), name="broken-observer")  # called first
    with caplog.at_level(logging.ERROR, logger="user_interaction"):
        assert ui.ask_sync(REQUEST).get("pkg").selected == ("pnpm",)
    assert "broken-observer" in caplog.text
    assert "observer bug" in caplog.text
    assert len(after.calls) == 1


def test_an_async_observer_runs_without_delaying_the_ask(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    release = threading.Event()
    done = threading.Event()

    class Slow:
        @hookimpl
        async def ask_finished(self, request: AskUserQuestionRequest) -> None:
            # finishes once the ask has returned (an ask waiting for it returns a minute
            # later, and finds it done)
            await asyncio.get_running_loop().run_in_executor(None, release.wait, 60)
            done.set()

    ui.add_extension(Slow())
    ui.ask_sync(REQUEST)
    assert not done.is_set()
    release.set()
    assert done.wait(60)


# -- timeout, signal, cancellation ------------------------------------------------------


async def _forever(next_ask: Any, request: AskUserQuestionRequest) -> Any:
    await asyncio.sleep(3600)


async def _stubborn(next_ask: Any, request: AskUserQuestionRequest) -> Any:
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            pass  # a wrapper that refuses to stop


@pytest.mark.parametrize("body", [_forever, _stubborn])
def test_the_timeout_covers_the_wrappers(
    ui: UserInteraction, provider: ScriptedProvider, body: Any
) -> None:
    observer = Observer()
    ui.add_extension(wrapper(body))
    ui.add_extension(observer)
    started = time.perf_counter()
    assert failure(ui, timeout=0.1).code == ASK_TIMEOUT
    assert time.perf_counter() - started < 10  # promptly: the wrappers never end by themselves
    assert observer.calls[0]["error"].code == ASK_TIMEOUT


def test_the_signal_covers_the_wrappers(ui: UserInteraction, provider: ScriptedProvider) -> None:
    ui.add_extension(wrapper(_forever))
    controller = AbortController()
    threading.Timer(0.05, controller.abort).start()
    request = AskUserQuestionRequest([PKG], signal=controller.signal)
    assert failure(ui, request).code == ASK_ABORTED


def test_the_provider_is_told_when_the_timeout_ends_the_ask(ui: UserInteraction) -> None:
    seen: list[object] = []

    class Waiting:
        async def ask(self, request: AskUserQuestionRequest) -> Any:
            try:
                await asyncio.sleep(3600)
            finally:
                seen.append(request.signal.reason if request.signal else None)

    ui.register_provider(Waiting())
    ui.add_extension(Wrapper("w", []))
    assert failure(ui, timeout=0.05).code == ASK_TIMEOUT
    wait_until(lambda: seen, "the provider has unwound")
    (reason,) = seen
    assert isinstance(reason, UserInteractionError)
    assert reason.code == ASK_TIMEOUT


def test_a_cancelled_caller_cancels_the_chain(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    observer = Observer()
    entered: list[bool] = []

    async def forever(next_ask: Any, request: AskUserQuestionRequest) -> Any:
        entered.append(True)
        await _forever(next_ask, request)

    ui.add_extension(wrapper(forever))
    ui.add_extension(observer)

    async def main() -> None:
        task = asyncio.ensure_future(ui.ask(REQUEST, timeout=60))
        await until(lambda: entered, "the ask is in the wrapper")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0)
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        assert all(t.done() for t in others)

    asyncio.run(main())
    assert observer.calls[0]["error"].code == ASK_ABORTED


def test_concurrent_asks_through_wrappers(ui: UserInteraction, provider: ScriptedProvider) -> None:
    ui.add_extension(Wrapper("w", []))
    observer = Observer()
    ui.add_extension(observer)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(50):
                ui.ask_sync(REQUEST, timeout=30)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(observer.calls) == 200


def test_a_slow_observer_never_holds_the_asks_of_other_threads(
    ui: UserInteraction, provider: ScriptedProvider
) -> None:
    first_told = threading.Event()
    release = threading.Event()

    class Slow:
        @hookimpl
        def ask_finished(self) -> None:
            if not first_told.is_set():
                first_told.set()
                release.wait(30)

    ui.add_extension(Slow())
    first = threading.Thread(target=ui.ask_sync, args=(REQUEST,), kwargs={"timeout": 60})
    first.start()
    assert first_told.wait(10)  # the first ask's observer now blocks ...
    assert ui.ask_sync(REQUEST).get("pkg").selected == ("pnpm",)  # ... and others go on
    release.set()
    first.join()
