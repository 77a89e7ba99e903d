from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from core_support import until

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionRequest,
    UserInteraction,
)
from user_interaction.testing import sample_request


class Named:
    """Answers with its own tag; can be held until released; counts disposals."""

    def __init__(self, tag: str, *, serial: bool = False, hold: bool = False) -> None:
        self.tag = tag
        self.serial = serial
        self.holds = hold
        self._hold: asyncio.Event | None = None
        self.asked: list[str] = []
        self.disposed = 0

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.asked.append(request.questions[0].id)
        if self.hold() is not None:
            await self.hold().wait()
        return AskUserQuestionAnswer(
            [AskUserQuestionAnswerItem(item.id, custom=self.tag) for item in request.questions]
        )

    def hold(self) -> asyncio.Event | None:
        # created on first use, inside the running loop (Python 3.9 binds events to a loop)
        if self.holds and self._hold is None:
            self._hold = asyncio.Event()
        return self._hold

    def dispose(self) -> None:
        self.disposed += 1


def tag(answer: AskUserQuestionAnswer) -> str | None:
    return answer.answers[0].custom


def test_swap_with_nothing_active_registers(ui: UserInteraction) -> None:
    provider = Named("a")
    ui.swap(provider)
    assert ui.provider is provider


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_swap_loses_nothing(ui: UserInteraction, timeout: float | None) -> None:
    old, new = Named("old", hold=True), Named("new")
    old_disposer = ui.register_provider(old)

    async def main() -> None:
        pending = asyncio.ensure_future(ui.ask(sample_request("p"), timeout=timeout))
        await until(lambda: old.asked, "the old provider has the ask")
        ui.swap(new)
        assert ui.provider is new
        assert tag(await ui.ask(sample_request("n"), timeout=timeout)) == "new"
        assert old.disposed == 0  # still serving its pending ask
        old_disposer()  # after a swap the old disposer no longer owns it: no effect
        assert old.disposed == 0
        gate = old.hold()
        assert gate is not None
        gate.set()
        assert tag(await pending) == "old"
        assert old.disposed == 1

    asyncio.run(main())
    assert new.asked == ["n"]


def test_swap_with_no_pending_disposes_the_old_at_once(ui: UserInteraction) -> None:
    old = Named("old")
    ui.register_provider(old)
    disposer = ui.swap(Named("new"))
    assert old.disposed == 1
    disposer()
    assert ui.provider is None


@pytest.mark.parametrize("new_serial", [True, False])
def test_queued_asks_move_to_the_new_provider_in_order(
    ui: UserInteraction, new_serial: bool
) -> None:
    old = Named("old", serial=True, hold=True)
    new = Named("new", serial=new_serial)
    ui.register_provider(old)

    async def main() -> None:
        first = asyncio.ensure_future(ui.ask(sample_request("first")))
        await until(lambda: old.asked, "the old provider has the first ask")
        queued = [asyncio.ensure_future(ui.ask(sample_request(f"q{n}"))) for n in range(5)]
        await asyncio.sleep(0)  # each ran its first step: queued behind the first
        assert old.asked == ["first"]
        ui.swap(new)
        answers = await asyncio.gather(*queued)
        assert [tag(a) for a in answers] == ["new"] * 5
        gate = old.hold()
        assert gate is not None
        gate.set()
        assert tag(await first) == "old"

    asyncio.run(main())
    assert new.asked == [f"q{n}" for n in range(5)]
    assert old.asked == ["first"]
    assert old.disposed == 1


def test_swap_by_entry_point_name(ui: UserInteraction) -> None:
    names = {info.name for info in ui.providers()}
    if "fixture-good" not in names:
        pytest.skip("fixture distributions are installed by tox")
    ui.register_provider(Named("a"))
    ui.swap("fixture-good")
    assert type(ui.provider).__name__ == "GoodProvider"
    ui.reload()  # an entry-point provider reloads through its entry point
    assert type(ui.provider).__name__ == "GoodProvider"


def test_swaps_under_load_from_threads_lose_nothing(ui: UserInteraction) -> None:
    ui.register_provider(Named("p0", serial=True))
    errors: list[BaseException] = []
    results: list[Any] = []
    stop = threading.Event()

    def asker(n: int) -> None:
        for k in range(25):
            try:
                results.append(tag(ui.ask_sync(sample_request(f"{n}-{k}"), timeout=30)))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

    def swapper() -> None:
        count = 0
        while not stop.is_set():
            count += 1
            ui.swap(Named(f"p{count}", serial=count % 2 == 0))

    threads = [threading.Thread(target=asker, args=(n,)) for n in range(8)]
    swapping = threading.Thread(target=swapper)
    swapping.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    stop.set()
    swapping.join(10)
    assert not errors
    assert len(results) == 200
