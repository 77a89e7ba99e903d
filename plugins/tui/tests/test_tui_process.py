"""The provider driven the way a human drives it: a child process in a real
pseudo-terminal, keys typed once the screen shows the question, the screen read back
through a VT100 emulator."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tui_support import DRIVER, PATIENCE, Session, answers, question, request, tui_plan

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")

PKG = question(
    "pkg",
    "Which package manager?",
    "pnpm",
    "npm",
    "yarn",
    header="Package",
    detail="The lockfile decides what CI installs.",
    descriptions={"pnpm": "fast, strict", "yarn": "plug'n'play"},
)
LINT = question(
    "lint",
    "Which linters should run?",
    "ruff",
    "mypy",
    "pylint",
    header="Checks",
    multi=True,
    descriptions={"ruff": "lint and format", "mypy": "types"},
)
NAME = question("name", "What is the project called?", header="Name")
LEAVE_ALTERNATE_SCREEN = "\x1b[?1049l"


@pytest.fixture
def tui_run() -> Iterator[Any]:
    sessions: list[Session] = []

    def start(*requests: dict[str, Any], columns: int = 100, rows: int = 30, **plan: Any) -> Any:
        env = plan.pop("env", {})
        session = Session({"requests": list(requests), **plan}, columns=columns, rows=rows, **env)
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.kill()


def test_single_question_arrows_and_enter(tui_run: Any) -> None:
    session = tui_run(request(PKG))
    shown = session.screen.frame("Which package manager?")
    assert "Package" in shown.splitlines()[0]  # the header is a label above the question
    assert "The lockfile decides what CI installs." in shown
    assert "> ( ) 1. pnpm" in shown
    assert "fast, strict" in shown
    assert "plug'n'play" in shown
    assert "Other…" in shown
    assert "Review" not in shown  # one question: no tabs, no review
    session.press("down", "down", "k")  # down, down, up (vi style)
    session.screen.shows("> ( ) 2. npm")
    session.press("enter")
    results = session.finish()
    assert answers(results[0]) == {"pkg": {"id": "pkg", "selected": ["npm"]}}
    for flag in ("icanon", "echo", "isig"):
        assert flag in session.stty()


def test_batch_tabs_review_and_multi_select(tui_run: Any) -> None:
    session = tui_run(request(PKG, LINT, NAME))
    screen = session.screen
    screen.shows("Question 1 of 3")
    session.press("3", "enter")  # the number jumps, Enter picks and moves on
    screen.shows("Which linters should run?")
    session.press(" ", "j", "j", " ")  # tick ruff and pylint
    screen.shows("> [x] 3. pylint")
    session.press("tab", "tab")  # on to the review without answering the name
    shown = screen.frame("Review your answers")
    assert "• not answered yet" in shown
    assert "(1 not answered yet)" in shown
    session.press("enter")  # Submit refuses while a question is unanswered
    shown = screen.shows("Answer or skip (s) question 3 first.")
    session.press("left")
    screen.shows("What is the project called?")
    session.press("demo", "enter")
    shown = screen.frame("> Submit")
    assert "✓ yarn" in shown
    assert "✓ ruff, pylint" in shown
    assert "✓ demo" in shown
    assert "✓ Package" in shown
    assert "✓ Checks" in shown
    assert "✓ Name" in shown
    session.press("enter")
    results = session.finish()
    assert answers(results[0]) == {
        "pkg": {"id": "pkg", "selected": ["yarn"]},
        "lint": {"id": "lint", "selected": ["ruff", "pylint"]},
        "name": {"id": "name", "selected": [], "custom": "demo"},
    }


def test_the_readme_screen(tui_run: Any) -> None:
    """The screen the README shows: a batch, on the multi-select question."""
    session = tui_run(request(PKG, LINT, NAME), columns=80, rows=18)
    session.screen.shows("Question 1 of 3")
    session.press("1", "enter", " ", "j", "j", " ", "k")
    shown = session.screen.wait(
        lambda s: "[x] 3. pylint" in s and "> [ ] 2. mypy" in s, "two ticks"
    )
    expected = (
        " ✓ Package   ✓ Checks   • Name   Review\n"
        " Checks   Question 2 of 3\n"
        "Which linters should run?\n" + "─" * 80 + "\n"
        "  [x] 1. ruff\n"
        "         lint and format\n"
        "> [ ] 2. mypy\n"
        "         types\n"
        "  [x] 3. pylint\n"
        "  [ ]    Other…\n"
        "         Notes…\n"
    )
    assert shown.startswith(expected), shown
    session.press("esc")
    assert session.finish()[0] == {"index": 0, "error": "ASK_CANCELLED"}


def test_skipping_is_explicit_and_custom_text_and_notes(tui_run: Any) -> None:
    session = tui_run(request(PKG, LINT, NAME))
    screen = session.screen
    screen.shows("Question 1 of 3")
    session.press("o", "bun", "enter")  # "o": the Other… field
    screen.shows("Which linters should run?")
    session.press("2", " ", "n", "only on main", "enter")
    screen.shows("Notes: only on main")
    session.press("2", "enter")
    screen.shows("What is the project called?")
    session.press("esc", "s")  # leave the field, then skip
    shown = screen.frame("> Submit")
    assert "✓ bun" in shown
    assert "✓ mypy (notes: only on main)" in shown
    assert "- skipped" in shown
    session.press("enter")
    results = session.finish()
    assert answers(results[0]) == {
        "pkg": {"id": "pkg", "selected": [], "custom": "bun"},
        "lint": {"id": "lint", "selected": ["mypy"], "notes": "only on main"},
        "name": {"id": "name", "selected": []},
    }


PREVIEWED = question(
    "layout",
    "Which layout?",
    "grid",
    "list",
    previews={"grid": "+----+----+\n| a  | b  |\n+----+----+", "list": "- a\n- b"},
)


def test_previews_beside_the_options_on_a_wide_terminal(tui_run: Any) -> None:
    session = tui_run(request(PREVIEWED), columns=120)
    shown = session.screen.frame("+----+----+")
    lines = shown.splitlines()
    row = next(line for line in lines if "1. grid" in line)
    assert row.rstrip().endswith("+----+----+")  # option left, preview right, one line
    session.press("down")
    # the next preview, its Markdown list rendered with bullets
    session.screen.wait(lambda s: "• b" in s and "+----+" not in s, "the next preview")
    session.press("enter")
    assert answers(session.finish()[0]) == {"layout": {"id": "layout", "selected": ["list"]}}


def test_previews_under_the_options_on_a_narrow_terminal(tui_run: Any) -> None:
    session = tui_run(request(PREVIEWED), columns=60)
    shown = session.screen.frame("+----+----+")
    lines = shown.splitlines()
    option = next(i for i, line in enumerate(lines) if "1. grid" in line)
    preview = next(i for i, line in enumerate(lines) if "+----+----+" in line)
    assert preview > option
    assert "+----+" not in lines[option]
    session.press("enter")
    assert answers(session.finish()[0]) == {"layout": {"id": "layout", "selected": ["grid"]}}


def test_long_labels_wrap_on_a_narrow_terminal(tui_run: Any) -> None:
    long = "a very long option label that cannot fit on one line of this terminal"
    session = tui_run(request(question("w", "Wrap?", long, "short")), columns=30, rows=20)
    # the whole frame, footer included (it wraps too, so look for it across lines)
    shown = session.screen.frame("short")
    lines = shown.splitlines()
    first = next(i for i, line in enumerate(lines) if "1. a very" in line)
    assert lines[first + 1].startswith(" " * 9)  # wrapped under the label, not the marks
    # between words: the label's rows, rejoined, give the label back
    rows = [lines[first].split("1. ", 1)[1].strip()]
    for line in lines[first + 1 :]:
        if not line.startswith(" " * 9) or not line.strip():
            break
        rows.append(line.strip())
    assert len(rows) > 1
    assert " ".join(rows) == long
    assert any("2. short" in line for line in lines)
    assert "Esc: cancel" in shown.replace("\n", "")  # the footer is still there
    session.press("enter")
    assert answers(session.finish()[0]) == {"w": {"id": "w", "selected": [long]}}


def test_esc_and_ctrl_c_cancel_and_the_next_ask_works(tui_run: Any) -> None:
    one, two = question("one", "First?", "a", "b"), question("two", "Second?", "a", "b")
    three = question("three", "Third?", "a", "b")
    session = tui_run(request(one), request(two), request(three))
    session.screen.shows("First?")
    session.press("esc")
    session.screen.shows("Second?")
    session.press("ctrl-c")
    session.screen.shows("Third?")
    session.press("down", "enter")
    results = session.finish()
    assert results[0] == {"index": 0, "error": "ASK_CANCELLED"}
    assert results[1] == {"index": 1, "error": "ASK_CANCELLED"}
    assert answers(results[2]) == {"three": {"id": "three", "selected": ["b"]}}
    for flag in ("icanon", "echo", "isig"):
        assert flag in session.stty()


@pytest.mark.parametrize(
    ("how", "code"),
    [("abort", "ASK_ABORTED"), ("timeout", "ASK_TIMEOUT"), ("dispose", "PROVIDER_DISPOSED")],
)
def test_abort_timeout_and_dispose_take_the_screen_away(tui_run: Any, how: str, code: str) -> None:
    plan: dict[str, Any] = {"timeout": 1.0} if how == "timeout" else {}
    session = tui_run(request(PKG), **plan)
    session.screen.shows("Which package manager?")
    if how == "abort":
        session.signal(signal.SIGUSR1)
    elif how == "dispose":
        session.signal(signal.SIGUSR2)
    raw = session.screen.in_raw("RESULT")
    assert LEAVE_ALTERNATE_SCREEN in raw[raw.index("Which package manager?") :]
    results = session.finish()
    assert results[0] == {"index": 0, "error": code}
    for flag in ("icanon", "echo", "isig"):
        assert flag in session.stty()


def test_keys_typed_before_the_question_are_dropped(tui_run: Any) -> None:
    one, two = question("one", "First?", "a", "b"), question("two", "Second?", "a", "b", "c")
    session = tui_run(request(one), request(two), hold=True)
    session.screen.shows("First?")
    session.press("enter")
    session.screen.in_raw("HOLD 1")
    session.press("3", "enter")  # no question is on screen: these answer nothing
    session.screen.in_raw("\n3\r\n")  # their echo, on the line after HOLD: the terminal has them
    session.signal(signal.SIGUSR1)
    session.screen.shows("Second?")
    time.sleep(0.5)  # room for wrongly kept keys to move the cursor: none may
    assert "> ( ) 1. a" in session.screen.now()  # the cursor did not move
    session.press("down", "enter")
    results = session.finish()
    assert answers(results[0]) == {"one": {"id": "one", "selected": ["a"]}}
    assert answers(results[1]) == {"two": {"id": "two", "selected": ["b"]}}


def test_model_text_is_neutralised(tui_run: Any) -> None:
    evil = question(
        "evil",
        "Clear?\x1b[2J zero\u200bwidth tag\U000e0041 rtl\u202eevil",
        "a\x1b[31mred",
        "b",
        header="\x1b]0;pwned\x07",
    )
    session = tui_run(request(evil))
    shown = session.screen.frame("Clear?")
    assert "Clear?\\x1b[2J zero\\u200bwidth tag\\U000e0041 rtl\\u202eevil" in shown
    assert "a\\x1b[31mred" in shown
    assert "\\x1b]0;pwned\\x07" in shown
    raw = session.screen.raw()
    assert "\x1b[2J zero" not in raw
    assert "\x1b]0;pwned" not in raw
    assert "\u202e" not in raw
    session.press("enter")
    assert answers(session.finish()[0]) == {"evil": {"id": "evil", "selected": ["a\x1b[31mred"]}}


@pytest.mark.parametrize("no_color", [True, False])
def test_no_color(tui_run: Any, no_color: bool) -> None:
    env = {"NO_COLOR": "1"} if no_color else {}
    session = tui_run(request(PKG), env=env)
    session.screen.shows("Which package manager?")
    session.press("enter")
    session.finish()
    colours = re.findall(r"\x1b\[[0-9;]*(?:3[0-9]|9[0-7]|38;[25];[0-9;]+)m", session.screen.raw())
    assert bool(colours) is not no_color


def test_prompt_toolkit_is_imported_on_the_first_ask_only() -> None:
    code = (
        "import sys, user_interaction_tui\n"
        "assert 'prompt_toolkit' not in sys.modules, 'imported with the package'\n"
        "from user_interaction import UserInteraction\n"
        "ui = UserInteraction(); ui.use('tui')\n"
        "assert 'prompt_toolkit' not in sys.modules, 'imported by use()'\n"
        "provider = user_interaction_tui.TuiProvider\n"
        "print(provider.priority, provider.available())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "USER_INTERACTION_PROVIDER"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        capture_output=True,
        text=True,
        env=env,
        timeout=PATIENCE,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "False"]  # stdin is a pipe here: not available


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_in_tmux() -> None:
    plan = json.dumps(tui_plan({"requests": [request(LINT)]}))
    socket = f"ui-tui-{os.getpid()}"
    tmux = ["tmux", "-L", socket, "-f", "/dev/null"]
    command = " ".join(map(shlex.quote, [sys.executable, *DRIVER, plan])) + "; sleep 600"
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "USER_INTERACTION_PROVIDER")}
    env["TERM"] = "xterm-256color"
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "90", "-y", "25", command], env=env, check=True
    )

    def pane() -> str:
        return subprocess.run(
            [*tmux, "capture-pane", "-p"], capture_output=True, text=True, check=False
        ).stdout

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + PATIENCE
        while text not in pane():
            assert time.monotonic() < deadline, pane()
            time.sleep(0.1)
        return pane()

    try:
        shown = wait_for("Which linters should run?")
        assert "> [ ] 1. ruff" in shown
        subprocess.run([*tmux, "send-keys", "Space", "Down", "Down", "Space"], check=True)
        wait_for("> [x] 3. pylint")
        subprocess.run([*tmux, "send-keys", "Enter"], check=True)
        shown = wait_for("DONE")
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, capture_output=True)
    assert '"selected": ["ruff", "pylint"]' in shown.replace("\n", "")
    assert "[ ] 2. mypy" not in shown  # the screen was taken away
    assert "✓ [Checks] Which linters should run? → ruff, pylint" in shown  # its record stays


# -- the review's request: a long question, emoji and CJK labels, wide previews -------------

LONG_QUESTION = (
    "I found three ways to split the payment module before the release. Which one should I "
    "refactor first, given that the checkout flow must keep working during the migration and "
    "the team wants small reviewable pull requests?"
)
WIDE_CODE = (
    "```python\n"
    "def charge(order: Order, gateway: PaymentGateway, *, retries: int = 3) -> Receipt:"
    "  # keeps idempotency\n"
    "    return gateway.charge(order.total, key=order.id)\n"
    "```"
)
ADAPTER = "Extract the gateway adapter (Recommended)"
ADAPTER_NOTE = "smallest diff; everything else builds on it and nothing user-facing changes"
PLAN = question(
    "plan",
    LONG_QUESTION,
    ADAPTER,
    "Split by payment method 💳",
    "重构结算流程 (checkout)",
    header="Refactor",
    descriptions={
        ADAPTER: ADAPTER_NOTE,
        "Split by payment method 💳": "one module per provider 🚀",
        "重构结算流程 (checkout)": "最大的变更，需要更多测试",  # noqa: RUF001 (a CJK comma)
    },
    previews={
        ADAPTER: WIDE_CODE,
        "Split by payment method 💳": "- cards\n- wallets\n- bank transfers " + "x" * 90,
    },
)
CHECKS = question(
    "checks",
    "Which checks should run before the release?",
    "lint",
    "tests",
    "docs",
    header="CI",
    multi=True,
    descriptions={"tests": "unit and integration", "docs": "build the site strictly"},
)
RELEASE = question("name", "What should the release be called?", header="Name")
REVIEW = request(PLAN, CHECKS, RELEASE)


def _rows_between(shown: str, first: str, last: str) -> list[str]:
    """The rows from the one containing ``first`` to the one containing ``last``."""
    lines = shown.splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    end = next(i for i in range(start, len(lines)) if last in lines[i])
    return lines[start : end + 1]


def _separator_columns(shown: str) -> set[int]:
    """The screen columns of the "│" between the options and the preview (wide characters
    take two cells, as on the terminal)."""
    import wcwidth

    columns = set()
    for line in shown.splitlines():
        if "│" in line:
            columns.add(wcwidth.width(line[: line.index("│")]))
    return columns


def test_the_split_keeps_a_share_of_the_screen_whatever_the_preview(tui_run: Any) -> None:
    session = tui_run(REVIEW, columns=120, rows=40)
    shown = session.screen.frame("def charge(")
    assert _separator_columns(shown) == {54}, shown  # 45% of 120, not the preview's width
    assert f"> ( ) 1. {ADAPTER} ▸" in shown  # the label whole, on one row
    assert "  ( ) 2. Split by payment method 💳 ▸" in shown
    assert "  ( ) 3. 重构结算流程 (checkout)" in shown
    session.press("down")  # onto an option with a wide preview
    shown = session.screen.wait(
        lambda s: "• wallets" in s and "> ( ) 2. Split by payment method" in s, "option 2"
    )
    assert _separator_columns(shown) == {54}, shown
    session.press("down")  # onto one with none
    # Both, not one: the preview's top row is redrawn before the cursor's row below it.
    shown = session.screen.wait(
        lambda s: "No preview for this option." in s and "> ( ) 3. 重构结算流程 (checkout)" in s,
        "option 3 and its missing preview",
    )
    assert _separator_columns(shown) == {54}, shown  # the split did not move
    session.press("esc")
    assert session.finish()[0] == {"index": 0, "error": "ASK_CANCELLED"}


@pytest.mark.parametrize(("columns", "rows"), [(120, 40), (80, 24), (60, 15)])
def test_text_wraps_at_word_boundaries(tui_run: Any, columns: int, rows: int) -> None:
    session = tui_run(REVIEW, columns=columns, rows=rows)
    shown = session.screen.frame("Question 1 of 3")
    # the question's rows, joined by the spaces the wrap dropped, are the question again:
    # a word cut in two would come back with a space inside it
    question_rows = _rows_between(shown, "I found three ways", "pull requests?")
    assert " ".join(row.strip() for row in question_rows) == LONG_QUESTION, shown
    assert all(len(row) <= columns for row in shown.splitlines())
    if columns < 100:  # the description wraps under the label, between words
        rows_of_note = _rows_between(shown, "smallest diff", "changes")
        assert " ".join(row.strip() for row in rows_of_note) == ADAPTER_NOTE, shown
        assert all(row.startswith(" " * 9) for row in rows_of_note), shown
    session.press("1", "enter", "1", " ", "enter", "a release with a rather long name", "enter")
    shown = session.screen.wait(  # its last row drawn: the answers above it are there
        lambda s: "Review your answers" in s and "> Submit" in s, "the review page"
    )
    answer_rows = _rows_between(shown, "✓ Extract", "(Recommended)")
    assert " ".join(row.strip() for row in answer_rows) == f"✓ {ADAPTER}", shown
    session.press("enter")
    assert answers(session.finish()[0])["plan"] == {"id": "plan", "selected": [ADAPTER]}


def test_enter_after_confirming_notes_goes_on(tui_run: Any) -> None:
    session = tui_run(request(PKG, LINT))
    screen = session.screen
    screen.shows("Question 1 of 2")
    session.press("2", " ", "n", "pin it", "enter")  # mark npm, write notes, confirm them
    screen.frame("Notes: pin it")
    session.press("enter")  # confirms the choice: the next question, not the notes again
    screen.frame("Which linters should run?")
    session.press("1", "enter")  # typed here, not into the notes
    shown = screen.frame("> Submit")
    assert "✓ npm (notes: pin it)" in shown
    session.press("enter")
    assert answers(session.finish()[0]) == {
        "pkg": {"id": "pkg", "selected": ["npm"], "notes": "pin it"},
        "lint": {"id": "lint", "selected": ["ruff"]},
    }


def test_a_small_screen_says_what_it_leaves_out(tui_run: Any) -> None:
    session = tui_run(REVIEW, columns=60, rows=15)
    screen = session.screen
    shown = screen.frame("Question 1 of 3")
    lines = shown.splitlines()
    assert len(lines) == 15
    question_rows = _rows_between(shown, "I found three ways", "pull requests?")
    assert " ".join(row.strip() for row in question_rows) == LONG_QUESTION  # all of it
    assert lines[-2] == "─" * 60  # the keys: one whole line at the bottom
    assert lines[-1].endswith("Esc: cancel")
    assert "p: preview" in lines[-1]
    assert "▼ 4 more lines below" in shown
    assert f"> ( ) 1. {ADAPTER} ▸" in shown
    for label in ("2. Split by payment method", "3. 重构结算流程", "Other…", "Notes…"):
        session.press("down")
        shown = screen.wait(
            lambda s, label=label: any(
                line.startswith(">") and label in line for line in s.splitlines()
            ),
            f"the cursor on {label}",
        )
        if "Split" not in label:
            assert "▲" in shown  # lines above were scrolled away: said so
    # at the end, nothing more below (the marker is drawn after the cursor's row: wait)
    screen.wait(lambda s: "more lines above" in s and "below" not in s, "the end of the list")
    session.press("1", "p")  # the preview in place of the options
    screen.wait(  # the footer, drawn last, changes too
        lambda s: "Preview of 1." in s and "def charge(" in s and "p: options" in s,
        "the preview in place of the options",
    )
    session.press("p")
    screen.frame(f"> ( ) 1. {ADAPTER}")
    session.press("esc")
    assert session.finish()[0] == {"index": 0, "error": "ASK_CANCELLED"}


def test_the_time_left_counts_down_and_an_expired_ask_says_so(tui_run: Any) -> None:
    # 20 s: long enough for a busy machine to start the program and draw it
    session = tui_run(request(PKG, LINT), timeout=20)
    screen = session.screen
    shown = re.compile(r"⏱ 0:([0-2]\d) left")
    first = screen.wait(lambda s: shown.search(s) is not None, "the time left")
    start = int(shown.findall(first)[0])
    line = next(line for line in first.splitlines() if "⏱" in line)
    assert line.startswith(" Package   Question 1 of 2   ⏱")  # beside the counter
    screen.wait(  # a second later it says less, by itself (no key was pressed)
        lambda s: any(int(left) < start for left in shown.findall(s)), "the countdown"
    )
    raw = screen.in_raw("RESULT")
    after = raw[raw.rindex(LEAVE_ALTERNATE_SCREEN) :]
    assert (
        "✗ Which package manager? (and 1 more) — the time to answer ran out; "
        "no answer was sent." in after
    )
    assert session.finish()[0] == {"index": 0, "error": "ASK_TIMEOUT"}


@pytest.mark.parametrize(
    ("how", "why"),
    [("abort", "the agent withdrew the question"), ("dispose", "the agent stopped asking")],
)
def test_a_withdrawn_ask_leaves_a_line_behind(tui_run: Any, how: str, why: str) -> None:
    session = tui_run(request(PKG))
    shown = session.screen.frame("Which package manager?")
    assert "⏱" not in shown  # no time limit: no countdown
    session.signal(signal.SIGUSR1 if how == "abort" else signal.SIGUSR2)
    raw = session.screen.in_raw("RESULT")
    after = raw[raw.rindex(LEAVE_ALTERNATE_SCREEN) :]
    assert f"✗ Which package manager? — {why}; no answer was sent." in after
    session.finish()


def test_the_questions_and_answers_stay_in_the_scrollback(tui_run: Any) -> None:
    session = tui_run(request(PKG, LINT, NAME), request(PKG))
    screen = session.screen
    screen.shows("Question 1 of 3")
    session.press("2", " ", "n", "pin it", "enter", "enter")  # npm, with notes
    screen.frame("Which linters should run?")
    session.press("s")  # skipped
    screen.shows("What is the project called?")
    session.press("demo", "enter")
    screen.frame("> Submit")
    session.press("enter")
    raw = screen.in_raw("RESULT")
    after = raw[raw.rindex(LEAVE_ALTERNATE_SCREEN) :]
    assert (
        "✓ [Package] Which package manager? → npm (notes: pin it)\r\n"
        "- [Checks] Which linters should run? → skipped\r\n"
        "✓ [Name] What is the project called? → demo\r\n"
    ) in after
    screen.shows("Which package manager?")  # the second ask
    session.press("esc")
    results = session.finish()
    raw = screen.raw()
    assert (
        "✗ [Package] Which package manager? → dismissed"
        in raw[raw.rindex(LEAVE_ALTERNATE_SCREEN) :]
    )
    assert results[1] == {"index": 1, "error": "ASK_CANCELLED"}


def test_a_long_record_wraps_between_words(tui_run: Any) -> None:
    text = "Which of these ways to split the payment module should be refactored first?"
    session = tui_run(request(question("long", text, "the gateway adapter", "b")), columns=40)
    session.screen.frame(">")
    session.press("enter")
    raw = session.screen.in_raw("RESULT")
    after = raw[raw.rindex(LEAVE_ALTERNATE_SCREEN) :]
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", after.split("RESULT")[0])
    rows = [row for row in plain.split("\r\n") if row.strip()]
    assert len(rows) > 1, rows
    assert all(len(row) <= 40 for row in rows), rows
    assert rows[0].startswith("✓ ")
    assert all(row.startswith("  ") for row in rows[1:])
    assert " ".join(row.strip() for row in rows) == f"✓ {text} → the gateway adapter"


@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (60, 15)])
def test_a_long_answer_wraps_in_its_field(tui_run: Any, columns: int, rows: int) -> None:
    words = [f"word{n:02d}" for n in range(1, 26)]  # 174 characters: three lines at 60
    text = " ".join(words)
    session = tui_run(request(PKG), columns=columns, rows=rows)
    session.screen.frame("Which package manager?")
    session.press("o", text)
    shown = session.screen.shows("word25")
    assert "word01" in shown  # the start is still shown, not only the tail
    field = [line.split("Other: ")[-1] for line in shown.splitlines() if "word" in line]
    assert len(field) >= 2
    assert all(len(line) <= columns for line in field)
    # broken between words, never inside one: every row holds whole words, all of them
    assert [token for line in field for token in line.split()] == words, shown
    # the cursor crosses the padding that moved a word down: on the first letter of the
    # second row's first word, it is drawn at that row's start (after "Other: ")
    second = field[1].split()[0]
    row = next(n for n, line in enumerate(shown.splitlines()) if line.startswith(" " * 7 + second))
    session.press(*["left"] * (len(text) - text.index(second)))
    session.screen.cursor_at(len("Other: "), row)
    session.press("right")
    session.screen.cursor_at(len("Other: ") + 1, row)
    session.press("enter")
    assert answers(session.finish()[0]) == {"pkg": {"id": "pkg", "selected": [], "custom": text}}


MARKDOWN = (
    "# Pick **pnpm**\n\nOne copy of each package, linked into `node_modules` "
    "([docs](https://pnpm.io)).\n\n- strict: no phantom dependencies\n- fast\n\n"
    "1. install\n2. lock\n\n> quoted <b>html</b> stays text\n\n"
    "```python\nimport os\ndef install(frozen: bool = True) -> None:\n    return None\n```\n"
)


def test_previews_are_rendered_markdown_with_highlighted_code(tui_run: Any) -> None:
    previewed = question(
        "pkg", "Which package manager?", "pnpm", "npm", previews={"pnpm": MARKDOWN}
    )
    session = tui_run(request(previewed), columns=120, rows=30)
    shown = session.screen.frame("def install(frozen: bool = True) -> None:")
    preview = "\n".join(line.split("│", 1)[1] for line in shown.splitlines() if "│" in line)
    assert preview.startswith("Pick pnpm\n")  # a heading, without its "#" or "**"
    assert "linked into node_modules (docs (https://pnpm.io))." in preview.replace("\n", " ")
    assert "• strict: no phantom dependencies\n• fast" in preview
    assert "1. install\n2. lock" in preview
    assert "│ quoted <b>html</b> stays text" in preview  # raw HTML is text
    assert "```" not in preview  # no fences
    assert "import os\ndef install(frozen: bool = True) -> None:\n    return None" in preview
    raw = session.screen.raw()
    # the code is highlighted: the keyword "def" comes in a colour of its own
    assert re.search(r"\x1b\[[0-9;]*m(def)\x1b\[", raw), raw[-2000:]
    session.press("enter")
    assert answers(session.finish()[0]) == {"pkg": {"id": "pkg", "selected": ["pnpm"]}}


def test_an_approval_shows_allow_and_deny_as_what_they_are(tui_run: Any) -> None:
    """What ui.approve(..., remember=...) asks: allowing in green, denying in red."""
    approve = question("approve", "Deploy to production?", "Allow", "Deny", "Always allow",
                       "Always deny", header="Approve")  # fmt: skip
    session = tui_run(request(approve))
    screen = session.screen
    screen.shows("Always deny")
    colours = {label: screen.colour_of(f". {label}", at=2) for label in ("Allow", "Deny")}
    colours.update({label: screen.colour_of(label) for label in ("Always allow", "Always deny")})
    assert colours == {
        "Allow": "green",
        "Deny": "red",
        "Always allow": "green",
        "Always deny": "red",
    }
    other = tui_run(request(question("pkg", "Which?", "Allow", "Deny")))  # not an approval
    other.screen.shows(". Deny")
    assert other.screen.colour_of(". Deny", at=2) != "red"
    session.press("enter")
    assert answers(session.finish()[0]) == {"approve": {"id": "approve", "selected": ["Allow"]}}
