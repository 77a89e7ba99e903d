"""Benchmark of the inbox's page: a report, never a test.

``python bench/bench_inbox_page.py [--samples N] [--asks N] [--synchronous NORMAL]
[--postgres]``
drives Debian's Chromium through Playwright (``playwright`` installed,
``/usr/bin/chromium``, no ``playwright install``) against a real ``user-interaction inbox
serve``, each figure against a baseline measured in the same Chromium run, round-robin, the
median of the samples:

1. first paint of the page with 1 000 pending asks (from the navigation's start until the
   first card's question is painted, by the Element Timing API: the first screen a
   person sees, the count of what waits included; read on the page's own clock, so the
   time Playwright's calls take is not counted), against a static page holding the very
   same 1 000 cards (the inbox page's own DOM once rendered, its scripts taken out, the
   same stylesheet) served by a bare aiohttp server; target <= 2x, and <= 1 s; then, for
   reading it, the same until all 1 000 cards are in the page (the inbox page builds the
   cards below its first screen once that screen is painted);
2. a new ask reaching an open page (``POST /api/asks`` sent -> its card in the page's DOM,
   timed on the wall clock both sides share, to the millisecond), against a bare
   server-sent event on loopback (a POST to a bare aiohttp server that sends one event to
   an ``EventSource``, which adds one element); target <= 2x. The inbox's path includes
   committing the ask to its store before anyone hears of it (one ``fsync`` at the default
   ``synchronous=FULL``): the POST's reply alone is printed too, and ``--synchronous
   NORMAL`` measures the same without the ``fsync``. Beside them, the floor of any inbox
   page: the bare server commits the ask to SQLite first (on a worker thread, the same
   ``synchronous``), then sends it to the static page of the first figure, which copies a
   card already there (one card's DOM, no page code) into its 1 000. Each page has a
   browser context of its own: tabs of one site in one context share a renderer's main
   thread.

``--postgres`` serves the page from a store in a throwaway PostgreSQL cluster (``fsync``
on; the server binaries from ``/usr/lib/postgresql/<major>/bin``, the inbox's ``postgres``
extra installed) instead of an SQLite file.

Needs the inbox and web distributions installed. Always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("USER_INTERACTION_WEB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CLI = [sys.executable, "-m", "user_interaction"]
# Resolve, on the page's clock (milliseconds since the navigation started): firstPaint
# when the first card's question was painted (the Element Timing API's render time of
# that text: the first screen a person sees), allCards when COUNT cards are in the page
# and two animation frames have passed.
FIRST_PAINT = """
window.firstPaint = new Promise((done) => {
    new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
            if (entry.identifier === "first-card") done(entry.renderTime || entry.loadTime);
        }
    }).observe({ type: "element", buffered: true });
});
new MutationObserver((changes, observer) => {
    const prompt = document.querySelector(".card .prompt");
    if (prompt) {
        prompt.setAttribute("elementtiming", "first-card");
        observer.disconnect();
    }
}).observe(document, { childList: true, subtree: true });
window.allCards = new Promise((done) => {
    const check = () => {
        if (document.querySelectorAll(".card").length >= COUNT) {
            requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())));
        } else {
            requestAnimationFrame(check);
        }
    };
    requestAnimationFrame(check);
});
"""
# Records, on the page's wall clock, when an element matching the selector is added:
# Date.now() (milliseconds), the clock time.time() reads too. performance.timeOrigin +
# performance.now() runs on the monotonic clock from the navigation's start, and drifted
# seconds away from the wall clock when this machine's clock was stepped during a run.
# The clock is read first, and only the added nodes are looked at: counting the matches
# in the whole document took milliseconds in a page of 1 000 cards, and counted them as
# the page's.
ARRIVALS = """(selector) => {
    window.arrivals = [];
    new MutationObserver((records) => {
        const now = Date.now();
        for (const record of records) {
            for (const node of record.addedNodes) {
                if (node.nodeType === 1 && node.matches(selector)) window.arrivals.push(now);
            }
        }
    }).observe(document.body, { childList: true, subtree: true });
}"""

# Resolves once two animation frames have passed: the page is laid out and painted.
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"

BARE_PAGE = b"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>bare</title><script src="/bare.js" defer></script></head>
<body><p id="status">Connecting</p><div id="events"></div></body></html>"""
BARE_SCRIPT = b"""const events = new EventSource("/events");
events.addEventListener("open", () => {
  document.getElementById("status").textContent = "Connected";
});
events.addEventListener("ask", (event) => {
  const item = document.createElement("div");
  item.className = "arrived";
  item.textContent = JSON.parse(event.data).question;
  document.getElementById("events").append(item);
});"""


class BareServer:
    """A bare aiohttp server on its own thread: a page with an event stream and ``POST
    /fire`` sending one event to it, a static page at ``/static`` (set later), and the
    floor of an inbox's page: ``POST /fire-durable`` commits the ask to an SQLite file (WAL,
    ``synchronous``, on a worker thread, as the inbox does) before it sends it, to the
    static page with :data:`FLOOR_SCRIPT` at ``/floor``."""

    def __init__(self, database: Path, synchronous: str) -> None:
        import sqlite3

        from aiohttp import web

        db = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {synchronous}")
        db.execute("CREATE TABLE IF NOT EXISTS asks (ask TEXT)")

        lock = threading.Lock()  # one connection, used from the worker threads

        def commit(ask: bytes) -> None:
            with lock:
                db.execute("BEGIN IMMEDIATE")
                db.execute("INSERT INTO asks VALUES (?)", (ask,))
                db.execute("COMMIT")

        self.static = b""
        self.css = files("user_interaction_web").joinpath("static", "app.css").read_bytes()
        self._streams: set[asyncio.Queue[bytes]] = set()
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def page(request: web.Request) -> web.Response:
            return web.Response(body=BARE_PAGE, content_type="text/html")

        async def script(request: web.Request) -> web.Response:
            return web.Response(body=BARE_SCRIPT, content_type="text/javascript")

        async def static(request: web.Request) -> web.Response:
            return web.Response(body=self.static, content_type="text/html")

        async def floor(request: web.Request) -> web.Response:
            script = b'<script src="/floor.js" defer></script></head>'
            body = self.static.replace(b"</head>", script, 1)
            return web.Response(body=body, content_type="text/html")

        async def floor_script(request: web.Request) -> web.Response:
            return web.Response(body=FLOOR_SCRIPT, content_type="text/javascript")

        async def css(request: web.Request) -> web.Response:
            return web.Response(body=self.css, content_type="text/css")

        async def events(request: web.Request) -> web.StreamResponse:
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            queue: asyncio.Queue[bytes] = asyncio.Queue()
            self._streams.add(queue)
            try:
                await response.write(b"retry: 1000\n\n")
                while True:
                    await response.write(await queue.get())
            finally:
                self._streams.discard(queue)

        async def fire(request: web.Request) -> web.Response:
            data = await request.read()
            message = b"event: ask\ndata: " + data + b"\n\n"
            for queue in self._streams:
                queue.put_nowait(message)
            return web.json_response({"ok": True})

        async def fire_durable(request: web.Request) -> web.Response:
            data = await request.read()
            await asyncio.to_thread(commit, data)
            message = b"event: card\ndata: " + data + b"\n\n"
            for queue in self._streams:
                queue.put_nowait(message)
            return web.json_response({"ok": True})

        async def start() -> None:
            app = web.Application()
            app.router.add_get("/", page)
            app.router.add_get("/bare.js", script)
            app.router.add_get("/static", static)
            app.router.add_get("/app.css", css)
            app.router.add_get("/events", events)
            app.router.add_post("/fire", fire)
            app.router.add_post("/fire-durable", fire_durable)
            app.router.add_get("/floor", floor)
            app.router.add_get("/floor.js", floor_script)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", 0).start()
            self.port = runner.addresses[0][1]
            ready.set()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.create_task(start())
            self._loop.run_forever()

        threading.Thread(target=run, daemon=True).start()
        ready.wait(30)
        self.base = f"http://127.0.0.1:{self.port}"


# The floor page: the static page of the first figure (the inbox page's 1 000 cards, its
# scripts taken out) with this script, which shows each new ask as a copy of a card
# already there with the ask's question in it: the DOM a card needs, without the inbox
# page's code.
FLOOR_SCRIPT = b"""const model = document.querySelector(".card");
const events = new EventSource("/events");
events.addEventListener("open", () => { window.floorReady = true; });
events.addEventListener("card", (event) => {
  const ask = JSON.parse(event.data);
  const card = model.cloneNode(true);
  card.id = `floor-${ask.number}`;
  card.querySelector(".prompt").textContent = ask.question;
  model.parentNode.append(card);
});"""


def post(base: str, path: str, payload: object, headers: dict[str, str] | None = None) -> Any:
    host = base.removeprefix("http://")
    connection = http.client.HTTPConnection(host, timeout=60)
    try:
        connection.request(
            "POST",
            path,
            body=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, (response.status, body)
        return json.loads(body)
    finally:
        connection.close()


def ask_payload(number: int) -> dict[str, Any]:
    question = {
        "id": "pkg",
        "question": f"Question {number}: which package manager?",
        "options": [{"label": "npm", "description": "the default"}, {"label": "pnpm"}],
    }
    # keyed: an ask nobody waits on is then never withdrawn while the run lasts
    return {
        "request": {"questions": [question], "key": f"bench-{number}"},
        "agent": f"agent {number % 10}",
        "timeLeft": 3600,
    }


def median_ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    low, high = ordered[0] * 1000, ordered[-1] * 1000
    return f"{statistics.median(ordered) * 1000:8.1f} ms  (min {low:.1f}, max {high:.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=7)
    parser.add_argument("--asks", type=int, default=1000)
    parser.add_argument(
        "--synchronous",
        choices=("FULL", "NORMAL"),
        default="FULL",
        help="the store's synchronous setting (FULL, the default, syncs every commit)",
    )
    parser.add_argument(
        "--postgres", action="store_true", help="a PostgreSQL store instead of SQLite"
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    state = Path(tempfile.mkdtemp(prefix="bench-inbox-page-"))
    store = f"sqlite://{state.absolute()}/inbox.sqlite3?synchronous={args.synchronous}"
    cluster = None
    if args.postgres:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "plugins/inbox/tests"))
        from postgres_support import Cluster, why_no_postgres

        reason = why_no_postgres()
        if reason is not None:
            print(f"cannot run: {reason}")
            return 0
        cluster = Cluster(durable=True)
        store = cluster.create_database("page")
    env = {**os.environ, "USER_INTERACTION_STATE_DIR": str(state)}
    env.pop("USER_INTERACTION_INBOX", None)
    inbox = subprocess.Popen(
        [
            *CLI,
            "inbox",
            "serve",
            "--port",
            "0",
            "--store",
            store,
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert inbox.stderr is not None
        line = inbox.stderr.readline()
        assert "serving at" in line, line
        kind = "PostgreSQL" if args.postgres else f"SQLite synchronous={args.synchronous}"
        print(f"store {kind}; {args.samples} samples each, medians")
        record = json.loads((state / "inbox.json").read_text())
        base = record["url"].rstrip("/")
        token_header = {"X-UI-Token": record["token"]}
        bare = BareServer(state / "floor.sqlite3", args.synchronous)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                first_paint(browser, base, record["token"], token_header, bare, args)
                arrival(browser, base, record["token"], token_header, bare, args)
            finally:
                browser.close()
    finally:
        inbox.terminate()
        inbox.wait(30)
        if cluster is not None:
            cluster.stop()
    return 0


def first_paint(
    browser: Any,
    base: str,
    token: str,
    headers: dict[str, str],
    bare: BareServer,
    args: argparse.Namespace,
) -> None:
    started = time.monotonic()
    for number in range(args.asks):
        post(base, "/api/asks", ask_payload(number), headers)
    print(f"posted {args.asks} asks in {time.monotonic() - started:.1f} s")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{base}/#{token}")  # signs this context in: later visits need no token
    cards = f"() => document.querySelectorAll('.card').length === {args.asks}"
    page.wait_for_function(cards, timeout=120_000)
    # the baseline: the same DOM, rendered, without its scripts, from a bare server
    html: str = page.evaluate(
        """() => {
            const copy = document.documentElement.cloneNode(true);
            for (const script of copy.querySelectorAll("script")) script.remove();
            return "<!doctype html>" + copy.outerHTML;
        }"""
    )
    bare.static = html.encode()

    context.add_init_script(FIRST_PAINT.replace("COUNT", str(args.asks)))

    every: dict[str, list[float]] = {"inbox page": [], "static page": []}

    def painted(name: str, url: str) -> float:
        """Open ``url`` in a new tab, as a person opens the page (a tab reused would count
        the previous page's unloading too)."""
        tab = context.new_page()
        try:
            tab.goto(url, timeout=300_000)
            first = float(tab.evaluate("window.firstPaint")) / 1000
            every[name].append(float(tab.evaluate("window.allCards")) / 1000)
            return first
        finally:
            tab.close()

    def inbox_page() -> float:
        return painted("inbox page", f"{base}/")

    def static_page() -> float:
        return painted("static page", f"{bare.base}/static")

    measured = round_robin({"inbox page": inbox_page, "static page": static_page}, args.samples)
    report(
        f"1. first paint with {args.asks} pending asks",
        measured,
        "inbox page",
        "static page",
        2.0,
    )
    first = statistics.median(measured["inbox page"])
    print(
        f"   inbox page's first paint {first * 1000:.0f} ms (target <= 1 s): "
        f"{'OK' if first <= 1.0 else 'OVER'}"
    )
    print(f"   all {args.asks} cards in the page (the warm-up sample left out):")
    for name, samples in every.items():
        print(f"   {name:<12} {median_ms(samples[1:])}")
    context.close()


def arrival(
    browser: Any,
    base: str,
    token: str,
    headers: dict[str, str],
    bare: BareServer,
    args: argparse.Namespace,
) -> None:
    # A context each: tabs of one site in one context share a renderer process, and so its
    # main thread, which one page's work then takes from the others.
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(3)]
    inbox_tab, bare_tab, floor_tab = (context.new_page() for context in contexts)
    inbox_tab.goto(f"{base}/#{token}")
    inbox_tab.wait_for_function(
        "() => document.getElementById('status').textContent === 'Connected'"
    )
    inbox_tab.evaluate(ARRIVALS, ".card")
    bare_tab.goto(f"{bare.base}/")
    bare_tab.wait_for_function(
        "() => document.getElementById('status').textContent === 'Connected'"
    )
    bare_tab.evaluate(ARRIVALS, ".arrived")
    floor_tab.goto(f"{bare.base}/floor")
    floor_tab.wait_for_function("() => window.floorReady === true")
    floor_tab.evaluate(ARRIVALS, ".card")
    # every card of the first figure built (the page builds those below its first screen
    # after its first paint): only the new ones count as arrivals
    inbox_tab.wait_for_function(
        f"() => document.querySelectorAll('.card').length >= {args.asks}", timeout=300_000
    )
    already = inbox_tab.evaluate("document.querySelectorAll('.card').length")
    inbox_tab.evaluate("() => { window.arrivals = []; }")
    for tab in (inbox_tab, bare_tab, floor_tab):  # laid out and painted, all of it
        tab.evaluate(SETTLED)
    numbers = iter(range(100_000, 200_000))

    def arrived(tab: Any, count: int) -> float:
        tab.wait_for_function(f"() => window.arrivals.length >= {count}", timeout=60_000)
        return float(tab.evaluate(f"window.arrivals[{count - 1}]")) / 1000

    seen: dict[str, int] = {}  # the arrivals each tab has had
    replied: dict[str, list[float]] = {}  # each POST until its reply

    def to_page(name: str, tab: Any, to: str, path: str, payload: object) -> float:
        sent = time.time()
        post(to, path, payload, headers if to == base else None)
        replied.setdefault(name, []).append(time.time() - sent)
        seen[name] = seen.get(name, 0) + 1
        return arrived(tab, seen[name]) - sent

    question = "Which package manager?"
    runs: dict[str, Callable[[], float]] = {
        "inbox": lambda: to_page("inbox", inbox_tab, base, "/api/asks", ask_payload(next(numbers))),
        "bare SSE": lambda: to_page(
            "bare SSE", bare_tab, bare.base, "/fire", {"question": question}
        ),
        "floor": lambda: to_page(
            "floor",
            floor_tab,
            bare.base,
            "/fire-durable",
            {"number": next(numbers), "question": question},
        ),
    }

    # with ``already`` cards shown (the 1 000 of the first figure), as a busy inbox is
    samples = max(args.samples, 15)
    measured = round_robin(runs, samples)
    report(
        f"2. a new ask reaches an open page ({already} asks shown)",
        measured,
        "inbox",
        "bare SSE",
        2.0,
    )
    floor = statistics.median(measured["floor"])
    print(
        f"   the floor (committed first, then one card's DOM copied into the same {already}): "
        f"{floor / statistics.median(measured['bare SSE']):.2f}x the bare SSE; the inbox "
        f"{statistics.median(measured['inbox']) / floor:.2f}x the floor"
    )
    # for reading the ratio: the agent's POST alone, until the inbox acknowledged the ask
    # (committed to its store, synchronous=FULL: one fsync)
    print(f"   (the inbox's POST reply alone: {median_ms(replied['inbox'][1:])})", flush=True)
    for context in contexts:
        context.close()


def round_robin(runs: dict[str, Callable[[], float]], samples: int) -> dict[str, list[float]]:
    for run in runs.values():  # warm up
        run()
    measured: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(samples):
        for name, run in runs.items():
            measured[name].append(run())
    return measured


def report(
    title: str, measured: dict[str, list[float]], candidate: str, baseline: str, target: float
) -> None:
    print(title)
    for name, samples in measured.items():
        print(f"   {name:<12} {median_ms(samples)}")
    ratio = statistics.median(measured[candidate]) / statistics.median(measured[baseline])
    verdict = "OK" if ratio <= target else "OVER"
    print(f"   ratio {ratio:.2f}x (target <= {target:g}x): {verdict}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
