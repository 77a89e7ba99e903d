"""The example agent as an editor runs it: a child process launched by the SDK's client
side (``spawn_agent_process``), spoken to over real stdio."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest
from acp_support import EXAMPLE, over_stdio, prompt_text, run, within

from user_interaction import ASK_ABORTED, ASK_CANCELLED, ASK_DECLINED, INVALID_ANSWER
from user_interaction.testing import wire_question as question

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

PKG = question("pkg", "Which package manager?", "pnpm", "npm", header="Package")
LINT = question("lint", "Which linters?", "ruff", "flake8", multi=True)
NAME = question("name", "Project name?")


def test_any_prompt_asks_the_demo_questions_in_one_form() -> None:
    async def scenario() -> None:
        async with over_stdio() as (harness, _):
            session = await harness.new_session()
            turn = harness.prompt(session, "hello")
            form = await harness.client.next_form()
            assert form.session_id == session
            assert form.params["message"] == "The agent has 2 questions for you."
            assert list(form.properties) == [
                "q1_pkg",
                "q1_pkg_custom",
                "q2_checks",
                "q2_checks_custom",
            ]
            form.accept({"q1_pkg": "pnpm", "q2_checks": ["tests", "lint"]})
            assert (await within(turn)).stop_reason == "end_turn"
            assert harness.client.reply_of(session) == {
                "answers": [
                    {"id": "pkg", "selected": ["pnpm"]},
                    {"id": "checks", "selected": ["tests", "lint"]},
                ]
            }

    run(scenario(), 60)


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (lambda form: form.decline(), ASK_DECLINED),
        (lambda form: form.cancel(), ASK_CANCELLED),
        (lambda form: form.accept({"q1_pkg": "yarn"}), INVALID_ANSWER),
    ],
    ids=["decline", "cancel", "label-not-offered"],
)
def test_refusals_and_bad_labels_reach_the_agent_as_errors(reply: Any, code: str) -> None:
    async def scenario() -> dict[str, Any]:
        async with over_stdio() as (harness, _):
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG, NAME))
            reply(await harness.client.next_form())
            await within(turn)
            return harness.client.reply_of(session)

    error = run(scenario(), 60)["error"]
    assert error["code"] == code
    assert error["name"] == "UserInteractionError"
    if code == INVALID_ANSWER:
        assert "'yarn', which was not offered (offered: 'pnpm', 'npm')" in error["message"]


def test_without_form_elicitation_it_asks_permission_prompts() -> None:
    async def scenario() -> None:
        async with over_stdio(form=False) as (harness, _):
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG))
            (await harness.client.next_permission()).select("npm")
            await within(turn)
            assert harness.client.reply_of(session) == {
                "answers": [{"id": "pkg", "selected": ["npm"]}]
            }
            turn = harness.prompt(session, prompt_text(PKG, LINT))
            (await harness.client.next_permission()).select("pnpm")
            (await harness.client.next_permission()).select("Include")  # ruff
            (await harness.client.next_permission()).select("Skip")  # flake8
            await within(turn)
            assert json.loads(harness.client.messages[session][-1]) == {
                "answers": [
                    {"id": "pkg", "selected": ["pnpm"]},
                    {"id": "lint", "selected": ["ruff"]},
                ]
            }
            turn = harness.prompt(session, prompt_text(PKG, NAME))
            await within(turn)
            error = harness.client.messages[session][-1]
            assert "question 'name' is free text" in json.loads(error)["error"]["message"]
            assert len(harness.client.request_ids("session/request_permission")) == 4

    run(scenario(), 60)


def test_two_sessions_at_once_and_a_cancel_that_withdraws_only_its_own_form() -> None:
    async def scenario() -> None:
        async with over_stdio() as (harness, _):
            kept, dropped = await harness.new_session(), await harness.new_session()
            kept_turn = harness.prompt(kept, prompt_text(PKG))
            dropped_turn = harness.prompt(dropped, prompt_text(NAME))
            forms = [await harness.client.next_form(), await harness.client.next_form()]
            by_session = {form.session_id: form for form in forms}
            assert list(by_session[kept].properties) == ["q1_pkg", "q1_pkg_custom"]
            assert list(by_session[dropped].properties) == ["q1_name"]
            await harness.cancel(dropped)
            assert await harness.client.next_withdrawal() == by_session[dropped].request_id
            assert (await within(dropped_turn)).stop_reason == "cancelled"
            assert harness.client.reply_of(dropped)["error"]["code"] == ASK_ABORTED
            by_session[dropped].accept({"q1_name": "late"})  # ignored by the agent
            by_session[kept].accept({"q1_pkg_custom": "bun"})
            assert (await within(kept_turn)).stop_reason == "end_turn"
            assert harness.client.reply_of(kept) == {
                "answers": [{"id": "pkg", "selected": [], "custom": "bun"}]
            }

    run(scenario(), 60)


def test_a_client_that_disconnects_mid_ask_leaves_the_agent_to_exit_cleanly() -> None:
    async def scenario() -> tuple[int | None, bytes]:
        async with over_stdio() as (harness, process):
            session = await harness.new_session()
            turn = harness.prompt(session, prompt_text(PKG))
            await harness.client.next_form()
            await harness.connection.close()
            with pytest.raises(ConnectionError):
                await within(turn)
            assert process.stdin is not None
            process.stdin.close()  # the editor went away
            code = await within(process.wait())
            assert process.stderr is not None
            return code, await within(process.stderr.read())

    code, stderr = run(scenario(), 60)
    assert code == 0
    assert b"Traceback" not in stderr, stderr.decode()


def test_the_example_runs_as_a_script_and_stops_at_end_of_input() -> None:
    async def scenario() -> tuple[int | None, bytes, bytes]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(EXAMPLE),
            stdin=asyncio.subprocess.PIPE,  # the SDK's stdio needs pipes, as a client gives
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await within(process.communicate(b""), 30)
        return process.returncode, stdout, stderr

    code, stdout, stderr = run(scenario(), 60)
    assert (code, stdout) == (0, b""), stderr.decode()
