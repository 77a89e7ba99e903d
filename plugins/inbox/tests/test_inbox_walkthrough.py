"""The walk-through page (docs/inbox-walkthrough.md) run as written: its two agents are
written to files, and its commands, taken from the page, run in the terminals the page
puts them in: the inbox in one process, the agents in an interactive bash in a
pseudo-terminal (for its background jobs and ``kill -9 %1``), and the human's commands,
``inbox attend --provider tui`` in a pseudo-terminal whose screen is read back with pyte.

The page answers one ask from the browser. With Chromium at hand (the ``browser`` variant,
run in tox's web env) the test does the same: it opens the address ``inbox open`` printed
and answers on the page. The other variant answers that ask through the command line
(``inbox answer ID --answer JSON``) instead, which is not what the page shows.

With ``USER_INTERACTION_WALKTHROUGH_TRANSCRIPT`` set to a path, what each terminal showed
is written there."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import with_default_sigint
from inbox_support import environment, wait_until
from user_interaction_inbox._address import Address

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("pyte")
pytest.importorskip("user_interaction_tui")

TUI_TESTS = str(Path(__file__).resolve().parents[2] / "tui" / "tests")
if TUI_TESTS not in sys.path:
    sys.path.append(TUI_TESTS)

from tui_support import PATIENCE, Screen, press  # noqa: E402

PAGE = (Path(__file__).resolve().parents[3] / "docs" / "inbox-walkthrough.md").read_text(
    encoding="utf-8"
)
PROMPT = "walkthrough$ "


def commands() -> list[str]:
    """Every ``$ `` line of the page's console blocks, in order."""
    blocks = re.findall(r"```console\n(.*?)```", PAGE, re.S)
    return [line[2:] for block in blocks for line in block.splitlines() if line.startswith("$ ")]


def files() -> dict[str, str]:
    """The page's Python files: the blocks whose first line is ``# NAME.py``."""
    found = {}
    for block in re.findall(r"```python\n(.*?)```", PAGE, re.S):
        first, _, _ = block.partition("\n")
        if re.fullmatch(r"# \w+\.py", first):
            found[first[2:]] = block
    return found


def test_the_page_lists_the_commands_this_test_runs() -> None:
    assert commands() == [
        "user-interaction inbox serve --port 0",
        "python build_agent.py &",
        "python docs_agent.py &",
        "user-interaction inbox list",
        "user-interaction inbox open",
        "kill -9 %1; wait %1",
        "user-interaction inbox attend --provider tui",
        "python build_agent.py",
    ]
    assert sorted(files()) == ["build_agent.py", "docs_agent.py"]


@pytest.mark.parametrize("via", ["command line", pytest.param("page", marks=pytest.mark.browser)])
def test_the_walkthrough_runs_as_written(
    state: Path, tmp_path: Path, via: str, request: pytest.FixtureRequest
) -> None:
    (serve, build, docs, listing, opening, kill, attend, again) = commands()
    for name, source in files().items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    env = environment(state, TERM="xterm-256color", PYTHONUNBUFFERED="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("NO_COLOR", None)
    transcript: list[str] = []  # what each terminal showed, in the order it happened
    seen = io.StringIO()  # the second terminal's output
    told = 0

    def second_terminal() -> None:
        nonlocal told
        text = re.sub(r"\x1b\[\?2004[hl]|\r", "", seen.getvalue()[told:])
        told = len(seen.getvalue())
        transcript.append(f"[terminal 2]\n{text.strip()}\n")

    def human(command: str) -> str:
        """A command of the third terminal (yours): its output."""
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        transcript.append(f"[terminal 3] $ {command}\n{done.stdout}{done.stderr}")
        return done.stdout

    # 1. the inbox, in the first terminal
    bash = shutil.which("bash") or "/bin/bash"
    inbox = subprocess.Popen(
        with_default_sigint([bash, "-c", serve]),
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    agents = None
    try:
        assert inbox.stderr is not None
        first_line = inbox.stderr.readline()
        assert "serving at http://127.0.0.1:" in first_line, first_line
        record = json.loads((state / "inbox.json").read_text())
        address = Address.parse(record["url"], record["token"])

        # 2. the agents, in the background of the second terminal
        agents = pexpect.spawn(
            "bash",
            ["--norc", "--noprofile", "-i"],
            cwd=str(tmp_path),
            env={**env, "PS1": PROMPT},
            encoding="utf-8",
            timeout=PATIENCE,
            dimensions=(30, 120),
        )
        agents.logfile_read = seen
        agents.expect_exact(PROMPT)
        agents.sendline(build)
        agents.expect(r"\[1\] \d+")
        agents.expect_exact(PROMPT)
        wait_until(lambda: _pending(address) == 1, "the build agent's ask")
        agents.sendline(docs)
        agents.expect(r"\[2\] \d+")
        agents.expect_exact(PROMPT)
        wait_until(lambda: _pending(address) == 2, "the docs agent's ask")
        second_terminal()

        listed = human(listing)
        assert re.search(r"^\w{12}  build agent  \d+s ago  key deploy:build-42$", listed, re.M)
        assert "    Deploy build 42 to production?" in listed
        assert re.search(r"^\w{12}  docs agent  \d+s ago$", listed, re.M)

        # 3. the docs agent's ask, answered from the page
        url = human(opening).strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/#\S+", url), url
        asks = address.request("GET", "/api/asks").body["asks"]
        (docs_ask,) = [ask for ask in asks if ask["agent"] == "docs agent"]
        if via == "page":
            _answer_on_the_page(request, url, "Unreleased")
            transcript.append(f"[browser] {url}: Unreleased, Submit\n")
        else:
            answer = {"answers": [{"id": "title", "selected": ["Unreleased"]}]}
            human(f"user-interaction inbox answer {docs_ask['id']} --answer '{json.dumps(answer)}'")
        agents.expect_exact("docs agent got: Unreleased")

        # 4. the build agent, killed before its answer came
        agents.sendline(kill)
        agents.expect(r"Killed\s+python build_agent\.py")
        agents.expect_exact(PROMPT)
        second_terminal()
        (build_ask,) = address.request("GET", "/api/asks").body["asks"]  # still pending
        assert build_ask["key"] == "deploy:build-42"

        # 5. the other ask, answered through attend and the tui
        argv = with_default_sigint([bash, "-c", attend])
        terminal = pexpect.spawn(
            argv[0],
            argv[1:],
            cwd=str(tmp_path),
            env=env,
            encoding="utf-8",
            timeout=PATIENCE,
            dimensions=(30, 100),
        )
        screen = Screen(terminal, 100, 30)
        try:
            shown = screen.frame("Deploy build 42 to production?")
            press(terminal, "enter")  # on "yes", the first option
            screen.in_raw(f"ask {build_ask['id']}: answered")
            screen.in_raw("waiting for new asks")
            press(terminal, "ctrl-c")
            screen.in_raw("stopped attending")
            screen.join()
            terminal.close()
            assert terminal.exitstatus == 130
        finally:
            terminal.close(force=True)
        lines = [line for line in screen.history().splitlines() if line.strip()]
        transcript.append(f"[terminal 3] $ {attend}\n{shown}\n...\n" + "\n".join(lines[-4:]) + "\n")

        # 6. the build agent, started again, collects its answer by its key
        agents.sendline(again)
        agents.expect_exact("build agent got: yes")
        agents.expect_exact(PROMPT)
        second_terminal()
    finally:
        if agents is not None:
            agents.close(force=True)
        inbox.send_signal(signal.SIGINT)  # Ctrl-C in the first terminal
        _, rest = inbox.communicate(timeout=60)
    assert inbox.returncode == 0, rest
    transcript.insert(0, f"[terminal 1] $ {serve}\n{first_line}{rest}")
    target = os.environ.get("USER_INTERACTION_WALKTHROUGH_TRANSCRIPT")
    if target:
        Path(target).write_text("\n".join(transcript).replace("\r\n", "\n"), encoding="utf-8")


def _pending(address: Address) -> int:
    asks: list[Any] = address.request("GET", "/api/asks").body["asks"]
    return len(asks)


def _answer_on_the_page(request: pytest.FixtureRequest, url: str, label: str) -> None:
    """Open ``url`` in Chromium and answer the one ask offering ``label`` there."""
    from page_support import Tab, launch
    from playwright.sync_api import expect

    browsers = launch()
    browser = next(browsers)
    try:
        tab = Tab(browser, url)
        try:
            card = tab.cards().filter(has=tab.page.get_by_role("radio", name=label, exact=True))
            card.get_by_role("radio", name=label, exact=True).check()
            card.get_by_role("button", name="Submit").click()
            expect(tab.page.locator(".receipt")).to_contain_text(f"→ {label}")
            assert tab.errors == []
        finally:
            tab.close()
    finally:
        browsers.close()
