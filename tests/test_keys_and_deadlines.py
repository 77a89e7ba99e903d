"""A request's ``key`` and ``remember``, a signal's ``deadline``, and the state directory:
what a provider that hands an ask on to another process (the inbox) relies on."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from user_interaction import (
    INVALID_REQUEST,
    STATE_DIR_ENV,
    AbortController,
    AbortSignal,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    hookimpl,
    state_dir,
)
from user_interaction import tool as ui_tool

QUESTION = AskUserQuestionItem("go", "Go?", options=["Yes", "No"])


class Keeper:
    """Answers "Yes" and keeps the request it was given."""

    def __init__(self) -> None:
        self.seen: list[AskUserQuestionRequest] = []

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.seen.append(request)
        return AskUserQuestionAnswer([AskUserQuestionAnswerItem("go", ["Yes"])])


# -- key and remember ---------------------------------------------------------------------


def test_key_and_remember_travel_on_the_wire_and_only_when_set() -> None:
    plain = AskUserQuestionRequest([QUESTION])
    assert "key" not in plain.to_dict()
    assert "remember" not in plain.to_dict()
    keyed = AskUserQuestionRequest([QUESTION], key="deploy:build-42", remember="tool:deploy")
    wire = keyed.to_dict()
    assert wire["key"] == "deploy:build-42"
    assert wire["remember"] == "tool:deploy"
    assert AskUserQuestionRequest.from_dict(wire) == keyed
    assert keyed != plain  # unlike agent and signal, the key is part of what is asked


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        ({"questions": [QUESTION.to_dict()], "key": 42}, "key: expected a string, got a number"),
        ({"questions": [QUESTION.to_dict()], "remember": []}, "remember: expected a string"),
    ],
)
def test_a_key_of_the_wrong_kind_is_refused_when_parsed(wire: Any, message: str) -> None:
    with pytest.raises(UserInteractionError) as info:
        AskUserQuestionRequest.from_dict(wire)
    assert info.value.code == INVALID_REQUEST
    assert info.value.message.startswith(message)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"key": " "}, "key: must not be blank"),
        ({"key": "\x00"}, "key: must not be blank"),
        ({"key": "a\ud800"}, "key: must be valid Unicode"),
        ({"key": 7}, "key: expected a string, got int"),
        ({"remember": ""}, "remember: must not be blank"),
        ({"remember": "tool:\udfff"}, "remember: must be valid Unicode"),
    ],
)
def test_a_bad_key_never_reaches_the_provider(
    ui: UserInteraction, fields: dict[str, Any], message: str
) -> None:
    provider = Keeper()
    ui.register_provider(provider)
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(AskUserQuestionRequest([QUESTION], **fields))
    assert info.value.code == INVALID_REQUEST
    assert info.value.message.startswith(message)
    assert provider.seen == []


def test_the_provider_gets_the_callers_key_and_remember_with_its_own_signal(
    ui: UserInteraction,
) -> None:
    provider = Keeper()
    ui.register_provider(provider)
    caller = AbortController()
    request = AskUserQuestionRequest([QUESTION], signal=caller.signal, key="k-1", remember="tool:x")
    ui.ask_sync(request)
    seen = provider.seen[0]
    assert (seen.key, seen.remember) == ("k-1", "tool:x")
    assert seen.signal is not None and seen.signal is not caller.signal


def test_through_extensions_the_key_still_reaches_the_provider(ui: UserInteraction) -> None:
    class Passing:
        @hookimpl
        def ask_wrapper(self, ui: UserInteraction) -> Any:
            return lambda next_ask: next_ask

    provider = Keeper()
    ui.register_provider(provider)
    ui.add_extension(Passing(), name="passing")
    ui.ask_sync(AskUserQuestionRequest([QUESTION], key="k-2"), timeout=30)
    assert provider.seen[0].key == "k-2"


def test_the_model_is_never_offered_a_key() -> None:
    properties = ui_tool.PARAMETERS["properties"]
    assert "key" not in properties and "remember" not in properties
    with pytest.raises(UserInteractionError) as info:
        ui_tool.parse_arguments({"questions": [{"id": "a", "question": "q"}], "key": "x"})
    assert info.value.code == INVALID_REQUEST


# -- deadlines ----------------------------------------------------------------------------


def test_a_timeout_signal_knows_its_deadline() -> None:
    before = time.monotonic()
    signal = AbortSignal.timeout(100)
    after = time.monotonic()
    assert signal.deadline is not None
    assert before + 100 <= signal.deadline <= after + 100
    left = signal.time_left()
    assert left is not None and 0 < left <= 100


def test_signals_without_a_deadline_say_none() -> None:
    for signal in (AbortController().signal, AbortSignal.timeout(float("inf"))):
        assert signal.deadline is None
        assert signal.time_left() is None


def test_time_left_is_never_negative() -> None:
    signal = AbortSignal.timeout(0)
    asyncio.run(signal.wait())
    assert signal.time_left() == 0.0


def test_any_takes_the_earliest_deadline_of_its_sources() -> None:
    near, far = AbortSignal.timeout(50), AbortSignal.timeout(500)
    combined = AbortSignal.any([far, AbortController().signal, near])
    assert combined.deadline == near.deadline
    assert AbortSignal.any([AbortController().signal]).deadline is None


@pytest.mark.parametrize("extended", [False, True], ids=["plain", "extensions"])
def test_the_providers_signal_carries_the_asks_timeout(ui: UserInteraction, extended: bool) -> None:
    if extended:

        class Observer:
            @hookimpl
            def ask_finished(self, **_: Any) -> None:
                pass

        ui.add_extension(Observer(), name="observer")
    provider = Keeper()
    ui.register_provider(provider)
    before = time.monotonic()
    ui.ask_sync(AskUserQuestionRequest([QUESTION]), timeout=60)
    deadline = provider.seen[0].signal.deadline  # type: ignore[union-attr]
    assert deadline is not None
    assert before + 60 <= deadline <= time.monotonic() + 60


def test_the_earlier_of_the_callers_deadline_and_the_timeout_wins(ui: UserInteraction) -> None:
    provider = Keeper()
    ui.register_provider(provider)
    caller = AbortSignal.timeout(30)
    ui.ask_sync(AskUserQuestionRequest([QUESTION], signal=caller), timeout=300)
    assert provider.seen[0].signal.deadline == caller.deadline  # type: ignore[union-attr]
    ui.ask_sync(AskUserQuestionRequest([QUESTION], signal=AbortSignal.timeout(300)), timeout=30)
    left = provider.seen[1].signal.time_left()  # type: ignore[union-attr]
    assert left is not None and left <= 30


def test_without_a_timeout_the_providers_signal_has_no_deadline(ui: UserInteraction) -> None:
    provider = Keeper()
    ui.register_provider(provider)
    ui.ask_sync(AskUserQuestionRequest([QUESTION]))
    assert provider.seen[0].signal.deadline is None  # type: ignore[union-attr]


@pytest.mark.parametrize("bad", [10**400, -(10**400)])
def test_a_timeout_no_float_can_hold_is_a_value_error(ui: UserInteraction, bad: int) -> None:
    ui.register_provider(Keeper())
    with pytest.raises(ValueError, match="timeout must be"):
        ui.ask_sync(AskUserQuestionRequest([QUESTION]), timeout=bad)
    with pytest.raises(ValueError, match="timeout must be"):
        AbortSignal.timeout(bad)


# -- the state directory ------------------------------------------------------------------


def test_the_state_dir_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "mine"))
    assert state_dir() == tmp_path / "mine"
    assert not (tmp_path / "mine").exists()  # asking where it is creates nothing


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG layout is Linux's")
def test_without_the_variable_it_is_the_users_state_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(STATE_DIR_ENV)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert state_dir() == tmp_path / "user-interaction"


def test_each_test_has_a_state_dir_of_its_own_and_no_inbox() -> None:
    assert os.environ[STATE_DIR_ENV]
    assert "USER_INTERACTION_INBOX" not in os.environ
