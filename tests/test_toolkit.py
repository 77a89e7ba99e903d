"""The provider toolkit: plain-text previews and the words for a value's kind."""

from __future__ import annotations

import re
import signal
import threading
from pathlib import Path

import pytest

from user_interaction import AskUserQuestionOption
from user_interaction.toolkit import (
    PREVIEW_LIMIT,
    describe_value,
    option_text,
    plain_preview,
    quoted,
    shorten,
    start_thread,
)

ROOT = Path(__file__).resolve().parent.parent


def test_plain_preview_drops_fences_and_trims() -> None:
    preview = "Run:\n\n\n\n```sh   \npnpm install   \n```\n\n~~~\nx\n~~~\n"
    assert plain_preview(preview) == "Run:\n\npnpm install\n\nx"


def test_plain_preview_is_cut_at_the_limit() -> None:
    assert plain_preview("x" * (PREVIEW_LIMIT + 5)) == "x" * (PREVIEW_LIMIT - 1) + "…"
    assert plain_preview("abc  def", 5) == "abc…"
    assert plain_preview("abcde", 5) == "abcde"


def test_option_text_joins_the_description_and_the_preview() -> None:
    assert option_text(AskUserQuestionOption("a")) is None
    assert option_text(AskUserQuestionOption("a", "fast")) == "fast"
    assert option_text(AskUserQuestionOption("a", preview="```\ncode\n```")) == "code"
    both = AskUserQuestionOption("a", "fast", preview="```\ncode\n```")
    assert option_text(both) == "fast\n\ncode"
    assert option_text(AskUserQuestionOption("a", preview="   ")) is None
    assert option_text(AskUserQuestionOption("a", preview="abcdef"), 4) == "abc…"


def test_shorten_makes_one_line() -> None:
    assert shorten("Which\n  package   manager?", 60) == "Which package manager?"
    assert shorten("Which package manager?", 10) == "Which pac…"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (None, "null"),
        (True, "a boolean"),
        (3, "a number"),
        (2.5, "a number"),
        ("x", "a string"),
        ([], "an array"),
        ((1,), "an array"),
        ({}, "an object"),
        (b"x", "bytes"),
    ],
)
def test_describe_value(value: object, words: str) -> None:
    assert describe_value(value) == words


def test_quoted() -> None:
    assert quoted(["pnpm", "it's"]) == "'pnpm', \"it's\""
    assert quoted([]) == ""


def test_the_providers_keep_no_copies() -> None:
    """The acp and mcp forms, and the core, render previews and name kinds through the
    toolkit alone."""
    copies = re.compile(r"^\s*def (plain_preview|_kind|_listing|_described)\(", re.M)
    places = [
        ROOT / "src" / "user_interaction",
        ROOT / "plugins" / "acp" / "src",
        ROOT / "plugins" / "mcp" / "src",
    ]
    found = [
        str(path.relative_to(ROOT))
        for place in places
        for path in sorted(place.rglob("*.py"))
        if path.name != "toolkit.py" and copies.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


class _InterruptedAsItStarts(threading.Thread):
    """A thread whose start() gets a Ctrl-C (SIGINT to this process) at its first line."""

    def start(self) -> None:
        signal.raise_signal(signal.SIGINT)  # to this thread: its handler runs here, at once
        super().start()


def test_start_thread_raises_a_ctrl_c_that_came_during_the_start_after_it() -> None:
    """Raised inside Thread.start(), the interrupt would leave the thread half started
    (which crashed an exiting interpreter); held back, it comes once the thread runs."""
    # Ctrl-C as a program has it (a test runner's worker may ignore SIGINT)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    release = threading.Event()
    thread = _InterruptedAsItStarts(target=release.wait, daemon=True)
    try:
        with pytest.raises(KeyboardInterrupt):
            start_thread(thread)
        assert thread.is_alive()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
        release.set()
        thread.join(10)


def test_without_an_interrupt_start_thread_only_starts() -> None:
    before = signal.getsignal(signal.SIGINT)
    done: list[str] = []
    thread = threading.Thread(target=lambda: done.append(threading.current_thread().name))
    start_thread(thread)
    thread.join(10)
    assert done == [thread.name]
    assert signal.getsignal(signal.SIGINT) is before
