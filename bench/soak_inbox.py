"""Fault soak of the inbox: a report, never a test (bounded, loopback only; not run by CI).

``python bench/soak_inbox.py [--store postgres|sqlite|both] [--agents 50] [--asks 4]
[--kills 20] [--seed N]``:

- ``postgres``: two ``inbox serve`` processes on one database of a throwaway PostgreSQL
  cluster, the agents split between them; ``sqlite``: one server on an SQLite file;
- ``--agents`` agent processes each ask ``--asks`` questions in turn through the ``inbox``
  provider, keyed and unkeyed alternately;
- a third process answers every pending ask through the command line (``inbox list
  --json``, then ``inbox answer ID --answer JSON``, its answer's ``notes`` naming the ask);
- meanwhile the servers are SIGKILLed ``--kills`` times at random moments and restarted.

At the end every agent's every ask must have been answered exactly once: the answer each
agent got names an ask of its own, no ask's answer reached two callers, no answer was
accepted twice, no agent hung (each has 10 minutes). Prints the counts: asks, kills,
lost, doubled, and the asks stored but answered for nobody (an unkeyed ask posted again
because the server died before acknowledging it). Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "plugins" / "inbox" / "tests"))
from postgres_support import Cluster, why_no_postgres  # noqa: E402

CLI = [sys.executable, "-m", "user_interaction"]
#: How long an agent may take for all its asks before it counts as hung.
AGENT_BOUND = 600.0

AGENT = """
import json, sys
from user_interaction import AskUserQuestionRequest, UserInteraction, UserInteractionError
from user_interaction_inbox import InboxProvider
index, count = int(sys.argv[1]), int(sys.argv[2])
with UserInteraction() as ui:
    ui.register_provider(InboxProvider(agent=f"soak-{index}"))
    for number in range(count):
        key = f"soak:{index}:{number}" if (index + number) % 2 == 0 else None
        request = AskUserQuestionRequest.from_dict({
            "questions": [{"id": f"q{number}", "question": f"Ask {number} of agent {index}?",
                           "options": [{"label": "npm"}, {"label": "pnpm"}]}],
            "key": key,
        })
        try:
            answer = ui.ask_sync(request, timeout=900)
        except UserInteractionError as error:
            print(json.dumps({"n": number, "key": key, "error": error.code,
                              "message": error.message}), flush=True)
        else:
            print(json.dumps({"n": number, "key": key, "notes": answer.answers[0].notes}),
                  flush=True)
"""

ANSWERER = """
import json, os, subprocess, sys, time
cli = [sys.executable, "-m", "user_interaction"]
states = sys.argv[1:]
turn = 0
while True:
    state = states[turn % len(states)]
    turn += 1
    env = {**os.environ, "USER_INTERACTION_STATE_DIR": state}
    listed = subprocess.run([*cli, "inbox", "list", "--json"], env=env, capture_output=True,
                            text=True)
    if listed.returncode != 0:
        time.sleep(0.1)  # the server is down for a moment
        continue
    asks = json.loads(listed.stdout)["asks"]
    if not asks:
        time.sleep(0.1)
        continue
    for ask in asks:
        question = ask["questions"][0]["id"]
        answer = {"answers": [{"id": question, "selected": ["npm"], "notes": ask["id"]}]}
        done = subprocess.run(
            [*cli, "inbox", "answer", ask["id"], "--answer", json.dumps(answer), "--by", "soak"],
            env=env, capture_output=True, text=True,
        )
        print(json.dumps({"id": ask["id"], "status": done.returncode,
                          "stderr": done.stderr.strip()[-200:]}), flush=True)
"""


class Server:
    """``inbox serve --port 0`` with its own state directory; restartable."""

    def __init__(self, state: Path, store: str) -> None:
        self.state = state
        self.store = store
        self.log: list[str] = []
        self.process: subprocess.Popen[str] | None = None
        self.start()

    def start(self) -> None:
        process = subprocess.Popen(
            [*CLI, "inbox", "serve", "--port", "0", "--store", self.store],
            env={**os.environ, "USER_INTERACTION_STATE_DIR": str(self.state)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        for line in process.stderr:
            self.log.append(line)
            if "serving at" in line:
                break
        else:
            raise RuntimeError("the server did not start:\n" + "".join(self.log))
        threading.Thread(target=self._drain, args=(process,), daemon=True).start()
        self.process = process

    def _drain(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self.log.append(line)

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


def stored_asks(store: str) -> list[dict[str, Any]]:
    """Every ask in the store: id, agent, key, state, the answer's notes."""
    query = "SELECT id, agent, key, state, answer, settled_by FROM asks"
    if store.startswith("sqlite://"):
        with sqlite3.connect(store.removeprefix("sqlite://")) as db:
            rows = [
                (*row[:4], json.loads(row[4]) if row[4] else None, row[5])
                for row in db.execute(query)
            ]
    else:
        import psycopg

        with psycopg.connect(store) as db:
            rows = db.execute(query).fetchall()
    return [
        {
            "id": ask_id,
            "agent": agent,
            "key": key,
            "state": state,
            "notes": (answer or {}).get("answers", [{}])[0].get("notes"),
            "by": by,
        }
        for ask_id, agent, key, state, answer, by in rows
    ]


def soak(kind: str, agents: int, asks: int, kills: int, rng: random.Random) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="ui-soak-"))
    cluster = Cluster() if kind == "postgres" else None
    servers: list[Server] = []
    try:
        names = ["a", "b"] if kind == "postgres" else ["a"]
        states = []
        for name in names:
            (scratch / name).mkdir(mode=0o700)
            states.append(scratch / name)
        if cluster is not None:
            store = cluster.create_database("soak")
        else:
            store = f"sqlite://{scratch / 'a' / 'inbox.sqlite3'}"
        servers = [Server(state, store) for state in states]
        started = time.monotonic()
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", AGENT, str(index), str(asks)],
                env={**os.environ, "USER_INTERACTION_STATE_DIR": str(states[index % len(states)])},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for index in range(agents)
        ]
        answerer = subprocess.Popen(
            [sys.executable, "-c", ANSWERER, *map(str, states)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        answered_lines: list[str] = []
        reader = threading.Thread(
            target=lambda: answered_lines.extend(answerer.stdout or []), daemon=True
        )
        reader.start()
        outputs: dict[int, tuple[str, str]] = {}

        def collect(index: int, process: subprocess.Popen[str]) -> None:
            try:
                outputs[index] = process.communicate(timeout=AGENT_BOUND)
            except subprocess.TimeoutExpired:
                process.kill()
                outputs[index] = ("", "hung")

        collectors = [
            threading.Thread(target=collect, args=(index, process), daemon=True)
            for index, process in enumerate(processes)
        ]
        for collector in collectors:
            collector.start()
        # SIGKILL a server at random moments, and restart it at once
        done_kills = 0
        for _ in range(kills):
            time.sleep(rng.uniform(0.3, 2.5))
            victim = rng.choice(servers)
            victim.kill()
            done_kills += 1
            victim.start()
        killing_took = time.monotonic() - started
        for collector in collectors:
            collector.join()
        took = time.monotonic() - started
        answerer.kill()
        answerer.wait()
        reader.join(10)
        for server in servers:
            server.stop()
        rows = stored_asks(store)
    finally:
        for server in servers:
            if server.process is not None and server.process.poll() is None:
                server.process.kill()
        if cluster is not None:
            cluster.destroy()
        shutil.rmtree(scratch, ignore_errors=True)
    by_id = {row["id"]: row for row in rows}
    received: Counter[str] = Counter()
    lost: list[str] = []
    hung = 0
    wrong: list[str] = []
    for index in range(agents):
        out, err = outputs.get(index, ("", "no output"))
        if err == "hung":
            hung += 1
        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        got = {line["n"]: line for line in lines}
        if len(lines) != len(got):
            wrong.append(f"agent {index} reported an ask twice")
        for number in range(asks):
            line = got.get(number)
            if line is None or "notes" not in line:
                lost.append(f"agent {index} ask {number}: {line or 'no outcome'}")
                continue
            received[line["notes"]] += 1
            row = by_id.get(line["notes"])
            if row is None or row["agent"] != f"soak-{index}" or row["state"] != "answered":
                wrong.append(f"agent {index} ask {number} got the answer of {row}")
    accepted = Counter(
        json.loads(line)["id"] for line in answered_lines if json.loads(line)["status"] == 0
    )
    doubled = sum(1 for count in received.values() if count > 1) + sum(
        1 for count in accepted.values() if count > 1
    )
    states_count = Counter(row["state"] for row in rows)
    orphans = [
        row["id"] for row in rows if row["state"] == "answered" and row["id"] not in received
    ]
    logs = "".join(line for server in servers for line in server.log)
    return {
        "store": kind,
        "servers": len(servers),
        "agents": agents,
        "asks": agents * asks,
        "kills": done_kills,
        "answered for an agent": sum(received.values()),
        "lost": len(lost),
        "doubled": doubled,
        "hung agents": hung,
        "wrong answer": len(wrong),
        "stored asks by state": dict(states_count),
        "answered for nobody (posted again after a kill)": len(orphans),
        "answers accepted by the CLI": sum(accepted.values()),
        "seconds (killing, total)": (round(killing_took, 1), round(took, 1)),
        "tracebacks in server logs": logs.count("Traceback"),
        "details": (lost + wrong)[:10],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["postgres", "sqlite", "both"], default="both")
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--asks", type=int, default=4, help="asks per agent, one after another")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    kinds = ["postgres", "sqlite"] if args.store == "both" else [args.store]
    results = []
    for kind in kinds:
        if kind == "postgres" and why_no_postgres():
            print(f"postgres: cannot run: {why_no_postgres()}")
            continue
        result = soak(kind, args.agents, args.asks, args.kills, random.Random(args.seed))
        print(json.dumps(result, indent=2), flush=True)
        results.append(result)
    print()
    print("| store | servers | asks | kills | lost | doubled | hung | answered for nobody |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['store']} | {r['servers']} | {r['asks']} | {r['kills']} | {r['lost']} "
            f"| {r['doubled']} | {r['hung agents']} "
            f"| {r['answered for nobody (posted again after a kill)']} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
