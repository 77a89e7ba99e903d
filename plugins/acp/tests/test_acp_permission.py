"""The fallback for clients without form elicitation, against the SDK's own client side:
one ``session/request_permission`` per single-select question, one per option (include
or skip) of a multi-select question; free text fails."""

from __future__ import annotations

from typing import Any

import pytest
from acp_support import in_process, prompt_text, run, within

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    INVALID_ANSWER,
    PROVIDER_FAILED,
    AskUserQuestionAnswer,
    UserInteractionError,
)
from user_interaction.testing import wire_question as question

PKG = question(
    "pkg",
    "Which package manager?",
    "pnpm",
    "npm",
    header="Package",
    detail="The lockfile decides.",
    descriptions={"pnpm": "fast, strict"},
)
GO = question("go", "Ship it?", "yes", "no")


def test_each_single_select_question_is_one_permission_prompt() -> None:
    async def scenario() -> None:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG, GO))
            first = await harness.client.next_permission()
            assert first.session_id == session
            assert first.params["options"] == [
                {"optionId": "option-1", "name": "pnpm", "kind": "allow_once"},
                {"optionId": "option-2", "name": "npm", "kind": "allow_once"},
            ]
            tool_call = first.params["toolCall"]
            assert tool_call["title"] == "Package: Which package manager?"
            assert tool_call["kind"] == "other"
            assert tool_call["status"] == "pending"
            assert tool_call["toolCallId"].startswith("user-question-")
            assert tool_call["content"] == [
                {
                    "type": "content",
                    "content": {
                        "type": "text",
                        "text": "Which package manager?\n\nThe lockfile decides.\n\n"
                        "- pnpm: fast, strict",
                    },
                }
            ]
            assert harness.client.requests.empty()  # one question at a time
            first.select("npm")
            second = await harness.client.next_permission()
            assert second.params["toolCall"]["title"] == "Ship it?"
            assert second.params["toolCall"]["toolCallId"] != tool_call["toolCallId"]
            second.select("yes")
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, AskUserQuestionAnswer)
            assert outcome.to_dict()["answers"] == [
                {"id": "pkg", "selected": ["npm"]},
                {"id": "go", "selected": ["yes"]},
            ]
            await within(turn)
            assert harness.client.request_ids("elicitation/create") == []

    run(scenario())


def test_an_approval_maps_its_choices_to_the_permission_kinds() -> None:
    """What ui.approve(..., remember=...) asks: the client sees allow and reject, once and
    always, and the choice comes back as its label."""
    approve = question(
        "approve", "Deploy?", "Allow", "Deny", "Always allow", "Always deny", header="Approve"
    )

    async def scenario() -> None:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(approve, remember="tool:deploy"))
            prompt = await harness.client.next_permission()
            assert [(o["name"], o["kind"]) for o in prompt.params["options"]] == [
                ("Allow", "allow_once"),
                ("Deny", "reject_once"),
                ("Always allow", "allow_always"),
                ("Always deny", "reject_always"),
            ]
            prompt.select("Always allow")
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, AskUserQuestionAnswer)
            assert outcome.to_dict()["answers"] == [{"id": "approve", "selected": ["Always allow"]}]
            await within(turn)

    run(scenario())


def test_a_cancelled_outcome_is_ask_cancelled_and_stops_the_request() -> None:
    async def scenario() -> Any:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG, GO))
            (await harness.client.next_permission()).dismiss()
            outcome = await harness.agent.next_outcome()
            await within(turn)
            assert harness.client.requests.empty()  # the second question is not asked
            return outcome

    outcome = run(scenario())
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == ASK_CANCELLED


def outcome_of_an_option_id(question: dict[str, Any], option_id: str) -> Any:
    """The agent's outcome when a permission-only client answers ``question``'s first
    prompt with ``option_id``."""

    async def scenario() -> Any:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(question))
            (await harness.client.next_permission()).select_id(option_id)
            outcome = await harness.agent.next_outcome()
            await within(turn)
            return outcome

    return run(scenario())


def test_an_option_id_that_was_not_offered_is_an_invalid_answer() -> None:
    outcome = outcome_of_an_option_id(GO, "option-9")
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == INVALID_ANSWER
    assert outcome.message == (
        "The ACP client's answer to question 'go' is the option id 'option-9', which was not "
        "offered (offered: 'option-1', 'option-2')."
    )


def test_previews_travel_as_plain_text_with_the_descriptions() -> None:
    layout = question("layout", "Which layout?", "grid", "list", "none", "bare")
    layout["options"][0].update(description="two columns", preview="```\n+--+--+\n```")
    layout["options"][1]["preview"] = "- a\n- b"
    layout["options"][2]["preview"] = "  "

    async def scenario() -> None:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(layout))
            prompt = await harness.client.next_permission()
            assert prompt.params["toolCall"]["content"][0]["content"]["text"] == (
                "Which layout?\n\n- grid: two columns\n\n+--+--+\n\n- list\n\n- a\n- b"
            )
            prompt.select("list")
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, AskUserQuestionAnswer)
            assert outcome.to_dict()["answers"] == [{"id": "layout", "selected": ["list"]}]
            await within(turn)

    run(scenario())


LINT = question(
    "lint",
    "Which linters?",
    "ruff",
    "mypy",
    "flake8",
    multi=True,
    header="Lint",
    detail="They run on every commit.",
    descriptions={"mypy": "types"},
)


def test_a_multi_select_question_is_one_include_or_skip_prompt_per_option() -> None:
    async def scenario() -> None:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(GO, LINT))
            (await harness.client.next_permission()).select("yes")
            prompts = []
            for choice in ("Include", "Include", "Skip"):
                prompt = await harness.client.next_permission()
                assert harness.client.requests.empty()  # one option at a time
                prompts.append(prompt.params)
                prompt.select(choice)
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, AskUserQuestionAnswer)
            assert outcome.to_dict()["answers"] == [
                {"id": "go", "selected": ["yes"]},
                {"id": "lint", "selected": ["ruff", "mypy"]},
            ]
            await within(turn)
            for params in prompts:
                assert params["options"] == [
                    {"optionId": "include", "name": "Include", "kind": "allow_once"},
                    {"optionId": "skip", "name": "Skip", "kind": "reject_once"},
                ]
            titles = [params["toolCall"]["title"] for params in prompts]
            assert titles == [f"Lint: Which linters? ({n}/3)" for n in (1, 2, 3)]
            texts = [params["toolCall"]["content"][0]["content"]["text"] for params in prompts]
            assert texts[1] == (
                "Which linters?\n\nThey run on every commit.\n\nOption 2 of 3: mypy: types"
            )
            assert texts[2].endswith("\n\nOption 3 of 3: flake8")
            assert len({params["toolCall"]["toolCallId"] for params in prompts}) == 3

    run(scenario())


@pytest.mark.parametrize("included", [(), ("ruff", "mypy", "flake8")], ids=["none", "all"])
def test_a_multi_select_question_with_none_or_all_included(included: tuple[str, ...]) -> None:
    async def scenario() -> Any:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(LINT))
            for label in ("ruff", "mypy", "flake8"):
                (await harness.client.next_permission()).select(
                    "Include" if label in included else "Skip"
                )
            outcome = await harness.agent.next_outcome()
            await within(turn)
            return outcome

    outcome = run(scenario())
    assert isinstance(outcome, AskUserQuestionAnswer)
    assert outcome.get("lint").selected == included


def test_cancelling_an_option_prompt_cancels_the_ask() -> None:
    async def scenario() -> Any:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(LINT, GO))
            (await harness.client.next_permission()).select("Include")
            (await harness.client.next_permission()).dismiss()
            outcome = await harness.agent.next_outcome()
            await within(turn)
            assert harness.client.requests.empty()  # neither flake8 nor GO is asked
            assert len(harness.client.request_ids("session/request_permission")) == 2
            return outcome

    outcome = run(scenario())
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == ASK_CANCELLED


def test_an_option_prompt_answered_with_an_id_not_offered_is_an_invalid_answer() -> None:
    outcome = outcome_of_an_option_id(LINT, "option-1")
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == INVALID_ANSWER
    assert "'option-1', which was not offered (offered: 'include', 'skip')" in outcome.message


@pytest.mark.parametrize(
    "questions",
    [[question("name", "Project name?")], [GO, LINT, question("name", "Project name?")]],
    ids=["alone", "after-others"],
)
def test_a_free_text_question_fails_naming_what_the_client_lacks(
    questions: list[dict[str, Any]],
) -> None:
    named = "question 'name' is free text"

    async def scenario() -> Any:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(*questions))
            outcome = await harness.agent.next_outcome()
            await within(turn)
            assert harness.client.request_ids("session/request_permission") == []
            return outcome

    outcome = run(scenario())
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == PROVIDER_FAILED
    assert "did not advertise form elicitation (clientCapabilities.elicitation.form)" in (
        outcome.message
    )
    assert named in outcome.message


def test_session_cancel_withdraws_the_permission_prompt() -> None:
    async def scenario() -> None:
        async with in_process(form=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(GO))
            prompt = await harness.client.next_permission()
            await harness.cancel(session)
            assert await harness.client.next_withdrawal() == prompt.request_id
            outcome = await harness.agent.next_outcome()
            assert isinstance(outcome, UserInteractionError)
            assert outcome.code == ASK_ABORTED
            assert (await within(turn)).stop_reason == "cancelled"
            prompt.dismiss()  # the client's own answer to the cancel, late: ignored

    run(scenario())


def test_a_client_that_advertises_forms_but_does_not_serve_them_gets_permission_prompts() -> None:
    """The SDK serves ``elicitation/create`` only with ``use_unstable_protocol``: a client
    without it answers "method not found", and the provider falls back for good."""

    async def scenario() -> None:
        async with in_process(form=True, unstable=False) as harness:
            session = await harness.new_session()
            for _ in range(2):
                turn = harness.prompt(session, prompt_text(GO))
                (await harness.client.next_permission()).select("no")
                outcome = await harness.agent.next_outcome()
                assert isinstance(outcome, AskUserQuestionAnswer)
                assert outcome.to_dict()["answers"] == [{"id": "go", "selected": ["no"]}]
                await within(turn)
            # asked once, refused once, never again
            assert len(harness.client.request_ids("elicitation/create")) == 1

    with pytest.warns(UserWarning, match="unstable protocol"):  # the SDK client's warning
        run(scenario())


def test_a_client_that_refuses_forms_and_a_free_text_question() -> None:
    async def scenario() -> Any:
        async with in_process(form=True, unstable=False) as harness:
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(question("name", "Name?")))
            outcome = await harness.agent.next_outcome()
            await within(turn)
            return outcome

    with pytest.warns(UserWarning, match="unstable protocol"):
        outcome = run(scenario())
    assert isinstance(outcome, UserInteractionError)
    assert outcome.code == PROVIDER_FAILED
    assert "advertised form elicitation but does not serve elicitation/create" in outcome.message
    assert "question 'name' is free text" in outcome.message
    assert outcome.__cause__ is not None
