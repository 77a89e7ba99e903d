"""The provider in this process, reading a real OS pipe: turns, abort, dispose, end of
input and the reader thread, observed on the event loop itself."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any, Callable

import pytest
from child_support import child_stderr
from user_interaction_stdio import StdioProvider

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    AbortController,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

PATIENCE = 30.0  # generous: only a broken provider ever waits this long


def ask_for(id: str, *labels: str, signal: Any = None, multi: bool = False) -> Any:
    options = [AskUserQuestionOption(label) for label in labels]
    item = AskUserQuestionItem(id, f"Question {id}?", options=options, multi_select=multi)
    return AskUserQuestionRequest([item], signal=signal)


def reader_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "user-interaction-stdio"]


class Terminal:
    """A real pipe as the provider's input and a text buffer as its screen."""

    def __init__(self) -> None:
        read_fd, self.write_fd = os.pipe()
        self.input = open(read_fd, encoding="utf-8")  # noqa: SIM115 -- closed by close()
        self.screen = io.StringIO()

    def type(self, text: str) -> None:
        os.write(self.write_fd, text.encode())

    def end_input(self) -> None:
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def close(self) -> None:
        self.end_input()
        self.input.close()

    @property
    def text(self) -> str:
        return self.screen.getvalue()

    async def shows(self, text: str, count: int = 1) -> None:
        """Wait (without blocking the loop) until ``text`` was shown ``count`` times."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE
        while self.text.count(text) < count:
            assert loop.time() < deadline, f"never shown: {text!r} in {self.text!r}"
            await asyncio.sleep(0.005)

    def provider(self) -> StdioProvider:
        return StdioProvider(self.input, self.screen)


@pytest.fixture
def stdio_terminal() -> Iterator[Terminal]:
    terminal = Terminal()
    yield terminal
    terminal.close()


async def settle() -> None:
    """Let every task that can run, run (nothing here depends on time)."""
    for _ in range(50):
        await asyncio.sleep(0)


def run(main: Callable[[], Any]) -> Any:
    return asyncio.run(main())


def test_answers_over_a_pipe_without_blocking_the_loop(stdio_terminal: Terminal) -> None:
    async def main() -> Any:
        with UserInteraction() as ui:
            ui.register_provider(stdio_terminal.provider())
            task = asyncio.ensure_future(ui.ask(ask_for("pkg", "pnpm", "npm")))
            await stdio_terminal.shows("> ")  # the loop keeps running while the ask waits
            assert not task.done()
            stdio_terminal.type("2\n")
            return await task

    answer = run(main)
    assert answer.answers == (AskUserQuestionAnswerItem("pkg", ["npm"]),)
    assert reader_threads() == []


def test_an_ask_with_a_deadline_says_how_long_is_left(stdio_terminal: Terminal) -> None:
    async def main() -> Any:
        with UserInteraction() as ui:
            ui.register_provider(stdio_terminal.provider())
            task = asyncio.ensure_future(ui.ask(ask_for("pkg", "pnpm", "npm"), timeout=90))
            await stdio_terminal.shows("> ")
            stdio_terminal.type("2\n")
            await task
            task = asyncio.ensure_future(ui.ask(ask_for("lint", "ruff")))  # no deadline
            await stdio_terminal.shows("> ", count=2)
            stdio_terminal.type("1\n")
            await task

    run(main)
    first, second = stdio_terminal.text.split("Question lint?")
    # read from the ask's signal when the question is shown: 90 s (less a busy moment)
    assert re.search(r"⏱ 1:[0-3][0-9] left to answer\nQuestion pkg\?", first), first
    assert "left to answer" not in second


def test_asks_take_turns_without_a_manager(stdio_terminal: Terminal) -> None:
    provider = stdio_terminal.provider()
    other = stdio_terminal.provider()  # a second provider on the same stream waits too

    async def main() -> list[Any]:
        first = asyncio.ensure_future(provider.ask(ask_for("one", "a", "b")))
        second = asyncio.ensure_future(provider.ask(ask_for("two", "c", "d")))
        third = asyncio.ensure_future(other.ask(ask_for("three", "e", "f")))
        await stdio_terminal.shows("> ")
        await settle()
        assert "Question two?" not in stdio_terminal.text
        assert "Question three?" not in stdio_terminal.text
        stdio_terminal.type("1\n")
        await stdio_terminal.shows("Question two?")
        await settle()
        assert "Question three?" not in stdio_terminal.text
        stdio_terminal.type("2\n1\n")  # typed ahead: each line goes to the next question
        return list(await asyncio.gather(first, second, third))

    try:
        one, two, three = run(main)
    finally:
        provider.dispose()
        other.dispose()
    assert one.answers == (AskUserQuestionAnswerItem("one", ["a"]),)
    assert two.answers == (AskUserQuestionAnswerItem("two", ["d"]),)
    assert three.answers == (AskUserQuestionAnswerItem("three", ["e"]),)
    assert reader_threads() == []


def test_abort_stops_waiting_and_keeps_the_next_line(stdio_terminal: Terminal) -> None:
    provider = stdio_terminal.provider()

    async def main() -> Any:
        controller = AbortController()
        task = asyncio.ensure_future(
            provider.ask(ask_for("one", "a", "b", signal=controller.signal))
        )
        await stdio_terminal.shows("> ")
        threading.Thread(target=controller.abort).start()  # from another thread
        with pytest.raises(UserInteractionError) as caught:
            await task
        assert caught.value.code == ASK_ABORTED
        assert stdio_terminal.text.endswith("> \n(aborted: the question was withdrawn)\n")
        stdio_terminal.type("2\n")
        return await provider.ask(ask_for("two", "c", "d"))

    try:
        answer = run(main)
    finally:
        provider.dispose()
    assert answer.answers == (AskUserQuestionAnswerItem("two", ["d"]),)


def test_abort_of_a_queued_ask_never_shows_it(stdio_terminal: Terminal) -> None:
    provider = stdio_terminal.provider()

    async def main() -> tuple[Any, Any]:
        controller = AbortController()
        first = asyncio.ensure_future(provider.ask(ask_for("one", "a", "b")))
        queued = asyncio.ensure_future(provider.ask(ask_for("two", "c", signal=controller.signal)))
        third = asyncio.ensure_future(provider.ask(ask_for("three", "e", "f")))
        await stdio_terminal.shows("> ")
        controller.abort()
        with pytest.raises(UserInteractionError) as caught:
            await queued
        assert caught.value.code == ASK_ABORTED
        stdio_terminal.type("1\n")
        await stdio_terminal.shows("Question three?")
        stdio_terminal.type("2\n")
        return await first, await third

    try:
        first, third = run(main)
    finally:
        provider.dispose()
    assert first.answers == (AskUserQuestionAnswerItem("one", ["a"]),)
    assert third.answers == (AskUserQuestionAnswerItem("three", ["f"]),)
    assert "Question two?" not in stdio_terminal.text
    assert "aborted" not in stdio_terminal.text


def test_timeout_and_cancel_withdraw_the_question(stdio_terminal: Terminal) -> None:
    async def main() -> Any:
        with UserInteraction() as ui:
            ui.register_provider(stdio_terminal.provider())
            with pytest.raises(UserInteractionError) as caught:
                await ui.ask(ask_for("one", "a", "b"), timeout=0.05)
            assert caught.value.code == ASK_TIMEOUT
            await stdio_terminal.shows("(timed out: the question was withdrawn)")
            task = asyncio.ensure_future(ui.ask(ask_for("two", "c", "d")))
            await stdio_terminal.shows("> ", count=2)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await stdio_terminal.shows("(cancelled: the question was withdrawn)")
            stdio_terminal.type("=typed later\n")
            return await ui.ask(ask_for("three", "e", "f"))

    answer = run(main)
    assert answer.answers == (AskUserQuestionAnswerItem("three", custom="typed later"),)


def test_already_aborted_signal_shows_nothing(stdio_terminal: Terminal) -> None:
    provider = stdio_terminal.provider()
    signal = AbortController()
    signal.abort()
    with pytest.raises(UserInteractionError) as caught:
        run(lambda: provider.ask(ask_for("one", "a", signal=signal.signal)))
    provider.dispose()
    assert caught.value.code == ASK_ABORTED
    assert stdio_terminal.text == ""


def test_dispose_rejects_pending_and_ends_the_reader(stdio_terminal: Terminal) -> None:
    """Disposal reaches the pending ask through its signal (the manager fires it), and
    dispose() lets go of the input."""
    provider = stdio_terminal.provider()

    async def main() -> None:
        with UserInteraction() as ui:
            disposer = ui.register_provider(provider)
            task = asyncio.ensure_future(ui.ask(ask_for("one", "a", "b")))
            await stdio_terminal.shows("> ")
            assert len(reader_threads()) == 1
            disposing = threading.Thread(target=disposer)
            disposing.start()
            with pytest.raises(UserInteractionError) as caught:
                await task
            disposing.join()
            assert caught.value.code == PROVIDER_DISPOSED

    run(main)
    provider.dispose()  # again: nothing left to let go of
    assert reader_threads() == []
    assert stdio_terminal.text.endswith("(closed: the question was withdrawn)\n")
    stdio_terminal.type("still there\n")  # the disposed provider consumed nothing
    assert os.read(stdio_terminal.input.fileno(), 100) == b"still there\n"


def test_end_of_input_rejects_now_and_later_without_output(stdio_terminal: Terminal) -> None:
    provider = stdio_terminal.provider()

    async def main() -> None:
        task = asyncio.ensure_future(provider.ask(ask_for("one", "a", "b")))
        await stdio_terminal.shows("> ")
        stdio_terminal.end_input()
        with pytest.raises(UserInteractionError) as caught:
            await task
        assert caught.value.code == ASK_ABORTED
        shown = stdio_terminal.text
        assert shown.endswith("> \n")  # the prompt's line is ended, nothing more
        with pytest.raises(UserInteractionError) as later:
            await provider.ask(ask_for("two", "c"))
        assert later.value.code == ASK_ABORTED
        assert stdio_terminal.text == shown

    try:
        run(main)
    finally:
        provider.dispose()
    assert reader_threads() == []


def test_partial_last_line_is_an_answer(stdio_terminal: Terminal) -> None:
    provider = stdio_terminal.provider()
    stdio_terminal.type("1, 2")  # no line break before the end of input
    stdio_terminal.end_input()
    try:
        answer = run(lambda: provider.ask(ask_for("one", "a", "b", multi=True)))
    finally:
        provider.dispose()
    assert answer.answers == (AskUserQuestionAnswerItem("one", ["a", "b"]),)


def test_stream_without_a_descriptor() -> None:
    screen = io.StringIO()
    provider = StdioProvider(io.StringIO("\n7\n=7\n-\n"), screen)
    request = AskUserQuestionRequest(
        [
            AskUserQuestionItem("n", "Number?", options=[AskUserQuestionOption("one")]),
            AskUserQuestionItem("s", "Skip?"),
        ]
    )
    try:
        answer = run(lambda: provider.ask(request))
        with pytest.raises(UserInteractionError) as caught:
            run(lambda: provider.ask(request))
    finally:
        provider.dispose()
    assert answer.answers == (
        AskUserQuestionAnswerItem("n", custom="7"),
        AskUserQuestionAnswerItem("s"),
    )
    assert caught.value.code == ASK_ABORTED
    assert "Please answer: type 1, your own answer" in screen.getvalue()
    assert "There is no option 7; type 1," in screen.getvalue()


def test_ask_sync_from_threads(stdio_terminal: Terminal) -> None:
    results: dict[str, Any] = {}
    with UserInteraction() as ui:
        ui.register_provider(stdio_terminal.provider())

        def ask(id: str) -> None:
            results[id] = ui.ask_sync(ask_for(id, "a", "b"))

        threads = [threading.Thread(target=ask, args=(id,)) for id in ("x", "y")]
        for thread in threads:
            thread.start()
        stdio_terminal.type("1\n2\n")
        for thread in threads:
            thread.join(PATIENCE)
    picked = sorted(answer.answers[0].selected[0] for answer in results.values())
    assert picked == ["a", "b"]
    assert stdio_terminal.text.count("> ") == 2


def test_a_long_line_is_read_in_blocks(
    stdio_terminal: Terminal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pasted 4 MB line costs a few dozen reads, not four million (one per byte)."""
    from user_interaction_stdio import _console

    reads = []

    class CountingOs:
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def read(self, fd: int, size: int) -> bytes:
            data = os.read(fd, size)
            if fd == stdio_terminal.input.fileno():
                reads.append(len(data))
            return data

    monkeypatch.setattr(_console, "os", CountingOs())
    text = "y" * (4 << 20)
    writer = threading.Thread(target=stdio_terminal.type, args=(text + "\n2\n",))
    writer.start()
    provider = stdio_terminal.provider()
    try:
        first = run(lambda: provider.ask(ask_for("one")))
        second = run(lambda: provider.ask(ask_for("two", "a", "b")))
    finally:
        provider.dispose()
        writer.join(PATIENCE)
    assert first.answers == (AskUserQuestionAnswerItem("one", custom=text),)
    assert second.answers == (AskUserQuestionAnswerItem("two", ["b"]),)
    assert sum(reads) == len(text) + 3
    assert len(reads) < 4 * len(text) // 4096  # far fewer than one read per byte


def test_read_ahead_goes_back_to_a_file(tmp_path: Any) -> None:
    """Lines read ahead of the last answer stay in a file for whoever reads it next."""
    path = tmp_path / "answers.txt"
    path.write_text("1\nleft for later\n")
    with open(path, encoding="utf-8") as stream:
        provider = StdioProvider(stream, io.StringIO())
        try:
            answer = run(lambda: provider.ask(ask_for("one", "a", "b")))
        finally:
            provider.dispose()
        assert answer.answers == (AskUserQuestionAnswerItem("one", ["a"]),)
        assert stream.readline() == "left for later\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_an_output_that_cannot_be_written_aborts_the_ask(stdio_terminal: Terminal) -> None:
    """A full output (``>/dev/full``) or a closed one: the question cannot be shown, so
    the ask ends at once with a clear ``ASK_ABORTED``, not with the write's exception."""
    stdio_terminal.type("1\n")
    full = open("/dev/full", "w")  # noqa: SIM115 -- closed below
    provider = StdioProvider(stdio_terminal.input, full)
    try:
        with pytest.raises(UserInteractionError) as caught:
            run(lambda: provider.ask(ask_for("one", "a", "b")))
    finally:
        provider.dispose()
        try:
            full.close()  # closes the file, then reports that its buffer cannot be flushed
        except OSError:
            pass
    assert caught.value.code == ASK_ABORTED
    assert caught.value.message == (
        "The output failed (OSError: [Errno 28] No space left on device): "
        "the question cannot be shown."
    )
    closed = io.StringIO()
    closed.close()
    provider = StdioProvider(stdio_terminal.input, closed)
    try:
        with pytest.raises(UserInteractionError) as caught:
            run(lambda: provider.ask(ask_for("one", "a", "b")))
    finally:
        provider.dispose()
    assert caught.value.code == ASK_ABORTED
    assert caught.value.message.startswith("The output failed (ValueError: I/O operation on")


def test_a_process_without_stdout_aborts_the_ask_clearly(tmp_path: Any) -> None:
    """Started with stdout closed (``>&-``), Python has ``sys.stdout = None``: the provider
    says so (it used to fail with ``PROVIDER_FAILED: AttributeError``)."""
    program = (
        "import sys\n"
        "from user_interaction import UserInteraction, UserInteractionError\n"
        "with UserInteraction() as ui:\n"
        "    ui.use('stdio')\n"
        "    try:\n"
        "        ui.confirm_sync('Deploy?')\n"
        "    except UserInteractionError as error:\n"
        "        sys.stderr.write(f'{error.code}: {error.message}\\n')\n"
    )
    done = subprocess.run(
        ["/bin/sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-c", program],
        input="1\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, child_stderr(done.stderr)) == (
        0,
        "ASK_ABORTED: There is no output stream to show the question on (stdout is closed).\n",
    )


async def shows(screen: io.StringIO, text: str, count: int = 1) -> None:
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while screen.getvalue().count(text) < count:
        assert asyncio.get_running_loop().time() < deadline, screen.getvalue()
        await asyncio.sleep(0.005)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals")
def test_ctrl_d_at_a_pseudo_terminal_cancels_one_ask_only() -> None:
    """A terminal read through its descriptor: Ctrl-D (the terminal's end-of-file
    character) at the prompt cancels that ask; the next one reads the terminal again."""
    import termios

    master, slave = os.openpty()
    keyboard = open(slave, encoding="utf-8")  # noqa: SIM115 -- closed below
    screen = io.StringIO()
    provider = StdioProvider(keyboard, screen)
    eof = termios.tcgetattr(slave)[6][termios.VEOF]

    async def main() -> tuple[UserInteractionError, Any]:
        first = asyncio.ensure_future(provider.ask(ask_for("one", "a", "b")))
        await shows(screen, "> ")
        os.write(master, eof)
        with pytest.raises(UserInteractionError) as caught:
            await first
        second = asyncio.ensure_future(provider.ask(ask_for("two", "c", "d")))
        await shows(screen, "> ", 2)
        os.write(master, b"2\n")
        return caught.value, await second

    try:
        error, answer = run(main)
    finally:
        provider.dispose()
        keyboard.close()
        os.close(master)
    assert error.code == ASK_CANCELLED
    assert answer.answers == (AskUserQuestionAnswerItem("two", ["d"]),)
    assert "> \n\nQuestion two?" in screen.getvalue()  # the prompt's line was ended
