"""The provider driven the way a human drives it: a child process behind real pipes or a
real pseudo-terminal, answers typed once the prompt is on the screen."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import signal
import sys
from collections.abc import Iterator
from typing import Any

import pexpect
import pytest
from stdio_support import DRIVER, MODES, TIMEOUT, Session, answers, question, request

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pipes and ptys of POSIX")

PKG = question(
    "pkg",
    "Which package manager?",
    "pnpm",
    "npm",
    "yarn",
    header="Package",
    detail="The lockfile decides.\nCI installs from it.",
    descriptions={"pnpm": "fast, strict"},
)
LINT = question("lint", "Which linters?", "ruff", "flake8", "pylint", multi=True)
NAME = question("name", "Project name?")
FEATURE_HINT = "Type one or more numbers (like 1,3 or 1 3)"


@pytest.fixture(params=MODES)
def stdio_mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def stdio_run(stdio_mode: str) -> Iterator[Any]:
    sessions: list[Session] = []

    def start(*requests: dict[str, Any], **plan: Any) -> Session:
        session = Session(stdio_mode, {"requests": list(requests), **plan})
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.kill()


def test_renders_question_and_picks_a_number(stdio_run: Any) -> None:
    session = stdio_run(request(PKG))
    session.answer("2")
    results = session.finish()
    assert answers(results[0]) == {"pkg": {"id": "pkg", "selected": ["npm"]}}
    screen = session.text
    assert (
        "\n[Package] Which package manager?\n"
        "The lockfile decides.\n"
        "CI installs from it.\n"
        "  1. pnpm\n"
        "     fast, strict\n"
        "  2. npm\n"
        "  3. yarn\n"
        "Type a number or your own answer (=text: literal text, -: skip, 1 # text: add a note)\n"
        "> "
    ) in screen
    assert session.threads() == []  # the reader thread ended with the provider


def test_batch_of_questions_answered_together(stdio_run: Any) -> None:
    session = stdio_run(
        request(
            PKG,
            question("tool", "Which tool?", "make", "just"),
            question("port", "Which port?", "80", "8080"),
            question("skip", "Anything else?", "yes", "no"),
            LINT,
            NAME,
            question("count", "How many?"),
        )
    )
    session.answer("3", "my own tool", "=8443", "-", "3, 1 3", "demo", "42")
    results = session.finish()
    assert answers(results[0]) == {
        "pkg": {"id": "pkg", "selected": ["yarn"]},
        "tool": {"id": "tool", "selected": [], "custom": "my own tool"},
        "port": {"id": "port", "selected": [], "custom": "8443"},
        "skip": {"id": "skip", "selected": []},
        "lint": {"id": "lint", "selected": ["pylint", "ruff"]},
        "name": {"id": "name", "selected": [], "custom": "demo"},
        "count": {"id": "count", "selected": [], "custom": "42"},
    }
    screen = session.text
    order = [screen.index(text) for text in ("Which package", "Which tool", "Project name")]
    assert order == sorted(order)
    assert FEATURE_HINT in screen  # a multi-select question says several numbers may be given
    assert "\nProject name?\nType your answer (=text: literal text, -: skip)\n> " in screen


def test_previews_are_shown_and_notes_are_taken_on_single_and_multi_select(
    stdio_run: Any,
) -> None:
    layout = {
        "id": "layout",
        "question": "Which layout?",
        "options": [
            {"label": "grid", "description": "two columns", "preview": "+--+--+\n|  |  |"},
            {"label": "list", "preview": "```\n- a\n- b\n```"},
        ],
    }
    checks = {**layout, "id": "checks", "question": "Which checks?", "multiSelect": True}
    session = stdio_run(request(layout, checks, question("plain", "Plain?", "a", "b")))
    session.answer("1 # but tighter", "2, 1 #only on main", "2#")
    results = session.finish()
    assert answers(results[0]) == {
        "layout": {"id": "layout", "selected": ["grid"], "notes": "but tighter"},
        "checks": {"id": "checks", "selected": ["list", "grid"], "notes": "only on main"},
        "plain": {"id": "plain", "selected": ["b"]},
    }
    screen = session.text
    assert (
        "\nWhich layout?\n"
        "  1. grid\n"
        "     two columns\n"
        "     | +--+--+\n"
        "     | |  |  |\n"
        "  2. list\n"
        "     | ```\n"
        "     | - a\n"
        "     | - b\n"
        "     | ```\n"
        "Type a number or your own answer (=text: literal text, -: skip, 1 # text: add a note)\n"
        "> "
    ) in screen
    assert "(=text: literal text, -: skip, 1,3 # text: add a note)\n> " in screen


def test_multi_select_text_with_a_number_is_custom(stdio_run: Any) -> None:
    session = stdio_run(request(LINT, question("again", "Again?", "a", "b", multi=True)))
    session.answer("1 two", "2,2, 1")
    results = session.finish()
    assert answers(results[0]) == {
        "lint": {"id": "lint", "selected": [], "custom": "1 two"},
        "again": {"id": "again", "selected": ["b", "a"]},
    }


def test_invalid_input_prompts_again_with_a_hint(stdio_run: Any) -> None:
    session = stdio_run(request(PKG, LINT, NAME))
    hint = "type a number from 1 to 3, your own answer, =text for literal text, or - to skip."
    session.answer("")
    session.expect(f"Please answer: {hint}")
    session.answer("0")
    session.expect(f"There is no option 0; {hint}")
    session.answer("4")
    session.expect(f"There is no option 4; {hint}")
    session.answer("=")
    session.expect("Type text right after = (for example =42), or - to skip.")
    session.answer("1")
    session.expect("Which linters?")
    session.answer("1 4")
    session.expect("There is no option 4; type numbers from 1 to 3,")
    session.answer("2 0")
    session.expect("There is no option 0; type numbers from 1 to 3,")
    session.answer("2")
    session.expect("Project name?")
    session.answer("   ")
    session.expect("Please type an answer, or - to skip.")
    session.answer("  spaced out  ")
    results = session.finish()
    assert answers(results[0]) == {
        "pkg": {"id": "pkg", "selected": ["pnpm"]},
        "lint": {"id": "lint", "selected": ["flake8"]},
        "name": {"id": "name", "selected": [], "custom": "spaced out"},
    }
    assert session.text.count("Which package manager?") == 1  # re-prompts, not re-renders


def test_a_line_the_encoding_cannot_read_is_refused_and_asked_again() -> None:
    """Latin-1 bytes on a UTF-8 input: nothing is dropped or replaced without a word."""
    session = Session("pipe", {"requests": [request(NAME)]})
    try:
        session.expect("> ")
        session.type_bytes("Z\u00fcrich\n".encode("latin-1"))
        session.expect("That line holds bytes that are not valid text in the input's encoding")
        session.answer("Zürich")
        results = session.finish()
    finally:
        session.kill()
    assert answers(results[0]) == {"name": {"id": "name", "selected": [], "custom": "Zürich"}}


def test_concurrent_asks_queue_and_never_mix(stdio_run: Any) -> None:
    first = question("first", "First question?", "a", "b")
    second = question("second", "Second question?", "c", "d")
    third = question("third", "Third question?", "e", "f")
    session = stdio_run(request(first), request(second), request(third), concurrent=True)
    shown = session.expect("> ")
    assert "First question?" in shown
    session.type("2")
    shown = session.expect("Second question?")
    assert "Third question?" not in shown
    session.expect("> ")
    session.type("1")
    session.expect("Third question?")
    session.answer("=own")
    results = session.finish()
    assert answers(results[0]) == {"first": {"id": "first", "selected": ["b"]}}
    assert answers(results[1]) == {"second": {"id": "second", "selected": ["c"]}}
    assert answers(results[2]) == {"third": {"id": "third", "selected": [], "custom": "own"}}
    screen = session.text
    positions = [screen.index(f"{name} question?") for name in ("First", "Second", "Third")]
    assert positions == sorted(positions)
    for before, after in zip(positions, positions[1:]):  # one prompt per question
        assert screen.count("> ", before, after) == 1


def test_abort_while_waiting_then_the_next_ask_gets_the_next_line(stdio_run: Any) -> None:
    session = stdio_run(request(PKG), request(question("next", "Next one?", "a", "b")))
    session.expect("> ")
    session.signal(signal.SIGUSR1)
    session.expect("(aborted: the question was withdrawn)")
    session.expect("Next one?")
    session.expect("> ")
    session.type("2")
    results = session.finish()
    assert results[0] == {"index": 0, "error": "ASK_ABORTED"}
    assert answers(results[1]) == {"next": {"id": "next", "selected": ["b"]}}


def test_typeahead_answers_the_next_question_only_through_a_pipe(stdio_run: Any) -> None:
    """A line typed while no question is on screen is dropped on a terminal (it was meant
    for something else), and is the next answer through a pipe (a script's answers)."""
    one, two = (
        question("one", "Question one?", "a", "b"),
        question("two", "Question two?", "a", "b"),
    )
    session = stdio_run(request(one), request(two), hold=True)
    session.answer("1")
    session.expect("HOLD 1")
    session.type("2")  # nothing asks for it yet
    session.taken("2")  # the terminal has it before the next question is shown
    session.signal(signal.SIGUSR1)
    session.expect("Question two?")
    if session.mode == "tty":
        session.answer("1")
    results = session.finish()
    expected = ["a"] if session.mode == "tty" else ["b"]
    assert answers(results[1]) == {"two": {"id": "two", "selected": expected}}


def test_typeahead_after_an_abort(stdio_run: Any) -> None:
    """After an abort the terminal reader may still be inside ``input()``: a line, or the
    start of one, typed before the next question never becomes (part of) its answer."""
    one, two = (
        question("one", "Question one?", "a", "b"),
        question("two", "Question two?", "a", "b"),
    )
    session = stdio_run(request(one), request(two), hold=True)
    session.expect("> ")
    session.signal(signal.SIGUSR1)
    session.expect("HOLD 1")
    session.child.send("2\nx" if session.mode == "tty" else "2\n")
    # the echo of the line (by the reader still inside input(), which echoes itself) shows
    # the terminal took the write; "x" came in the same write, so it has that too
    session.taken("2\r\n")
    session.signal(signal.SIGUSR1)
    session.expect("Question two?")
    if session.mode == "tty":
        session.answer("1")
    results = session.finish()
    assert results[0] == {"index": 0, "error": "ASK_ABORTED"}
    expected = ["a"] if session.mode == "tty" else ["b"]
    assert answers(results[1]) == {"two": {"id": "two", "selected": expected}}


def test_abort_of_a_queued_ask_never_shows_it(stdio_run: Any) -> None:
    session = stdio_run(
        request(question("one", "Question one?", "a", "b")),
        request(question("two", "Question two?", "c", "d")),
        request(question("three", "Question three?", "e", "f")),
        concurrent=True,
        abort_order=[1],
    )
    session.expect("> ")
    session.signal(signal.SIGUSR1)
    session.expect('RESULT {"index": 1, "error": "ASK_ABORTED"}')
    session.type("1")
    session.expect("Question three?")
    session.answer("2")
    results = session.finish()
    assert answers(results[0]) == {"one": {"id": "one", "selected": ["a"]}}
    assert answers(results[2]) == {"three": {"id": "three", "selected": ["f"]}}
    assert "Question two?" not in session.text
    assert "(aborted" not in session.text


THREE = (
    request(question("one", "Question one?", "a", "b")),
    request(question("two", "Question two?", "c", "d")),
    request(question("three", "Question three?", "e", "f")),
)
SHOWN_TWO = (
    "\n  1. c\n  2. d\n"
    "Type a number or your own answer (=text: literal text, -: skip, 1 # text: add a note)\n> "
)


def test_end_of_input_rejects_the_pending_ask_and_every_later_one() -> None:
    session = Session("pipe", {"requests": list(THREE)})
    try:
        session.answer("1")
        session.expect("Question two?")
        session.expect("> ")
        session.end_input()
        results = session.finish()
    finally:
        session.kill()
    assert answers(results[0]) == {"one": {"id": "one", "selected": ["a"]}}
    assert results[1] == {"index": 1, "error": "ASK_ABORTED"}
    assert results[2] == {"index": 2, "error": "ASK_ABORTED"}
    after = session.text.split("Question two?", 1)[1]
    after = re.sub(r"(RESULT|THREADS|DONE) .*(\n|$)", "", after)  # the driver's own lines
    assert after == SHOWN_TWO + "\n"  # only the prompt's line is ended
    assert "Question three?" not in session.text


def test_ctrl_d_at_a_terminal_prompt_dismisses_that_question_only() -> None:
    """At a terminal, Ctrl-D is the human dismissing the question (``ASK_CANCELLED``),
    not the end of the conversation: the next question is asked as usual."""
    session = Session("tty", {"requests": list(THREE)})
    try:
        session.answer("1")
        session.expect("Question two?")
        session.expect("> ")
        session.end_input()
        session.expect("Question three?")
        session.answer("2")
        results = session.finish()
    finally:
        session.kill()
    assert answers(results[0]) == {"one": {"id": "one", "selected": ["a"]}}
    assert results[1] == {"index": 1, "error": "ASK_CANCELLED"}
    assert answers(results[2]) == {"three": {"id": "three", "selected": ["f"]}}
    after = session.text.split("Question two?", 1)[1].split("Question three?", 1)[0]
    after = re.sub(r"(RESULT|THREADS|DONE) .*(\n|$)", "", after)
    assert after == SHOWN_TWO + "\n\n"  # the prompt's line ended; the next block's blank line


def test_escape_sequences_from_the_model_are_shown_not_executed(stdio_run: Any) -> None:
    evil = question(
        "evil\x1b[2J",
        "Clear?\x1b[2J\x1b[H",
        "a\x1b[31mred",
        "b\x07bell",
        header="\x1b]0;pwned\x07",
        detail="first\nsecond\x1b[1A\r\x9b2K\u202eevil",
        descriptions={"a\x1b[31mred": "desc\x1b(0\nfake: 9. option"},
    )
    evil["options"][1]["preview"] = "code\x1b[2J\n\x1b]52;c;b3duZWQ=\x07\rfake: 3. option"
    session = stdio_run(request(evil))
    session.answer("1")
    results = session.finish()
    assert answers(results[0]) == {
        "evil\x1b[2J": {"id": "evil\x1b[2J", "selected": ["a\x1b[31mred"]}
    }
    screen = session.text
    shown = screen[: screen.index("RESULT")]
    assert (
        "[\\x1b]0;pwned\\x07] Clear?\\x1b[2J\\x1b[H\n"
        "first\n"
        "second\\x1b[1A\\r\\x9b2K\\u202eevil\n"
        "  1. a\\x1b[31mred\n"
        "     desc\\x1b(0\\nfake: 9. option\n"
        "  2. b\\x07bell\n"
        "     | code\\x1b[2J\n"
        "     | \\x1b]52;c;b3duZWQ=\\x07\\rfake: 3. option\n"
    ) in shown
    visible_controls = set(re.findall(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", shown))
    assert visible_controls <= ({"\r"} if session.mode == "tty" else set())


def test_dispose_rejects_the_pending_ask_and_releases_the_input() -> None:
    session = Session(
        "pipe",
        {
            "requests": [request(PKG), request(NAME)],
            "read_after": True,
        },
    )
    try:
        session.expect("> ")
        session.signal(signal.SIGUSR2)
        session.expect("THREADS")
        session.type("typed after dispose")
        results = session.finish()
    finally:
        session.kill()
    assert results[0] == {"index": 0, "error": "PROVIDER_DISPOSED"}
    assert results[1] == {"index": 1, "error": "NO_PROVIDER"}
    assert session.threads() == []
    assert 'STDIN "typed after dispose\\n"' in session.text  # nothing was read ahead
    assert "(closed: the question was withdrawn)" in session.text


@pytest.mark.skipif(importlib.util.find_spec("readline") is None, reason="no readline")
def test_terminal_line_editing_and_history() -> None:
    session = Session("tty", {"requests": [request(NAME, question("again", "Again?"))]})
    try:
        session.expect("> ")
        session.child.send("wrld\x1b[D\x1b[D\x1b[Do\r")  # three times left arrow, insert "o"
        session.expect("Again?")
        session.expect("> ")
        session.child.send("\x1b[A\r")  # up arrow: the previous line from the history
        results = session.finish()
    finally:
        session.kill()
    assert answers(results[0]) == {
        "name": {"id": "name", "selected": [], "custom": "world"},
        "again": {"id": "again", "selected": [], "custom": "world"},
    }


def test_register_provider_directly(stdio_mode: str) -> None:
    session = Session(stdio_mode, {"requests": [request(NAME)], "register": True})
    try:
        session.answer("direct")
        results = session.finish()
    finally:
        session.kill()
    assert answers(results[0]) == {"name": {"id": "name", "selected": [], "custom": "direct"}}


_SIGINT_DEFAULT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def test_ctrl_c_in_a_terminal_leaves_it_usable() -> None:
    plan = json.dumps({"requests": [request(PKG)], "provider": "stdio"})
    driver = " ".join(map(shlex.quote, [sys.executable, *DRIVER, plan]))
    command = f"trap true INT; {driver}"
    # The shell starts with SIGINT at its default even when this test run ignores it (a
    # background job): a shell cannot trap a signal ignored on entry, nor Python see it.
    child = pexpect.spawn(
        sys.executable,
        ["-S", "-c", _SIGINT_DEFAULT, "/bin/sh", "-c", f"{command}; echo; stty -a"],
        env={**os.environ, "TERM": "dumb"},
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    try:
        child.expect_exact("> ")
        child.sendintr()
        child.expect_exact("(cancelled: the question was withdrawn)")
        child.expect(pexpect.EOF)
        settings = str(child.before).split()
    finally:
        child.close(force=True)
    for flag in ("icanon", "echo", "isig"):  # readline's raw mode was undone at exit
        assert flag in settings


def test_a_batch_counts_its_questions_and_echoes_each_answer(stdio_run: Any) -> None:
    session = stdio_run(request(PKG, LINT, NAME))
    session.answer("npm # pin it", "1 3", "demo")
    results = session.finish()
    assert answers(results[0]) == {
        "pkg": {"id": "pkg", "selected": ["npm"], "notes": "pin it"},  # typed as a label
        "lint": {"id": "lint", "selected": ["ruff", "pylint"]},
        "name": {"id": "name", "selected": [], "custom": "demo"},
    }
    screen = session.text
    assert "\nQuestion 1 of 3\n[Package] Which package manager?\n" in screen
    assert "\nQuestion 2 of 3\nWhich linters?\n" in screen
    assert "\nQuestion 3 of 3\nProject name?\n" in screen
    # what was understood stays under each question, also where typing is not echoed
    assert "✓ 2. npm (notes: pin it)\n" in screen
    assert "✓ 1. ruff, 3. pylint\n" in screen
    assert "✓ your answer: demo\n" in screen
    assert "\x1b[" not in screen  # TERM=dumb, or a pipe: no colour


@pytest.mark.parametrize(
    ("mode", "env", "coloured"),
    [
        ("tty", {"TERM": "xterm-256color"}, True),
        ("tty", {"TERM": "xterm-256color", "NO_COLOR": "1"}, False),
        ("pipe", {"TERM": "xterm-256color"}, False),
        ("pipe", {"TERM": "xterm-256color", "FORCE_COLOR": "1"}, True),
    ],
)
def test_colour_on_a_terminal_unless_told_otherwise(
    mode: str, env: dict[str, str], coloured: bool
) -> None:
    session = Session(mode, {"requests": [request(PKG)]}, env=env)
    try:
        session.answer("2")
        assert answers(session.finish()[0]) == {"pkg": {"id": "pkg", "selected": ["npm"]}}
        assert ("\x1b[1m[Package] Which package manager?\x1b[0m" in session.text) is coloured
        assert ("\x1b[32m✓ 2. npm\x1b[0m" in session.text) is coloured
    finally:
        session.kill()


def test_a_question_taller_than_the_terminal_is_said_again_above_the_prompt(
    stdio_run: Any,
) -> None:
    labels = [f"option {n}" for n in range(1, 46)]  # taller than the 40 rows of the terminal
    session = stdio_run(request(question("many", "Which one of these?", *labels)))
    session.answer("45")
    assert answers(session.finish()[0]) == {"many": {"id": "many", "selected": ["option 45"]}}
    reminder = "  45. option 45\n↑ Which one of these?\nType a number"
    assert (reminder in session.text) is (session.mode == "tty")  # a pipe has no height
    short = stdio_run(request(PKG))
    short.answer("1")
    short.finish()
    assert "↑" not in short.text  # a question that fits is not repeated
