"""The provider ``any``: one ask on several providers at once, the first outcome wins."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distfactory import make_dist

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    PROVIDER_FAILED,
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    AbortController,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    find_provider,
)

CHILDREN = """
import asyncio
import collections
import threading

from user_interaction import UserInteractionError

#: What every child did: (label, event, detail).
EVENTS = []
#: Set once a child did something: DONE[label, event].
DONE = collections.defaultdict(threading.Event)
#: Notified at every event.
CHANGED = threading.Condition()
#: Set by the test to let a gated child answer.
GATES = {}


def record(label, event, detail=None):
    with CHANGED:
        EVENTS.append((label, event, detail))
        DONE[label, event].set()
        CHANGED.notify_all()


class Waiting:
    \"\"\"Shows the ask until its signal fires (a screen nobody answers).\"\"\"

    def __init__(self, label="waiting"):
        self.label = label

    async def ask(self, request):
        record(self.label, "asked", request.questions[0].id)
        try:
            await request.signal.wait()
        finally:
            record(self.label, "withdrawn", request.signal.error().code)
        raise request.signal.error()

    def dispose(self):
        record(self.label, "disposed")


class Answering:
    \"\"\"Answers (or fails with ``error``) once its gate is set, if it has one.\"\"\"

    def __init__(self, label="answering", answer="npm", error=None, gated=False):
        self.label, self.answer, self.error, self.gated = label, answer, error, gated

    async def ask(self, request):
        record(self.label, "asked", request.questions[0].id)
        if self.gated:
            gate = GATES.setdefault(self.label, asyncio.Event())
            await request.signal.race(gate.wait())
        if self.error is not None:
            raise UserInteractionError(f"{self.label} says {self.error}", self.error)
        return {"answers": [{"id": request.questions[0].id, "selected": [self.answer]}]}


class Blocking:
    \"\"\"A sync provider on a worker thread that ends when its signal fires.\"\"\"

    serial = True

    def __init__(self, label="blocking"):
        self.label = label

    def ask(self, request):
        record(self.label, "asked", request.questions[0].id)
        fired = threading.Event()
        request.signal.add_callback(fired.set)
        fired.wait(60)
        record(self.label, "withdrawn", request.signal.error().code)
        raise request.signal.error()
"""


@pytest.fixture
def children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    make_dist(
        tmp_path,
        "ui-any-children",
        "1.0",
        {
            "waiting": "ui_any_children:Waiting",
            "answering": "ui_any_children:Answering",
            "blocking": "ui_any_children:Blocking",
        },
        modules={"ui_any_children.py": CHILDREN},
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("USER_INTERACTION_PROVIDER", raising=False)
    import ui_any_children

    yield ui_any_children
    del sys.modules["ui_any_children"]


REQUEST = AskUserQuestionRequest(
    [
        AskUserQuestionItem(
            "pkg", "Which?", options=[AskUserQuestionOption("npm"), AskUserQuestionOption("pnpm")]
        )
    ]
)


def events(module: Any, label: str) -> list[tuple[str, Any]]:
    return [(event, detail) for who, event, detail in module.EVENTS if who == label]


def test_the_first_answer_wins_and_the_others_are_withdrawn(children: Any) -> None:
    with UserInteraction() as ui:
        ui.use("any", providers=["waiting", ("answering", {"answer": "pnpm"}), "blocking"])
        assert ui.ask_sync(REQUEST).get("pkg").selected == ("pnpm",)
    assert events(children, "answering") == [("asked", "pkg")]
    for loser in ("waiting", "blocking"):
        assert children.DONE[loser, "withdrawn"].wait(10)  # withdrawn in the background
        assert events(children, loser)[:2] == [("asked", "pkg"), ("withdrawn", ASK_ABORTED)]
    assert ("waiting", "disposed", None) in children.EVENTS  # disposed with any


@pytest.mark.parametrize("code", [ASK_CANCELLED, ASK_DECLINED])
def test_the_humans_cancel_or_decline_on_one_screen_wins(children: Any, code: str) -> None:
    with UserInteraction() as ui:
        ui.use("any", providers=["waiting", ("answering", {"error": code})])
        with pytest.raises(UserInteractionError) as info:
            ui.ask_sync(REQUEST)
    assert info.value.code == code
    assert events(children, "waiting")[1] == ("withdrawn", ASK_ABORTED)


@pytest.mark.parametrize("code", [PROVIDER_FAILED, ASK_ABORTED, ASK_TIMEOUT])
def test_a_failing_child_is_ignored_while_another_can_answer(
    children: Any, code: str, caplog: pytest.LogCaptureFixture
) -> None:
    with UserInteraction() as ui:
        ui.use(
            "any",
            providers=[
                ("answering", {"label": "broken", "error": code}),
                ("answering", {"label": "late", "gated": True}),
            ],
        )

        async def ask_then_open_the_gate() -> Any:
            task = asyncio.ensure_future(ui.ask(REQUEST))
            while ("broken", "asked", "pkg") not in children.EVENTS or "late" not in children.GATES:
                await asyncio.sleep(0)  # a turn of the loop: the children take their steps
            children.GATES["late"].set()
            return await task

        with caplog.at_level("WARNING", logger="user_interaction"):
            answer = asyncio.run(ask_then_open_the_gate())
    assert answer.get("pkg").selected == ("npm",)
    assert "any: answering failed, the others still ask" in caplog.text


def test_when_every_child_fails_the_first_childs_error_is_raised(children: Any) -> None:
    with UserInteraction() as ui:
        ui.use(
            "any",
            providers=[
                ("answering", {"label": "first", "error": PROVIDER_FAILED}),
                ("answering", {"label": "second", "error": ASK_TIMEOUT}),
            ],
        )
        with pytest.raises(UserInteractionError) as info:
            ui.ask_sync(REQUEST)
    assert (info.value.code, info.value.message) == (PROVIDER_FAILED, "first says PROVIDER_FAILED")


def test_the_callers_abort_and_timeout_withdraw_every_child(children: Any) -> None:
    with UserInteraction() as ui:
        ui.use("any", providers=["waiting", "blocking"])
        with pytest.raises(UserInteractionError) as info:
            ui.ask_sync(REQUEST, timeout=0.2)
        assert info.value.code == ASK_TIMEOUT
        controller = AbortController()
        threading.Timer(0.1, controller.abort).start()
        with pytest.raises(UserInteractionError) as aborted:
            ui.ask_sync(AskUserQuestionRequest(REQUEST.questions, signal=controller.signal))
        assert aborted.value.code == ASK_ABORTED
    for child in ("waiting", "blocking"):
        with children.CHANGED:  # withdrawn in the background, once per ask
            assert children.CHANGED.wait_for(
                lambda child=child: [e for e, _ in events(children, child)].count("withdrawn") == 2,
                timeout=10,
            )


def test_a_serial_child_keeps_its_queue(children: Any) -> None:
    """Two asks at once: the serial child never shows the second before the first ended."""
    with UserInteraction() as ui:
        ui.use("any", providers=["blocking", ("answering", {"gated": True})])

        async def two_asks() -> list[Any]:
            first = asyncio.ensure_future(ui.ask(REQUEST))
            second = asyncio.ensure_future(ui.ask(REQUEST))
            while events(children, "answering").count(("asked", "pkg")) < 2 or not events(
                children, "blocking"
            ):
                await asyncio.sleep(0)  # a turn of the loop: the children take their steps
            children.GATES["answering"].set()
            return [await first, await second]

        first, second = asyncio.run(two_asks())
    assert first.get("pkg").selected == second.get("pkg").selected == ("npm",)
    shown = [event for event, _ in events(children, "blocking")]
    assert shown[0] == "asked"
    assert all(a != b for a, b in zip(shown, shown[1:])), shown  # asked, withdrawn, asked...


def test_a_child_that_fails_to_load_fails_use_with_its_error(children: Any) -> None:
    with UserInteraction() as ui:
        with pytest.raises(UserInteractionError) as info:
            ui.use("any", providers=["answering", "no-such-provider"])
        assert info.value.code == PROVIDER_NOT_FOUND
        assert ui.provider is None
    with pytest.raises(UserInteractionError) as unnamed:
        find_provider("any").load()
    assert unnamed.value.code == PROVIDER_LOAD_FAILED
    assert "providers= must list the children" in unnamed.value.message


def test_any_is_never_chosen_unnamed_and_the_environment_names_its_children(
    children: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranking = find_provider("any").rank()
    assert not ranking.available
    assert "only when named" in ranking.reason
    monkeypatch.setenv("USER_INTERACTION_PROVIDER", "any:waiting, answering")
    with UserInteraction() as ui:
        ui.use()
        assert ui.provider is not None
        assert ui.provider.children == ["waiting", "answering"]  # type: ignore[attr-defined]
        assert ui.ask_sync(REQUEST).get("pkg").selected == ("npm",)
