"""Extensions that misbehave: whatever a wrapper raises is mapped as a provider's failure
would be, and nothing an observer does changes the outcome the caller gets."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from user_interaction import (
    ASK_TIMEOUT,
    EXTENSION_FAILED,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    hookimpl,
)
from user_interaction.extensions import AuditLog
from user_interaction.testing import ScriptedProvider

REQUEST = AskUserQuestionRequest(
    [
        AskUserQuestionItem(
            "pkg", "Which?", options=[AskUserQuestionOption("npm"), AskUserQuestionOption("pnpm")]
        )
    ]
)


class Raising:
    """A wrapper that raises ``error`` instead of asking."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    @hookimpl
    def ask_wrapper(self, ui: UserInteraction) -> Any:
        def wrap(next_ask: Any) -> Any:
            async def ask(request: AskUserQuestionRequest) -> Any:
                raise self.error

            return ask

        return wrap


def ask(ui: UserInteraction, *, use_async: bool, timeout: float | None = None) -> Any:
    if use_async:
        return asyncio.run(ui.ask(REQUEST, timeout=timeout))
    return ui.ask_sync(REQUEST, timeout=timeout)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("timeout", [None, 30.0], ids=["no-timeout", "timeout"])
@pytest.mark.parametrize(
    "error",
    [GeneratorExit(), asyncio.CancelledError(), StopIteration(), StopAsyncIteration()],
    ids=lambda error: type(error).__name__,
)
def test_whatever_a_wrapper_raises_is_extension_failed_naming_it(
    ui: UserInteraction, error: BaseException, timeout: float | None, use_async: bool
) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "npm"}))
    ui.add_extension(Raising(error))  # no name given: known by its class
    with pytest.raises(UserInteractionError) as info:
        ask(ui, use_async=use_async, timeout=timeout)
    assert info.value.code == EXTENSION_FAILED
    assert info.value.message.startswith("Extension 'Raising': its wrapper raised")


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_from_a_wrapper_reach_the_caller(
    ui: UserInteraction, error: type[BaseException]
) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "npm"}))
    ui.add_extension(Raising(error()))
    with pytest.raises(error):
        ui.ask_sync(REQUEST, timeout=30)


def test_extensions_added_without_a_name_are_named_by_their_class(ui: UserInteraction) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "npm"}))
    first, second = Raising(ValueError("first")), Raising(ValueError("second"))
    ui.add_extension(first)
    ui.add_extension(second)
    assert ui.pluginmanager.get_name(first) == "Raising"
    assert ui.pluginmanager.get_name(second) == "Raising#2"
    with pytest.raises(UserInteractionError) as info:  # the outermost raises first
        ui.ask_sync(REQUEST)
    assert info.value.message == "Extension 'Raising#2': its wrapper raised: ValueError: second"


class Observer:
    """An observer that raises ``error`` (after noting the answer it was told)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.told: list[Any] = []

    @hookimpl
    def ask_finished(self, answer: Any) -> None:
        self.told.append(answer)
        raise self.error


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    "error",
    [
        asyncio.CancelledError(),
        SystemExit(3),
        KeyboardInterrupt(),
        GeneratorExit(),
        UserInteractionError("observer", ASK_TIMEOUT),
    ],
    ids=lambda error: type(error).__name__,
)
def test_nothing_an_observer_raises_changes_the_answer(
    ui: UserInteraction,
    error: BaseException,
    use_async: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "pnpm"}))
    observer = Observer(error)
    ui.add_extension(observer, name="hostile")
    with caplog.at_level(logging.ERROR, logger="user_interaction"):
        answer = ask(ui, use_async=use_async)
    assert answer.get("pkg").selected == ("pnpm",)
    assert observer.told == [answer]
    assert "ask_finished of extension 'hostile' failed" in caplog.text


def test_an_async_observer_raising_system_exit_leaves_the_loop_running(
    ui: UserInteraction, caplog: pytest.LogCaptureFixture
) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "pnpm"}))
    raised = threading.Event()

    class AsyncExit:
        @hookimpl
        async def ask_finished(self) -> None:
            raised.set()
            raise SystemExit(3)

    ui.add_extension(AsyncExit(), name="async-exit")
    with caplog.at_level(logging.ERROR, logger="user_interaction"):
        ui.ask_sync(REQUEST)
        assert raised.wait(10)
        assert ui.ask_sync(REQUEST).get("pkg").selected == ("pnpm",)  # the loop still serves
    assert "ask_finished of extension 'async-exit' failed" in caplog.text


@pytest.mark.parametrize("timeout", [None, 0.5], ids=["no-deadline", "deadline"])
def test_a_blocking_observer_is_left_to_finish_on_its_own(
    ui: UserInteraction, timeout: float | None
) -> None:
    """The caller waits for a blocking observer until its deadline (a second without one),
    then has its answer while the observer still runs."""
    ui.register_provider(ScriptedProvider({"pkg": "pnpm"}))
    release, finished = threading.Event(), threading.Event()

    class Blocking:
        @hookimpl
        def ask_finished(self) -> None:
            release.wait(60)
            finished.set()

    ui.add_extension(Blocking())
    try:
        assert ui.ask_sync(REQUEST, timeout=timeout).get("pkg").selected == ("pnpm",)
        assert not finished.is_set()
    finally:
        release.set()
    assert finished.wait(10)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_the_audit_line_is_written_when_the_ask_returns(
    ui: UserInteraction, tmp_path: Path, use_async: bool
) -> None:
    ui.register_provider(ScriptedProvider({"pkg": "npm"}, delay=30))
    path = tmp_path / "audit.jsonl"
    ui.add_extension(AuditLog(path))
    with pytest.raises(UserInteractionError):
        ask(ui, use_async=use_async, timeout=0.05)  # even an ask that timed out
    (line,) = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["error"]["code"] == ASK_TIMEOUT
