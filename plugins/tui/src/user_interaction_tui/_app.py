"""The full-screen prompt_toolkit application that shows one :class:`Form`.

Imported on the first ask (prompt_toolkit is not imported with the package). :func:`run`
builds an application on the given terminal streams, drops whatever was typed before its
first frame, runs it on the caller's event loop and gives the terminal back in any case:
answered, dismissed, or cancelled from outside (abort, timeout, disposal).
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Final, TextIO, cast

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.input import create_input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    HSplit,
    Layout,
    ScrollOffsets,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import (
    BufferControl,
    FormattedTextControl,
    UIContent,
    UIControl,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import ColorDepth, create_output
from prompt_toolkit.styles import Style

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    AskUserQuestionAnswer,
    UserInteractionError,
)

from . import _view
from ._form import CANCEL, Field, Form, Outcome

if TYPE_CHECKING:
    from user_interaction import AbortSignal

__all__ = ["SIDE_BY_SIDE", "Screen", "run"]

#: From this many columns on, a preview is shown beside the options, else under them.
SIDE_BY_SIDE: Final = 100
#: How long a lone Esc waits for the rest of an escape sequence (an arrow key).
ESCAPE_WAIT: Final = 0.1

STYLE: Final = Style.from_dict(
    {
        "tab": "",
        "tab.current": "reverse bold",
        "tab.unanswered": "fg:ansiyellow",
        "header": "reverse bold",
        "counter": "fg:ansibrightblack",
        "question": "bold",
        "description": "fg:ansibrightblack",
        "focused": "bold fg:ansicyan",
        "notes": "italic",
        "unanswered": "fg:ansiyellow",
        "skipped": "fg:ansibrightblack",
        "answer": "fg:ansigreen",
        "submit": "bold",
        "hint": "fg:ansibrightblack",
        "message": "bold fg:ansired",
        "field": "bold",
        "separator": "fg:ansibrightblack",
    }
)


class Screen:
    """The layout and key bindings of one form."""

    def __init__(self, form: Form) -> None:
        self.form = form
        self.done = False
        self.buffer = Buffer(multiline=False)
        self._drawn: tuple[int, _view.Body] = (-1, _view.Body([], 0, []))
        self._field: Field | None = None
        self.body_window = Window(
            _BodyControl(self),
            wrap_lines=True,
            get_line_prefix=self._indent,
            scroll_offsets=ScrollOffsets(top=1, bottom=2),
            always_hide_cursor=True,
        )
        preview = FormattedTextControl(
            _styled(lambda: [("class:preview", _view.preview(form) or "")])
        )
        self._side_by_side = VSplit(
            [
                HSplit([self.body_window], width=Dimension(weight=1)),
                Window(width=1, char="│", style="class:separator"),
                Window(preview, wrap_lines=True, width=Dimension(weight=1)),
            ]
        )
        self._stacked = HSplit(
            [
                HSplit([self.body_window], height=Dimension(min=3, weight=2)),
                Window(height=1, char="─", style="class:separator"),
                Window(preview, wrap_lines=True, height=self._preview_height),
            ]
        )
        self.field_window = Window(BufferControl(self.buffer), height=1)
        field_label = FormattedTextControl(_styled(self._field_label))
        rule = Window(height=1, char="─", style="class:separator")
        self.layout = Layout(
            HSplit(
                [
                    ConditionalContainer(
                        Window(
                            FormattedTextControl(_styled(lambda: _view.tabs(form))),
                            wrap_lines=True,
                            dont_extend_height=True,
                        ),
                        filter=Condition(lambda: form.batch),
                    ),
                    Window(
                        FormattedTextControl(_styled(lambda: _view.title(form))),
                        wrap_lines=True,
                        dont_extend_height=True,
                        height=self._title_height,
                    ),
                    rule,
                    DynamicContainer(self._main),
                    ConditionalContainer(
                        VSplit([Window(field_label, dont_extend_width=True), self.field_window]),
                        filter=Condition(lambda: form.field is not None),
                    ),
                    rule,
                    Window(
                        FormattedTextControl(_styled(lambda: _view.footer(form))),
                        wrap_lines=True,
                        dont_extend_height=True,
                    ),
                ]
            ),
            focused_element=self.body_window,
        )
        self.key_bindings = self._bindings()

    # -- drawing -------------------------------------------------------------------------

    def body(self) -> _view.Body:
        version, drawn = self._drawn
        if version != self.form.version:
            drawn = _view.body(self.form)
            self._drawn = (self.form.version, drawn)
        return drawn

    def _indent(self, line: int, wrap_count: int) -> str:
        indents = self.body().indents
        return " " * indents[line] if wrap_count and line < len(indents) else ""

    def _main(self) -> Container:
        if _view.preview(self.form) is None:
            return self.body_window
        columns = _app_columns()
        return self._side_by_side if columns >= SIDE_BY_SIDE else self._stacked

    def _preview_height(self) -> Dimension:
        text = _view.preview(self.form) or ""
        return Dimension(min=3, max=max(3, text.count("\n") + 1), weight=1)

    def _title_height(self) -> Dimension:
        return Dimension(min=1, max=max(3, _app_rows() // 3))

    def _field_label(self) -> list[tuple[str, str]]:
        form = self.form
        if form.field is Field.NOTES:
            return [("class:field", "Notes: ")]
        return [("class:field", "Other: " if form.page.item.options else "Answer: ")]

    # -- keys ----------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        form = self.form
        bindings = KeyBindings()
        listing = Condition(lambda: form.field is None)
        typing = ~listing

        def bind(keys: tuple[str, ...], action: Callable[[], Outcome], **options: Any) -> None:
            def handler(event: KeyPressEvent) -> None:
                self.act(event, action)

            for key in keys:
                bindings.add(key, **options)(handler)

        bind(("up", "k", "c-p"), lambda: form.move(-1), filter=listing)
        bind(("down", "j", "c-n"), lambda: form.move(1), filter=listing)
        bind(("pageup",), lambda: form.move(-10), filter=listing)
        bind(("pagedown",), lambda: form.move(10), filter=listing)
        bind(("home",), lambda: form.move(-(1 << 30)), filter=listing)
        bind(("end",), lambda: form.move(1 << 30), filter=listing)
        bind(("enter",), form.enter, filter=listing)
        bind((" ",), form.space, filter=listing)
        bind(("s",), form.skip, filter=listing)
        bind(("o",), lambda: form.open(Field.CUSTOM), filter=listing)
        bind(("n",), lambda: form.open(Field.NOTES), filter=listing)
        bind(("tab", "right", "l"), form.next_tab, filter=listing)
        bind(("s-tab", "left", "h"), form.previous_tab, filter=listing)
        for digit in "0123456789":
            bind((digit,), lambda digit=digit: form.digit(digit), filter=listing)  # type: ignore[misc]
        bind(("escape",), form.cancel, filter=listing, eager=True)
        bind(("escape",), form.close_field, filter=typing, eager=True)
        bind(("enter",), lambda: form.commit(self.buffer.text), filter=typing)
        bind(("tab",), self._commit_and_next, filter=typing)
        bind(("c-c",), form.cancel, eager=True)
        return bindings

    def _commit_and_next(self) -> Outcome:
        tab = self.form.tab
        outcome = self.form.commit(self.buffer.text)
        if outcome is None and self.form.tab == tab:
            outcome = self.form.next_tab()
        return outcome

    def act(self, event: KeyPressEvent, action: Callable[[], Outcome]) -> None:
        if self.done:  # keys that came in one read with the one that ended the ask
            return
        outcome = action()
        if isinstance(outcome, AskUserQuestionAnswer):
            self.done = True
            event.app.exit(result=outcome)
        elif outcome is CANCEL:
            self.done = True
            error = UserInteractionError("The question was dismissed.", ASK_CANCELLED)
            event.app.exit(exception=error)
        else:
            self.sync(event.app)

    def sync(self, app: Application[Any]) -> None:
        """Open, fill and focus the text field as the form says, or focus the list."""
        field = self.form.field
        if field is not None and field is not self._field:
            self.buffer.set_document(Document(self.form.field_text), bypass_readonly=True)
            app.layout.focus(self.field_window)
        elif field is None and self._field is not None:
            app.layout.focus(self.body_window)
        self._field = field


class _BodyControl(UIControl):
    """The option rows: split into lines once per change of the form, not per frame (a
    question with 500 options redraws in a few milliseconds)."""

    def __init__(self, screen: Screen) -> None:
        self._screen = screen
        self._content: tuple[int, UIContent | None] = (-1, None)

    def is_focusable(self) -> bool:
        return True

    def create_content(self, width: int, height: int) -> UIContent:
        version, content = self._content
        if content is None or version != self._screen.form.version:
            body = self._screen.body()
            lines = list(split_lines(cast("StyleAndTextTuples", body.fragments)))
            if lines and not lines[-1]:
                lines.pop()  # the line break after the last row
            content = UIContent(
                get_line=lines.__getitem__,
                line_count=len(lines),
                cursor_position=Point(0, body.cursor_line),
                show_cursor=False,
            )
            self._content = (self._screen.form.version, content)
        return content


def _styled(get: Callable[[], list[tuple[str, str]]]) -> Callable[[], StyleAndTextTuples]:
    """A view function as prompt_toolkit's type for formatted text (the same tuples)."""
    return cast("Callable[[], StyleAndTextTuples]", get)


def _app_columns() -> int:
    from prompt_toolkit.application.current import get_app

    return get_app().output.get_size().columns


def _app_rows() -> int:
    from prompt_toolkit.application.current import get_app

    return get_app().output.get_size().rows


class _Gate:
    """The terminal's output stream, until :meth:`close`: from then on writes are dropped.

    An ask that ends from outside (abort, timeout, disposal) takes its screen away at
    once, before the caller goes on; whatever prompt_toolkit still draws while its task
    unwinds must not reach the terminal the caller is using again."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed = False

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        if self.closed:
            return len(text)
        return self._stream.write(text)

    def flush(self) -> None:
        if not self.closed:
            self._stream.flush()

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def close(self) -> None:
        self.closed = True


def build(
    form: Form, stdin: TextIO, stdout: TextIO
) -> tuple[Application[AskUserQuestionAnswer], Screen]:
    """The application showing ``form`` on the terminal of ``stdin`` and ``stdout``."""
    screen = Screen(form)
    no_color = bool(os.environ.get("NO_COLOR"))
    app: Application[AskUserQuestionAnswer] = Application(
        layout=screen.layout,
        key_bindings=screen.key_bindings,
        style=STYLE,
        full_screen=True,
        erase_when_done=True,
        mouse_support=False,
        input=create_input(stdin),
        output=create_output(stdout),
        color_depth=ColorDepth.DEPTH_1_BIT if no_color else None,
    )
    app.ttimeoutlen = ESCAPE_WAIT
    screen.sync(app)  # a free-text question starts with its field open
    return app, screen


async def run(
    form: Form, stdin: TextIO, stdout: TextIO, signal: AbortSignal
) -> AskUserQuestionAnswer:
    """Show ``form`` until it is answered (its answer) or dismissed (``ASK_CANCELLED``).

    Keys typed before the first frame are dropped. When ``signal`` fires, the screen goes
    away and the terminal's settings come back at once, before the caller hears of it;
    they are restored again when the application has unwound, in every case.
    """
    gate = _Gate(stdout)
    app, screen = build(form, stdin, cast("TextIO", gate))
    fd = _fileno(stdin)
    saved = _terminal_state(fd)
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()

    def before_first_frame() -> None:
        clear_typeahead(app.input)  # keys prompt_toolkit kept from an earlier application
        _flush_input(fd)  # keys typed while no question was on screen

    def take_down() -> None:
        if gate.closed:
            return
        screen.done = True  # keys still arriving change nothing
        if app.is_running:
            try:
                app.renderer.reset()  # leaves the alternate screen, shows the cursor
            except Exception:  # a terminal that went away: nothing left to clean
                pass
        gate.close()
        _restore_terminal(fd, saved)

    def on_signal() -> None:
        if threading.get_ident() == loop_thread:
            take_down()
        else:
            try:
                loop.call_soon_threadsafe(take_down)
            except RuntimeError:  # the loop is closed
                pass

    remove = signal.add_callback(on_signal)
    try:
        return await app.run_async(
            pre_run=before_first_frame, set_exception_handler=False, handle_sigint=False
        )
    except EOFError:
        raise UserInteractionError("End of input: no answer can be read.", ASK_ABORTED) from None
    finally:
        remove()
        gate.close()
        clear_typeahead(app.input)
        _restore_terminal(fd, saved)


# -- the terminal --------------------------------------------------------------------------


def _fileno(stream: object) -> int:
    try:
        return int(stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return -1


def _terminal_state(fd: int) -> list[Any] | None:
    if fd < 0:
        return None
    try:
        import termios

        return termios.tcgetattr(fd)
    except Exception:  # not a terminal, or no termios (Windows)
        return None


def _restore_terminal(fd: int, state: list[Any] | None) -> None:
    if state is None:
        return
    try:
        import termios

        termios.tcsetattr(fd, termios.TCSANOW, state)
    except Exception:  # the terminal went away
        pass


def _flush_input(fd: int) -> None:
    if fd < 0:
        return
    try:
        import termios

        termios.tcflush(fd, termios.TCIFLUSH)
    except Exception:  # not a terminal, or no termios (Windows)
        pass
