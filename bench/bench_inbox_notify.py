"""Benchmark of the inbox's notifications: a report, never a test.

``python bench/bench_inbox_notify.py [--rounds N] [--posts N]`` starts three ``inbox serve``
processes on loopback and measures how long an agent waits for its ask to be
acknowledged (``POST /api/asks``, a fresh connection each, as a restarted agent makes it):

- baseline: a server without ``--notify``;
- accepting: ``--notify json://`` to a service that accepts each message at once;
- hanging: ``--notify json://`` to a service that accepts the connection and never
  answers (each message waits until Apprise gives up on it);
- refused: ``--notify json://`` to a port nothing listens on (each message fails at once).

The four are measured round-robin in the same run; each sample is the median of
``--posts`` acknowledgements, and the figure is the median of the samples. Target: the
hanging and refused services cost the ask nothing (ratio about 1x). Back to back
(``--gap 0``) an accepting or refused service's message costs the server about 1.5 ms of
CPU (Apprise's HTTP client, on a thread), which the next asks share; with the asks
``--gap 0.05`` apart, as humans' agents ask, that is gone too. The stores use
``synchronous=NORMAL`` so that ``fsync`` noise does not hide the request path.

Needs the inbox (with its ``notify`` extra) installed. Always exits 0.
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "user_interaction"]
REQUEST = {"questions": [{"id": "go", "question": "Deploy build 42 to production?"}]}


class Accepting(http.server.BaseHTTPRequestHandler):
    """A service that accepts every message at once (200)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Silent:
    """A TCP service that accepts every connection and never answers (held open)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self) -> None:
        self.listener.close()
        for connection in self.held:
            connection.close()


def refused_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def serving(state: Path, *args: str) -> Iterator[tuple[str, int, str]]:
    """``inbox serve`` with ``args``: its host, port and token."""
    env = {**os.environ, "USER_INTERACTION_STATE_DIR": str(state)}
    store = f"sqlite://{state.absolute()}/inbox.sqlite3?synchronous=NORMAL"
    server = subprocess.Popen(
        [*CLI, "inbox", "serve", "--port", "0", "--store", store, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        path = state / "inbox.json"
        while not path.exists():  # written just before "serving at"
            if server.poll() is not None:
                raise RuntimeError(f"inbox serve {' '.join(args)} did not start")
            time.sleep(0.05)
        record = json.loads(path.read_text())
        host_port = record["url"].split("//", 1)[1].rstrip("/")
        host, port = host_port.rsplit(":", 1)
        yield host, int(port), record["token"]
    finally:
        server.terminate()
        server.wait(60)


def acknowledged(host: str, port: int, token: str) -> float:
    """Seconds from sending an ask to having its acknowledgement."""
    body = json.dumps({"request": REQUEST, "agent": "bench"}).encode()
    headers = {"X-UI-Token": token, "Content-Type": "application/json"}
    start = time.perf_counter()
    connection = http.client.HTTPConnection(host, port, timeout=60)
    try:
        connection.request("POST", "/api/asks", body=body, headers=headers)
        response = connection.getresponse()
        data: Any = json.loads(response.read())
    finally:
        connection.close()
    elapsed = time.perf_counter() - start
    assert response.status == 200, data
    assert data["state"] == "pending", data
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="samples per server")
    parser.add_argument("--posts", type=int, default=40, help="asks per sample")
    parser.add_argument(
        "--gap",
        type=float,
        default=0.0,
        help="seconds between two asks (default 0: back to back, so that the work of one "
        "ask's message overlaps the next asks)",
    )
    args = parser.parse_args()
    silent = Silent()
    accepting = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Accepting)
    threading.Thread(target=accepting.serve_forever, daemon=True).start()
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as directory, ExitStack() as stack:
        servers = {}
        for name, notify in (
            ("baseline", ()),
            ("accepting", ("--notify", f"json://127.0.0.1:{accepting.server_port}/hook")),
            ("hanging", ("--notify", f"json://127.0.0.1:{silent.port}/hook")),
            ("refused", ("--notify", f"json://127.0.0.1:{refused_port()}/hook")),
        ):
            state = Path(directory) / name
            state.mkdir()
            servers[name] = stack.enter_context(serving(state, *notify))
            results[name] = []
        for server in servers.values():
            acknowledged(*server)  # warm up: imports, the first commit
        for _ in range(args.rounds):
            for name, server in servers.items():
                sample = []
                for _ in range(args.posts):
                    sample.append(acknowledged(*server))
                    time.sleep(args.gap)
                results[name].append(statistics.median(sample))
        held = len(silent.held)
    silent.close()
    accepting.shutdown()
    base = statistics.median(results["baseline"])
    print(f"ask acknowledged (POST /api/asks), median of {args.rounds} samples", end=" ")
    print(f"(asks {args.gap * 1e3:g} ms apart)")
    print(f"of {args.posts} asks each; the hanging service held {held} messages unanswered")
    for name, values in results.items():
        figure = statistics.median(values)
        print(
            f"  {name:9} {figure * 1e3:7.2f} ms (min {min(values) * 1e3:.2f}, "
            f"max {max(values) * 1e3:.2f})  {figure / base:5.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
