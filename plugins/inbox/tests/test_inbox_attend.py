"""``user-interaction inbox attend`` with real processes: a server, agents asking through the
``inbox`` provider, and attend answering them through the scripted provider (its answers
file answers each question by its id). Every step waits for a line attend writes."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inbox_support import NPM, REQUEST, Agent, Attend, Inbox, asking, cli
from user_interaction_inbox import cli as inbox_cli

from user_interaction import ASK_ABORTED, ASK_CANCELLED, ASK_DECLINED, UserInteraction


def answered(question_id: str, label: str) -> dict[str, Any]:
    return {"answer": {"answers": [{"id": question_id, "selected": [label]}]}}


@pytest.fixture
def attending() -> Iterator[list[Attend]]:
    """Stops the attend processes a test leaves running (a failed one)."""
    started: list[Attend] = []
    yield started
    for attend in started:
        attend.stop()


def test_attend_answers_the_pending_asks_oldest_first_then_new_ones(
    state: Path, inbox: Inbox, tmp_path: Path, attending: list[Attend]
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"answers": {"a": "npm", "b": "pnpm", "c": "pnpm"}}))
    first = Agent(state, request=asking("a"))
    inbox.wait_for_pending(1)
    second = Agent(state, request=asking("b"))
    older, newer = inbox.wait_for_pending(2)

    attend = Attend(state, answers)
    attending.append(attend)
    attend.expect("attending the inbox at")
    attend.expect(f"asking {older['id']} from test agent")
    attend.expect(f"ask {older['id']}: answered")
    attend.expect(f"asking {newer['id']} from test agent")
    attend.expect(f"ask {newer['id']}: answered")
    assert first.outcome() == answered("a", "npm")
    assert second.outcome() == answered("b", "pnpm")
    attend.expect("waiting for new asks")

    third = Agent(state, request=asking("c"))  # posted while attend waits
    attend.expect("asking ")
    attend.expect(": answered")
    assert third.outcome() == answered("c", "pnpm")
    attend.expect("waiting for new asks")
    assert inbox.pending() == []
    status, rest = attend.interrupt()
    assert status == 130, rest
    assert "Traceback" not in "".join(attend.seen) + rest


def test_the_humans_cancel_and_decline_through_attend_reach_the_agents(
    state: Path, inbox: Inbox, tmp_path: Path, attending: list[Attend]
) -> None:
    answers = tmp_path / "answers.json"
    rules = {"a": {"error": "ASK_CANCELLED"}, "b": {"error": "ASK_DECLINED"}}
    answers.write_text(json.dumps({"answers": rules}))
    cancelled = Agent(state, request=asking("a"))
    inbox.wait_for_pending(1)
    declined = Agent(state, request=asking("b"))
    older, newer = inbox.wait_for_pending(2)

    attend = Attend(state, answers)
    attending.append(attend)
    attend.expect(f"ask {older['id']}: cancelled")
    attend.expect(f"ask {newer['id']}: declined")
    assert cancelled.outcome()["error"] == ASK_CANCELLED
    assert declined.outcome()["error"] == ASK_DECLINED
    attend.expect("waiting for new asks")
    attend.interrupt()


def test_an_ask_that_leaves_while_asked_here_is_left_and_attend_goes_on(
    state: Path, inbox: Inbox, tmp_path: Path, attending: list[Attend]
) -> None:
    """The local ask waits (a silent answer) until the ask leaves the inbox: withdrawn by
    its agent, or answered elsewhere; attend aborts it and asks the next one."""
    answers = tmp_path / "answers.json"
    rules = {"a": {"silent": True}, "pkg": {"silent": True}, "c": "npm"}
    answers.write_text(json.dumps({"answers": rules}))
    gives_up = Agent(state, request=asking("a"), abortable=True)
    inbox.wait_for_pending(1)
    elsewhere = Agent(state)  # asks "pkg", as NPM answers
    inbox.wait_for_pending(2)
    last = Agent(state, request=asking("c"))
    withdrawn, settled, answered_here = inbox.wait_for_pending(3)

    attend = Attend(state, answers)
    attending.append(attend)
    attend.expect(f"asking {withdrawn['id']}")
    gives_up.abort()
    line = attend.expect(f"ask {withdrawn['id']} is already withdrawn")
    assert line.rstrip().endswith("moving on")
    assert gives_up.outcome()["error"] == ASK_ABORTED

    attend.expect(f"asking {settled['id']}")
    result = cli(
        state, "inbox", "answer", settled["id"], "--answer", json.dumps(NPM), "--by", "ann"
    )
    assert result.returncode == 0, result.stderr
    attend.expect(f"ask {settled['id']} is already answered by ann")
    assert elsewhere.outcome() == {"answer": NPM}

    attend.expect(f"asking {answered_here['id']}")
    attend.expect(f"ask {answered_here['id']}: answered")
    assert last.outcome() == answered("c", "npm")
    status, _ = attend.interrupt()
    assert status == 130


def test_ctrl_c_stops_attending_and_leaves_the_ask_pending(
    state: Path, inbox: Inbox, tmp_path: Path, attending: list[Attend]
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"answers": {"pkg": {"silent": True}}}))
    agent = Agent(state)
    (ask,) = inbox.wait_for_pending(1)
    attend = Attend(state, answers)
    attending.append(attend)
    attend.expect(f"asking {ask['id']}")
    status, rest = attend.interrupt()
    assert status == 130, rest
    assert rest == (
        "user-interaction inbox: stopped attending; the asks not answered stay pending\n"
    )
    listed = cli(state, "inbox", "list", "--json")
    assert [a["id"] for a in json.loads(listed.stdout)["asks"]] == [ask["id"]]
    result = cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(NPM))
    assert result.returncode == 0, result.stderr
    assert agent.outcome() == {"answer": NPM}


def test_attend_asks_through_the_chosen_provider_with_model_text_neutralised(
    state: Path, inbox: Inbox, attending: list[Attend]
) -> None:
    """Without --provider, attend asks through the provider the rules choose without
    inbox and any: stdio, its stdin being a pipe. The agent's label and the question
    reach the terminal with their control sequences neutralised."""
    hostile = {
        "questions": [
            {
                "id": "q",
                "question": "Clear\x1b[2J the screen?",
                "options": [{"label": "yes\x07"}, {"label": "no"}],
            }
        ]
    }
    posted = inbox.call("POST", "/api/asks", {"request": hostile, "agent": "bot\x1b]0;x\x07"})
    assert posted.status == 200, posted
    agent = Agent(state)
    attend = Attend(state, None)
    attending.append(attend)
    line = attend.expect(f"asking {posted.body['id']} from bot")
    assert "\x1b" not in line
    assert "\x07" not in line
    attend.answer("2")
    attend.expect(f"ask {posted.body['id']}: answered")
    attend.expect("asking ")
    attend.answer("1")
    attend.expect(": answered")
    assert agent.outcome() == {"answer": NPM}
    attend.expect("waiting for new asks")
    settled = inbox.call("GET", f"/api/asks/{posted.body['id']}").body
    assert settled["answer"] == {"answers": [{"id": "q", "selected": ["no"]}]}
    status, _ = attend.interrupt()
    assert status == 130
    shown = "".join(attend.out)
    assert "Clear" in shown
    assert "Which package manager?" in shown
    assert "\x1b" not in shown
    assert "\x07" not in shown


def test_an_answer_the_inbox_refuses_is_said_in_one_line(
    inbox: Inbox,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another human answers after the one here did (the list attend follows had not
    changed yet): the inbox refuses this answer with 409, and attend says who won. Run
    in this process on one ask, from a list read before the other answer."""
    posted = inbox.call("POST", "/api/asks", {"request": REQUEST, "agent": "raw"}).body
    (snapshot,) = inbox.call("GET", "/api/asks").body["asks"]
    won = inbox.call(
        "POST", f"/api/asks/{posted['id']}/settle", {"action": "answer", "answer": NPM, "by": "ann"}
    )
    assert won.status == 200, won
    cursor = inbox.call("GET", "/api/asks").body["cursor"]  # the watcher waits from here
    monkeypatch.setattr(inbox_cli, "ATTEND_WAIT", 5.0)  # its held request, to join it soon
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"answers": {"pkg": "pnpm"}}))
    with UserInteraction() as ui:
        ui.use("scripted", path=str(answers))
        inbox_cli._attend_one(inbox_cli._Following(inbox.address), ui, snapshot, "me", cursor)
    for thread in threading.enumerate():  # the watcher's held request ends within its wait
        if thread.name == f"inbox-attend-{posted['id']}":
            thread.join(inbox_cli.ATTEND_WAIT + 30)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"user-interaction inbox: asking {posted['id']} from raw"
    assert lines[1].startswith(f"user-interaction inbox: ask {posted['id']} is already answered")
    assert " by ann at " in lines[1]
    assert lines[1].endswith("; the answer given here is dropped")
    assert len(lines) == 2
    assert inbox.call("GET", f"/api/asks/{posted['id']}").body["answer"] == NPM


def test_attend_follows_its_inbox_through_a_restart(
    state: Path, inbox: Inbox, tmp_path: Path, attending: list[Attend]
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"answers": {"a": "npm", "b": "pnpm"}}))
    attend = Attend(state, answers)
    attending.append(attend)
    attend.expect("waiting for new asks")
    old_base = inbox.address.base
    inbox.kill()  # SIGKILL: the held list request breaks, and inbox.json stays behind
    attend.expect("waiting for the inbox to come back")
    agent = Agent(state, request=asking("a"))  # it waits for the inbox too
    restarted = Inbox(state)  # on another free port: attend reads inbox.json again
    try:
        assert restarted.address.base != old_base
        attend.expect(f"the inbox answers again at {restarted.address.base}")
        attend.expect(": answered")
        assert agent.outcome() == answered("a", "npm")
        attend.expect("waiting for new asks")
        second = Agent(state, request=asking("b"))
        attend.expect(": answered")
        assert second.outcome() == answered("b", "pnpm")
        status, rest = attend.interrupt()
        assert status == 130, rest
        assert "Traceback" not in "".join(attend.seen) + rest
    finally:
        restarted.stop()


def test_attend_ends_with_status_1_when_no_inbox_answers_at_the_start(
    state: Path, inbox: Inbox, tmp_path: Path
) -> None:
    inbox.kill()  # inbox.json names a server that is gone
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"answers": {}}))
    result = cli(state, "inbox", "attend", "-p", "scripted", "--provider-option", f"path={answers}")
    assert result.returncode == 1, result.stderr
    assert "no inbox answers at" in result.stderr
    assert "Traceback" not in result.stderr
