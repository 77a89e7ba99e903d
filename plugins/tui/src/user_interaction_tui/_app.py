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
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import create_input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import (
    BufferControl,
    FormattedTextControl,
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

from . import _view, _wrap
from ._form import CANCEL, Field, Form, Outcome
from ._text import WrappedText

if TYPE_CHECKING:
    from user_interaction import AbortSignal

__all__ = ["SIDE_BY_SIDE", "Screen", "run"]

#: From this many columns on, a preview is shown beside the options, else under them.
SIDE_BY_SIDE: Final = 100
#: The share of the screen's width the options take when a preview is beside them.
LIST_SHARE: Final = 0.45
#: Under this many rows (and too narrow for a preview beside the options), a preview
#: takes the place of the options while "p" is on: a panel under them would leave room
#: for neither.
TALL: Final = 20
#: The most lines a text field grows to as its text wraps (fewer on a short screen).
FIELD_LINES: Final = 6
#: From this many rows on, the keys may take two lines (else one: fewer keys are named).
TWO_LINE_KEYS: Final = 18
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
        "allow": "bold fg:ansigreen",
        "deny": "bold fg:ansired",
        "submit": "bold",
        "hint": "fg:ansibrightblack",
        "message": "bold fg:ansired",
        "field": "bold",
        "separator": "fg:ansibrightblack",
        "more": "fg:ansibrightblack",
        "preview.none": "fg:ansibrightblack italic",
        "md.heading": "bold underline",
        "md.mark": "fg:ansicyan",
        "md.bar": "fg:ansibrightblack",
        "md.url": "fg:ansibrightblack",
        "md.code": "fg:ansiyellow",
        # code, by Pygments' token classes, in the terminal's own palette
        "pygments.keyword": "fg:ansimagenta",
        "pygments.name.builtin": "fg:ansicyan",
        "pygments.name.function": "fg:ansiblue",
        "pygments.name.class": "fg:ansiblue bold",
        "pygments.name": "",
        "pygments.literal.string": "fg:ansigreen",
        "pygments.literal.number": "fg:ansicyan",
        "pygments.comment": "fg:ansibrightblack italic",
        "pygments.operator": "",
        "pygments.punctuation": "",
        "pygments.text": "",
        "time": "fg:ansibrightblack",
        "time.soon": "bold fg:ansiyellow",
    }
)


class Screen:
    """The layout and key bindings of one form."""

    def __init__(self, form: Form, time_left: Callable[[], float | None] | None = None) -> None:
        self.form = form
        self.time_left = time_left or (lambda: None)
        self.done = False
        self.buffer = Buffer(multiline=False)
        self._drawn: tuple[int, _view.Body] = (-1, _view.Body([], 0, []))
        self._field: Field | None = None
        self.body_window = Window(
            WrappedText(self.body, key=lambda: form.version, scroll=True, focusable=True),
            wrap_lines=True,  # only what the word wrap could not fit
            always_hide_cursor=True,
        )
        preview = Window(WrappedText(lambda: _view.preview(form)), wrap_lines=True)
        self._preview_alone = Window(
            WrappedText(lambda: _view.preview(form, alone=True)), wrap_lines=True
        )
        self._side_by_side = VSplit(
            [
                HSplit([self.body_window], width=self._list_width),
                Window(width=1, char="│", style="class:separator"),
                preview,
            ]
        )
        self._stacked = HSplit(
            [
                HSplit([self.body_window], height=Dimension(min=3, weight=2)),
                Window(height=1, char="─", style="class:separator"),
                Window(
                    WrappedText(lambda: _view.preview(form)),
                    wrap_lines=True,
                    height=self._preview_height,
                ),
            ]
        )
        # a long answer wraps onto more lines (up to a few) instead of scrolling sideways
        # and showing only its tail
        self.field_window = Window(
            BufferControl(self.buffer, input_processors=[_wrap.WordWrap()]),
            wrap_lines=True,
            height=self._field_height,
            dont_extend_height=True,
        )
        self._title = WrappedText(lambda: _view.Body(_view.title(form, self.time_left()), 0, []))
        field_label = FormattedTextControl(_styled(self._field_label))
        rule = Window(height=1, char="─", style="class:separator")
        self.layout = Layout(
            HSplit(
                [
                    ConditionalContainer(
                        Window(
                            WrappedText(lambda: _view.Body(_view.tabs(form), 0, [])),
                            wrap_lines=True,
                            dont_extend_height=True,
                        ),
                        filter=Condition(lambda: form.batch),
                    ),
                    Window(
                        self._title,
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
                        WrappedText(
                            lambda: _view.Body(
                                _view.footer(
                                    form,
                                    _app_columns(),
                                    2 if _app_rows() >= TWO_LINE_KEYS else 1,
                                    preview_key=self.preview_key(),
                                ),
                                0,
                                [],
                            )
                        ),
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

    def _main(self) -> Container:
        # on a page with previews the split stays as the cursor moves, previews or not
        if not self.form.has_previews():
            return self.body_window
        if _app_columns() >= SIDE_BY_SIDE:
            return self._side_by_side
        if _app_rows() >= TALL:
            return self._stacked
        return self._preview_alone if self.form.preview_open else self.body_window

    def preview_key(self) -> bool:
        """Whether "p" shows the preview: on a small screen with no room for the panel."""
        if not self.form.has_previews() or self.form.field is not None:
            return False
        return _app_columns() < SIDE_BY_SIDE and _app_rows() < TALL

    def _list_width(self) -> Dimension:
        """A share of the screen, whatever the previews hold: a wide one neither crushes
        the options nor makes the split jump as the cursor moves."""
        return Dimension.exact(max(24, int(_app_columns() * LIST_SHARE)))

    def _preview_height(self) -> Dimension:
        lines, _ = _wrap.wrap(_view.preview(self.form).fragments, _app_columns())
        return Dimension(min=3, max=max(3, len(lines)), weight=1)

    def _field_height(self) -> Dimension:
        return Dimension(min=1, max=max(1, min(FIELD_LINES, _app_rows() // 3)))

    def _title_height(self) -> Dimension:
        """As tall as the question, up to two fifths of the screen (then it says how many
        lines are left out); the options make do with the rest."""
        cap = max(3, _app_rows() * 2 // 5)
        wanted = self._title.preferred_height(_app_columns(), cap, True, None) or 1
        return Dimension(min=min(wanted, cap), max=cap, preferred=wanted)

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
        bind(("p",), form.toggle_preview, filter=listing & Condition(self.preview_key))
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
    form: Form,
    stdin: TextIO,
    stdout: TextIO,
    time_left: Callable[[], float | None] | None = None,
) -> tuple[Application[AskUserQuestionAnswer], Screen]:
    """The application showing ``form`` on the terminal of ``stdin`` and ``stdout``;
    with ``time_left`` (seconds, or ``None`` for no limit) a countdown, redrawn each
    second."""
    screen = Screen(form, time_left)
    counting = time_left is not None and time_left() is not None
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
        refresh_interval=1.0 if counting else None,
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
    app, screen = build(form, stdin, cast("TextIO", gate), signal.time_left)
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
        # the question does not just vanish: a line in the scrollback says what happened
        try:
            stdout.write(_view.withdrawn(form, signal.error().code) + "\n")
            stdout.flush()
        except Exception:  # a terminal that went away: nobody to tell
            pass

    def on_signal() -> None:
        if threading.get_ident() == loop_thread:
            take_down()
        else:
            try:
                loop.call_soon_threadsafe(take_down)
            except RuntimeError:  # the loop is closed
                pass

    remove = signal.add_callback(on_signal)
    record: list[str] = []
    columns = app.output.get_size().columns  # the record is wrapped to it, between words
    try:
        answer = await app.run_async(
            pre_run=before_first_frame, set_exception_handler=False, handle_sigint=False
        )
        record = _view.record(form, answer)
        return answer
    except EOFError:
        raise UserInteractionError("End of input: no answer can be read.", ASK_ABORTED) from None
    except UserInteractionError as error:
        if error.code == ASK_CANCELLED and not signal.aborted:
            record = _view.record(form, None)
        raise
    finally:
        remove()
        gate.close()
        clear_typeahead(app.input)
        _restore_terminal(fd, saved)
        # the screen is gone: what was asked and answered stays in the scrollback
        if record:
            lines = [row for line in record for row in _wrap.record_rows(line, columns)]
            try:
                stdout.write("".join(line + "\n" for line in lines))
                stdout.flush()
            except Exception:  # a terminal that went away: nobody to tell
                pass


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
