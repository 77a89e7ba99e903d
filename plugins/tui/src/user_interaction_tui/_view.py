"""How a :class:`~user_interaction_tui._form.Form` looks: styled text, no terminal library.

Every function returns prompt_toolkit "formatted text" — a list of ``(style, text)``
pairs — built from plain tuples, so this module imports nothing from prompt_toolkit and is
cheap to test. Model text always goes through :func:`user_interaction.terminal.visible`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from user_interaction.terminal import visible
from user_interaction.toolkit import clock

from ._form import Form, Page, Row, Status

if TYPE_CHECKING:
    from user_interaction import AskUserQuestionAnswer, AskUserQuestionItem

__all__ = ["Body", "body", "footer", "preview", "record", "tabs", "title", "withdrawn"]

Fragments = list[tuple[str, str]]

POINTER: Final = ">"
OTHER: Final = "Other…"
NOTES: Final = "Notes…"
_MARKS: Final = {Status.ANSWERED: "✓", Status.SKIPPED: "-", Status.UNANSWERED: "•"}


class Body(NamedTuple):
    """The scrolling part of a page: its text, the line the cursor is on, and how far
    each line's continuation is indented when it wraps."""

    fragments: Fragments
    cursor_line: int
    indents: list[int]


def header_label(page: Page) -> str:
    header = page.item.header
    return visible(header.strip()) if header and header.strip() else f"Q{page.number}"


def tabs(form: Form) -> Fragments:
    """The tab bar of a batch: one tab per question (✓ answered, - skipped, • not yet)."""
    out: Fragments = []
    for index, page in enumerate(form.pages):
        style = "class:tab.current" if index == form.tab else "class:tab"
        if page.status is Status.UNANSWERED and index != form.tab:
            style += " class:tab.unanswered"
        out.append((style, f" {_MARKS[page.status]} {header_label(page)} "))
        out.append(("", " "))
    style = "class:tab.current" if form.reviewing else "class:tab"
    out.append((style, " Review "))
    return out


def title(form: Form, time_left: float | None = None) -> Fragments:
    """Above the options: the header as a label, the question, its detail; with
    ``time_left`` (seconds), the time left to answer, on the first line."""
    timer: Fragments = []
    if time_left is not None:
        style = "class:time.soon" if time_left < 60 else "class:time"
        timer = [(style, f"⏱ {clock(time_left)} left")]
    if form.reviewing:
        out: Fragments = [("class:question", "Review your answers")]
        missing = len(form.unanswered())
        if missing:
            out.append(("class:unanswered", f"  ({missing} not answered yet)"))
        if timer:
            out += [("", "   "), *timer]
        return out
    page = form.page
    out = []
    header = page.item.header
    if header and header.strip():
        out += [("class:header", f" {visible(header.strip())} "), ("", "  ")]
    if form.batch:
        out.append(("class:counter", f"Question {page.number} of {len(form.pages)}"))
    if timer:
        out += [("", "   "), *timer] if out else timer
    if out:
        out.append(("", "\n"))
    out.append(("class:question", visible(page.item.question)))
    if page.item.detail:
        out.append(("", "\n"))
        out.append(("class:detail", visible(page.item.detail, multiline=True)))
    return out


_WITHDRAWN: Final = {
    "ASK_TIMEOUT": "the time to answer ran out",
    "PROVIDER_DISPOSED": "the agent stopped asking",
}


def withdrawn(form: Form, code: str) -> str:
    """The line left on the terminal when an ask ends from outside (timeout, abort,
    disposal): which question, and that no answer was sent."""
    first = form.pages[0].item.question.strip().splitlines()[0] if form.pages else ""
    more = f" (and {len(form.pages) - 1} more)" if len(form.pages) > 1 else ""
    why = _WITHDRAWN.get(code, "the agent withdrew the question")
    return f"✗ {visible(first)}{more} — {why}; no answer was sent."


def record(form: Form, answer: AskUserQuestionAnswer | None) -> list[str]:
    """What stays on the terminal once the screen is gone: a line per question with its
    answer (``None``: the human dismissed the ask)."""
    lines = []
    for page in form.pages:
        header = page.item.header
        label = f"[{visible(header.strip())}] " if header and header.strip() else ""
        question = label + visible(page.item.question.strip().splitlines()[0])
        if answer is None:
            lines.append(f"✗ {question} → dismissed")
            continue
        item = answer.get(page.item.id)
        if item is None or (not item.selected and item.custom is None):
            lines.append(f"- {question} → skipped")
        elif item.custom is not None:
            lines.append(f"✓ {question} → {visible(item.custom)}")
        else:
            text = ", ".join(visible(label) for label in item.selected)
            notes = f" (notes: {visible(item.notes)})" if item.notes else ""
            lines.append(f"✓ {question} → {text}{notes}")
    return lines


def body(form: Form) -> Body:
    """The option rows of a question (or the answers on the review page)."""
    return _review(form) if form.reviewing else _page(form, form.page)


def _page(form: Form, page: Page) -> Body:
    out: Fragments = []
    indents: list[int] = []
    cursor_line = 0
    options = page.item.options
    width = len(str(len(options)))
    multi = page.item.multi_select
    decisions = _approval_decisions(page.item)
    for position, row in enumerate(page.rows):
        here = position == page.cursor
        if here:
            cursor_line = len(indents)
        pointer = POINTER if here else " "
        style = "class:focused" if here else ""
        if isinstance(row, int):
            option = options[row]
            ticked = row in page.chosen
            mark = ("[x]" if ticked else "[ ]") if multi else ("(*)" if ticked else "( )")
            lead = f"{pointer} {mark} {row + 1:>{width}}. "
            text = visible(option.label)
            if option.preview and option.preview.strip():
                text += " ▸"  # the preview is shown beside (or under) the list
            decision = decisions.get(option.label, "")
            out += [(style, lead), (style + " class:label" + decision, text), ("", "\n")]
            indents.append(len(lead))
            if option.description:
                out += [("class:description", " " * len(lead) + visible(option.description))]
                out.append(("", "\n"))
                indents.append(len(lead))
        elif row is Row.OTHER:
            ticked = page.custom is not None
            mark = ("[x]" if ticked else "[ ]") if multi else ("(*)" if ticked else "( )")
            lead = f"{pointer} {mark} {' ' * (width + 2)}" if options else f"{pointer} "
            name = OTHER if options else "Your answer…"
            if page.custom is not None:
                name = ("Other: " if options else "Answer: ") + visible(page.custom)
            out += [(style, lead), (style + " class:label", name), ("", "\n")]
            indents.append(len(lead))
        else:
            lead = f"{pointer}     {' ' * (width + 2)}"
            name = NOTES if page.notes is None else f"Notes: {visible(page.notes)}"
            out += [(style, lead), (style + " class:notes", name), ("", "\n")]
            indents.append(len(lead))
    if page.skipped:
        out += [("class:unanswered", "(skipped: Enter or Space answers it after all)"), ("", "\n")]
        indents.append(0)
    return Body(out, cursor_line, indents)


def _review(form: Form) -> Body:
    out: Fragments = []
    indents: list[int] = []
    cursor_line = 0
    width = len(str(len(form.pages)))
    for index, page in enumerate(form.pages):
        here = index == form.review_cursor
        if here:
            cursor_line = len(indents)
        style = "class:focused" if here else ""
        lead = f"{POINTER if here else ' '} {page.number:>{width}}. "
        header = page.item.header
        label = f"[{visible(header.strip())}] " if header and header.strip() else ""
        out += [(style, lead + label + visible(page.item.question)), ("", "\n")]
        indents.append(len(lead))
        pad = " " * len(lead)
        status = page.status
        if status is Status.UNANSWERED:
            out += [("class:unanswered", pad + "• not answered yet")]
        elif status is Status.SKIPPED:
            out += [("class:skipped", pad + "- skipped")]
        elif page.custom is not None:
            out += [("class:answer", pad + "✓ " + visible(page.custom))]
        else:
            labels = ", ".join(visible(page.item.options[i].label) for i in page.chosen)
            out += [("class:answer", pad + "✓ " + labels)]
            if page.notes:
                out += [("class:notes", f" (notes: {visible(page.notes)})")]
        out.append(("", "\n"))
        indents.append(len(pad) + 2)
    here = form.review_cursor == len(form.pages)
    if here:
        cursor_line = len(indents) + 1
    style = "class:focused class:submit" if here else "class:submit"
    out += [("", "\n"), (style, f"{POINTER if here else ' '} Submit"), ("", "\n")]
    indents += [0, 0]
    return Body(out, cursor_line, indents)


def preview(form: Form, *, alone: bool = False) -> Body:
    """The focused option's preview, its Markdown rendered (see ``_markdown``), or a word
    that it has none (the panel stays, so the split does not jump). ``alone`` (in place
    of the options) names the option first."""
    out: Fragments = []
    row = form.page.row
    if alone and isinstance(row, int):
        label = visible(form.page.item.options[row].label)
        out += [("class:counter", f"Preview of {row + 1}. {label}"), ("", "\n")]
    text = form.focused_preview()
    if text is None:
        out.append(("class:preview.none", "No preview for this option."))
        return Body(out, 0, [0] * 2)
    from ._markdown import render  # markdown-it-py and Pygments: on the first preview

    fragments, indents = render(text)
    return Body(out + list(fragments), 0, [0] * (len(out) // 2) + list(indents))


def _keys(form: Form, preview_key: bool) -> list[tuple[str, str]]:
    """The keys of the screen, most needed first: (long form, short form). A footer too
    narrow for all of them drops the last ones (every key still works)."""
    if form.field is not None:
        keys = [("Enter: confirm", "Enter: confirm"), ("Esc: close the field", "Esc: close")]
        if form.batch:
            keys.append(("Tab: next", "Tab: next"))
        keys.append(("Ctrl-C: cancel", "Ctrl-C: cancel"))
        return keys
    if form.reviewing:
        return [
            ("↑/↓: move", "↑↓: move"),
            ("Enter: open or submit", "Enter: open/submit"),
            ("s: skip", "s: skip"),
            ("←/→: tabs", "←→: tabs"),
        ]
    page = form.page
    keys = [("↑/↓ j/k: move", "↑↓: move")]
    if page.item.multi_select:
        keys += [("Space: tick", "Space: tick"), ("Enter: done", "Enter: done")]
    else:
        keys.append(("Enter: pick", "Enter: pick"))
    if preview_key:
        keys.append(("p: options" if form.preview_open else "p: preview",) * 2)
    if form.batch:
        keys.append(("←/→ Tab: questions", "←→: questions"))
    if page.item.options:
        keys += [("o: other", "o: other"), ("n: notes", "n: notes")]
    keys.append(("s: skip", "s: skip"))
    if page.item.options:
        keys.append(("1-9: jump", "1-9: jump"))
    return keys


def footer(
    form: Form, width: int = 1 << 30, lines: int = 1, *, preview_key: bool = False
) -> Fragments:
    """The keys that work now, in at most ``lines`` lines of ``width`` cells, never cut
    inside a key (the long forms, else the short ones, else fewer keys), and the message
    of the last key, if any. With ``preview_key``, "p" shows the preview in place of the
    options (a small screen)."""
    keys = _keys(form, preview_key)
    last = [] if form.field is not None else [("Esc: cancel", "Esc: cancel")]
    packed: list[str] = []
    for count in range(len(keys), 0, -1):
        for short in (0, 1):
            packed = _pack([key[short] for key in keys[:count] + last], width)
            if len(packed) <= lines:
                break
        if len(packed) <= lines:
            break
    out: Fragments = []
    if form.message:
        out += [("class:message", form.message), ("", "\n")]
    out.append(("class:hint", "\n".join(packed[:lines])))
    return out


def _pack(items: list[str], width: int) -> list[str]:
    """``items`` joined by " · " into lines of at most ``width`` characters."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 3 + len(item) <= width:
            lines[-1] += " · " + item
        else:
            lines.append(item)
    return lines


#: An approval's choices (one question ``approve``): allowing and denying look like what
#: they are.
_DECISIONS: Final = {
    "Allow": " class:allow",
    "Always allow": " class:allow",
    "Deny": " class:deny",
    "Always deny": " class:deny",
}


def _approval_decisions(item: AskUserQuestionItem) -> dict[str, str]:
    labels = [option.label for option in item.options]
    if item.id != "approve" or item.multi_select or not labels:
        return {}
    if not all(label in _DECISIONS for label in labels):
        return {}
    return _DECISIONS
