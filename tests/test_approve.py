"""``approve``: a permission prompt that can remember (``RememberedDecisions``) and say
why; ``require_approval(remember=...)``; the ``decisions`` commands."""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from cli_support import SCRIPT, child_env

from user_interaction import (
    ASK_DECLINED,
    EXTENSION_FAILED,
    Approval,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    hookimpl,
    require_approval,
)
from user_interaction.extensions import AuditLog, DecisionStore, RememberedDecisions
from user_interaction.testing import SKIP, ScriptedProvider, custom, with_notes

ALLOW_DENY = (AskUserQuestionOption("Allow"), AskUserQuestionOption("Deny"))
REMEMBERING = (
    *ALLOW_DENY,
    AskUserQuestionOption("Always allow"),
    AskUserQuestionOption("Always deny"),
)


@pytest.fixture
def decisions(tmp_path: Path) -> Path:
    return tmp_path / "decisions.sqlite3"


# -- the question and the outcome ---------------------------------------------------------


def test_an_approval_is_one_question_approve_with_allow_and_deny(
    ui: UserInteraction, scripted: ScriptedProvider
) -> None:
    scripted.answer(approve="Allow")
    assert ui.approve_sync("Run rm -rf build?", detail="in /repo") == Approval(True, False, None)
    (request,) = scripted.requests
    (item,) = request.questions
    assert (item.id, item.question, item.header, item.detail) == (
        "approve",
        "Run rm -rf build?",
        "Approve",
        "in /repo",
    )
    assert item.options == ALLOW_DENY
    assert not item.multi_select
    assert request.remember is None


def test_with_remember_it_offers_always_and_names_what_is_approved(
    ui: UserInteraction, scripted: ScriptedProvider
) -> None:
    scripted.answer(approve="Deny")
    approval = asyncio.run(ui.approve("Deploy?", remember="tool:deploy", header="Deploy"))
    assert approval == Approval(False, False, None)
    (request,) = scripted.requests
    assert request.remember == "tool:deploy"
    assert request.questions[0].options == REMEMBERING
    assert request.to_dict()["remember"] == "tool:deploy"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            with_notes("Allow", "only this once"),
            Approval(True, False, "only this once"),
        ),
        (with_notes("Deny", "wrong branch"), Approval(False, False, "wrong branch")),
        (custom("use the staging cluster"), Approval(False, False, "use the staging cluster")),
    ],
)
def test_custom_text_is_a_denial_with_its_reason_and_notes_are_the_reason(
    ui: UserInteraction, scripted: ScriptedProvider, answer: Any, expected: Approval
) -> None:
    scripted.answer(approve=answer)
    assert ui.approve_sync("Deploy?") == expected


def test_a_skipped_approval_is_declined(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    scripted.answer(approve=SKIP)
    with pytest.raises(UserInteractionError) as info:
        ui.approve_sync("Deploy?")
    assert info.value.code == ASK_DECLINED


# -- remembering ----------------------------------------------------------------------------


class Seen:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any]] = []

    @hookimpl
    def ask_finished(self, answer: Any, provider: Any) -> None:
        self.calls.append((answer, provider))


@pytest.mark.parametrize(("choice", "allowed"), [("Always allow", True), ("Always deny", False)])
def test_an_always_is_remembered_and_answers_later_approvals_asking_nobody(
    ui: UserInteraction,
    scripted: ScriptedProvider,
    decisions: Path,
    tmp_path: Path,
    choice: str,
    allowed: bool,
) -> None:
    seen = Seen()
    audit = tmp_path / "audit.jsonl"
    ui.add_extension(RememberedDecisions(decisions))
    ui.add_extension(seen)
    ui.add_extension(AuditLog(audit))
    scripted.answer(approve=choice)
    assert ui.approve_sync("Deploy?", remember="tool:deploy") == Approval(allowed, False, None)
    assert ui.approve_sync("Deploy?", remember="tool:deploy") == Approval(allowed, True, None)
    assert asyncio.run(ui.approve("Deploy?", remember="tool:deploy")) == Approval(allowed, True)
    assert len(scripted.requests) == 1  # asked once
    remembered = [(answer.get("approve").selected, provider) for answer, provider in seen.calls]
    assert remembered == [((choice,), "scripted"), ((choice,), None), ((choice,), None)]
    lines = [json.loads(line) for line in audit.read_text("utf-8").splitlines()]
    assert [line.get("remembered", False) for line in lines] == [False, True, True]
    assert ui.approve_sync("Deploy?", remember="tool:other") == Approval(allowed, False)


@pytest.mark.parametrize("answer", ["Allow", "Deny", custom("not now")])
def test_once_and_custom_text_are_never_remembered(
    ui: UserInteraction, scripted: ScriptedProvider, decisions: Path, answer: Any
) -> None:
    ui.add_extension(RememberedDecisions(decisions))
    scripted.answer(approve=answer)
    ui.approve_sync("Deploy?", remember="tool:deploy")
    ui.approve_sync("Deploy?", remember="tool:deploy")
    assert len(scripted.requests) == 2
    assert DecisionStore(decisions).all() == []


def test_only_an_approval_is_answered_from_the_decisions(
    ui: UserInteraction, scripted: ScriptedProvider, decisions: Path
) -> None:
    DecisionStore(decisions).put("tool:deploy", True)
    ui.add_extension(RememberedDecisions(decisions))
    scripted.answer(answer="Yes", approve="Allow")
    assert ui.confirm_sync("Deploy?")  # not an approval: asked
    assert ui.approve_sync("Deploy?") == Approval(True, False)  # nothing to remember by
    assert len(scripted.requests) == 2


def test_the_decisions_file_is_private_and_a_newer_schema_is_refused(
    ui: UserInteraction, scripted: ScriptedProvider, decisions: Path
) -> None:
    store = DecisionStore(decisions)
    store.put("tool:deploy", True)
    for path in decisions.parent.glob("decisions.sqlite3*"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    with closing(sqlite3.connect(decisions)) as db, db:  # `with db` commits, never closes
        db.execute("PRAGMA user_version = 99")
    ui.add_extension(RememberedDecisions(decisions))
    with pytest.raises(UserInteractionError) as info:
        ui.approve_sync("Deploy?", remember="tool:deploy")
    assert info.value.code == EXTENSION_FAILED
    assert "schema version is 99" in info.value.message


def test_the_environment_turns_it_on_for_every_context(
    decisions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("USER_INTERACTION_DECISIONS", str(decisions))
    DecisionStore().put("tool:deploy", False)
    with UserInteraction() as ui:
        ui.register_provider(ScriptedProvider())
        assert ui.approve_sync("Deploy?", remember="tool:deploy") == Approval(False, True)


AGENT = textwrap.dedent(
    """
    import json, sys
    from user_interaction import UserInteraction
    with UserInteraction() as ui:
        ui.use("scripted")
        names = sys.argv[1:]
        for name in names:
            approval = ui.approve_sync("Deploy?", remember=name)
            print(json.dumps([name, approval.allowed, approval.remembered]), flush=True)
    """
)


def run_agent(env: dict[str, str], *names: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", AGENT, *names],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_share_one_decisions_file_and_lose_no_write(
    decisions: Path, tmp_path: Path
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"answers": {"approve": "Always allow"}}), "utf-8")
    env = child_env(
        USER_INTERACTION_DECISIONS=str(decisions), USER_INTERACTION_ANSWERS=str(answers)
    )
    names = [[f"tool:{who}-{n}" for n in range(40)] for who in ("a", "b")]
    agents = [run_agent(env, *mine) for mine in names]  # writing at once
    for agent in agents:
        out, err = agent.communicate(timeout=120)
        assert agent.returncode == 0, err
        assert all(not remembered for _, _, remembered in map(json.loads, out.splitlines()))
    assert [d.name for d in DecisionStore(decisions).all()] == sorted(names[0] + names[1])

    answers.write_text(json.dumps({"answers": {}}), "utf-8")  # nobody answers any more
    later = run_agent(env, "tool:a-0", "tool:b-39")
    out, err = later.communicate(timeout=60)
    assert later.returncode == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [
        ["tool:a-0", True, True],
        ["tool:b-39", True, True],
    ]


# -- the decisions commands -----------------------------------------------------------------


def decisions_command(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None
    return subprocess.run(
        [SCRIPT, "decisions", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_decisions_commands_list_and_forget(decisions: Path) -> None:
    store = DecisionStore(decisions)
    store.put("tool:deploy", True)
    store.put("tool:rm\x1b[2J", False)
    env = child_env(USER_INTERACTION_DECISIONS=str(decisions))
    listed = decisions_command("list", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["NAME", "DECISION", "DECIDED", "(UTC)"]
    assert lines[1].split()[:3] == ["tool:deploy", "always", "allow"]
    assert lines[2].split()[:3] == ["tool:rm\\x1b[2J", "always", "deny"]  # shown, not run

    document = json.loads(decisions_command("list", "--json", env=env).stdout)
    assert document["path"] == str(decisions)
    assert [(d["name"], d["decision"]) for d in document["decisions"]] == [
        ("tool:deploy", "allow"),
        ("tool:rm\x1b[2J", "deny"),
    ]

    forgot = decisions_command("forget", "tool:deploy", env=env)
    assert (forgot.returncode, forgot.stdout) == (0, "Forgot the decision for 'tool:deploy'.\n")
    missing = decisions_command("forget", "tool:deploy", env=env)
    assert missing.returncode == 1
    assert "No decision is remembered for 'tool:deploy'" in missing.stderr
    other = decisions.with_name("other.sqlite3")
    DecisionStore(other).put("x", True)
    assert decisions_command("forget", "--all", "--path", str(other), env=env).stdout == (
        "Forgot 1 decision.\n"
    )
    assert [d.name for d in store.all()] == ["tool:rm\x1b[2J"]


def test_the_decisions_commands_without_a_file_say_so(tmp_path: Path) -> None:
    env = child_env(USER_INTERACTION_DECISIONS=str(tmp_path / "none.sqlite3"))
    listed = decisions_command("list", env=env)
    assert (listed.returncode, listed.stdout) == (
        0,
        f"No decisions are remembered in {tmp_path / 'none.sqlite3'}.\n",
    )
    assert not (tmp_path / "none.sqlite3").exists()


# -- require_approval(remember=...) -----------------------------------------------------------


def test_require_approval_remembers_by_name_or_by_a_function_of_the_arguments(
    ui: UserInteraction, scripted: ScriptedProvider, decisions: Path
) -> None:
    ui.add_extension(RememberedDecisions(decisions))
    ran: list[str] = []

    @require_approval(ui, remember="tool:deploy")
    def deploy(target: str) -> None:
        ran.append(target)

    @require_approval(ui, remember=lambda args: None if args["force"] else f"rm:{args['path']}")
    async def rm(path: str, force: bool = False) -> None:
        ran.append(path)

    scripted.answer(approve="Always allow")
    deploy("staging")
    deploy("prod")  # remembered
    asyncio.run(rm("build"))
    asyncio.run(rm("build"))  # remembered by the function's name for it
    scripted.answer(approve="Allow")
    asyncio.run(rm("build", force=True))  # never remembered: no Always offered
    assert ran == ["staging", "prod", "build", "build", "build"]
    offered = [[o.label for o in r.questions[0].options] for r in scripted.requests]
    assert [r.remember for r in scripted.requests] == ["tool:deploy", "rm:build", None]
    assert offered[-1] == ["Allow", "Deny"]


def test_require_approval_denial_carries_the_reason(
    ui: UserInteraction, scripted: ScriptedProvider
) -> None:
    @require_approval(ui, remember="tool:deploy")
    def deploy() -> None:
        raise AssertionError("must not run")

    scripted.answer(approve=custom("deploy to staging first"))
    with pytest.raises(UserInteractionError) as info:
        deploy()
    assert info.value.code == ASK_DECLINED
    assert info.value.message == "deploy was not approved: deploy to staging first"


def test_ask_sync_carries_the_callers_context_variables(
    ui: UserInteraction, scripted: ScriptedProvider
) -> None:
    """A provider (or an extension) sees the caller's context in ``ask_sync`` as in
    ``ask``."""
    current = contextvars.ContextVar("current", default="unset")
    seen: list[str] = []

    class Looks:
        @hookimpl
        def ask_wrapper(self, ui: UserInteraction) -> Any:
            def wrap(next_ask: Any) -> Any:
                async def ask(request: AskUserQuestionRequest) -> Any:
                    seen.append(current.get())
                    return await next_ask(request)

                return ask

            return wrap

    ui.add_extension(Looks())
    scripted.answer(answer="Yes")
    current.set("request-42")
    assert ui.confirm_sync("Go?")
    assert seen == ["request-42"]
    assert os.environ.get("USER_INTERACTION_DECISIONS") is None


# -- a provider's own decisions (the inbox keeps them for every agent) ---------------------


class Keeper:
    """A provider's decision store: what the inbox offers through ``decision_store()``."""

    def __init__(self) -> None:
        self.kept: dict[str, bool] = {}

    def get(self, name: str) -> Any:
        from user_interaction.extensions import Decision

        allowed = self.kept.get(name)
        return None if allowed is None else Decision(name, allowed, 0.0)

    def put(self, name: str, allowed: bool) -> None:
        self.kept[name] = allowed


class KeepingProvider(ScriptedProvider):
    def __init__(self, keeper: Keeper, *args: Any) -> None:
        super().__init__(*args)
        self.keeper = keeper

    def decision_store(self) -> Keeper:
        return self.keeper


def test_a_provider_that_keeps_decisions_serves_the_contexts_approvals() -> None:
    keeper = Keeper()
    asked = KeepingProvider(keeper, {"approve": "Always deny"})
    with UserInteraction() as ui:
        ui.add_extension(Seen())  # extensions loaded before the provider: no matter
        ui.register_provider(asked)
        assert ui.approve_sync("Deploy?", remember="tool:deploy") == Approval(False, False)
        assert keeper.kept == {"tool:deploy": False}
        assert ui.approve_sync("Deploy?", remember="tool:deploy") == Approval(False, True)
        assert len(asked.requests) == 1
        ui.swap(ScriptedProvider({"approve": "Always allow"}))  # one that keeps none
        assert ui.approve_sync("Deploy?", remember="tool:deploy") == Approval(True, False)
    assert keeper.kept == {"tool:deploy": False}  # nothing was kept meanwhile


def test_the_decisions_file_named_by_the_environment_wins_over_the_providers(
    decisions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("USER_INTERACTION_DECISIONS", str(decisions))
    keeper = Keeper()
    with UserInteraction() as ui:
        ui.register_provider(KeepingProvider(keeper, {"approve": "Always allow"}))
        ui.approve_sync("Deploy?", remember="tool:deploy")
    assert keeper.kept == {}
    assert [d.name for d in DecisionStore(decisions).all()] == ["tool:deploy"]


def test_the_any_provider_offers_its_first_childs_decisions() -> None:
    from user_interaction._any import AnyProvider

    keeper = Keeper()
    fan = AnyProvider.__new__(AnyProvider)  # children built by hand: no entry points here
    from user_interaction._registration import Disposer, Registration

    child = Registration(KeepingProvider(keeper, {"approve": "Always allow"}), "keeper", None)
    child.disposer = Disposer(child.dispose)
    fan._children, fan._losers = [child], set()
    with UserInteraction() as ui:
        ui.register_provider(fan, name="any")
        assert ui.approve_sync("Deploy?", remember="tool:x") == Approval(True, False)
        assert ui.approve_sync("Deploy?", remember="tool:x") == Approval(True, True)
    assert keeper.kept == {"tool:x": True}


def test_the_inbox_decisions_commands_say_when_there_is_no_inbox(tmp_path: Path) -> None:
    env = child_env(USER_INTERACTION_STATE_DIR=str(tmp_path))
    done = decisions_command("list", "--inbox", env=env)
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("user-interaction: decisions: ")
