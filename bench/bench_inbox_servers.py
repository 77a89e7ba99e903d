"""Benchmark of several inbox servers on one PostgreSQL database: a report, never a test.

``python bench/bench_inbox_servers.py [--rounds N] [--quick]`` starts a throwaway
PostgreSQL cluster (``fsync`` on, as a real one; the server binaries from
``/usr/lib/postgresql/<major>/bin``), two ``inbox serve`` processes on one database, and
measures through the public surface, against baselines measured in the same run:

1. answer given through server B -> the agent process waiting on server A has it (and, for
   reading it, through A itself), against
   a bare aiohttp long-poll round trip on loopback (round-robin); target <= 3x;
2. 1 000 pending asks from 100 agent processes, half asking through each server (10 asks
   each, each waited on in a held request): memory per pending ask of each server (each
   follows all 1 000); target <= 20 KB;
3. throughput: asks posted and answered through the HTTP API per second (16 at a time),
   on SQLite (one server, ``synchronous=FULL``) and on PostgreSQL (one server, and posted
   through A, answered through B); reported, no target.

Needs the inbox (with its ``postgres`` extra) and web distributions, and PostgreSQL's
server binaries. Always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench_inbox import (
    ANSWER,
    BARE_CLIENT,
    BARE_SERVER,
    REQUEST,
    Http,
    agent,
    bare_held_memory,
    inbox,
    median,
    rss_kib,
    spread,
    until,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "plugins" / "inbox" / "tests"))
from postgres_support import Cluster, why_no_postgres  # noqa: E402


def state_dirs(root: Path, *names: str) -> list[Path]:
    made = []
    for name in names:
        (root / name).mkdir(mode=0o700, parents=True)
        made.append(root / name)
    return made


def settle(api: Http, ask_id: str) -> None:
    reply = api.call(
        "POST", f"/api/asks/{ask_id}/settle", {"action": "answer", "answer": ANSWER, "by": "b"}
    )
    assert (reply.get("state"), reply.get("settledBy")) == ("answered", "b"), reply


# -- 1: answer through B -> agent waiting on A ---------------------------------------------


def commit_floor(url: str, rounds: int) -> list[float]:
    """One PostgreSQL commit of one row here (``fsync`` on): the floor of every change
    the inbox acknowledges."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE floor (x integer)")
        times = []
        for number in range(rounds * 4):
            start = time.perf_counter()
            connection.execute("INSERT INTO floor VALUES (%s)", (number,))
            times.append(time.perf_counter() - start)
    return times


def across_servers(
    root: Path, url: str, rounds: int
) -> tuple[list[float], list[float], list[float]]:
    """Answer through B -> agent on A; the same through A itself; a bare long-poll:
    round-robin, one of each per round."""
    import subprocess

    first, second = state_dirs(root, "a1", "b1")
    crossed: list[float] = []
    same: list[float] = []
    bare_times: list[float] = []
    with inbox(first, url) as (_, api_a), inbox(second, url) as (_, api_b):
        asker = agent(first, rounds * 2)
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
        answered: set[str] = set()

        def fresh(api: Http) -> list[dict[str, Any]]:
            """The asks listed there not answered yet (a server may still list the ask
            answered through the other for a moment)."""
            asks: list[dict[str, Any]] = api.call("GET", "/api/asks")["asks"]
            return [ask for ask in asks if ask["id"] not in answered]

        try:
            for _ in range(rounds):
                asks = until(lambda: fresh(api_b))
                until(lambda: api_a.call("GET", "/api/inbox")["waiting"])
                start = time.monotonic()
                settle(api_b, asks[0]["id"])
                crossed.append(float(asker.stdout.readline()) - start)
                answered.add(asks[0]["id"])

                asks = until(lambda: fresh(api_a))
                until(lambda: api_a.call("GET", "/api/inbox")["waiting"])
                start = time.monotonic()
                settle(api_a, asks[0]["id"])
                same.append(float(asker.stdout.readline()) - start)
                answered.add(asks[0]["id"])

                until(lambda: bare.call("GET", "/count")["waiting"])
                start = time.monotonic()
                bare.call("POST", "/fire", {})
                bare_times.append(float(client.stdout.readline()) - start)
        finally:
            for process in (asker, client, bare_server):
                process.kill()
                process.communicate()
    return crossed, same, bare_times


# -- 2: 1 000 pending asks over two servers -------------------------------------------------


def memory_over_two(root: Path, url: str) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """Each server's RSS warm (one ask asked and answered through it) and with 1 000
    pending asks from 100 agent processes, 50 on each server."""
    first, second = state_dirs(root, "a2", "b2")
    with ExitStack() as stack:
        servers = [stack.enter_context(inbox(state, url)) for state in (first, second)]
        for state, (_, api) in zip((first, second), servers):
            warm = agent(state, 1)
            asks = until(lambda api=api: api.call("GET", "/api/asks")["asks"])
            settle(api, asks[0]["id"])
            warm.communicate()
            until(lambda api=api: api.call("GET", "/api/inbox")["pending"] == 0)
        empty = [rss_kib(server.pid) for server, _ in servers]
        agents = [agent(state, 1, 10) for state in (first, second) for _ in range(50)]
        for _, api in servers:
            until(lambda api=api: api.call("GET", "/api/inbox")["pending"] == 1000, 300)
            until(lambda api=api: api.call("GET", "/api/inbox")["waiting"] == 500, 300)
        full = [rss_kib(server.pid) for server, _ in servers]
        for process in agents:
            process.kill()
            process.communicate()
    bare = bare_held_memory()
    return list(zip(empty, full)), bare


# -- 3: throughput through the API ---------------------------------------------------------


async def _post_and_answer(post: Http, answer: Http, total: int, parallel: int) -> float:
    """Asks per second: ``total`` asks posted through ``post`` and answered through
    ``answer``, ``parallel`` at a time, over kept-alive connections."""
    import aiohttp

    remaining = list(range(total))

    async def worker(session: aiohttp.ClientSession) -> None:
        while remaining:
            remaining.pop()
            base_post = f"http://{post.host}:{post.port}"
            async with session.post(
                base_post + "/api/asks",
                json={"request": REQUEST, "agent": "bench"},
                headers={"X-UI-Token": post.token},
            ) as response:
                ask = await response.json()
            base_answer = f"http://{answer.host}:{answer.port}"
            async with session.post(
                base_answer + f"/api/asks/{ask['id']}/settle",
                json={"action": "answer", "answer": ANSWER, "by": "bench"},
                headers={"X-UI-Token": answer.token},
            ) as response:
                settled = await response.json()
                assert settled["state"] == "answered", settled

    async with aiohttp.ClientSession() as session:
        start = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(parallel)))
        return total / (time.perf_counter() - start)


def throughput(root: Path, url: str, total: int, rounds: int) -> dict[str, list[float]]:
    first, second, alone = state_dirs(root, "a3", "b3", "s3")
    rates: dict[str, list[float]] = {"sqlite": [], "postgres": [], "postgres A->B": []}
    with (
        inbox(alone) as (_, lite),
        inbox(first, url) as (_, api_a),
        inbox(second, url) as (
            _,
            api_b,
        ),
    ):
        for _ in range(rounds):  # round-robin
            rates["sqlite"].append(asyncio.run(_post_and_answer(lite, lite, total, 16)))
            rates["postgres"].append(asyncio.run(_post_and_answer(api_a, api_a, total, 16)))
            rates["postgres A->B"].append(asyncio.run(_post_and_answer(api_a, api_b, total, 16)))
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=0, help="rounds per figure")
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    reason = why_no_postgres()
    if reason is not None:
        print(f"cannot run: {reason}")
        return 0
    rounds = args.rounds or (7 if args.quick else 25)
    rows: list[tuple[str, str, str, str]] = []
    cluster = Cluster(durable=True)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            root.chmod(0o700)

            floor = commit_floor(cluster.create_database("floor"), rounds)
            print(f"0. one PostgreSQL commit here (fsync on): {spread(floor)}")
            rows.append(("PostgreSQL commit (fsync on), info", spread(floor), "", ""))

            print("1. answer through server B -> agent waiting on server A has it")
            crossed, same, bare = across_servers(root, cluster.create_database("s1"), rounds)
            ratio = median(crossed) / median(bare)
            print(f"   B -> A           {spread(crossed)}")
            print(f"   A -> A           {spread(same)}")
            print(f"   bare long-poll   {spread(bare)}")
            print(f"   ratio            {ratio:.2f}x (target <= 3x)")
            rows.append(
                (
                    "answer through B -> agent on A",
                    f"{median(crossed) * 1e3:.2f} ms",
                    f"{median(bare) * 1e3:.2f} ms (bare long-poll)",
                    f"{ratio:.2f}x (<= 3x)",
                )
            )
            rows.append(
                (
                    "answer through A -> agent on A (same server), info",
                    f"{median(same) * 1e3:.2f} ms",
                    f"{median(bare) * 1e3:.2f} ms (bare long-poll)",
                    f"{median(same) / median(bare):.2f}x",
                )
            )

            print("2. 1 000 pending asks from 100 agents over two servers: memory per ask")
            servers, (bare_empty, bare_full) = memory_over_two(root, cluster.create_database("s2"))
            per_held = (bare_full - bare_empty) / 1000
            for name, (empty, full) in zip("AB", servers):
                per_ask = (full - empty) / 1000
                print(f"   server {name}: {empty} -> {full} KiB, {per_ask:.1f} KiB per pending ask")
                rows.append(
                    (
                        f"server {name} memory per pending ask (1 000, 500 waited on here)",
                        f"{per_ask:.1f} KiB",
                        f"{per_held:.1f} KiB per bare held request",
                        "(<= 20 KB)",
                    )
                )
            print(f"   bare aiohttp, per held request {per_held:.1f} KiB")

            total = 100 if args.quick else 300
            print(f"3. throughput: {total} asks posted and answered through the API, 16 at a time")
            rates = throughput(root, cluster.create_database("s3"), total, max(3, rounds // 5))
            for name, values in rates.items():
                print(
                    f"   {name:14} {median(values):8.1f} asks/s "
                    f"(min {min(values):.1f}, max {max(values):.1f})"
                )
            base = median(rates["sqlite"])
            for name, values in rates.items():
                rows.append(
                    (
                        f"asks posted and answered per second, {name}",
                        f"{median(values):.1f}/s",
                        f"{base:.1f}/s (SQLite, FULL)",
                        f"{median(values) / base:.2f}x (report)",
                    )
                )
    finally:
        cluster.destroy()

    print()
    print("| figure | measured | baseline | ratio (target) |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
