"""Routing: each ask goes to the session of the prompt turn it came from, whether the
turn is found in the running context, in ``request.agent``, or across ``ask_sync``'s
thread and loop; and how the provider is found and what it says without a turn."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from acp_support import in_process, prompt_text, run, within
from user_interaction_acp import AcpBridge, AcpProvider, AcpTurn, current_turn

from user_interaction import (
    PROVIDER_FAILED,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.testing import wire_question as question


def test_two_sessions_asking_at_once_each_get_their_own_form_and_answer() -> None:
    async def scenario() -> None:
        async with in_process() as harness:
            red, blue = await harness.new_session(), await harness.new_session()
            red_turn = harness.prompt(red, prompt_text(question("colour", "Red or?", "red")))
            blue_turn = harness.prompt(
                blue, prompt_text(question("shade", "Blue or?", "navy", "sky"))
            )
            first = await harness.client.next_form()
            second = await harness.client.next_form()
            forms = {form.session_id: form for form in (first, second)}
            assert set(forms) == {red, blue}
            assert list(forms[red].properties) == ["q1_colour", "q1_colour_custom"]
            assert list(forms[blue].properties) == ["q1_shade", "q1_shade_custom"]
            # answered in the other order than asked
            forms[blue].accept({"q1_shade": "sky"})
            forms[red].accept({"q1_colour": "red"})
            await within(asyncio.gather(red_turn, blue_turn))
            assert harness.client.reply_of(red) == {
                "answers": [{"id": "colour", "selected": ["red"]}]
            }
            assert harness.client.reply_of(blue) == {
                "answers": [{"id": "shade", "selected": ["sky"]}]
            }

    run(scenario())


@pytest.mark.parametrize("how", ["sync", "agent"])
def test_the_turn_is_found_across_threads_and_in_request_agent(how: str) -> None:
    """``ask_sync`` from a worker thread runs the provider on the manager's own loop: the
    turn travels in the context and the requests still go out on the connection's loop.
    A task outside the turn's context finds it in ``request.agent``."""

    async def scenario() -> None:
        async with in_process() as harness:
            other = await harness.new_session()
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(question("go", "Go?", "yes"), how=how))
            form = await harness.client.next_form()
            assert form.session_id == session != other
            form.accept({"q1_go": "yes"})
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, AskUserQuestionAnswer)
            assert outcome.to_dict() == {"answers": [{"id": "go", "selected": ["yes"]}]}
            await within(turn)

    run(scenario())


def test_an_abort_withdraws_the_form_from_another_loop_too() -> None:
    async def scenario() -> None:
        async with in_process() as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(question("go", "Go?", "yes"), how="sync"))
            form = await harness.client.next_form()
            await harness.cancel(session)
            assert await harness.client.next_withdrawal() == form.request_id
            assert (await within(turn)).stop_reason == "cancelled"

    run(scenario())


def test_without_a_turn_the_ask_fails_and_says_how_to_give_one() -> None:
    async def scenario() -> Any:
        with UserInteraction() as ui:
            ui.register_provider(AcpProvider())
            request = AskUserQuestionRequest.from_dict(
                {"questions": [{"id": "a", "question": "?"}]}
            )
            with pytest.raises(UserInteractionError) as caught:
                await ui.ask(request)
            return caught.value

    error = run(scenario())
    assert error.code == PROVIDER_FAILED
    assert isinstance(error.__cause__, RuntimeError)
    assert "bridge.turn(session_id)" in str(error.__cause__)
    assert "agent=turn" in str(error.__cause__)


def test_a_bridge_without_a_connection_says_so() -> None:
    async def scenario() -> Any:
        bridge = AcpBridge()
        with UserInteraction() as ui, bridge.turn("s1"):
            ui.register_provider(AcpProvider())
            request = AskUserQuestionRequest.from_dict(
                {"questions": [{"id": "a", "question": "?"}]}
            )
            with pytest.raises(UserInteractionError) as caught:
                await ui.ask(request)
            return caught.value

    error = run(scenario())
    assert error.code == PROVIDER_FAILED
    assert "on_connect" in str(error.__cause__)


def test_turns_set_and_restore_the_current_turn() -> None:
    async def scenario() -> None:
        bridge = AcpBridge(client_capabilities={"elicitation": {"form": {}}})
        assert bridge.supports_form
        assert current_turn() is None
        async with bridge.turn("s1", tool_call_id="call-1") as outer:
            assert current_turn() is outer
            assert (outer.session_id, outer.tool_call_id) == ("s1", "call-1")
            with bridge.turn("s2") as inner:
                assert current_turn() is inner
            assert current_turn() is outer
            seen: list[AcpTurn | None] = []

            async def child() -> None:
                seen.append(current_turn())

            await asyncio.ensure_future(child())
            assert seen == [outer]
        assert current_turn() is None
        bridge.cancel("s1")  # the turn has ended: no longer reached
        assert not outer.signal.aborted
        with bridge.turn("s1") as live:
            bridge.cancel("s1")
            assert live.signal.aborted
        with pytest.raises(ValueError, match="session_id"):
            bridge.turn("")

    run(scenario())


def test_the_acp_entry_point_builds_the_provider() -> None:
    with UserInteraction() as ui:
        info = {provider.name: provider for provider in ui.providers()}["acp"]
        assert info.value == "user_interaction_acp:AcpProvider"
        assert info.distribution == "user-interaction-acp"
        ui.use("acp")
        assert isinstance(ui.provider, AcpProvider)


def test_a_reloaded_provider_still_finds_the_turns_of_the_bridge_built_before() -> None:
    """``reload()`` imports this distribution afresh while the agent keeps its bridge (and
    the turns it hands out) from the code imported before."""
    saved = {
        name: module
        for name, module in sys.modules.items()
        if name == "user_interaction_acp" or name.startswith("user_interaction_acp.")
    }

    async def scenario() -> None:
        async with in_process() as harness:
            before = harness.agent.ui.provider
            harness.agent.ui.reload()
            after = harness.agent.ui.provider
            assert type(after) is not type(before)  # fresh code
            for how in ("await", "agent"):
                session = await harness.new_session()
                turn = harness.prompt(session, prompt_text(question("go", "Go?", "yes"), how=how))
                form = await harness.client.next_form()
                assert form.session_id == session
                form.accept({"q1_go": "yes"})
                outcome = await harness.agent.next_outcome()
                assert isinstance(outcome, AskUserQuestionAnswer), outcome
                await within(turn)

    try:
        run(scenario())
    finally:
        sys.modules.update(saved)
