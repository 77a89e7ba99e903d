"""Benchmark of the inbox (``user-interaction-inbox``): a report, never a test.

``python bench/bench_inbox.py [--rounds N] [--quick]`` measures, through the public surface
(``inbox serve``, the ``inbox`` provider, the ``/api/asks/{id}/settle`` call that
``inbox answer`` makes, ``inbox list --json``), each against a baseline measured in the
same run, round-robin where it can be:

1. answer given -> the waiting agent process has it, against a bare aiohttp long-poll
   round trip on loopback (a held GET released by a POST, client in its own process);
   target <= 2x;
2. server memory per pending ask with 1 000 pending asks from 100 agent processes (10
   asks each, each ask waiting in its own held request); target <= 20 KB;
3. ``inbox list --json`` (with those 1 000 asks pending, and with one) against
   ``user-interaction providers --json``, wall time of the whole process; target <= 2x;
4. an in-process ask through the inbox, answered by a human whose page is open (its event
   stream held; the answer posted as soon as the ask shows there), against the same with
   the web provider; target <= 2x. Beside them, round-robin, the floor of any inbox that
   keeps asks in another process and commits each change before it says so: a bare
   aiohttp server committing to SQLite (WAL, the same ``synchronous``) on a worker thread,
   its agent posting the ask and holding a request until the answer is committed.

Needs the inbox and web distributions installed. Always exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REQUEST = {
    "questions": [
        {
            "id": "pkg",
            "question": "Which package manager?",
            "options": [{"label": "npm"}, {"label": "pnpm"}],
        }
    ]
}
ANSWER = {"answers": [{"id": "pkg", "selected": ["npm"]}]}
CLI = [sys.executable, "-m", "user_interaction"]

AGENT = """
import asyncio, json, sys, time
from user_interaction import AskUserQuestionRequest, UserInteraction
from user_interaction_inbox import InboxProvider
request = AskUserQuestionRequest.from_dict(json.loads(sys.argv[1]))
rounds, parallel = int(sys.argv[2]), int(sys.argv[3])
async def main():
    with UserInteraction() as ui:
        ui.register_provider(InboxProvider(agent="bench"))
        for _ in range(rounds):
            await asyncio.gather(*(ui.ask(request, timeout=600) for _ in range(parallel)))
            print(time.monotonic(), flush=True)
asyncio.run(main())
"""

#: How each bare server's script ends: its ``app()`` served on a free loopback port, which
#: it prints.
SERVE = """
async def main():
    runner = web.AppRunner(app(), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    print(runner.addresses[0][1], flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""

BARE_SERVER = (
    """
import asyncio, sys
from aiohttp import web
waiters = []
async def wait(request):
    future = asyncio.get_running_loop().create_future()
    waiters.append(future)
    try:
        await future
    finally:
        waiters.remove(future)
    return web.json_response({"state": "answered"})
async def fire(request):
    await request.read()
    for future in list(waiters):
        if not future.done():
            future.set_result(None)
    return web.json_response({"ok": True})
async def count(request):
    return web.json_response({"waiting": len(waiters)})
def app():
    app = web.Application()
    app.router.add_get("/wait", wait)
    app.router.add_post("/fire", fire)
    app.router.add_get("/count", count)
    return app
"""
    + SERVE
)

BARE_CLIENT = """
import asyncio, sys, time
import aiohttp
async def main():
    async with aiohttp.ClientSession() as session:
        for _ in range(int(sys.argv[2])):
            async with session.get(f"http://127.0.0.1:{sys.argv[1]}/wait") as response:
                await response.read()
            print(time.monotonic(), flush=True)
asyncio.run(main())
"""


BARE_HOLDERS = """
import asyncio, sys
import aiohttp
async def main():
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def hold():
            async with session.get(f"http://127.0.0.1:{sys.argv[1]}/wait") as response:
                await response.read()
        await asyncio.gather(*(hold() for _ in range(int(sys.argv[2]))))
asyncio.run(main())
"""


def bare_held_memory() -> tuple[int, int]:
    """RSS of the bare aiohttp long-poll server, warm, then holding 1 000 requests from 100
    client processes: the floor of the inbox's memory per pending ask."""
    server = subprocess.Popen(
        [sys.executable, "-c", BARE_SERVER], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    port = server.stdout.readline().strip()
    bare = Http(f"http://127.0.0.1:{port}")
    try:
        warm = subprocess.Popen([sys.executable, "-c", BARE_HOLDERS, port, "1"])
        until(lambda: bare.call("GET", "/count")["waiting"] == 1)
        bare.call("POST", "/fire", {})
        warm.wait()
        empty = rss_kib(server.pid)
        holders = [
            subprocess.Popen([sys.executable, "-c", BARE_HOLDERS, port, "10"]) for _ in range(100)
        ]
        until(lambda: bare.call("GET", "/count")["waiting"] == 1000)
        full = rss_kib(server.pid)
        for process in holders:
            process.kill()
            process.wait()
    finally:
        server.kill()
        server.communicate()
    return empty, full


def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float], scale: float = 1e3, unit: str = "ms") -> str:
    return (
        f"{median(values) * scale:8.2f} {unit} "
        f"(min {min(values) * scale:.2f}, max {max(values) * scale:.2f})"
    )


class Http:
    """A blocking JSON client for one server (a fresh connection per call, as the command
    line makes them)."""

    def __init__(self, base: str, token: str = "") -> None:
        parts = urllib.parse.urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.token = token

    def call(self, method: str, path: str, payload: object = None) -> Any:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = {"X-UI-Token": self.token, "Content-Type": "application/json"}
        body = None if payload is None else json.dumps(payload).encode()
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        return json.loads(data) if data else None


def until(predicate: Callable[[], Any], timeout: float = 120.0) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise TimeoutError("the benchmark's subject did not get there")
        time.sleep(0.001)


#: ``synchronous`` of the store the benchmark's servers use (``--synchronous``).
SYNCHRONOUS = ["FULL"]


@contextmanager
def inbox(state: Path, store: str | None = None) -> Iterator[tuple[subprocess.Popen[str], Http]]:
    """``inbox serve`` with ``state`` as its state directory, on ``store`` (default: an
    SQLite file there, with the benchmark's ``synchronous``)."""
    env = {**os.environ, "USER_INTERACTION_STATE_DIR": str(state)}
    if store is None:
        store = f"sqlite://{state.absolute()}/inbox.sqlite3?synchronous={SYNCHRONOUS[0]}"
    server = subprocess.Popen(
        [*CLI, "inbox", "serve", "--port", "0", "--store", store],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    line = server.stderr.readline()
    assert "serving at" in line, line
    record = json.loads((state / "inbox.json").read_text())
    try:
        yield server, Http(record["url"], record["token"])
    finally:
        server.terminate()
        server.communicate(timeout=30)


def agent(state: Path, rounds: int, parallel: int = 1) -> subprocess.Popen[str]:
    env = {**os.environ, "USER_INTERACTION_STATE_DIR": str(state)}
    return subprocess.Popen(
        [sys.executable, "-c", AGENT, json.dumps(REQUEST), str(rounds), str(parallel)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


# -- 1: answer -> agent ------------------------------------------------------------------


def answer_latency(state: Path, rounds: int) -> tuple[list[float], list[float]]:
    inbox_times: list[float] = []
    bare_times: list[float] = []
    with inbox(state) as (_, api):
        asker = agent(state, rounds)
        bare_server = subprocess.Popen(
            [sys.executable, "-c", BARE_SERVER], stdout=subprocess.PIPE, text=True
        )
        assert bare_server.stdout is not None
        assert asker.stdout is not None
        port = bare_server.stdout.readline().strip()
        bare = Http(f"http://127.0.0.1:{port}")
        client = subprocess.Popen(
            [sys.executable, "-c", BARE_CLIENT, port, str(rounds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert client.stdout is not None
        try:
            for _ in range(rounds):  # round-robin: one of each per round
                asks = until(lambda: api.call("GET", "/api/asks")["asks"])
                until(lambda: api.call("GET", "/api/inbox")["waiting"])
                start = time.monotonic()
                api.call(
                    "POST",
                    f"/api/asks/{asks[0]['id']}/settle",
                    {"action": "answer", "answer": ANSWER, "by": "bench"},
                )
                inbox_times.append(float(asker.stdout.readline()) - start)

                until(lambda: bare.call("GET", "/count")["waiting"])
                start = time.monotonic()
                bare.call("POST", "/fire", {})
                bare_times.append(float(client.stdout.readline()) - start)
        finally:
            for process in (asker, client, bare_server):
                process.kill()
                process.communicate()
    return inbox_times, bare_times


# -- 2 and 3: 1 000 pending asks, memory and inbox list --json ----------------------------


def timed_process(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def list_vs_providers(state: Path, rounds: int) -> tuple[list[float], list[float]]:
    env = {**os.environ, "USER_INTERACTION_STATE_DIR": str(state)}
    listing, providers = [], []
    for _ in range(rounds):
        listing.append(timed_process([*CLI, "inbox", "list", "--json"], env))
        providers.append(timed_process([*CLI, "providers", "--json"], env))
    return listing, providers


def thousand_pending(state: Path, rounds: int) -> tuple[int, int, tuple[list[float], list[float]]]:
    """Server RSS warm with nothing pending (one ask asked and answered first), then with
    1 000 pending asks, each waited on in a held request; and ``inbox list --json``
    against ``providers --json`` while they are pending."""
    with inbox(state) as (server, api):
        warm = agent(state, 1)
        asks = until(lambda: api.call("GET", "/api/asks")["asks"])
        api.call(
            "POST",
            f"/api/asks/{asks[0]['id']}/settle",
            {"action": "answer", "answer": ANSWER, "by": "bench"},
        )
        warm.communicate()
        empty = rss_kib(server.pid)
        agents = [agent(state, 1, 10) for _ in range(100)]
        until(lambda: api.call("GET", "/api/inbox")["pending"] == 1000)
        until(lambda: api.call("GET", "/api/inbox")["waiting"] == 1000)
        full = rss_kib(server.pid)
        timings = list_vs_providers(state, rounds)
        for process in agents:
            process.kill()
            process.communicate()
    return empty, full, timings


# -- 4: in-process round trip, inbox against web, and the floor of any durable inbox ---------

#: The least an inbox that keeps its asks in another process and commits each state change
#: before it says so needs (the floor of figure 4): an aiohttp server with no guards, a
#: ``BEGIN IMMEDIATE ... COMMIT`` per change in SQLite (WAL, the benchmark's
#: ``synchronous``) on a worker thread, a server-sent event stream for the human, and an
#: agent's held request released when the human's answer is committed.
BARE_INBOX = (
    """
import asyncio, json, sqlite3, sys, threading, uuid
from aiohttp import web
db = sqlite3.connect(sys.argv[1], isolation_level=None, check_same_thread=False)
db.execute("PRAGMA journal_mode = WAL")
db.execute(f"PRAGMA synchronous = {sys.argv[2]}")
db.execute("CREATE TABLE IF NOT EXISTS asks (id TEXT PRIMARY KEY, request TEXT, answer TEXT)")
lock = threading.Lock()
def commit(statement, values):
    with lock:
        db.execute("BEGIN IMMEDIATE")
        db.execute(statement, values)
        db.execute("COMMIT")
settled, streams = {}, set()
async def post(request):
    body = await request.read()
    ask_id = uuid.uuid4().hex
    await asyncio.to_thread(commit, "INSERT INTO asks VALUES (?, ?, NULL)", (ask_id, body))
    settled[ask_id] = asyncio.get_running_loop().create_future()
    card = json.dumps({"askId": ask_id, "questions": json.loads(body)["questions"]})
    for stream in streams:
        stream.put_nowait(f"event: ask\\ndata: {card}\\n\\n".encode())
    return web.json_response({"id": ask_id})
async def wait(request):
    ask_id = request.match_info["id"]
    answer = await settled[ask_id]
    del settled[ask_id]
    return web.json_response(answer)
async def settle(request):
    ask_id, body = request.match_info["id"], await request.json()
    answer = json.dumps(body["answer"])
    await asyncio.to_thread(commit, "UPDATE asks SET answer = ? WHERE id = ?", (answer, ask_id))
    settled[ask_id].set_result(body["answer"])
    return web.json_response({"state": "answered"})
async def events(request):
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    queue = asyncio.Queue()
    streams.add(queue)
    await response.write(b'event: snapshot\\ndata: {"asks": []}\\n\\n')
    try:
        while True:
            await response.write(await queue.get())
    finally:
        streams.discard(queue)
def app():
    app = web.Application()
    app.router.add_post("/asks", post)
    app.router.add_get("/asks/{id}", wait)
    app.router.add_post("/asks/{id}/settle", settle)
    app.router.add_get("/events", events)
    return app
"""
    + SERVE
)


class Stream:
    """A page left open: one server's event stream, read event by event as it comes."""

    def __init__(self, host: str, port: int, path: str, headers: dict[str, str]) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=60)
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        self.buffer = b""

    def next(self, name: str) -> Any:
        """The data of the next event called ``name`` (others are skipped)."""
        while True:
            while b"\n\n" not in self.buffer:
                self.buffer += self.response.read1(1 << 16)
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            if block.startswith(f"event: {name}\n".encode()):
                return json.loads(block.split(b"data: ", 1)[1])

    def close(self) -> None:
        self.connection.close()


class Poster:
    """A page's replies: JSON posts on one kept-alive connection, as a browser sends them."""

    def __init__(self, host: str, port: int, headers: dict[str, str]) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=60)
        self.headers = {"Content-Type": "application/json", **headers}

    def post(self, path: str, payload: object) -> None:
        self.connection.request("POST", path, json.dumps(payload).encode(), self.headers)
        response = self.connection.getresponse()
        body = response.read()
        assert response.status == 200, (response.status, body)

    def close(self) -> None:
        self.connection.close()


class BareAgent:
    """The floor's agent: on a kept event-loop thread (as ``ask_sync`` runs an ask), an
    aiohttp session posts the ask and holds a request until it is answered."""

    def __init__(self, base: str) -> None:
        import asyncio

        import aiohttp

        self.base = base
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

        async def open_session() -> aiohttp.ClientSession:
            return aiohttp.ClientSession()

        self.session = self.call(open_session())

    def call(self, coroutine: Any) -> Any:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def ask(self, request: dict[str, Any]) -> Any:
        async def ask() -> Any:
            async with self.session.post(f"{self.base}/asks", json=request) as response:
                ask_id = (await response.json())["id"]
            async with self.session.get(f"{self.base}/asks/{ask_id}") as response:
                return await response.json()

        return self.call(ask())

    def close(self) -> None:
        self.call(self.session.close())
        self.loop.call_soon_threadsafe(self.loop.stop)


def round_trips(state: Path, rounds: int) -> dict[str, list[float]]:
    """An ask's whole round trip, answered by a human whose page is open (an event stream
    held, replies posted on a kept-alive connection) as soon as the ask shows there:
    through the inbox, through the web provider, and through the bare durable inbox."""
    os.environ["USER_INTERACTION_STATE_DIR"] = str(state)
    from user_interaction_inbox import InboxProvider
    from user_interaction_web import WebProvider

    from user_interaction import AskUserQuestionRequest, UserInteraction

    request = AskUserQuestionRequest.from_dict(REQUEST)
    with contextlib.ExitStack() as stack:
        _, api = stack.enter_context(inbox(state))
        via_inbox = stack.enter_context(UserInteraction())
        via_inbox.register_provider(InboxProvider(agent="bench"))
        via_web = stack.enter_context(UserInteraction())
        web = WebProvider()
        via_web.register_provider(web)
        base, token = web.start().split("#")
        page = Http(base)
        bare = subprocess.Popen(
            [sys.executable, "-c", BARE_INBOX, str(state / "bare.sqlite3"), SYNCHRONOUS[0]],
            stdout=subprocess.PIPE,
            text=True,
        )
        stack.callback(bare.communicate)
        stack.callback(bare.kill)
        assert bare.stdout is not None
        bare_port = int(bare.stdout.readline())
        bare_agent = BareAgent(f"http://127.0.0.1:{bare_port}")
        stack.callback(bare_agent.close)

        inbox_headers = {"X-UI-Token": api.token}
        web_headers = {"Host": f"127.0.0.1:{page.port}", "Origin": f"http://127.0.0.1:{page.port}"}
        web_events = f"/api/events?token={token}"
        streams = {
            "inbox": Stream(api.host, api.port, "/api/events", inbox_headers),
            "web": Stream(page.host, page.port, web_events, web_headers),
            "floor": Stream("127.0.0.1", bare_port, "/events", {}),
        }
        posters = {
            "inbox": Poster(api.host, api.port, inbox_headers),
            "web": Poster(page.host, page.port, {**web_headers, "X-UI-Token": token}),
            "floor": Poster("127.0.0.1", bare_port, {}),
        }
        for each in (*streams.values(), *posters.values()):
            stack.callback(each.close)
        for stream in streams.values():
            stream.next("snapshot")

        def answer(name: str) -> None:
            ask_id = streams[name].next("ask")["askId"]
            if name == "inbox":
                settle = {"action": "answer", "answer": ANSWER, "by": "bench"}
                posters[name].post(f"/api/asks/{ask_id}/settle", settle)
            elif name == "web":
                reply = {"askId": ask_id, "action": "accept", "answers": ANSWER["answers"]}
                posters[name].post("/api/answer", reply)
            else:
                posters[name].post(f"/asks/{ask_id}/settle", {"answer": ANSWER})

        agents: dict[str, Callable[[], object]] = {
            "inbox": lambda: via_inbox.ask_sync(request, timeout=60),
            "web": lambda: via_web.ask_sync(request, timeout=60),
            "floor": lambda: bare_agent.ask(REQUEST),
        }
        times: dict[str, list[float]] = {name: [] for name in agents}
        for _ in range(rounds + 1):  # the first round warms each up
            for name, ask in agents.items():
                human = threading.Thread(target=answer, args=(name,))
                human.start()
                start = time.perf_counter()
                ask()
                times[name].append(time.perf_counter() - start)
                human.join()
    return {name: values[1:] for name, values in times.items()}


def commit_floor(directory: Path, rounds: int) -> list[float]:
    """One SQLite commit (WAL, the benchmark's ``synchronous``) in ``directory``: the floor
    of every state change the inbox acknowledges."""
    import sqlite3

    directory.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(directory / "floor.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(f"PRAGMA synchronous = {SYNCHRONOUS[0]}")
    db.execute("CREATE TABLE t (x)")
    times = []
    for number in range(rounds * 4):
        start = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t VALUES (?)", (number,))
        db.execute("COMMIT")
        times.append(time.perf_counter() - start)
    db.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=0, help="rounds per figure")
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument(
        "--synchronous",
        choices=["FULL", "NORMAL"],
        default="FULL",
        help="the store's synchronous setting (default FULL, as inbox serve)",
    )
    args = parser.parse_args()
    SYNCHRONOUS[0] = args.synchronous
    rounds = args.rounds or (7 if args.quick else 25)
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)

        floor = commit_floor(root / "floor", rounds)
        print(f"0. one SQLite commit here, synchronous={args.synchronous}: {spread(floor)}")
        rows.append((f"SQLite commit ({args.synchronous}), info", spread(floor), "", ""))

        print("1. answer given -> waiting agent process has it")
        inbox_times, bare_times = answer_latency(root / "s1", rounds)
        ratio = median(inbox_times) / median(bare_times)
        print(f"   inbox            {spread(inbox_times)}")
        print(f"   bare long-poll   {spread(bare_times)}")
        print(f"   ratio            {ratio:.2f}x (target <= 2x)")
        rows.append(
            (
                "answer -> agent",
                f"{median(inbox_times) * 1e3:.2f} ms",
                f"{median(bare_times) * 1e3:.2f} ms",
                f"{ratio:.2f}x (<= 2x)",
            )
        )

        print("2. server memory per pending ask (1 000 asks, 100 agent processes)")
        empty, full, (listing, providers) = thousand_pending(root / "s2", max(5, rounds // 3))
        per_ask = (full - empty) / 1000
        print(f"   RSS warm, none pending  {empty} KiB")
        print(f"   RSS with 1000 pending   {full} KiB")
        print(f"   per pending ask         {per_ask:.1f} KiB (target <= 20 KB)")
        bare_empty, bare_full = bare_held_memory()
        per_held = (bare_full - bare_empty) / 1000
        print(f"   bare aiohttp, per held request {per_held:.1f} KiB ({bare_empty} -> {bare_full})")
        rows.append(
            (
                "server memory per pending ask",
                f"{per_ask:.1f} KiB",
                f"{per_held:.1f} KiB per bare held request",
                f"{per_ask / per_held:.2f}x (<= 20 KB)",
            )
        )

        print("3. inbox list --json against providers --json (process wall time)")
        ratio = median(listing) / median(providers)
        print(f"   1000 pending: list --json {spread(listing)}")
        print(f"                 providers   {spread(providers)}")
        print(f"   ratio         {ratio:.2f}x (target <= 2x)")
        rows.append(
            (
                "inbox list --json, 1000 pending",
                f"{median(listing) * 1e3:.1f} ms",
                f"{median(providers) * 1e3:.1f} ms",
                f"{ratio:.2f}x (<= 2x)",
            )
        )

        print("4. in-process ask, answered as soon as an open page shows it")
        trips = round_trips(root / "s4", rounds)
        ratio = median(trips["inbox"]) / median(trips["web"])
        floor_ratio = median(trips["floor"]) / median(trips["web"])
        print(f"   inbox   {spread(trips['inbox'])}")
        print(f"   web     {spread(trips['web'])}")
        print(f"   floor   {spread(trips['floor'])}  (a bare durable inbox on the same stack)")
        above = median(trips["inbox"]) / median(trips["floor"])
        print(f"   ratio   {ratio:.2f}x (target <= 2x); the floor: {floor_ratio:.2f}x the web's,")
        print(f"           the inbox {above:.2f}x the floor")
        rows.append(
            (
                "ask round trip",
                f"{median(trips['inbox']) * 1e3:.2f} ms",
                f"{median(trips['web']) * 1e3:.2f} ms (web)",
                f"{ratio:.2f}x (<= 2x)",
            )
        )
        rows.append(
            (
                "ask round trip, floor: bare durable inbox",
                f"{median(trips['floor']) * 1e3:.2f} ms",
                f"{median(trips['web']) * 1e3:.2f} ms (web)",
                f"{floor_ratio:.2f}x (info)",
            )
        )

    print()
    print("| figure | inbox | baseline | ratio (target) |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
