"""Ending an ask early, against the SDK's own client side: the client's ``session/cancel``
and a timeout withdraw the open form on the wire (``$/cancel_request``) and a late reply is
ignored; a client that fails or disconnects is ``PROVIDER_FAILED`` with the cause kept."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp import RequestError
from acp_support import in_process, prompt_text, run, within

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    PROVIDER_FAILED,
    AskUserQuestionAnswer,
    UserInteractionError,
)
from user_interaction.testing import wire_question as question

PKG = question("pkg", "Which package manager?", "pnpm", "npm")
NAME = question("name", "Project name?")


@pytest.mark.parametrize("signal", [True, False], ids=["turn-signal", "provider-alone"])
def test_session_cancel_withdraws_the_open_form_and_ignores_the_late_reply(signal: bool) -> None:
    """Also when the caller did not pass the turn's signal: the provider watches it."""

    async def scenario() -> None:
        async with in_process() as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG, NAME, signal=signal))
            form = await harness.client.next_form()
            await harness.cancel(session)
            # the client sees the withdrawal of exactly that request
            assert await harness.client.next_withdrawal() == form.request_id
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, UserInteractionError)
            assert outcome.code == ASK_ABORTED
            assert "cancelled the prompt turn" in outcome.message
            response = await within(turn)
            assert response.stop_reason == "cancelled"
            assert harness.client.reply_of(session)["error"]["code"] == ASK_ABORTED
            # the user answers anyway: the late reply is dropped, the agent carries on
            form.accept({"q1_pkg": "npm"})
            await asyncio.sleep(0.05)
            again = harness.prompt(session, prompt_text(PKG))
            second = await harness.client.next_form()
            assert second.request_id != form.request_id
            second.accept({"q1_pkg": "pnpm"})
            answer = await harness.agent.next_outcome()
            assert isinstance(answer, AskUserQuestionAnswer)
            assert answer.to_dict()["answers"] == [{"id": "pkg", "selected": ["pnpm"]}]
            await within(again)

    run(scenario())


def test_a_timeout_withdraws_the_form() -> None:
    async def scenario() -> None:
        async with in_process() as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG, timeout=1.0))
            form = await harness.client.next_form()
            assert await harness.client.next_withdrawal() == form.request_id
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, UserInteractionError)
            assert outcome.code == ASK_TIMEOUT
            assert (await within(turn)).stop_reason == "end_turn"
            form.cancel()  # late: ignored

    run(scenario())


def test_cancelling_another_session_leaves_the_form_open() -> None:
    async def scenario() -> None:
        async with in_process() as harness:
            mine, other = await harness.new_session(), await harness.new_session()
            turn = harness.prompt(mine, prompt_text(PKG))
            form = await harness.client.next_form()
            await harness.cancel(other)
            await asyncio.sleep(0.05)
            assert harness.client.withdrawals.empty()
            form.accept({"q1_pkg": "npm"})
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, AskUserQuestionAnswer)
            await within(turn)

    run(scenario())


def test_a_client_that_disconnects_mid_ask_fails_the_ask_with_the_cause() -> None:
    async def scenario() -> None:
        async with in_process() as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG))
            await harness.client.next_form()
            await harness.connection.close()
            with pytest.raises(ConnectionError):
                await within(turn)
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, UserInteractionError)
            assert outcome.code == PROVIDER_FAILED
            assert "elicitation/create" in outcome.message
            assert isinstance(outcome.__cause__, ConnectionError)

    run(scenario())


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (RequestError.internal_error({"details": "renderer crashed"}), PROVIDER_FAILED),
        (RequestError.invalid_params({"details": "bad schema"}), PROVIDER_FAILED),
        (RequestError(-32800, "Request cancelled"), ASK_CANCELLED),
    ],
    ids=["internal-error", "invalid-params", "request-cancelled"],
)
def test_an_error_reply_keeps_its_cause(error: RequestError, code: str) -> None:
    async def scenario() -> Any:
        async with in_process() as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG))
            form = await harness.client.next_form()
            form.fail(error)
            outcome = await harness.agent.next_outcome()
            await within(turn)
            return outcome

    outcome = run(scenario())
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == code
    assert isinstance(outcome.__cause__, RequestError)
    assert outcome.__cause__.code == error.code
    assert f"error {error.code}" in outcome.message


@pytest.mark.parametrize("signal", [True, False], ids=["guarded", "inline"])
def test_disposing_the_provider_withdraws_the_open_form(signal: bool) -> None:
    """With a signal the manager aborts the provider's own signal; without one (the inline
    path) it cancels the provider's task: either way the form is withdrawn."""

    async def scenario() -> None:
        async with in_process() as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG, signal=signal))
            form = await harness.client.next_form()
            harness.agent.ui.close()
            assert await harness.client.next_withdrawal() == form.request_id
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, UserInteractionError)
            assert outcome.code == PROVIDER_DISPOSED
            await within(turn)

    run(scenario())
