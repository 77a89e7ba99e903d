"""The server in this process, on a real SQLite file and a real loopback socket, for what
needs its timers shortened: an unkeyed ask withdrawn once its agent has been gone for
:data:`ABANDONED_AFTER` seconds, a keyed one kept; and the provider's disposal."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import user_interaction_inbox._live as live_module
from inbox_support import NPM, REQUEST
from user_interaction_inbox import InboxProvider
from user_interaction_inbox._address import TOKEN_HEADER
from user_interaction_inbox._server import InboxServer
from user_interaction_inbox._store import SqliteStore

from user_interaction import (
    PROVIDER_DISPOSED,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)


@asynccontextmanager
async def running(path: Path) -> AsyncIterator[tuple[InboxServer, aiohttp.ClientSession]]:
    store = SqliteStore(path)
    server = InboxServer(store, "t0ken")
    await server.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession(
            base_url=server.base, headers={TOKEN_HEADER: "t0ken"}
        ) as session:
            yield server, session
    finally:
        await server.close()
        store.close()


async def call(session: aiohttp.ClientSession, method: str, path: str, **kw: Any) -> Any:
    async with session.request(method, path, **kw) as response:
        assert response.status == 200, await response.text()
        return await response.json()


async def settled(session: aiohttp.ClientSession, ask_id: str) -> dict[str, Any]:
    """Wait, without holding a request on the ask (that would count as its agent), until
    the server settles it by itself."""
    for _ in range(2000):
        status: dict[str, Any] = await call(session, "GET", f"/api/asks/{ask_id}")
        if status["state"] != "pending":
            return status
        await asyncio.sleep(0.01)
    raise AssertionError(f"ask {ask_id} stayed pending")


def test_an_unkeyed_ask_without_its_agent_is_withdrawn_a_keyed_one_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_module, "ABANDONED_AFTER", 0.3)

    async def scenario() -> None:
        async with running(tmp_path / "inbox.sqlite3") as (_, session):
            keyed = await call(
                session,
                "POST",
                "/api/asks",
                json={"request": {**REQUEST, "key": "k"}, "agent": "a"},
            )
            unkeyed = await call(
                session, "POST", "/api/asks", json={"request": REQUEST, "agent": "a", "waiter": "w"}
            )
            # While its agent holds a wait request, longer than ABANDONED_AFTER, it stays.
            held = await call(session, "GET", f"/api/asks/{unkeyed['id']}?wait=1&waiter=w")
            assert held["state"] == "pending"
            gone = await settled(session, unkeyed["id"])  # the agent did not come back
            assert (gone["state"], gone["settledBy"]) == ("withdrawn", "inbox (agent gone)")
            still = await call(session, "GET", f"/api/asks/{keyed['id']}")
            assert still["state"] == "pending"

    asyncio.run(scenario())


def test_asks_pending_at_a_restart_get_their_timers_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_module, "ABANDONED_AFTER", 0.3)
    path = tmp_path / "inbox.sqlite3"

    async def scenario() -> None:
        async with running(path) as (_, session):
            unkeyed = await call(
                session, "POST", "/api/asks", json={"request": REQUEST, "agent": "a"}
            )
            timed = await call(
                session,
                "POST",
                "/api/asks",
                json={"request": {**REQUEST, "key": "t"}, "agent": "a", "timeLeft": 0.5},
            )
        async with running(path) as (_, session):
            assert (await settled(session, unkeyed["id"]))["state"] == "withdrawn"
            assert (await settled(session, timed["id"]))["state"] == "expired"

    asyncio.run(scenario())


@pytest.mark.parametrize(("key", "state"), [(None, "withdrawn"), ("keep-me", "pending")])
def test_disposal_withdraws_an_unkeyed_ask_and_leaves_a_keyed_one(
    tmp_path: Path, key: str | None, state: str
) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "inbox.sqlite3") as (server, session):
            ui = UserInteraction()
            ui.register_provider(InboxProvider(url=f"{server.base}/#t0ken", agent="disposed"))
            request = AskUserQuestionRequest.from_dict({**REQUEST, **({"key": key} if key else {})})
            asking = asyncio.ensure_future(ui.ask(request, timeout=60))
            for _ in range(2000):
                listed = await call(session, "GET", "/api/asks")
                if listed["asks"]:
                    break
                await asyncio.sleep(0.01)
            (ask,) = listed["asks"]
            assert ask["agent"] == "disposed"
            await asyncio.to_thread(ui.close)
            with pytest.raises(UserInteractionError) as caught:
                await asking
            assert caught.value.code == PROVIDER_DISPOSED
            # The withdrawal is the provider's last step, which may end after the caller
            # is released: wait for the ask to settle (held; a kept ask stays pending).
            wait = 60 if state == "withdrawn" else 2
            after = await call(session, "GET", f"/api/asks/{ask['id']}?wait={wait}")
            assert after["state"] == state

    asyncio.run(scenario())


def test_disposal_while_the_post_is_under_way_still_withdraws_the_ask(tmp_path: Path) -> None:
    """The server stored the ask but its reply has not reached the provider when the
    caller's signal fires: the provider still learns the id and withdraws the ask (it was
    left pending, with its agent gone, when the provider knew no id yet)."""

    async def scenario() -> None:
        async with running(tmp_path / "inbox.sqlite3") as (server, session):
            stored, release = threading.Event(), threading.Event()
            add_many = server.store.add_many
            ids: list[str] = []

            def slow_add_many(*args: Any, **kwargs: Any) -> Any:
                added = add_many(*args, **kwargs)
                ids.extend(ask.id for ask, _joined in added)
                stored.set()
                release.wait(60)  # the reply waits: the ask is stored, its id not yet told
                return added

            server.store.add_many = slow_add_many  # type: ignore[method-assign]
            ui = UserInteraction()
            ui.register_provider(InboxProvider(url=f"{server.base}/#t0ken", agent="disposed"))
            asking = asyncio.ensure_future(ui.ask(AskUserQuestionRequest.from_dict(REQUEST)))
            assert await asyncio.to_thread(stored.wait, 60)
            await asyncio.to_thread(ui.close)
            release.set()
            with pytest.raises(UserInteractionError) as caught:
                await asking
            assert caught.value.code == PROVIDER_DISPOSED
            (ask_id,) = ids
            after = await call(session, "GET", f"/api/asks/{ask_id}?wait=60")
            assert after["state"] == "withdrawn"

    asyncio.run(scenario())


async def _answer(session: aiohttp.ClientSession, count: int) -> None:
    """Answer the next ``count`` asks, one after the other, as they turn up (as a human)."""
    answered: set[str] = set()
    for _ in range(4000):
        listed = (await call(session, "GET", "/api/asks"))["asks"]
        fresh = [ask for ask in listed if ask["id"] not in answered]
        if fresh:
            answered.add(fresh[0]["id"])
            await call(
                session,
                "POST",
                f"/api/asks/{fresh[0]['id']}/settle",
                json={"action": "answer", "answer": NPM, "by": "test"},
            )
            if len(answered) == count:
                return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count - len(answered)} of {count} asks did not arrive")


async def _closed(transport: asyncio.BaseTransport) -> bool:
    for _ in range(2000):
        if transport.is_closing():
            return True
        await asyncio.sleep(0.01)
    return False


@pytest.mark.parametrize("ending", ["disposal", "the loop's end"])
def test_the_asks_on_one_loop_share_a_connection_closed_at_the_end(
    tmp_path: Path, ending: str
) -> None:
    """The provider keeps one HTTP session per event loop: its asks after the first pay no
    new connection. Disposal, or the end of the loop that asked (``asyncio.run`` returning
    with the provider still registered), closes it: no connection is left open."""
    transports: list[asyncio.BaseTransport] = []

    async def scenario() -> None:
        store = SqliteStore(tmp_path / "inbox.sqlite3")
        server = InboxServer(store, "t0ken")
        post = server._post

        async def noted_post(request: Any) -> Any:
            assert request.transport is not None
            transports.append(request.transport)
            return await post(request)

        server._post = noted_post  # type: ignore[method-assign]
        await server.start("127.0.0.1", 0)
        ui = UserInteraction()
        ui.register_provider(InboxProvider(url=f"{server.base}/#t0ken", agent="shared"))
        request = AskUserQuestionRequest.from_dict(REQUEST)

        async def ask_twice() -> None:
            for _ in range(2):
                answer = await ui.ask(request, timeout=60)
                assert answer.answers[0].selected == ("npm",)

        try:
            async with aiohttp.ClientSession(
                base_url=server.base, headers={TOKEN_HEADER: "t0ken"}
            ) as human:
                if ending == "disposal":
                    await asyncio.gather(ask_twice(), _answer(human, 2))
                    await ui.aclose()
                else:  # the asks run on a loop of their own, which ends with them
                    await asyncio.gather(
                        asyncio.to_thread(asyncio.run, ask_twice()), _answer(human, 2)
                    )
                first, second = transports
                assert first is second, "the second ask opened a new connection"
                assert await _closed(first), f"the connection stayed open after {ending}"
        finally:
            ui.close()
            await server.close()
            store.close()

    asyncio.run(scenario())


def test_a_list_request_is_held_until_the_list_differs_from_its_cursor(tmp_path: Path) -> None:
    """``GET /api/asks?after=CURSOR&wait=S`` (what ``inbox attend`` follows): held while
    the list is the one the cursor names; answered when an ask arrives or leaves, when
    the seconds pass, or at once for another cursor (one from before a restart)."""

    async def scenario() -> None:
        async with running(tmp_path / "inbox.sqlite3") as (server, session):
            empty = await call(session, "GET", "/api/asks")
            assert empty["asks"] == []
            held = asyncio.ensure_future(
                call(session, "GET", f"/api/asks?after={empty['cursor']}&wait=30")
            )
            await call(session, "GET", "/api/inbox")
            assert not held.done()  # nothing changed: still held
            posted = await call(
                session, "POST", "/api/asks", json={"request": REQUEST, "agent": "a"}
            )
            arrived = await held
            assert [ask["id"] for ask in arrived["asks"]] == [posted["id"]]
            assert arrived["cursor"] != empty["cursor"]

            held = asyncio.ensure_future(
                call(session, "GET", f"/api/asks?after={arrived['cursor']}&wait=30")
            )
            await call(
                session,
                "POST",
                f"/api/asks/{posted['id']}/settle",
                json={"action": "cancel", "by": "ann"},
            )
            left = await held
            assert left["asks"] == []

            same = await call(session, "GET", f"/api/asks?after={left['cursor']}&wait=0.05")
            assert same["cursor"] == left["cursor"]  # the seconds passed, nothing changed
            stale = await call(session, "GET", f"/api/asks?after={empty['cursor']}&wait=30")
            assert stale["cursor"] == left["cursor"]  # another cursor: answered at once
            async with session.get("/api/asks?wait=soon") as response:
                assert response.status == 400

            # Closing the server answers the requests it holds (no wait for the seconds).
            held = asyncio.ensure_future(
                call(session, "GET", f"/api/asks?after={left['cursor']}&wait=30")
            )
            await call(session, "GET", "/api/inbox")
            await server.close()
            assert (await held)["cursor"] == left["cursor"]

    asyncio.run(scenario())
