"""One-line asks: confirm, select, checkbox and text, async and sync, through a
scripted provider."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from core_support import until

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
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
)
from user_interaction.testing import OMIT, SILENT, SKIP, ScriptedProvider, custom, reject

FORMS = ("async", "sync")


@pytest.fixture(params=FORMS)
def form(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def call(ui: UserInteraction, form: str, method: str, *args: Any, **kwargs: Any) -> Any:
    """``ui.<method>(...)`` awaited, or ``ui.<method>_sync(...)``."""
    if form == "sync":
        return getattr(ui, f"{method}_sync")(*args, **kwargs)
    return asyncio.run(getattr(ui, method)(*args, **kwargs))


def error(ui: UserInteraction, form: str, method: str, *args: Any, **kwargs: Any) -> Any:
    with pytest.raises(UserInteractionError) as info:
        call(ui, form, method, *args, **kwargs)
    return info.value


def only_question(provider: ScriptedProvider) -> AskUserQuestionItem:
    (request,) = provider.requests
    (item,) = request.questions
    return item


# -- confirm ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("label", "expected"), [("Yes", True), ("No", False)])
def test_confirm_returns_the_choice(
    ui: UserInteraction, scripted: ScriptedProvider, form: str, label: str, expected: bool
) -> None:
    scripted.answer(answer=label)
    assert call(ui, form, "confirm", "Deploy now?") is expected
    assert only_question(scripted) == AskUserQuestionItem(
        "answer", "Deploy now?", options=[AskUserQuestionOption("Yes"), AskUserQuestionOption("No")]
    )


def test_confirm_passes_header_detail_and_signal(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer="Yes")
    controller = AbortController()
    assert call(
        ui, form, "confirm", "Deploy?", header="Confirm", detail="v2.1", signal=controller.signal
    )
    item = only_question(scripted)
    assert (item.header, item.detail, item.multi_select) == ("Confirm", "v2.1", False)
    # the provider gets a signal of its own that follows the caller's
    signal = scripted.requests[0].signal
    assert signal is not None and not signal.aborted


def test_confirm_custom_text_is_declined_and_quoted(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer=custom("only on Fridays"))
    err = error(ui, form, "confirm", "Deploy now?")
    assert err.code == ASK_DECLINED
    assert "'only on Fridays'" in err.message


@pytest.mark.parametrize("spec", [SKIP, OMIT], ids=["skipped", "left-out"])
@pytest.mark.parametrize("method", ["confirm", "select", "text"])
def test_no_explicit_answer_is_declined(
    ui: UserInteraction, scripted: ScriptedProvider, form: str, method: str, spec: Any
) -> None:
    scripted.answer(answer=spec)
    args = ("Which?", ["a", "b"]) if method == "select" else ("Which?",)
    assert error(ui, form, method, *args).code == ASK_DECLINED


def test_confirm_with_a_label_other_than_yes_or_no_is_invalid_answer(form: str) -> None:
    class Maybe:
        def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            return AskUserQuestionAnswer([AskUserQuestionAnswerItem("answer", ["Maybe"])])

    with UserInteraction() as ui:
        ui.register_provider(Maybe())
        err = error(ui, form, "confirm", "Deploy now?")
    assert err.code == INVALID_ANSWER
    assert "'Maybe' was not offered" in err.message


# -- select ----------------------------------------------------------------------------------


def test_select_returns_the_label_and_takes_options(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer="npm")
    fast = AskUserQuestionOption("pnpm", "fast, strict")
    assert call(ui, form, "select", "Which package manager?", [fast, "npm"]) == "npm"
    item = only_question(scripted)
    assert item.options == (fast, AskUserQuestionOption("npm"))
    assert not item.multi_select


def test_select_returns_custom_text(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer=custom("bun"))
    assert call(ui, form, "select", "Which?", ("pnpm", "npm")) == "bun"


def test_select_accepts_any_iterable(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer="b")
    assert call(ui, form, "select", "Which?", (label for label in "ab")) == "b"


# -- checkbox --------------------------------------------------------------------------------


def test_checkbox_returns_labels_in_offered_order(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer=["pytest", "ruff"])
    assert call(ui, form, "checkbox", "Which tools?", ["ruff", "mypy", "pytest"]) == [
        "ruff",
        "pytest",
    ]
    assert only_question(scripted).multi_select


def test_checkbox_none_chosen_is_an_empty_list(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer=[])
    assert call(ui, form, "checkbox", "Which tools?", ["ruff", "mypy"]) == []


def test_checkbox_custom_text_is_a_list_of_it(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer=custom("all of them"))
    assert call(ui, form, "checkbox", "Which tools?", ["ruff", "mypy"]) == ["all of them"]


def test_checkbox_left_out_is_declined(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer=OMIT)
    assert error(ui, form, "checkbox", "Which tools?", ["ruff"]).code == ASK_DECLINED


# -- text ------------------------------------------------------------------------------------


def test_text_returns_the_text(ui: UserInteraction, scripted: ScriptedProvider, form: str) -> None:
    scripted.answer(answer="Ada")
    assert call(ui, form, "text", "Your name?", header="Name", detail="for the commit") == "Ada"
    assert only_question(scripted) == AskUserQuestionItem(
        "answer", "Your name?", header="Name", detail="for the commit"
    )


# -- bad options: rejected before any provider is asked ----------------------------------------


@pytest.mark.parametrize(
    ("options", "where"),
    [
        ([], "questions[0].options: at least one option"),
        (["a", "  "], "questions[0].options[1].label: must not be blank"),
        (["a", ""], "questions[0].options[1].label: must not be blank"),
        (["a", "b", "a"], "questions[0].options[2].label: duplicate label 'a'"),
        (["a", AskUserQuestionOption("a", "again")], "options[1].label: duplicate label 'a'"),
    ],
)
@pytest.mark.parametrize("method", ["select", "checkbox"])
def test_bad_options_are_invalid_request(
    ui: UserInteraction,
    scripted: ScriptedProvider,
    form: str,
    method: str,
    options: list[Any],
    where: str,
) -> None:
    scripted.default = "a"
    err = error(ui, form, method, "Which?", options)
    assert err.code == INVALID_REQUEST
    assert where in err.message
    assert scripted.requests == []


@pytest.mark.parametrize("method", ["select", "checkbox"])
def test_a_string_of_options_is_a_type_error(
    ui: UserInteraction, scripted: ScriptedProvider, method: str
) -> None:
    with pytest.raises(TypeError, match="options: expected labels"):
        ui.select_sync("Which?", "ab") if method == "select" else ui.checkbox_sync("Which?", "ab")
    assert scripted.requests == []


@pytest.mark.parametrize("method", ["confirm", "text"])
def test_blank_question_is_invalid_request(
    ui: UserInteraction, scripted: ScriptedProvider, form: str, method: str
) -> None:
    assert error(ui, form, method, " ").code == INVALID_REQUEST
    assert scripted.requests == []


# -- every other outcome raises as ask() does --------------------------------------------------


@pytest.mark.parametrize("code", [ASK_CANCELLED, ASK_DECLINED])
def test_the_humans_refusal_passes_through(
    ui: UserInteraction, scripted: ScriptedProvider, form: str, code: str
) -> None:
    scripted.answer(answer=reject(code, "not now"))
    err = error(ui, form, "select", "Which?", ["a"])
    assert (err.code, err.message) == (code, "not now")


def test_timeout_goes_to_ask(ui: UserInteraction, scripted: ScriptedProvider, form: str) -> None:
    scripted.answer(answer=SILENT)
    assert error(ui, form, "confirm", "Deploy?", timeout=0.05).code == ASK_TIMEOUT


def test_signal_goes_onto_the_request(
    ui: UserInteraction, scripted: ScriptedProvider, form: str
) -> None:
    scripted.answer(answer=SILENT)
    controller = AbortController()
    controller.abort()
    assert error(ui, form, "text", "Name?", signal=controller.signal).code == ASK_ABORTED
    assert scripted.requests == []


def test_abort_while_pending(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    scripted.answer(answer=SILENT)
    controller = AbortController()

    async def main() -> None:
        asking = asyncio.ensure_future(ui.checkbox("Which?", ["a"], signal=controller.signal))
        await until(lambda: scripted.requests, "the provider has the ask")
        controller.abort()
        await asking

    with pytest.raises(UserInteractionError) as info:
        asyncio.run(main())
    assert info.value.code == ASK_ABORTED


def test_no_provider(form: str) -> None:
    with UserInteraction() as ui:
        assert error(ui, form, "text", "Name?").code == NO_PROVIDER


def test_sync_twin_refuses_a_running_loop(ui: UserInteraction) -> None:
    async def main() -> None:
        ui.confirm_sync("Deploy?")

    with pytest.raises(RuntimeError, match="ask_sync"):
        asyncio.run(main())


def test_the_fixture_scripts_them_by_the_id_answer(user_interaction: Any) -> None:
    user_interaction.answer(answer="Yes")
    assert user_interaction.ui.confirm_sync("Deploy?") is True
    user_interaction.assert_asked("answer")
