"""Remembered approvals kept by the inbox: the HTTP API on a real server (behind the same
guards as the rest: a 4xx with one log line), the provider's decision store seen from
several objects and processes, and, end to end, an "Always allow" answered for one agent
process deciding another's approval without asking anybody."""

from __future__ import annotations

import inspect
import json
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from inbox_support import Inbox, cli, environment
from test_inbox_http import raw
from user_interaction_inbox import InboxProvider
from user_interaction_inbox._address import TOKEN_HEADER
from user_interaction_inbox._decisions import InboxDecisions

from user_interaction import PROVIDER_FAILED, UserInteraction, UserInteractionError
from user_interaction.extensions import Decision, RememberedDecisions
from user_interaction.testing import ScriptedProvider

ITEM = "/api/decisions/item?name="


def test_the_api_keeps_replaces_and_forgets_decisions(inbox: Inbox) -> None:
    assert inbox.call("GET", "/api/decisions").body == {"decisions": []}
    missing = inbox.call("GET", ITEM + "tool%3Adeploy")
    assert missing.status == 404
    assert "tool:deploy" in missing.body["error"]

    put = inbox.call("PUT", ITEM + "tool%3Adeploy", {"allowed": True})
    assert put.status == 200, put
    assert set(put.body) == {"name", "decision", "decided", "decidedAt"}
    assert put.body["name"] == "tool:deploy"
    assert put.body["decision"] == "allow"
    expected = Decision("tool:deploy", True, put.body["decidedAt"]).to_dict()
    assert put.body["decided"] == expected["decided"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", put.body["decided"])
    assert inbox.call("GET", ITEM + "tool%3Adeploy").body == put.body

    denied = inbox.call("PUT", ITEM + "tool%3Adeploy", {"allowed": False})
    assert denied.body["decision"] == "deny"
    inbox.call("PUT", ITEM + "a%20b%26c", {"allowed": True})
    listed = inbox.call("GET", "/api/decisions").body["decisions"]
    assert [(d["name"], d["decision"]) for d in listed] == [
        ("a b&c", "allow"),
        ("tool:deploy", "deny"),
    ]

    assert inbox.call("DELETE", ITEM + "tool%3Adeploy").body == {"forgotten": 1}
    assert inbox.call("DELETE", ITEM + "tool%3Adeploy").body == {"forgotten": 0}
    inbox.call("PUT", ITEM + "x", {"allowed": False})
    assert inbox.call("DELETE", "/api/decisions").body == {"forgotten": 2}
    assert inbox.call("GET", "/api/decisions").body == {"decisions": []}


def test_decisions_survive_a_killed_server(state: Path) -> None:
    first = Inbox(state)
    assert first.call("PUT", ITEM + "tool%3Adeploy", {"allowed": True}).status == 200
    first.kill()  # SIGKILL right after the acknowledgement
    second = Inbox(state)
    try:
        assert second.call("GET", ITEM + "tool%3Adeploy").body["decision"] == "allow"
    finally:
        second.stop()


def test_bad_decision_calls_are_refused_with_a_4xx_and_one_log_line(inbox: Inbox) -> None:
    token = inbox.address.token
    host = inbox.address.base.removeprefix("http://")
    good = {"Host": host, TOKEN_HEADER: token, "Content-Type": "application/json"}
    allow = b'{"allowed": true}'
    probes = [
        (403, "GET", "/api/decisions", {"Host": host}, b""),  # no token
        (403, "PUT", ITEM + "x", {**good, TOKEN_HEADER: "wrong"}, allow),
        (403, "DELETE", "/api/decisions", {"Host": host}, b""),
        (421, "GET", "/api/decisions", {**good, "Host": "evil.example"}, b""),
        (403, "PUT", ITEM + "x", {**good, "Origin": "http://evil.example"}, allow),
        (403, "DELETE", ITEM + "x", {**good, "Origin": "http://evil.example"}, b""),
        (415, "PUT", ITEM + "x", {**good, "Content-Type": "text/plain"}, allow),
        (400, "PUT", ITEM + "x", good, b"{not json"),
        (400, "PUT", ITEM + "x", good, b'{"allowed": "yes"}'),
        (400, "PUT", ITEM + "x", good, b'{"allowed": 1}'),
        (400, "PUT", ITEM + "x", good, b'{"allowed": true, "by": "me"}'),
        (400, "PUT", ITEM + "x", good, b"[true]"),
        (400, "PUT", "/api/decisions/item", good, allow),  # no name
        (400, "PUT", ITEM + "%20%20", good, allow),  # a blank name
        (400, "PUT", ITEM + "a&name=b", good, allow),  # two names
        (400, "PUT", ITEM + "x" * 1001, good, allow),
        (404, "GET", ITEM + "never", good, b""),
        (405, "POST", "/api/decisions", good, allow),
    ]
    for status, method, path, headers, payload in probes:
        assert raw(inbox, method, path, headers, payload) == status, (status, method, path)
    assert inbox.call("GET", "/api/decisions").body == {"decisions": []}  # nothing got in
    log = inbox.stop()
    lines = [line for line in log.splitlines() if re.match(r"\d{3} ", line)]
    # aiohttp answers 405 itself, without a line; every other refusal writes one.
    refused = [probe for probe in probes if probe[0] != 405]
    assert len(lines) == len(refused), log
    for (status, method, path, _, _), line in zip(refused, lines):
        assert line.startswith(f"{status} {method} {path.partition('?')[0]}: "), line
    assert "Traceback" not in log


# -- the provider's decision store ------------------------------------------------------------


def test_a_decision_put_through_one_store_is_seen_through_another(inbox: Inbox) -> None:
    mine = InboxProvider(url=inbox.address.page).decision_store()
    theirs = InboxDecisions()  # the address of inbox.json, as an agent here finds it
    assert mine.get("tool:deploy") is None
    assert mine.all() == []
    made = mine.put("tool:deploy", True)
    assert made.name == "tool:deploy"
    assert made.allowed is True
    assert theirs.get("tool:deploy") == made  # the exact time travels (decidedAt)
    odd = "shell: rm -rf /tmp/x?a=1&b=#2 ünï"
    theirs.put(odd, False)
    assert mine.get(odd) == Decision(odd, False, theirs.all()[0].decided)
    assert [d.name for d in mine.all()] == [odd, "tool:deploy"]
    assert mine.forget("absent") == 0
    assert theirs.forget("tool:deploy") == 1
    assert mine.get("tool:deploy") is None
    mine.put("again", True)
    assert theirs.forget() == 2
    assert mine.all() == []


def test_the_decision_store_follows_a_restarted_server(state: Path) -> None:
    first = Inbox(state)
    decisions = InboxDecisions()
    decisions.put("tool:deploy", True)
    first.stop()
    second = Inbox(state)  # another free port, written to inbox.json
    try:
        assert second.address.base != first.address.base
        found = decisions.get("tool:deploy")
        assert found is not None
        assert found.allowed is True
    finally:
        second.stop()


def test_an_unreachable_inbox_is_a_clear_provider_failure(state: Path) -> None:
    with pytest.raises(UserInteractionError, match="no inbox is running here") as none:
        InboxDecisions().get("tool:deploy")
    assert none.value.code == PROVIDER_FAILED
    assert "remembered approvals" in none.value.message

    inbox = Inbox(state)
    decisions = InboxDecisions(inbox.address.page)
    inbox.stop()
    for call in (
        lambda: decisions.get("x"),
        lambda: decisions.put("x", True),
        decisions.forget,
        decisions.all,
    ):
        with pytest.raises(UserInteractionError, match=r"no inbox answers at http://") as gone:
            call()
        assert gone.value.code == PROVIDER_FAILED

    other = Inbox(state)
    try:
        wrong = InboxDecisions(other.address.base + "/#not-the-token")
        with pytest.raises(UserInteractionError, match=r"answered PUT /api/decisions with 403"):
            wrong.put("x", True)
    finally:
        other.stop()


# -- end to end ----------------------------------------------------------------------------

APPROVER = """
import json, sys
from user_interaction import UserInteraction
name, options = json.loads(sys.argv[1])
with UserInteraction() as ui:
    ui.use(name, **options)
    print("ready", flush=True)
    approval = ui.approve_sync("Deploy?", remember="tool:deploy", timeout=120)
print(json.dumps({"allowed": approval.allowed, "remembered": approval.remembered}), flush=True)
"""


def _takes_a_store() -> bool:
    return "store" in inspect.signature(RememberedDecisions).parameters


def approver(
    state: Path, provider: tuple[str, dict[str, Any]] = ("inbox", {}), **env: str
) -> subprocess.Popen[str]:
    environ = environment(state, **env)
    environ.pop("USER_INTERACTION_DECISIONS", None)
    process = subprocess.Popen(
        [sys.executable, "-c", APPROVER, json.dumps(provider)],
        env=environ,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line == "ready\n", line + process.communicate()[1]
    return process


def outcome(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


@pytest.mark.skipif(
    not _takes_a_store(), reason="this core's RememberedDecisions takes no store= yet"
)
def test_always_allow_in_one_agent_decides_another_agents_approval(
    state: Path, inbox: Inbox, tmp_path: Path
) -> None:
    first = approver(state)
    (ask,) = inbox.wait_for_pending(1)
    always = {"answers": [{"id": "approve", "selected": ["Always allow"]}]}
    answered = cli(state, "inbox", "answer", ask["id"], "--answer", json.dumps(always))
    assert answered.returncode == 0, answered.stderr
    assert outcome(first) == {"allowed": True, "remembered": False}
    (kept,) = inbox.call("GET", "/api/decisions").body["decisions"]
    assert (kept["name"], kept["decision"]) == ("tool:deploy", "allow")

    # Another agent, with a state directory of its own (so no file of the first's can
    # answer it), reaching the same inbox by its address through `any`: decided without
    # an ask.
    elsewhere = tmp_path / "elsewhere"
    through_any = ("any", {"providers": ["inbox"]})
    second = approver(elsewhere, through_any, USER_INTERACTION_INBOX=inbox.address.page)
    assert outcome(second) == {"allowed": True, "remembered": True}
    listed = cli(state, "inbox", "list", "--json")
    assert json.loads(listed.stdout)["asks"] == []
    with closing(sqlite3.connect(state / "inbox.sqlite3")) as db:  # ever: one ask, the first
        assert db.execute("SELECT id FROM asks").fetchall() == [(ask["id"],)]
    for where in (state, elsewhere):
        assert not (where / "decisions.sqlite3").exists()  # nothing kept on this machine

    # The command line manages what the inbox remembers; forgotten, the approval asks again.
    shown = cli(state, "decisions", "list", "--inbox", "--json")
    assert shown.returncode == 0, shown.stderr
    (decision,) = json.loads(shown.stdout)["decisions"]
    assert decision == {k: kept[k] for k in ("name", "decision", "decided")}
    forgot = cli(state, "decisions", "forget", "tool:deploy", "--inbox")
    assert forgot.returncode == 0, forgot.stderr
    assert inbox.call("GET", "/api/decisions").body == {"decisions": []}
    third = approver(elsewhere, USER_INTERACTION_INBOX=inbox.address.page)
    (again,) = inbox.wait_for_pending(1)
    once = {"answers": [{"id": "approve", "selected": ["Deny"]}]}
    denied = cli(state, "inbox", "answer", again["id"], "--answer", json.dumps(once))
    assert denied.returncode == 0, denied.stderr
    assert outcome(third) == {"allowed": False, "remembered": False}
    assert inbox.call("GET", "/api/decisions").body == {"decisions": []}  # once is not kept


@pytest.mark.skipif(
    not _takes_a_store(), reason="this core's RememberedDecisions takes no store= yet"
)
def test_an_unreachable_inbox_fails_the_approval_without_asking_anybody(state: Path) -> None:
    inbox = Inbox(state)
    page = inbox.address.page
    inbox.stop()
    scripted = ScriptedProvider()
    scripted.answer(approve="Allow")  # what it would say, were it asked
    with UserInteraction() as ui:
        ui.register_provider(scripted)
        ui.add_extension(RememberedDecisions(store=InboxDecisions(page)))
        with pytest.raises(UserInteractionError, match="no inbox answers at") as caught:
            ui.approve_sync("Deploy?", remember="tool:deploy")
    assert caught.value.code == PROVIDER_FAILED
    assert scripted.requests == []  # no approval without the rule it may be under
